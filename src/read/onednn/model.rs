//! The parsed oneDNN Graph structures and the JSON walk that builds them.

use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::error::{JsonKind, OnednnError};
use super::graph::GraphIndex;

/// `DNNL_GRAPH_UNKNOWN_DIM`: the value oneDNN writes, alone in a one-element list, for a
/// shape or stride that is not known.
pub const UNKNOWN_DIM: i64 = i64::MIN;

/// Resource limits of the reader.
#[derive(Debug, Clone)]
pub struct OnednnLimits {
    /// Largest document accepted, in bytes.
    pub max_json_bytes: u64,
    /// Most ops in `graph`.
    pub max_ops: usize,
    /// Longest shape or stride list.
    pub max_rank: usize,
}

impl Default for OnednnLimits {
    fn default() -> Self {
        OnednnLimits {
            max_json_bytes: 256 << 20,
            max_ops: 1_000_000,
            max_rank: 64,
        }
    }
}

macro_rules! string_enum {
    ($(#[$m:meta])* $name:ident, $field:literal { $($(#[$vm:meta])* $var:ident = $text:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vm])* $var),+
        }
        impl $name {
            /// The spelling used in the JSON file.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$var => $text),+ }
            }
            /// Parse the JSON spelling.
            pub fn parse(s: &str) -> Option<Self> {
                match s { $($text => Some($name::$var),)+ _ => None }
            }
            const FIELD: &'static str = $field;
        }
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

string_enum!(
    /// `engine_kind`.
    EngineKind, "engine_kind" {
        /// `cpu`.
        Cpu = "cpu",
        /// `gpu`.
        Gpu = "gpu",
    }
);

string_enum!(
    /// `fpmath_mode`.
    FpmathMode, "fpmath_mode" {
        /// `strict`.
        Strict = "strict",
        /// `bf16`.
        Bf16 = "bf16",
        /// `f16`.
        F16 = "f16",
        /// `tf32`.
        Tf32 = "tf32",
        /// `any`.
        Any = "any",
    }
);

string_enum!(
    /// A logical tensor's `dtype`.
    DataType, "dtype" {
        /// `undef`.
        Undef = "undef",
        /// `f32`.
        F32 = "f32",
        /// `bf16`.
        Bf16 = "bf16",
        /// `f16`.
        F16 = "f16",
        /// `s8`.
        S8 = "s8",
        /// `u8`.
        U8 = "u8",
        /// `s32`.
        S32 = "s32",
        /// `s64`.
        S64 = "s64",
        /// `boolean`.
        Boolean = "boolean",
        /// `f8_e5m2`.
        F8E5M2 = "f8_e5m2",
        /// `f8_e4m3`.
        F8E4M3 = "f8_e4m3",
        /// `s4`.
        S4 = "s4",
        /// `u4`.
        U4 = "u4",
    }
);

string_enum!(
    /// A logical tensor's `layout_type`.
    LayoutType, "layout_type" {
        /// `undef`.
        Undef = "undef",
        /// `any`.
        Any = "any",
        /// `strided`.
        Strided = "strided",
        /// `opaque`.
        Opaque = "opaque",
    }
);

string_enum!(
    /// A logical tensor's `property_type`.
    PropertyType, "property_type" {
        /// `undef`.
        Undef = "undef",
        /// `variable`.
        Variable = "variable",
        /// `constant`.
        Constant = "constant",
        /// `host_scalar`.
        HostScalar = "host_scalar",
    }
);

/// A shape or stride list.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Dims {
    /// Written as the one-element sentinel `[-9223372036854775808]`: not known (rank
    /// included). Not a 1-D tensor.
    Unknown,
    /// The listed values; `[]` is rank 0. Shape dims are >= 0 (zero-size dims allowed);
    /// strides are kept as written.
    Known(Vec<i64>),
}

impl Dims {
    /// The values, if known.
    pub fn known(&self) -> Option<&[i64]> {
        match self {
            Dims::Unknown => None,
            Dims::Known(v) => Some(v),
        }
    }

    /// The rank, if known.
    pub fn rank(&self) -> Option<usize> {
        self.known().map(<[i64]>::len)
    }
}

/// A logical tensor `{id, dtype, shape, stride, layout_type, property_type}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogicalTensor {
    /// The tensor id; equal ids in different ops are the same tensor (the graph's edges).
    pub id: u64,
    /// `dtype`.
    pub dtype: DataType,
    /// `shape`.
    pub shape: Dims,
    /// `stride`.
    pub stride: Dims,
    /// `layout_type`.
    pub layout_type: LayoutType,
    /// `property_type`.
    pub property_type: PropertyType,
}

/// An attribute value `{"type": T, "value": V}`.
#[derive(Debug, Clone, PartialEq)]
pub enum AttrValue {
    /// `string`.
    String(String),
    /// `bool`, written as the number 0 or 1.
    Bool(bool),
    /// `s64`.
    S64(i64),
    /// `s64[]`.
    S64List(Vec<i64>),
    /// `f32`.
    F32(f32),
    /// `f32[]`.
    F32List(Vec<f32>),
}

impl AttrValue {
    /// The schema's type name (`string`, `bool`, `s64`, `s64[]`, `f32`, `f32[]`).
    pub fn type_name(&self) -> &'static str {
        match self {
            AttrValue::String(_) => "string",
            AttrValue::Bool(_) => "bool",
            AttrValue::S64(_) => "s64",
            AttrValue::S64List(_) => "s64[]",
            AttrValue::F32(_) => "f32",
            AttrValue::F32List(_) => "f32[]",
        }
    }
}

/// One op `{id, name, kind, attrs, inputs, outputs}`.
#[derive(Debug, Clone, PartialEq)]
pub struct Op {
    /// The op id.
    pub id: u64,
    /// The op name (not necessarily unique).
    pub name: String,
    /// The op kind (`StaticReshape`, `MatMul`, ...), kept as written.
    pub kind: String,
    /// Attributes in file order.
    pub attrs: IndexMap<String, AttrValue>,
    /// Input logical tensors, in argument order.
    pub inputs: Vec<LogicalTensor>,
    /// Output logical tensors, in argument order.
    pub outputs: Vec<LogicalTensor>,
}

macro_rules! attr_getter {
    ($(#[$m:meta])* $fn:ident, $variant:ident, $ret:ty, $expected:literal, |$v:ident| $conv:expr) => {
        $(#[$m])*
        pub fn $fn(&self, name: &str) -> Result<$ret, OnednnError> {
            match self.attr_value(name)? {
                AttrValue::$variant($v) => Ok($conv),
                other => Err(OnednnError::AttrTypeMismatch {
                    op: self.id,
                    attr: name.to_string(),
                    expected: $expected,
                    found: other.type_name(),
                }),
            }
        }
    };
}

impl Op {
    /// The attribute `name`, if present.
    pub fn attr(&self, name: &str) -> Option<&AttrValue> {
        self.attrs.get(name)
    }

    fn attr_value(&self, name: &str) -> Result<&AttrValue, OnednnError> {
        self.attr(name).ok_or_else(|| OnednnError::MissingAttr {
            op: self.id,
            attr: name.to_string(),
        })
    }

    attr_getter!(
        /// A `string` attribute.
        attr_str, String, &str, "string", |v| v.as_str()
    );
    attr_getter!(
        /// A `bool` attribute.
        attr_bool, Bool, bool, "bool", |v| *v
    );
    attr_getter!(
        /// An `s64` attribute.
        attr_s64, S64, i64, "s64", |v| *v
    );
    attr_getter!(
        /// An `s64[]` attribute.
        attr_s64_list, S64List, &[i64], "s64[]", |v| v.as_slice()
    );
    attr_getter!(
        /// An `f32` attribute.
        attr_f32, F32, f32, "f32", |v| *v
    );
    attr_getter!(
        /// An `f32[]` attribute.
        attr_f32_list, F32List, &[f32], "f32[]", |v| v.as_slice()
    );
}

/// A parsed oneDNN Graph JSON file.
#[derive(Debug, Clone)]
pub struct OnednnGraph {
    /// `version`, e.g. `"3.11.0"` (the oneDNN version that wrote the file).
    pub version: String,
    /// `engine_kind`.
    pub engine_kind: EngineKind,
    /// `fpmath_mode`.
    pub fpmath_mode: FpmathMode,
    /// `fpmath_mode_apply_to_int` (the strings `"true"`/`"false"`), newer files only.
    pub fpmath_mode_apply_to_int: Option<bool>,
    /// `input_ports`, if present (absent in 3.0/3.2-era files).
    pub input_ports: Option<Vec<u64>>,
    /// `output_ports`, if present.
    pub output_ports: Option<Vec<u64>>,
    /// `graph`: the ops in file order.
    pub ops: Vec<Op>,
    pub(crate) index: GraphIndex,
}

impl OnednnGraph {
    /// Parse a JSON document with the default [`OnednnLimits`].
    pub fn parse(json: &str) -> Result<OnednnGraph, OnednnError> {
        Self::parse_with_limits(json, &OnednnLimits::default())
    }

    /// Parse a JSON document.
    pub fn parse_with_limits(
        json: &str,
        limits: &OnednnLimits,
    ) -> Result<OnednnGraph, OnednnError> {
        if json.len() as u64 > limits.max_json_bytes {
            return Err(OnednnError::TooLarge {
                len: json.len() as u64,
                max: limits.max_json_bytes,
            });
        }
        let value: Value = serde_json::from_str(json).map_err(|e| OnednnError::Json {
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
        parse_top(&value, limits)
    }
}

fn wrong(path: &str, expected: &'static str, v: &Value) -> OnednnError {
    OnednnError::WrongType {
        path: path.to_string(),
        expected,
        found: JsonKind::from(v),
    }
}

fn as_object<'a>(v: &'a Value, path: &str) -> Result<&'a Map<String, Value>, OnednnError> {
    v.as_object().ok_or_else(|| wrong(path, "an object", v))
}

/// Reject keys outside `allowed`, then fetch the required ones.
fn check_keys(obj: &Map<String, Value>, path: &str, allowed: &[&str]) -> Result<(), OnednnError> {
    match obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(OnednnError::UnknownKey {
            path: path.to_string(),
            key: k.clone(),
        }),
        None => Ok(()),
    }
}

fn required<'a>(
    obj: &'a Map<String, Value>,
    path: &str,
    key: &'static str,
) -> Result<&'a Value, OnednnError> {
    obj.get(key).ok_or_else(|| OnednnError::MissingKey {
        path: path.to_string(),
        key,
    })
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn get_u64(v: &Value, path: &str) -> Result<u64, OnednnError> {
    v.as_u64()
        .ok_or_else(|| wrong(path, "an unsigned integer", v))
}

fn get_str<'a>(v: &'a Value, path: &str) -> Result<&'a str, OnednnError> {
    v.as_str().ok_or_else(|| wrong(path, "a string", v))
}

fn get_enum<E>(
    v: &Value,
    path: &str,
    parse: fn(&str) -> Option<E>,
    field: &'static str,
) -> Result<E, OnednnError> {
    let s = get_str(v, path)?;
    parse(s).ok_or_else(|| OnednnError::UnknownValue {
        path: path.to_string(),
        field,
        value: s.to_string(),
    })
}

fn get_u64_list(v: &Value, path: &str) -> Result<Vec<u64>, OnednnError> {
    let arr = v.as_array().ok_or_else(|| wrong(path, "an array", v))?;
    arr.iter()
        .enumerate()
        .map(|(i, x)| get_u64(x, &format!("{path}[{i}]")))
        .collect()
}

const TOP_KEYS: &[&str] = &[
    "version",
    "engine_kind",
    "fpmath_mode",
    "fpmath_mode_apply_to_int",
    "input_ports",
    "output_ports",
    "graph",
];
const OP_KEYS: &[&str] = &["id", "name", "kind", "attrs", "inputs", "outputs"];
const LT_KEYS: &[&str] = &[
    "id",
    "dtype",
    "shape",
    "stride",
    "layout_type",
    "property_type",
];

fn parse_top(v: &Value, limits: &OnednnLimits) -> Result<OnednnGraph, OnednnError> {
    let obj = as_object(v, "(top level)")?;
    check_keys(obj, "(top level)", TOP_KEYS)?;
    let version = get_str(required(obj, "(top level)", "version")?, "version")?.to_string();
    let engine_kind = get_enum(
        required(obj, "(top level)", "engine_kind")?,
        "engine_kind",
        EngineKind::parse,
        EngineKind::FIELD,
    )?;
    let fpmath_mode = get_enum(
        required(obj, "(top level)", "fpmath_mode")?,
        "fpmath_mode",
        FpmathMode::parse,
        FpmathMode::FIELD,
    )?;
    let fpmath_mode_apply_to_int = match obj.get("fpmath_mode_apply_to_int") {
        None => None,
        Some(x) => Some(get_enum(
            x,
            "fpmath_mode_apply_to_int",
            |s| match s {
                "true" => Some(true),
                "false" => Some(false),
                _ => None,
            },
            "fpmath_mode_apply_to_int",
        )?),
    };
    let input_ports = obj
        .get("input_ports")
        .map(|x| get_u64_list(x, "input_ports"))
        .transpose()?;
    let output_ports = obj
        .get("output_ports")
        .map(|x| get_u64_list(x, "output_ports"))
        .transpose()?;
    let graph_v = required(obj, "(top level)", "graph")?;
    let graph = graph_v
        .as_array()
        .ok_or_else(|| wrong("graph", "an array", graph_v))?;
    if graph.is_empty() {
        return Err(OnednnError::EmptyGraph);
    }
    if graph.len() > limits.max_ops {
        return Err(OnednnError::TooManyOps {
            count: graph.len(),
            max: limits.max_ops,
        });
    }
    let ops = graph
        .iter()
        .enumerate()
        .map(|(i, o)| parse_op(o, &format!("graph[{i}]"), limits))
        .collect::<Result<Vec<_>, _>>()?;
    let index = GraphIndex::build(&ops)?;
    Ok(OnednnGraph {
        version,
        engine_kind,
        fpmath_mode,
        fpmath_mode_apply_to_int,
        input_ports,
        output_ports,
        ops,
        index,
    })
}

fn parse_op(v: &Value, path: &str, limits: &OnednnLimits) -> Result<Op, OnednnError> {
    let obj = as_object(v, path)?;
    check_keys(obj, path, OP_KEYS)?;
    let id = get_u64(required(obj, path, "id")?, &join(path, "id"))?;
    let name = get_str(required(obj, path, "name")?, &join(path, "name"))?.to_string();
    let kind = get_str(required(obj, path, "kind")?, &join(path, "kind"))?.to_string();
    let attrs_path = join(path, "attrs");
    // `attrs` is optional, as in oneDNN's reader: absent means no attributes.
    let mut attrs = IndexMap::new();
    if let Some(a) = obj.get("attrs") {
        let attrs_obj = as_object(a, &attrs_path)?;
        attrs.reserve(attrs_obj.len());
        for (name, a) in attrs_obj {
            let attr_path = join(&attrs_path, name);
            let value = parse_attr(id, name, a, &attr_path)?;
            if name == super::to_graph::DST_DTYPE {
                check_dst_dtype(id, &value, &attr_path)?;
            }
            attrs.insert(name.clone(), value);
        }
    }
    let lts = |key: &'static str| -> Result<Vec<LogicalTensor>, OnednnError> {
        let p = join(path, key);
        let x = required(obj, path, key)?;
        let arr = x.as_array().ok_or_else(|| wrong(&p, "an array", x))?;
        arr.iter()
            .enumerate()
            .map(|(i, lt)| parse_lt(lt, &format!("{p}[{i}]"), limits))
            .collect()
    };
    Ok(Op {
        id,
        name,
        kind,
        attrs,
        inputs: lts("inputs")?,
        outputs: lts("outputs")?,
    })
}

/// A `dst_dtype` attribute (the output type, which the converter decodes) must be a
/// string naming a [`DataType`].
fn check_dst_dtype(op: u64, value: &AttrValue, path: &str) -> Result<(), OnednnError> {
    match value {
        AttrValue::String(s) if DataType::parse(s).is_some() => Ok(()),
        AttrValue::String(s) => Err(OnednnError::UnknownValue {
            path: path.to_string(),
            field: DataType::FIELD,
            value: s.clone(),
        }),
        other => Err(OnednnError::AttrTypeMismatch {
            op,
            attr: super::to_graph::DST_DTYPE.to_string(),
            expected: "string",
            found: other.type_name(),
        }),
    }
}

fn parse_attr(op: u64, name: &str, v: &Value, path: &str) -> Result<AttrValue, OnednnError> {
    let obj = as_object(v, path)?;
    let first = obj.keys().next();
    if first.map(String::as_str) != Some("type") {
        return Err(OnednnError::AttrTypeNotFirst {
            op,
            attr: name.to_string(),
            first_key: first.cloned(),
        });
    }
    check_keys(obj, path, &["type", "value"])?;
    let ty_v = &obj["type"];
    let ty = get_str(ty_v, &join(path, "type"))?;
    let val = required(obj, path, "value")?;
    let bad = |attr_type: &'static str| OnednnError::InvalidAttrValue {
        op,
        attr: name.to_string(),
        attr_type,
        found: Box::new(val.clone()),
    };
    let f32_of = |x: &Value| -> Option<f32> {
        let f = x.as_f64()? as f32;
        f.is_finite().then_some(f)
    };
    Ok(match ty {
        "string" => AttrValue::String(val.as_str().ok_or_else(|| bad("string"))?.to_string()),
        "bool" => match val.as_u64() {
            Some(0) => AttrValue::Bool(false),
            Some(1) => AttrValue::Bool(true),
            _ => {
                return Err(OnednnError::InvalidBool {
                    op,
                    attr: name.to_string(),
                    found: Box::new(val.clone()),
                })
            }
        },
        "s64" => AttrValue::S64(val.as_i64().ok_or_else(|| bad("s64"))?),
        "s64[]" => AttrValue::S64List(
            val.as_array()
                .ok_or_else(|| bad("s64[]"))?
                .iter()
                .map(|x| x.as_i64().ok_or_else(|| bad("s64[]")))
                .collect::<Result<_, _>>()?,
        ),
        "f32" => AttrValue::F32(f32_of(val).ok_or_else(|| bad("f32"))?),
        "f32[]" => AttrValue::F32List(
            val.as_array()
                .ok_or_else(|| bad("f32[]"))?
                .iter()
                .map(|x| f32_of(x).ok_or_else(|| bad("f32[]")))
                .collect::<Result<_, _>>()?,
        ),
        other => {
            return Err(OnednnError::UnknownAttrType {
                op,
                attr: name.to_string(),
                type_name: other.to_string(),
            })
        }
    })
}

fn parse_dims(v: &Value, path: &str, limits: &OnednnLimits) -> Result<Dims, OnednnError> {
    let arr = v.as_array().ok_or_else(|| wrong(path, "an array", v))?;
    if arr.len() > limits.max_rank {
        return Err(OnednnError::RankTooLarge {
            path: path.to_string(),
            rank: arr.len(),
            max: limits.max_rank,
        });
    }
    let vals = arr
        .iter()
        .enumerate()
        .map(|(i, x)| {
            x.as_i64()
                .ok_or_else(|| wrong(&format!("{path}[{i}]"), "an i64", x))
        })
        .collect::<Result<Vec<i64>, _>>()?;
    if vals == [UNKNOWN_DIM] {
        Ok(Dims::Unknown)
    } else {
        Ok(Dims::Known(vals))
    }
}

fn parse_lt(v: &Value, path: &str, limits: &OnednnLimits) -> Result<LogicalTensor, OnednnError> {
    let obj = as_object(v, path)?;
    check_keys(obj, path, LT_KEYS)?;
    let id = get_u64(required(obj, path, "id")?, &join(path, "id"))?;
    let dtype = get_enum(
        required(obj, path, "dtype")?,
        &join(path, "dtype"),
        DataType::parse,
        DataType::FIELD,
    )?;
    let shape = parse_dims(required(obj, path, "shape")?, &join(path, "shape"), limits)?;
    if let Dims::Known(d) = &shape {
        if let Some((index, &value)) = d.iter().enumerate().find(|(_, &x)| x < 0) {
            return Err(OnednnError::InvalidDim {
                tensor: id,
                index,
                value,
            });
        }
    }
    let stride = parse_dims(
        required(obj, path, "stride")?,
        &join(path, "stride"),
        limits,
    )?;
    let layout_type = get_enum(
        required(obj, path, "layout_type")?,
        &join(path, "layout_type"),
        LayoutType::parse,
        LayoutType::FIELD,
    )?;
    let property_type = get_enum(
        required(obj, path, "property_type")?,
        &join(path, "property_type"),
        PropertyType::parse,
        PropertyType::FIELD,
    )?;
    Ok(LogicalTensor {
        id,
        dtype,
        shape,
        stride,
        layout_type,
        property_type,
    })
}
