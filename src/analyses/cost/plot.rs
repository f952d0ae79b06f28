//! The data of `symdim cost MODEL --plot NAME=LO..HI`: the peak of live activation
//! bytes and the total MACs at values of one input symbol from `LO` to `HI`, every
//! other symbol the formulas name at its `--bind` value. The figures are the
//! report's formulas evaluated by the algebra; `report::plot` draws them.
//!
//! At most [`MAX_PLOT_POINTS`] values are evaluated, evenly spread over the range
//! and holding both ends, so the work follows the point count, never the range's
//! width.

use super::{Cost, Figure, MAX_EVAL_DEPTH};
use crate::algebra::{Poly, Rat, SymbolKind};

/// The most values of the plotted symbol a plot evaluates.
pub const MAX_PLOT_POINTS: usize = 256;

/// What to plot against: `symbol` from `lo` to `hi`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlotRequest {
    /// The input symbol on the x axis.
    pub symbol: String,
    /// The least value.
    pub lo: i64,
    /// The greatest value.
    pub hi: i64,
}

/// One plotted figure: its formula and its values at the sampled points (a point
/// where the formula is undefined or past the algebra's constant size is left out).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Series {
    /// The formula, in the report grammar.
    pub formula: String,
    /// `(x, value)` in increasing `x`.
    pub points: Vec<(i64, Rat)>,
}

/// What a plot shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CostPlot {
    /// The model's path.
    pub model: String,
    /// The symbol on the x axis.
    pub symbol: String,
    /// The values of the other symbols.
    pub binds: Vec<(String, i64)>,
    /// The peak of live activation bytes (`None`: not sized).
    pub peak_bytes: Option<Series>,
    /// The total MACs (`None`: no formula).
    pub macs: Option<Series>,
}

/// Why a plot cannot be made (a usage error).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlotError {
    /// The symbol is not one the cost report names.
    #[error(
        "--plot {symbol}=..: `{symbol}` is not a symbol of the cost report (its symbols: {known})"
    )]
    NotASymbol {
        /// The symbol asked for.
        symbol: String,
        /// The report's symbols, comma-separated.
        known: String,
    },
    /// `lo > hi`, or a bound missing.
    #[error("--plot {symbol}={lo}..{hi}: the range is empty")]
    Empty {
        /// The symbol.
        symbol: String,
        /// The least value.
        lo: i64,
        /// The greatest value.
        hi: i64,
    },
    /// Another symbol of the formulas has no value.
    #[error("--plot {symbol}=..: the other symbols need values: --bind {}", missing.iter().map(|m| format!("{m}=INT")).collect::<Vec<_>>().join(" --bind "))]
    Unbound {
        /// The plotted symbol.
        symbol: String,
        /// The symbols without a value.
        missing: Vec<String>,
    },
    /// Neither the peak nor the MACs have a formula.
    #[error("--plot: the model has neither a peak nor a MACs formula to plot")]
    Nothing,
}

/// The values a plot evaluates: every integer of `lo..=hi` when there are at most
/// [`MAX_PLOT_POINTS`], else that many evenly spread ones, both ends included.
pub fn sample_values(lo: i64, hi: i64) -> Vec<i64> {
    let width = i128::from(hi) - i128::from(lo);
    if width < 0 {
        return Vec::new();
    }
    if width < MAX_PLOT_POINTS as i128 {
        return (lo..=hi).collect();
    }
    let steps = MAX_PLOT_POINTS as i128 - 1;
    let mut out: Vec<i64> = (0..=steps)
        .map(|i| (i128::from(lo) + width * i / steps) as i64)
        .collect();
    out.dedup();
    out
}

impl Cost {
    /// The plot of the peak and the MACs against `request.symbol`, the other
    /// symbols at the report's binds.
    pub fn plot(&self, request: &PlotRequest) -> Result<CostPlot, PlotError> {
        let symbol = &request.symbol;
        if !self.symbols.contains_key(symbol) {
            let known: Vec<&str> = self.symbols.keys().map(String::as_str).collect();
            return Err(PlotError::NotASymbol {
                symbol: symbol.clone(),
                known: known.join(", "),
            });
        }
        if request.lo > request.hi {
            return Err(PlotError::Empty {
                symbol: symbol.clone(),
                lo: request.lo,
                hi: request.hi,
            });
        }
        let figures = [&self.totals.peak_bytes, &self.totals.macs];
        if figures.iter().all(|f| f.is_none()) {
            return Err(PlotError::Nothing);
        }
        // Every symbol the figures name, through derived definitions, needs a value.
        let mut missing = Vec::new();
        for f in figures.into_iter().flatten() {
            self.unbound(f.expr.poly(), symbol, &mut missing, 0);
        }
        if !missing.is_empty() {
            return Err(PlotError::Unbound {
                symbol: symbol.clone(),
                missing,
            });
        }
        let xs = sample_values(request.lo, request.hi);
        let series = |f: &Option<Figure>| {
            f.as_ref().map(|f| Series {
                formula: f.expr.to_string(),
                points: xs
                    .iter()
                    .filter_map(|&x| Some((x, self.value(f.expr.poly(), symbol, x, 0)?)))
                    .collect(),
            })
        };
        Ok(CostPlot {
            model: self.model.clone(),
            symbol: symbol.clone(),
            binds: self.binds.clone(),
            peak_bytes: series(&self.totals.peak_bytes),
            macs: series(&self.totals.macs),
        })
    }

    /// The symbols of `p` (through derived definitions) other than `symbol` with
    /// no bind, added to `out` once each.
    fn unbound(&self, p: &Poly, symbol: &str, out: &mut Vec<String>, depth: usize) {
        let mut syms = Vec::new();
        p.symbols(&mut syms);
        for s in syms {
            let name = s.as_str();
            if name == symbol || self.binds.iter().any(|(b, _)| b == name) {
                continue;
            }
            match self.symbols.get(name) {
                Some(SymbolKind::Derived { definition }) if depth < MAX_EVAL_DEPTH => {
                    self.unbound(definition, symbol, out, depth + 1);
                }
                _ => {
                    if !out.iter().any(|m| m == name) {
                        out.push(name.to_string());
                    }
                }
            }
        }
    }

    /// `p` at `symbol = x` and the binds, derived symbols through their
    /// definitions ([`MAX_EVAL_DEPTH`] deep).
    fn value(&self, p: &Poly, symbol: &str, x: i64, depth: usize) -> Option<Rat> {
        if depth > MAX_EVAL_DEPTH {
            return None;
        }
        p.eval(&|s: egg::Symbol| {
            let name = s.as_str();
            if name == symbol {
                return Some(Rat::int(x));
            }
            if let Some((_, v)) = self.binds.iter().find(|(b, _)| b == name) {
                return Some(Rat::int(*v));
            }
            match self.symbols.get(name) {
                Some(SymbolKind::Derived { definition }) => {
                    self.value(definition, symbol, x, depth + 1)
                }
                _ => None,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_hold_both_ends_and_never_follow_the_width() {
        assert_eq!(sample_values(3, 7), vec![3, 4, 5, 6, 7]);
        assert_eq!(sample_values(5, 5), vec![5]);
        assert!(sample_values(6, 5).is_empty());
        for (lo, hi) in [
            (1, 256),
            (1, 257),
            (1, 1 << 20),
            (0, i64::MAX),
            (i64::MIN, i64::MAX),
        ] {
            let xs = sample_values(lo, hi);
            assert!(xs.len() <= MAX_PLOT_POINTS, "{lo}..{hi}");
            assert_eq!((xs[0], *xs.last().unwrap()), (lo, hi));
            assert!(xs.windows(2).all(|w| w[0] < w[1]), "{lo}..{hi} increases");
        }
    }
}
