//! Partial shapes and element types as written in IR attributes.
//!
//! The shape grammar follows OpenVINO's IR front end (`strToPartialShape` /
//! `strToDimension`): an optional pair of surrounding brackets, then a comma list of
//! dims, each trimmed of spaces:
//!
//! * `n` (an integer >= 0): the static dim `n`;
//! * `?` or `-1`: a fully dynamic dim `[0, inf)`;
//! * `a..b`: the interval `[a, b]`; `..b` is `[0, b]`; `a..` is `[a, inf)`;
//!   `..` alone is `[0, inf)`;
//! * the whole attribute `...` means dynamic rank;
//! * the empty string is rank 0 (a scalar).
//!
//! Differences from OpenVINO, on purpose: a field that merely *contains* `?` or `...`
//! is an error here (OpenVINO treats any field containing `?` as dynamic and any
//! attribute containing `...` as dynamic rank), negative bounds other than the lone
//! `-1` are errors, and an interval with `a > b` is an error instead of an empty
//! interval.

use std::fmt;

/// The default cap on the rank of a parsed shape.
pub const DEFAULT_MAX_RANK: usize = 64;

/// One dimension of a [`PartialShape`]: the interval `[lo, hi]`, `hi = None` meaning
/// unbounded. A static dim has `hi == Some(lo)`; `?` is `{ lo: 0, hi: None }`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DimSpec {
    /// Lower bound (inclusive, >= 0).
    pub lo: i64,
    /// Upper bound (inclusive), or `None` for unbounded.
    pub hi: Option<i64>,
}

impl DimSpec {
    /// The fully dynamic dim `?` = `[0, inf)`.
    pub const DYNAMIC: DimSpec = DimSpec { lo: 0, hi: None };

    /// A static dim.
    pub fn fixed(n: i64) -> Self {
        DimSpec { lo: n, hi: Some(n) }
    }

    /// `Some(n)` if this dim is the static value `n`.
    pub fn as_static(&self) -> Option<i64> {
        match self.hi {
            Some(h) if h == self.lo => Some(h),
            _ => None,
        }
    }

    /// Whether this is `?` (no information at all).
    pub fn is_fully_dynamic(&self) -> bool {
        self.lo == 0 && self.hi.is_none()
    }
}

impl fmt::Display for DimSpec {
    /// OpenVINO's notation: `3`, `?`, `1..4`, `..4`, `2..`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.lo, self.hi) {
            (l, Some(h)) if l == h => write!(f, "{l}"),
            (0, None) => f.write_str("?"),
            (0, Some(h)) => write!(f, "..{h}"),
            (l, None) => write!(f, "{l}.."),
            (l, Some(h)) => write!(f, "{l}..{h}"),
        }
    }
}

/// A shape that may be partly unknown, as in a Parameter's `shape` attribute.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PartialShape {
    /// Dynamic rank (`...`).
    Dynamic,
    /// Known rank; each dim may be static, an interval or `?`.
    Ranked(Vec<DimSpec>),
}

impl PartialShape {
    /// The rank, if known.
    pub fn rank(&self) -> Option<usize> {
        match self {
            PartialShape::Dynamic => None,
            PartialShape::Ranked(d) => Some(d.len()),
        }
    }

    /// The dims as plain integers if every dim is static.
    pub fn to_static(&self) -> Option<Vec<i64>> {
        match self {
            PartialShape::Dynamic => None,
            PartialShape::Ranked(d) => d.iter().map(DimSpec::as_static).collect(),
        }
    }

    /// Parse the IR shape notation (see the module docs), capping the rank at `max_rank`.
    pub fn parse(text: &str, max_rank: usize) -> Result<PartialShape, ShapeError> {
        parse_partial_shape(text, max_rank)
    }
}

impl fmt::Display for PartialShape {
    /// OpenVINO's notation: `[?,3,1..4]`, `[...]`, `[]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PartialShape::Dynamic => f.write_str("[...]"),
            PartialShape::Ranked(d) => {
                f.write_str("[")?;
                for (i, x) in d.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{x}")?;
                }
                f.write_str("]")
            }
        }
    }
}

/// Why a shape attribute does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShapeError {
    /// A comma-separated field is empty (e.g. `1,,2`).
    #[error("dim {index} is empty")]
    EmptyDim {
        /// Position of the field.
        index: usize,
    },
    /// A field is not one of the accepted dim forms.
    #[error("dim {index} = {text:?} is not an integer, `?`, or an interval")]
    InvalidDim {
        /// Position of the field.
        index: usize,
        /// The field text.
        text: String,
    },
    /// A bound is negative (only the lone `-1` is accepted, meaning `?`).
    #[error("dim {index} = {text:?} has a negative bound")]
    NegativeBound {
        /// Position of the field.
        index: usize,
        /// The field text.
        text: String,
    },
    /// An interval `a..b` with `a > b`.
    #[error("dim {index}: interval {lo}..{hi} is empty")]
    EmptyInterval {
        /// Position of the field.
        index: usize,
        /// Lower bound.
        lo: i64,
        /// Upper bound.
        hi: i64,
    },
    /// More dims than the rank cap.
    #[error("rank exceeds the limit of {max}")]
    RankTooLarge {
        /// The cap.
        max: usize,
    },
}

fn parse_bound(s: &str, index: usize, field: &str) -> Result<Option<i64>, ShapeError> {
    let s = s.trim();
    if s.is_empty() {
        return Ok(None);
    }
    let v: i64 = s.parse().map_err(|_| ShapeError::InvalidDim {
        index,
        text: field.to_string(),
    })?;
    if v < 0 {
        return Err(ShapeError::NegativeBound {
            index,
            text: field.to_string(),
        });
    }
    Ok(Some(v))
}

fn parse_dim(field: &str, index: usize) -> Result<DimSpec, ShapeError> {
    let t = field.trim();
    if t.is_empty() {
        return Err(ShapeError::EmptyDim { index });
    }
    if t == "?" || t == "-1" {
        return Ok(DimSpec::DYNAMIC);
    }
    if let Some(pos) = t.find("..") {
        let (a, b) = (&t[..pos], &t[pos + 2..]);
        if b.contains("..") {
            return Err(ShapeError::InvalidDim {
                index,
                text: field.to_string(),
            });
        }
        let lo = parse_bound(a, index, field)?.unwrap_or(0);
        let hi = parse_bound(b, index, field)?;
        if let Some(h) = hi {
            if lo > h {
                return Err(ShapeError::EmptyInterval { index, lo, hi: h });
            }
        }
        return Ok(DimSpec { lo, hi });
    }
    match parse_bound(t, index, field)? {
        Some(v) => Ok(DimSpec::fixed(v)),
        None => Err(ShapeError::EmptyDim { index }),
    }
}

/// Parse the IR shape notation (see the module docs), capping the rank at `max_rank`.
pub fn parse_partial_shape(text: &str, max_rank: usize) -> Result<PartialShape, ShapeError> {
    let mut t = text.trim();
    if t.len() >= 2 && t.starts_with('[') && t.ends_with(']') {
        t = t[1..t.len() - 1].trim();
    }
    if t == "..." {
        return Ok(PartialShape::Dynamic);
    }
    if t.is_empty() {
        return Ok(PartialShape::Ranked(Vec::new()));
    }
    let mut dims = Vec::new();
    for (index, field) in t.split(',').enumerate() {
        if index >= max_rank {
            return Err(ShapeError::RankTooLarge { max: max_rank });
        }
        dims.push(parse_dim(field, index)?);
    }
    Ok(PartialShape::Ranked(dims))
}

/// An OpenVINO element type (`ov::element::Type`), as named in `element_type`
/// attributes (`f32`, `i64`, ...) or in legacy port `precision` attributes (`FP32`, `I64`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ElementType {
    /// `dynamic` / `undefined`: not specified.
    Dynamic,
    /// `boolean`, stored as one byte per element.
    Boolean,
    /// bfloat16.
    Bf16,
    /// IEEE half.
    F16,
    /// IEEE single.
    F32,
    /// IEEE double.
    F64,
    /// 8-bit float, 4-bit exponent.
    F8E4M3,
    /// 8-bit float, 5-bit exponent.
    F8E5M2,
    /// 8-bit exponent-only scale.
    F8E8M0,
    /// 4-bit float.
    F4E2M1,
    /// 4-bit NormalFloat.
    Nf4,
    /// 4-bit signed.
    I4,
    /// 8-bit signed.
    I8,
    /// 16-bit signed.
    I16,
    /// 32-bit signed.
    I32,
    /// 64-bit signed.
    I64,
    /// 1-bit unsigned.
    U1,
    /// 2-bit unsigned.
    U2,
    /// 3-bit unsigned.
    U3,
    /// 4-bit unsigned.
    U4,
    /// 6-bit unsigned.
    U6,
    /// 8-bit unsigned.
    U8,
    /// 16-bit unsigned.
    U16,
    /// 32-bit unsigned.
    U32,
    /// 64-bit unsigned.
    U64,
    /// `string` (packed string tensors; not readable by the numeric readers).
    String,
}

impl ElementType {
    /// Parse a type name, case-insensitively, accepting both the `element_type`
    /// spelling (`f32`, `boolean`) and the legacy `precision` one (`FP32`, `BOOL`).
    pub fn parse(name: &str) -> Option<ElementType> {
        use ElementType::*;
        let lower = name.trim().to_ascii_lowercase();
        Some(match lower.as_str() {
            "dynamic" | "undefined" | "unspecified" => Dynamic,
            "boolean" | "bool" => Boolean,
            "bf16" => Bf16,
            "f16" | "fp16" => F16,
            "f32" | "fp32" => F32,
            "f64" | "fp64" => F64,
            "f8e4m3" => F8E4M3,
            "f8e5m2" => F8E5M2,
            "f8e8m0" => F8E8M0,
            "f4e2m1" => F4E2M1,
            "nf4" => Nf4,
            "i4" => I4,
            "i8" => I8,
            "i16" => I16,
            "i32" => I32,
            "i64" => I64,
            "u1" | "bin" => U1,
            "u2" => U2,
            "u3" => U3,
            "u4" => U4,
            "u6" => U6,
            "u8" => U8,
            "u16" => U16,
            "u32" => U32,
            "u64" => U64,
            "string" => String,
            _ => return None,
        })
    }

    /// The canonical lower-case name (`f32`, `boolean`, ...).
    pub fn name(self) -> &'static str {
        use ElementType::*;
        match self {
            Dynamic => "dynamic",
            Boolean => "boolean",
            Bf16 => "bf16",
            F16 => "f16",
            F32 => "f32",
            F64 => "f64",
            F8E4M3 => "f8e4m3",
            F8E5M2 => "f8e5m2",
            F8E8M0 => "f8e8m0",
            F4E2M1 => "f4e2m1",
            Nf4 => "nf4",
            I4 => "i4",
            I8 => "i8",
            I16 => "i16",
            I32 => "i32",
            I64 => "i64",
            U1 => "u1",
            U2 => "u2",
            U3 => "u3",
            U4 => "u4",
            U6 => "u6",
            U8 => "u8",
            U16 => "u16",
            U32 => "u32",
            U64 => "u64",
            String => "string",
        }
    }

    /// Bits per element in the weights file, or `None` for `dynamic` and `string`.
    pub fn bit_width(self) -> Option<u64> {
        use ElementType::*;
        Some(match self {
            Dynamic | String => return None,
            U1 => 1,
            U2 => 2,
            U3 => 3,
            I4 | U4 | Nf4 | F4E2M1 => 4,
            U6 => 6,
            Boolean | I8 | U8 | F8E4M3 | F8E5M2 | F8E8M0 => 8,
            Bf16 | F16 | I16 | U16 => 16,
            F32 | I32 | U32 => 32,
            F64 | I64 | U64 => 64,
        })
    }

    /// Whether the type is an integral type (booleans included).
    pub fn is_integral(self) -> bool {
        use ElementType::*;
        matches!(
            self,
            Boolean | I4 | I8 | I16 | I32 | I64 | U1 | U2 | U3 | U4 | U6 | U8 | U16 | U32 | U64
        )
    }
}

impl fmt::Display for ElementType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Result<PartialShape, ShapeError> {
        parse_partial_shape(s, DEFAULT_MAX_RANK)
    }

    #[test]
    fn shape_forms() {
        assert_eq!(p("...").unwrap(), PartialShape::Dynamic);
        assert_eq!(p("[...]").unwrap(), PartialShape::Dynamic);
        assert_eq!(p("").unwrap(), PartialShape::Ranked(vec![]));
        assert_eq!(p("?,3, 224,-1").unwrap().to_string(), "[?,3,224,?]");
        assert_eq!(
            p("1..16,3,48,100..400").unwrap().to_string(),
            "[1..16,3,48,100..400]"
        );
        assert_eq!(
            p("..5,2..,..").unwrap(),
            PartialShape::Ranked(vec![
                DimSpec { lo: 0, hi: Some(5) },
                DimSpec { lo: 2, hi: None },
                DimSpec::DYNAMIC
            ])
        );
        assert_eq!(
            p("258, 1, 256").unwrap().to_static(),
            Some(vec![258, 1, 256])
        );
    }

    #[test]
    fn shape_errors() {
        assert_eq!(p("1,,2"), Err(ShapeError::EmptyDim { index: 1 }));
        assert!(matches!(
            p("1,x"),
            Err(ShapeError::InvalidDim { index: 1, .. })
        ));
        assert!(matches!(p("-2"), Err(ShapeError::NegativeBound { .. })));
        assert!(matches!(p("1..-1"), Err(ShapeError::NegativeBound { .. })));
        assert_eq!(
            p("5..2"),
            Err(ShapeError::EmptyInterval {
                index: 0,
                lo: 5,
                hi: 2
            })
        );
        assert!(matches!(p("1....2"), Err(ShapeError::InvalidDim { .. })));
        assert!(matches!(p("1,..."), Err(ShapeError::InvalidDim { .. })));
        assert!(matches!(
            p("99999999999999999999"),
            Err(ShapeError::InvalidDim { .. })
        ));
        let long = vec!["1"; 65].join(",");
        assert_eq!(p(&long), Err(ShapeError::RankTooLarge { max: 64 }));
    }

    #[test]
    fn element_types() {
        assert_eq!(ElementType::parse("FP32"), Some(ElementType::F32));
        assert_eq!(ElementType::parse("i64"), Some(ElementType::I64));
        assert_eq!(ElementType::parse("BOOL"), Some(ElementType::Boolean));
        assert_eq!(ElementType::parse("q7"), None);
        assert_eq!(ElementType::U4.bit_width(), Some(4));
    }
}
