//! Element types. The enumeration and numbering are ONNX's `TensorProto.DataType`, the
//! widest of the three formats; the OpenVINO and oneDNN readers map their types onto it.

use std::fmt;

macro_rules! data_types {
    ($( $(#[$doc:meta])* $variant:ident = $num:literal, $short:literal, $bits:expr; )*) => {
        /// An ONNX element type, `TensorProto.DataType` in `onnx.proto` (all values up to
        /// `FLOAT6E3M2 = 28`). Numbers this reader does not know are kept as
        /// [`DType::Unknown`].
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum DType {
            $( $(#[$doc])* $variant, )*
            /// A number not defined by the `onnx.proto` this reader follows.
            Unknown(i32),
        }

        impl DType {
            /// The type for an `onnx.proto` number; unknown numbers give [`DType::Unknown`].
            pub fn from_i32(n: i32) -> DType {
                match n {
                    $( $num => DType::$variant, )*
                    other => DType::Unknown(other),
                }
            }

            /// The `onnx.proto` number.
            pub fn to_i32(self) -> i32 {
                match self {
                    $( DType::$variant => $num, )*
                    DType::Unknown(n) => n,
                }
            }

            /// The short name used by symdim (`f32`, `i64`, `bf16`, `f8e4m3fn`, ...);
            /// `"undefined"` for 0 and `"unknown"` for numbers this reader does not know.
            pub fn short_name(self) -> &'static str {
                match self {
                    $( DType::$variant => $short, )*
                    DType::Unknown(_) => "unknown",
                }
            }

            /// The type for a short name, the inverse of [`DType::short_name`].
            pub fn from_short_name(name: &str) -> Option<DType> {
                match name {
                    $( $short => Some(DType::$variant), )*
                    _ => None,
                }
            }

            /// Bits per element in `raw_data`; `None` for strings, `UNDEFINED` and unknown types.
            pub fn bit_width(self) -> Option<u32> {
                match self {
                    $( DType::$variant => $bits, )*
                    DType::Unknown(_) => None,
                }
            }
        }
    };
}

data_types! {
    /// 0: no type given.
    Undefined = 0, "undefined", None;
    /// 1: 32-bit IEEE float.
    Float = 1, "f32", Some(32);
    /// 2: unsigned 8-bit integer.
    Uint8 = 2, "u8", Some(8);
    /// 3: signed 8-bit integer.
    Int8 = 3, "i8", Some(8);
    /// 4: unsigned 16-bit integer.
    Uint16 = 4, "u16", Some(16);
    /// 5: signed 16-bit integer.
    Int16 = 5, "i16", Some(16);
    /// 6: signed 32-bit integer.
    Int32 = 6, "i32", Some(32);
    /// 7: signed 64-bit integer.
    Int64 = 7, "i64", Some(64);
    /// 8: byte string.
    String = 8, "string", None;
    /// 9: boolean.
    Bool = 9, "bool", Some(8);
    /// 10: IEEE half float.
    Float16 = 10, "f16", Some(16);
    /// 11: 64-bit IEEE float.
    Double = 11, "f64", Some(64);
    /// 12: unsigned 32-bit integer.
    Uint32 = 12, "u32", Some(32);
    /// 13: unsigned 64-bit integer.
    Uint64 = 13, "u64", Some(64);
    /// 14: complex of two f32.
    Complex64 = 14, "c64", Some(64);
    /// 15: complex of two f64.
    Complex128 = 15, "c128", Some(128);
    /// 16: brain float 16.
    Bfloat16 = 16, "bf16", Some(16);
    /// 17: float8 e4m3, finite (NaN, no inf).
    Float8E4M3FN = 17, "f8e4m3fn", Some(8);
    /// 18: float8 e4m3, finite, unsigned zero.
    Float8E4M3FNUZ = 18, "f8e4m3fnuz", Some(8);
    /// 19: float8 e5m2.
    Float8E5M2 = 19, "f8e5m2", Some(8);
    /// 20: float8 e5m2, finite, unsigned zero.
    Float8E5M2FNUZ = 20, "f8e5m2fnuz", Some(8);
    /// 21: unsigned 4-bit integer, two per byte.
    Uint4 = 21, "u4", Some(4);
    /// 22: signed 4-bit integer, two per byte.
    Int4 = 22, "i4", Some(4);
    /// 23: float4 e2m1, two per byte.
    Float4E2M1 = 23, "f4e2m1", Some(4);
    /// 24: float8 e8m0 (exponent only).
    Float8E8M0 = 24, "f8e8m0", Some(8);
    /// 25: unsigned 2-bit integer, four per byte.
    Uint2 = 25, "u2", Some(2);
    /// 26: signed 2-bit integer, four per byte.
    Int2 = 26, "i2", Some(2);
    /// 27: float6 e2m3.
    Float6E2M3 = 27, "f6e2m3", Some(6);
    /// 28: float6 e3m2.
    Float6E3M2 = 28, "f6e3m2", Some(6);
}

impl DType {
    /// The upper-case name used in `onnx.proto` (`FLOAT`, `INT64`, ...), or `None` for unknown.
    pub fn onnx_name(self) -> Option<&'static str> {
        Some(match self {
            DType::Undefined => "UNDEFINED",
            DType::Float => "FLOAT",
            DType::Uint8 => "UINT8",
            DType::Int8 => "INT8",
            DType::Uint16 => "UINT16",
            DType::Int16 => "INT16",
            DType::Int32 => "INT32",
            DType::Int64 => "INT64",
            DType::String => "STRING",
            DType::Bool => "BOOL",
            DType::Float16 => "FLOAT16",
            DType::Double => "DOUBLE",
            DType::Uint32 => "UINT32",
            DType::Uint64 => "UINT64",
            DType::Complex64 => "COMPLEX64",
            DType::Complex128 => "COMPLEX128",
            DType::Bfloat16 => "BFLOAT16",
            DType::Float8E4M3FN => "FLOAT8E4M3FN",
            DType::Float8E4M3FNUZ => "FLOAT8E4M3FNUZ",
            DType::Float8E5M2 => "FLOAT8E5M2",
            DType::Float8E5M2FNUZ => "FLOAT8E5M2FNUZ",
            DType::Uint4 => "UINT4",
            DType::Int4 => "INT4",
            DType::Float4E2M1 => "FLOAT4E2M1",
            DType::Float8E8M0 => "FLOAT8E8M0",
            DType::Uint2 => "UINT2",
            DType::Int2 => "INT2",
            DType::Float6E2M3 => "FLOAT6E2M3",
            DType::Float6E3M2 => "FLOAT6E3M2",
            DType::Unknown(_) => return None,
        })
    }

    /// Whether the type is an integer type (including `BOOL`).
    pub fn is_integer(self) -> bool {
        matches!(
            self,
            DType::Uint8
                | DType::Int8
                | DType::Uint16
                | DType::Int16
                | DType::Int32
                | DType::Int64
                | DType::Bool
                | DType::Uint32
                | DType::Uint64
                | DType::Uint4
                | DType::Int4
                | DType::Uint2
                | DType::Int2
        )
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DType::Unknown(n) => write!(f, "unknown({n})"),
            other => f.write_str(other.short_name()),
        }
    }
}

/// IEEE 754 binary16 (`f16`) bits to `f64`, exactly.
pub fn f16_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((h >> 10) & 0x1f);
    let frac = f64::from(h & 0x3ff);
    sign * match exp {
        0 => frac * (2f64).powi(-24),
        31 if frac == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        e => (1.0 + frac / 1024.0) * (2f64).powi(e - 15),
    }
}

/// bfloat16 bits (the high half of an `f32`) to `f64`, exactly.
pub fn bf16_to_f64(h: u16) -> f64 {
    f64::from(f32::from_bits(u32::from(h) << 16))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_floats() {
        assert_eq!(f16_to_f64(0x3c00), 1.0);
        assert_eq!(f16_to_f64(0xc000), -2.0);
        assert_eq!(f16_to_f64(0x7bff), 65504.0);
        assert_eq!(f16_to_f64(0x0001), 2f64.powi(-24));
        assert!(f16_to_f64(0x7e00).is_nan());
        assert_eq!(f16_to_f64(0xfc00), f64::NEG_INFINITY);
        assert_eq!(bf16_to_f64(0x3f80), 1.0);
        assert_eq!(bf16_to_f64(0xc040), -3.0);
    }

    #[test]
    fn numbers_and_names_round_trip() {
        for n in 0..=28 {
            let dt = DType::from_i32(n);
            assert!(!matches!(dt, DType::Unknown(_)), "{n}");
            assert_eq!(dt.to_i32(), n);
            assert_eq!(DType::from_short_name(dt.short_name()), Some(dt));
            assert!(dt.onnx_name().is_some());
        }
        assert_eq!(DType::from_i32(29), DType::Unknown(29));
        assert_eq!(DType::from_i32(-3).to_i32(), -3);
        assert_eq!(DType::Float.short_name(), "f32");
        assert_eq!(DType::Bfloat16.to_string(), "bf16");
        assert_eq!(DType::Unknown(99).to_string(), "unknown(99)");
        assert_eq!(DType::Int4.bit_width(), Some(4));
        assert_eq!(DType::String.bit_width(), None);
    }
}
