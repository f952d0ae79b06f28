//! `AttributeProto` and its typed accessors.

use super::error::OnnxError;
use super::model::GraphProto;
use super::tensor::{SparseTensorProto, TensorProto};
use super::types::TypeProto;
use super::wire::{Field, Reader};

/// `AttributeProto.AttributeType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AttrType {
    /// 0: no type.
    Undefined,
    /// 1: `f`.
    Float,
    /// 2: `i`.
    Int,
    /// 3: `s`.
    String,
    /// 4: `t`.
    Tensor,
    /// 5: `g`.
    Graph,
    /// 11: `sparse_tensor`.
    SparseTensor,
    /// 13: `tp`.
    TypeProto,
    /// 6: `floats`.
    Floats,
    /// 7: `ints`.
    Ints,
    /// 8: `strings`.
    Strings,
    /// 9: `tensors`.
    Tensors,
    /// 10: `graphs`.
    Graphs,
    /// 12: `sparse_tensors`.
    SparseTensors,
    /// 14: `type_protos`.
    TypeProtos,
    /// A number `onnx.proto` does not define.
    Unknown(i32),
}

impl AttrType {
    /// The type for an `onnx.proto` number.
    pub fn from_i32(n: i32) -> AttrType {
        match n {
            0 => AttrType::Undefined,
            1 => AttrType::Float,
            2 => AttrType::Int,
            3 => AttrType::String,
            4 => AttrType::Tensor,
            5 => AttrType::Graph,
            6 => AttrType::Floats,
            7 => AttrType::Ints,
            8 => AttrType::Strings,
            9 => AttrType::Tensors,
            10 => AttrType::Graphs,
            11 => AttrType::SparseTensor,
            12 => AttrType::SparseTensors,
            13 => AttrType::TypeProto,
            14 => AttrType::TypeProtos,
            n => AttrType::Unknown(n),
        }
    }
}

/// The value of an attribute, selected by its `type` field (or, for IR version 1 models
/// without one, by the value field present).
#[derive(Debug, Clone)]
pub enum AttrValue<'a> {
    /// No type and no value.
    Undefined,
    /// `f`.
    Float(f32),
    /// `i`.
    Int(i64),
    /// `s` (bytes; UTF-8 by convention).
    String(&'a [u8]),
    /// `t`.
    Tensor(Box<TensorProto<'a>>),
    /// `g`.
    Graph(Box<GraphProto<'a>>),
    /// `sparse_tensor`.
    SparseTensor(Box<SparseTensorProto<'a>>),
    /// `tp`.
    TypeProto(Box<TypeProto<'a>>),
    /// `floats`.
    Floats(Vec<f32>),
    /// `ints`.
    Ints(Vec<i64>),
    /// `strings`.
    Strings(Vec<&'a [u8]>),
    /// `tensors`.
    Tensors(Vec<TensorProto<'a>>),
    /// `graphs`.
    Graphs(Vec<GraphProto<'a>>),
    /// `sparse_tensors`.
    SparseTensors(Vec<SparseTensorProto<'a>>),
    /// `type_protos`.
    TypeProtos(Vec<TypeProto<'a>>),
    /// A `type` number this reader does not know; the value fields are dropped.
    Unknown(i32),
}

impl AttrValue<'_> {
    /// The value's attribute type.
    pub fn attr_type(&self) -> AttrType {
        match self {
            AttrValue::Undefined => AttrType::Undefined,
            AttrValue::Float(_) => AttrType::Float,
            AttrValue::Int(_) => AttrType::Int,
            AttrValue::String(_) => AttrType::String,
            AttrValue::Tensor(_) => AttrType::Tensor,
            AttrValue::Graph(_) => AttrType::Graph,
            AttrValue::SparseTensor(_) => AttrType::SparseTensor,
            AttrValue::TypeProto(_) => AttrType::TypeProto,
            AttrValue::Floats(_) => AttrType::Floats,
            AttrValue::Ints(_) => AttrType::Ints,
            AttrValue::Strings(_) => AttrType::Strings,
            AttrValue::Tensors(_) => AttrType::Tensors,
            AttrValue::Graphs(_) => AttrType::Graphs,
            AttrValue::SparseTensors(_) => AttrType::SparseTensors,
            AttrValue::TypeProtos(_) => AttrType::TypeProtos,
            AttrValue::Unknown(n) => AttrType::Unknown(*n),
        }
    }
}

const M: &str = "AttributeProto";

#[inline(never)]
fn parse_tensor<'a>(f: &Field<'a>) -> Result<Box<TensorProto<'a>>, OnnxError> {
    Ok(Box::new(TensorProto::parse(f.message(M)?)?))
}

#[inline(never)]
fn parse_graph<'a>(f: &Field<'a>, depth: usize) -> Result<Box<GraphProto<'a>>, OnnxError> {
    Ok(Box::new(GraphProto::parse(f.message(M)?, depth + 1)?))
}

#[inline(never)]
fn parse_sparse<'a>(f: &Field<'a>) -> Result<Box<SparseTensorProto<'a>>, OnnxError> {
    Ok(Box::new(SparseTensorProto::parse(f.message(M)?)?))
}

#[inline(never)]
fn parse_type<'a>(f: &Field<'a>, depth: usize) -> Result<Box<TypeProto<'a>>, OnnxError> {
    Ok(Box::new(TypeProto::parse(f.message(M)?, depth + 1)?))
}

/// `AttributeProto`: a named attribute of a node (or a function's default attribute).
#[derive(Debug, Clone)]
pub struct AttributeProto<'a> {
    /// The attribute name.
    pub name: &'a str,
    /// Inside a function body: the name of the calling node's attribute this one stands for.
    pub ref_attr_name: Option<&'a str>,
    /// The value.
    pub value: AttrValue<'a>,
}

impl<'a> AttributeProto<'a> {
    pub(crate) fn parse(mut r: Reader<'a>, depth: usize) -> Result<Self, OnnxError> {
        // This function is on the recursion path of nested subgraphs, so it keeps its stack
        // frame small: message-typed values are remembered as raw fields and parsed after the
        // loop, by non-inlined helpers, only for the field the type selects.
        let mut name = "";
        let mut ref_attr_name = None;
        let mut ty = None;
        let mut f = None;
        let mut i = None;
        let mut s = None;
        let mut floats = Vec::new();
        let mut ints = Vec::new();
        let mut strings = Vec::new();
        // The last occurrence of each singular message field (t, g, sparse_tensor, tp).
        let mut single: [Option<Field<'a>>; 4] = [None; 4];
        // Every occurrence of the repeated message fields, in order.
        let mut repeated: Vec<Field<'a>> = Vec::new();
        // Which value field came last, for type-less (IR v1) attributes.
        let mut last_value_field = 0u32;
        while let Some(fl) = r.next_field()? {
            match fl.number {
                1 => name = fl.str(M)?,
                21 => ref_attr_name = Some(fl.str(M)?),
                20 => ty = Some(fl.int32(M)?),
                2 => f = Some(fl.float(M)?),
                3 => i = Some(fl.int64(M)?),
                4 => s = Some(fl.bytes(M)?),
                5 => single[0] = Some(fl),
                6 => single[1] = Some(fl),
                22 => single[2] = Some(fl),
                14 => single[3] = Some(fl),
                7 => fl.push_floats(M, &mut floats)?,
                8 => fl.push_varints(M, &mut ints)?,
                9 => strings.push(fl.bytes(M)?),
                10 | 11 | 15 | 23 => repeated.push(fl),
                _ => {} // 13 = doc_string
            }
            if matches!(fl.number, 2..=11 | 14 | 15 | 22 | 23) {
                last_value_field = fl.number;
            }
        }
        let ty = match ty {
            Some(n) => AttrType::from_i32(n),
            None => match last_value_field {
                2 => AttrType::Float,
                3 => AttrType::Int,
                4 => AttrType::String,
                5 => AttrType::Tensor,
                6 => AttrType::Graph,
                7 => AttrType::Floats,
                8 => AttrType::Ints,
                9 => AttrType::Strings,
                10 => AttrType::Tensors,
                11 => AttrType::Graphs,
                14 => AttrType::TypeProto,
                15 => AttrType::TypeProtos,
                22 => AttrType::SparseTensor,
                23 => AttrType::SparseTensors,
                _ => AttrType::Undefined,
            },
        };
        let fields = |number: u32| repeated.iter().filter(move |f| f.number == number);
        // A declared scalar type with its value field absent takes the protobuf default; a
        // declared message type without its message is `Undefined`.
        let value = match ty {
            AttrType::Undefined => AttrValue::Undefined,
            AttrType::Float => AttrValue::Float(f.unwrap_or(0.0)),
            AttrType::Int => AttrValue::Int(i.unwrap_or(0)),
            AttrType::String => AttrValue::String(s.unwrap_or(&[])),
            AttrType::Tensor => match &single[0] {
                Some(fl) => AttrValue::Tensor(parse_tensor(fl)?),
                None => AttrValue::Undefined,
            },
            AttrType::Graph => match &single[1] {
                Some(fl) => AttrValue::Graph(parse_graph(fl, depth)?),
                None => AttrValue::Undefined,
            },
            AttrType::SparseTensor => match &single[2] {
                Some(fl) => AttrValue::SparseTensor(parse_sparse(fl)?),
                None => AttrValue::Undefined,
            },
            AttrType::TypeProto => match &single[3] {
                Some(fl) => AttrValue::TypeProto(parse_type(fl, depth)?),
                None => AttrValue::Undefined,
            },
            AttrType::Floats => AttrValue::Floats(floats),
            AttrType::Ints => AttrValue::Ints(ints),
            AttrType::Strings => AttrValue::Strings(strings),
            AttrType::Tensors => AttrValue::Tensors(
                fields(10)
                    .map(|fl| parse_tensor(fl).map(|b| *b))
                    .collect::<Result<_, _>>()?,
            ),
            AttrType::Graphs => AttrValue::Graphs(
                fields(11)
                    .map(|fl| parse_graph(fl, depth).map(|b| *b))
                    .collect::<Result<_, _>>()?,
            ),
            AttrType::SparseTensors => AttrValue::SparseTensors(
                fields(23)
                    .map(|fl| parse_sparse(fl).map(|b| *b))
                    .collect::<Result<_, _>>()?,
            ),
            AttrType::TypeProtos => AttrValue::TypeProtos(
                fields(15)
                    .map(|fl| parse_type(fl, depth).map(|b| *b))
                    .collect::<Result<_, _>>()?,
            ),
            AttrType::Unknown(n) => AttrValue::Unknown(n),
        };
        Ok(AttributeProto {
            name,
            ref_attr_name,
            value,
        })
    }

    /// The attribute's type.
    pub fn attr_type(&self) -> AttrType {
        self.value.attr_type()
    }

    fn check(&self, expected: AttrType) -> Result<&AttrValue<'a>, OnnxError> {
        if let Some(r) = self.ref_attr_name {
            return Err(OnnxError::AttributeIsReference {
                name: self.name.to_string(),
                ref_attr_name: r.to_string(),
            });
        }
        if self.attr_type() != expected {
            return Err(OnnxError::AttributeType {
                name: self.name.to_string(),
                expected,
                found: self.attr_type(),
            });
        }
        Ok(&self.value)
    }

    /// The value of an `INT` attribute.
    pub fn as_int(&self) -> Result<i64, OnnxError> {
        match self.check(AttrType::Int)? {
            AttrValue::Int(v) => Ok(*v),
            _ => unreachable!("checked type"),
        }
    }

    /// The value of an `INTS` attribute.
    pub fn as_ints(&self) -> Result<&[i64], OnnxError> {
        match self.check(AttrType::Ints)? {
            AttrValue::Ints(v) => Ok(v),
            _ => unreachable!("checked type"),
        }
    }

    /// The value of a `FLOAT` attribute.
    pub fn as_float(&self) -> Result<f32, OnnxError> {
        match self.check(AttrType::Float)? {
            AttrValue::Float(v) => Ok(*v),
            _ => unreachable!("checked type"),
        }
    }

    /// The value of a `FLOATS` attribute.
    pub fn as_floats(&self) -> Result<&[f32], OnnxError> {
        match self.check(AttrType::Floats)? {
            AttrValue::Floats(v) => Ok(v),
            _ => unreachable!("checked type"),
        }
    }

    /// The bytes of a `STRING` attribute.
    pub fn as_bytes(&self) -> Result<&'a [u8], OnnxError> {
        match self.check(AttrType::String)? {
            AttrValue::String(v) => Ok(v),
            _ => unreachable!("checked type"),
        }
    }

    /// The value of a `STRING` attribute, checked for UTF-8.
    pub fn as_str(&self) -> Result<&'a str, OnnxError> {
        std::str::from_utf8(self.as_bytes()?).map_err(|_| OnnxError::AttributeUtf8 {
            name: self.name.to_string(),
        })
    }

    /// The values of a `STRINGS` attribute, checked for UTF-8.
    pub fn as_strs(&self) -> Result<Vec<&'a str>, OnnxError> {
        match self.check(AttrType::Strings)? {
            AttrValue::Strings(v) => v
                .iter()
                .map(|b| {
                    std::str::from_utf8(b).map_err(|_| OnnxError::AttributeUtf8 {
                        name: self.name.to_string(),
                    })
                })
                .collect(),
            _ => unreachable!("checked type"),
        }
    }

    /// The value of a `TENSOR` attribute.
    pub fn as_tensor(&self) -> Result<&TensorProto<'a>, OnnxError> {
        match self.check(AttrType::Tensor)? {
            AttrValue::Tensor(t) => Ok(t),
            _ => unreachable!("checked type"),
        }
    }

    /// The values of a `TENSORS` attribute.
    pub fn as_tensors(&self) -> Result<&[TensorProto<'a>], OnnxError> {
        match self.check(AttrType::Tensors)? {
            AttrValue::Tensors(t) => Ok(t),
            _ => unreachable!("checked type"),
        }
    }

    /// The value of a `GRAPH` attribute.
    pub fn as_graph(&self) -> Result<&GraphProto<'a>, OnnxError> {
        match self.check(AttrType::Graph)? {
            AttrValue::Graph(g) => Ok(g),
            _ => unreachable!("checked type"),
        }
    }

    /// The values of a `GRAPHS` attribute.
    pub fn as_graphs(&self) -> Result<&[GraphProto<'a>], OnnxError> {
        match self.check(AttrType::Graphs)? {
            AttrValue::Graphs(g) => Ok(g),
            _ => unreachable!("checked type"),
        }
    }

    /// The subgraphs held by this attribute (`g` or `graphs`), for walking nested graphs.
    pub fn subgraphs(&self) -> &[GraphProto<'a>] {
        match &self.value {
            AttrValue::Graph(g) => std::slice::from_ref(g.as_ref()),
            AttrValue::Graphs(g) => g,
            _ => &[],
        }
    }
}
