//! `ValueInfoProto`, `TypeProto`, `TensorShapeProto` and small helper messages.

use super::error::OnnxError;
use super::wire::Reader;
use crate::graph::DType;

/// How deep subgraphs (graphs inside attributes) and nested types (sequence, optional and map
/// element types) may go, counted together along one path from the main graph.
///
/// Parsing recurses once per level: about 2.5 KB of stack per level in release builds and
/// about 15 KB in unoptimised builds, so the limit fits a 2 MB thread stack either way.
pub const MAX_NESTING: usize = 64;

pub(crate) fn check_depth(depth: usize, offset: usize) -> Result<(), OnnxError> {
    if depth > MAX_NESTING {
        Err(OnnxError::NestingTooDeep {
            offset,
            limit: MAX_NESTING,
        })
    } else {
        Ok(())
    }
}

/// `OperatorSetIdProto`: an imported operator set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperatorSetId<'a> {
    /// The domain; `""` (or `"ai.onnx"`) is the default ONNX domain.
    pub domain: &'a str,
    /// The opset version.
    pub version: i64,
}

impl<'a> OperatorSetId<'a> {
    pub(crate) fn parse(mut r: Reader<'a>) -> Result<Self, OnnxError> {
        const M: &str = "OperatorSetIdProto";
        let mut out = OperatorSetId {
            domain: "",
            version: 0,
        };
        while let Some(f) = r.next_field()? {
            match f.number {
                1 => out.domain = f.str(M)?,
                2 => out.version = f.int64(M)?,
                _ => {}
            }
        }
        Ok(out)
    }
}

/// `StringStringEntryProto`: a key/value pair (metadata, external-data descriptors).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StringStringEntry<'a> {
    /// The key.
    pub key: &'a str,
    /// The value.
    pub value: &'a str,
}

impl<'a> StringStringEntry<'a> {
    pub(crate) fn parse(mut r: Reader<'a>) -> Result<Self, OnnxError> {
        const M: &str = "StringStringEntryProto";
        let mut out = StringStringEntry { key: "", value: "" };
        while let Some(f) = r.next_field()? {
            match f.number {
                1 => out.key = f.str(M)?,
                2 => out.value = f.str(M)?,
                _ => {}
            }
        }
        Ok(out)
    }
}

/// One dim of a `TensorShapeProto`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dim<'a> {
    /// `dim_value`: a known size.
    Value(i64),
    /// `dim_param`: a named symbolic size.
    Param(&'a str),
    /// Neither field set: an unknown size.
    Unknown,
}

impl<'a> Dim<'a> {
    fn parse(mut r: Reader<'a>) -> Result<Self, OnnxError> {
        const M: &str = "TensorShapeProto.Dimension";
        let mut out = Dim::Unknown;
        while let Some(f) = r.next_field()? {
            // A oneof: the last field present wins.
            match f.number {
                1 => out = Dim::Value(f.int64(M)?),
                2 => out = Dim::Param(f.str(M)?),
                _ => {} // 3 = denotation
            }
        }
        Ok(out)
    }
}

fn parse_shape<'a>(mut r: Reader<'a>) -> Result<Vec<Dim<'a>>, OnnxError> {
    const M: &str = "TensorShapeProto";
    let mut dims = Vec::new();
    while let Some(f) = r.next_field()? {
        if f.number == 1 {
            dims.push(Dim::parse(f.message(M)?)?);
        }
    }
    Ok(dims)
}

/// `TypeProto.Tensor` (and `TypeProto.SparseTensor`): element type and optional shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorType<'a> {
    /// The element type (`Undefined` when absent).
    pub elem_type: DType,
    /// The dims. `None` means the shape message is absent (unknown rank); `Some(vec![])` is a
    /// present, empty shape (a scalar, rank 0).
    pub shape: Option<Vec<Dim<'a>>>,
}

impl<'a> TensorType<'a> {
    fn parse(mut r: Reader<'a>, message: &'static str) -> Result<Self, OnnxError> {
        let mut out = TensorType {
            elem_type: DType::Undefined,
            shape: None,
        };
        while let Some(f) = r.next_field()? {
            match f.number {
                1 => out.elem_type = DType::from_i32(f.int32(message)?),
                2 => {
                    let dims = parse_shape(f.message(message)?)?;
                    // Repeated occurrences of a message field merge: dims concatenate.
                    match &mut out.shape {
                        Some(existing) => existing.extend(dims),
                        None => out.shape = Some(dims),
                    }
                }
                _ => {}
            }
        }
        Ok(out)
    }

    /// The rank, or `None` for an unknown rank.
    pub fn rank(&self) -> Option<usize> {
        self.shape.as_ref().map(Vec::len)
    }
}

/// `TypeProto`: the type of a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypeProto<'a> {
    /// `tensor_type`.
    Tensor(TensorType<'a>),
    /// `sparse_tensor_type`.
    SparseTensor(TensorType<'a>),
    /// `sequence_type` with its element type, if given.
    Sequence(Option<Box<TypeProto<'a>>>),
    /// `optional_type` with its element type, if given.
    Optional(Option<Box<TypeProto<'a>>>),
    /// `map_type`.
    Map {
        /// The key element type.
        key_type: DType,
        /// The value type, if given.
        value_type: Option<Box<TypeProto<'a>>>,
    },
    /// `opaque_type`.
    Opaque {
        /// The opaque type's domain.
        domain: &'a str,
        /// The opaque type's name.
        name: &'a str,
    },
    /// No member of the `value` oneof is set.
    Unset,
}

impl<'a> TypeProto<'a> {
    pub(crate) fn parse(mut r: Reader<'a>, depth: usize) -> Result<Self, OnnxError> {
        const M: &str = "TypeProto";
        check_depth(depth, r.offset())?;
        let mut out = TypeProto::Unset;
        while let Some(f) = r.next_field()? {
            match f.number {
                1 => out = TypeProto::Tensor(TensorType::parse(f.message(M)?, "TypeProto.Tensor")?),
                8 => {
                    out = TypeProto::SparseTensor(TensorType::parse(
                        f.message(M)?,
                        "TypeProto.SparseTensor",
                    )?)
                }
                4 | 9 => {
                    let mut sub = f.message(M)?;
                    let mut elem = None;
                    while let Some(g) = sub.next_field()? {
                        if g.number == 1 {
                            let msg = g.message("TypeProto.Sequence")?;
                            elem = Some(Box::new(TypeProto::parse(msg, depth + 1)?));
                        }
                    }
                    out = if f.number == 4 {
                        TypeProto::Sequence(elem)
                    } else {
                        TypeProto::Optional(elem)
                    };
                }
                5 => {
                    const MM: &str = "TypeProto.Map";
                    let mut sub = f.message(M)?;
                    let mut key_type = DType::Undefined;
                    let mut value_type = None;
                    while let Some(g) = sub.next_field()? {
                        match g.number {
                            1 => key_type = DType::from_i32(g.int32(MM)?),
                            2 => {
                                value_type =
                                    Some(Box::new(TypeProto::parse(g.message(MM)?, depth + 1)?))
                            }
                            _ => {}
                        }
                    }
                    out = TypeProto::Map {
                        key_type,
                        value_type,
                    };
                }
                7 => {
                    const MO: &str = "TypeProto.Opaque";
                    let mut sub = f.message(M)?;
                    let (mut domain, mut name) = ("", "");
                    while let Some(g) = sub.next_field()? {
                        match g.number {
                            1 => domain = g.str(MO)?,
                            2 => name = g.str(MO)?,
                            _ => {}
                        }
                    }
                    out = TypeProto::Opaque { domain, name };
                }
                _ => {} // 6 = denotation
            }
        }
        Ok(out)
    }

    /// The tensor type, if this is a (dense) tensor.
    pub fn as_tensor(&self) -> Option<&TensorType<'a>> {
        match self {
            TypeProto::Tensor(t) => Some(t),
            _ => None,
        }
    }

    /// Whether this is anything but a dense tensor (sequence, optional, map, sparse, opaque).
    pub fn is_non_tensor(&self) -> bool {
        !matches!(self, TypeProto::Tensor(_))
    }
}

/// `ValueInfoProto`: a named value with an optional type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueInfoProto<'a> {
    /// The value name.
    pub name: &'a str,
    /// The type; `None` when the field is absent.
    pub r#type: Option<TypeProto<'a>>,
}

impl<'a> ValueInfoProto<'a> {
    pub(crate) fn parse(mut r: Reader<'a>, depth: usize) -> Result<Self, OnnxError> {
        const M: &str = "ValueInfoProto";
        let mut out = ValueInfoProto {
            name: "",
            r#type: None,
        };
        while let Some(f) = r.next_field()? {
            match f.number {
                1 => out.name = f.str(M)?,
                2 => out.r#type = Some(TypeProto::parse(f.message(M)?, depth + 1)?),
                _ => {} // 3 = doc_string, 4 = metadata_props
            }
        }
        Ok(out)
    }

    /// The tensor type, if the value is typed as a dense tensor.
    pub fn tensor_type(&self) -> Option<&TensorType<'a>> {
        self.r#type.as_ref().and_then(TypeProto::as_tensor)
    }

    /// The element type of a dense tensor value (`Undefined` if untyped or not a tensor).
    pub fn elem_type(&self) -> DType {
        self.tensor_type().map_or(DType::Undefined, |t| t.elem_type)
    }

    /// The dims of a dense tensor value; `None` if untyped, not a tensor, or of unknown rank.
    pub fn shape(&self) -> Option<&[Dim<'a>]> {
        self.tensor_type().and_then(|t| t.shape.as_deref())
    }
}
