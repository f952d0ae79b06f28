//! `symdim cost --plot`: a [`CostPlot`] as an SVG a browser opens, drawn with the
//! `plotters` crate. Two panels share the x axis (the plotted symbol): the peak of
//! live activation bytes above, the total MACs below, each a line through the
//! evaluated points with its formula in the caption. The same plot gives the same
//! bytes.

use crate::analyses::cost::plot::{CostPlot, Series};
use plotters::prelude::*;

/// The picture's size in pixels.
const SIZE: (u32, u32) = (960, 720);

impl CostPlot {
    /// The SVG document.
    pub fn to_svg(&self) -> String {
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, SIZE).into_drawing_area();
            // Drawing into a string fails only on a backend error, which the string
            // backend does not have; a failed panel is left blank.
            let _ = root.fill(&WHITE);
            let binds = if self.binds.is_empty() {
                String::new()
            } else {
                let b: Vec<String> = self
                    .binds
                    .iter()
                    .map(|(n, v)| format!("{n} = {v}"))
                    .collect();
                format!(" ({})", b.join(", "))
            };
            let title = format!("{}: cost against {}{binds}", self.model, self.symbol);
            let root = root
                .titled(&title, ("sans-serif", 18))
                .unwrap_or_else(|_| root.clone());
            let panels = root.split_evenly((2, 1));
            let drawn = [
                (&self.peak_bytes, "peak live activation bytes", &RED),
                (&self.macs, "MACs", &BLUE),
            ];
            for (area, (series, what, color)) in panels.iter().zip(drawn) {
                if let Some(s) = series {
                    let _ = panel(area, s, what, &self.symbol, color);
                }
            }
            let _ = root.present();
        }
        out
    }
}

/// One figure's panel: a line through its points, its formula in the caption.
fn panel(
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    s: &Series,
    what: &str,
    symbol: &str,
    color: &RGBColor,
) -> Result<(), Box<dyn std::error::Error>> {
    let xs: Vec<f64> = s.points.iter().map(|(x, _)| *x as f64).collect();
    let ys: Vec<f64> = s.points.iter().map(|(_, y)| y.to_f64()).collect();
    let (x0, x1) = match (xs.first(), xs.last()) {
        (Some(a), Some(b)) if a < b => (*a, *b),
        (Some(a), _) => (*a - 0.5, *a + 0.5),
        _ => (0.0, 1.0),
    };
    let top = ys.iter().copied().fold(0.0f64, f64::max);
    let top = if top > 0.0 { top * 1.05 } else { 1.0 };
    let caption = format!("{what} = {}", shortened(&s.formula));
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 14))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(90)
        .build_cartesian_2d(x0..x1, 0.0..top)?;
    chart
        .configure_mesh()
        .x_desc(symbol)
        .y_desc(what)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.3e}"))
        .draw()?;
    chart.draw_series(LineSeries::new(
        xs.iter().copied().zip(ys.iter().copied()),
        color,
    ))?;
    Ok(())
}

/// The most characters of a formula a caption shows.
const CAPTION_CHARS: usize = 110;

/// `formula`, cut to [`CAPTION_CHARS`] characters with `...` when longer (the
/// report prints it whole).
fn shortened(formula: &str) -> String {
    if formula.chars().count() <= CAPTION_CHARS {
        return formula.to_string();
    }
    let cut: String = formula.chars().take(CAPTION_CHARS).collect();
    format!("{cut}...")
}
