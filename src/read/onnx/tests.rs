//! Unit tests on hand-built protobuf bytes.

use super::wire::{put_len, put_tag, put_varint, put_varint_field, Reader, WireType};
use super::*;

/// A tiny protobuf message builder for tests.
#[derive(Default, Clone)]
struct B(Vec<u8>);

impl B {
    fn new() -> Self {
        B::default()
    }
    fn v(mut self, field: u32, value: i64) -> Self {
        put_varint_field(&mut self.0, field, value as u64);
        self
    }
    fn s(mut self, field: u32, value: impl AsRef<[u8]>) -> Self {
        put_len(&mut self.0, field, value.as_ref());
        self
    }
    fn m(self, field: u32, msg: B) -> Self {
        self.s(field, msg.0)
    }
    fn f32(mut self, field: u32, value: f32) -> Self {
        put_tag(&mut self.0, field, WireType::I32);
        self.0.extend_from_slice(&value.to_le_bytes());
        self
    }
    fn f64(mut self, field: u32, value: f64) -> Self {
        put_tag(&mut self.0, field, WireType::I64);
        self.0.extend_from_slice(&value.to_le_bytes());
        self
    }
    fn packed_varints(self, field: u32, values: &[i64]) -> Self {
        let mut p = Vec::new();
        for &v in values {
            put_varint(&mut p, v as u64);
        }
        self.s(field, p)
    }
    fn bytes(&self) -> &[u8] {
        &self.0
    }
}

fn tensor_type(elem: i64, dims: Option<&[B]>) -> B {
    let mut t = B::new().v(1, elem);
    if let Some(dims) = dims {
        let mut shape = B::new();
        for d in dims {
            shape = shape.m(1, d.clone());
        }
        t = t.m(2, shape);
    }
    B::new().m(1, t)
}

fn value_info(name: &str, ty: B) -> B {
    B::new().s(1, name).m(2, ty)
}

fn model_with_graph(graph: B) -> B {
    B::new()
        .v(1, 8)
        .s(2, "test")
        .m(7, graph)
        .m(8, B::new().s(1, "").v(2, 17))
}

fn parse_tensor(b: &B) -> Result<TensorProto<'_>, OnnxError> {
    TensorProto::parse(Reader::new(b.bytes(), 0))
}

const CAP: usize = 1000;

fn mem() -> DataSource {
    DataSource::in_memory()
}

#[test]
fn tensor_int64_packed_unpacked_and_mixed() {
    // dims unpacked, int64_data: two unpacked values then a packed run.
    let t = B::new()
        .v(1, 2)
        .v(1, 2)
        .v(2, 7)
        .s(8, "w")
        .v(7, -1)
        .v(7, 5)
        .packed_varints(7, &[i64::MIN, 300]);
    let t = parse_tensor(&t).unwrap();
    assert_eq!(t.dims.as_slice(), &[2, 2]);
    assert_eq!(t.num_elements().unwrap(), 4);
    assert_eq!(t.int64_data.len(), 4);
    assert_eq!(t.to_i64_vec(&mem(), CAP).unwrap(), [-1, 5, i64::MIN, 300]);
    assert_eq!(
        t.to_f64_vec(&mem(), CAP).unwrap(),
        [-1.0, 5.0, i64::MIN as f64, 300.0]
    );
    // Packed dims.
    let t = B::new().packed_varints(1, &[3, 0, 5]).v(2, 1);
    let t = parse_tensor(&t).unwrap();
    assert_eq!(t.dims.as_slice(), &[3, 0, 5]);
    assert_eq!(t.num_elements().unwrap(), 0);
    assert_eq!(t.to_f64_vec(&mem(), CAP).unwrap(), Vec::<f64>::new());
}

#[test]
fn tensor_float_double_int32_uint64() {
    let mut packed = Vec::new();
    packed.extend_from_slice(&2.5f32.to_le_bytes());
    packed.extend_from_slice(&(-0.0f32).to_le_bytes());
    let t = B::new().v(1, 3).v(2, 1).f32(4, 1.5).s(4, &packed);
    let t = parse_tensor(&t).unwrap();
    assert_eq!(t.float_data.to_vec(), [1.5, 2.5, -0.0]);
    assert_eq!(t.to_f64_vec(&mem(), CAP).unwrap(), [1.5, 2.5, -0.0]);
    assert!(matches!(
        t.to_i64_vec(&mem(), CAP),
        Err(OnnxError::UnsupportedDataType {
            data_type: DType::Float,
            wanted: "i64",
            ..
        })
    ));

    let t = B::new().v(1, 2).v(2, 11).f64(10, 0.25).f64(10, 1e300);
    let t = parse_tensor(&t).unwrap();
    assert_eq!(t.to_f64_vec(&mem(), CAP).unwrap(), [0.25, 1e300]);

    // INT8 in int32_data, negative values as 10-byte varints.
    let t = B::new().v(1, 3).v(2, 3).packed_varints(5, &[-128, 0, 127]);
    let t = parse_tensor(&t).unwrap();
    assert_eq!(t.int32_data.to_vec(), [-128, 0, 127]);
    assert_eq!(t.to_i64_vec(&mem(), CAP).unwrap(), [-128, 0, 127]);

    // UINT64 above i64::MAX: checked in to_i64_vec, fine in to_f64_vec.
    let t = B::new().v(1, 2).v(2, 13).v(11, 7).v(11, -1);
    let t = parse_tensor(&t).unwrap();
    assert_eq!(t.uint64_data.to_vec(), [7, u64::MAX]);
    assert!(matches!(
        t.to_i64_vec(&mem(), CAP),
        Err(OnnxError::ValueOutOfRange {
            index: 1,
            value: u64::MAX,
            ..
        })
    ));
    assert_eq!(t.to_f64_vec(&mem(), CAP).unwrap(), [7.0, u64::MAX as f64]);

    // BOOL and UINT8 in int32_data.
    let t = B::new().v(1, 3).v(2, 9).packed_varints(5, &[0, 1, 1]);
    assert_eq!(
        parse_tensor(&t).unwrap().to_i64_vec(&mem(), CAP).unwrap(),
        [0, 1, 1]
    );
    let t = B::new().v(1, 2).v(2, 2).packed_varints(5, &[255, 3]);
    assert_eq!(
        parse_tensor(&t).unwrap().to_i64_vec(&mem(), CAP).unwrap(),
        [255, 3]
    );
}

#[test]
fn tensor_raw_data_types() {
    let raw = |dt: i64, dims: &[i64], raw: &[u8]| {
        let mut b = B::new().v(2, dt);
        for &d in dims {
            b = b.v(1, d);
        }
        b.s(9, raw)
    };
    let i32s: Vec<u8> = [-7i32, 9].iter().flat_map(|v| v.to_le_bytes()).collect();
    let b = raw(6, &[2], &i32s);
    assert_eq!(
        parse_tensor(&b).unwrap().to_i64_vec(&mem(), CAP).unwrap(),
        [-7, 9]
    );
    let b = raw(12, &[1], &u32::MAX.to_le_bytes());
    assert_eq!(
        parse_tensor(&b).unwrap().to_i64_vec(&mem(), CAP).unwrap(),
        [u32::MAX as i64]
    );
    let b = raw(5, &[2], &[0xff, 0xff, 0x02, 0x00]);
    assert_eq!(
        parse_tensor(&b).unwrap().to_i64_vec(&mem(), CAP).unwrap(),
        [-1, 2]
    );
    let b = raw(4, &[1], &[0xff, 0xff]);
    assert_eq!(
        parse_tensor(&b).unwrap().to_i64_vec(&mem(), CAP).unwrap(),
        [65535]
    );
    let b = raw(3, &[2], &[0x80, 0x7f]);
    assert_eq!(
        parse_tensor(&b).unwrap().to_i64_vec(&mem(), CAP).unwrap(),
        [-128, 127]
    );
    let b = raw(9, &[3], &[0, 1, 2]);
    assert_eq!(
        parse_tensor(&b).unwrap().to_i64_vec(&mem(), CAP).unwrap(),
        [0, 1, 1]
    );
    // INT4: low nibble first, sign-extended; three elements in two bytes.
    let b = raw(22, &[3], &[0x8f, 0x07]);
    assert_eq!(
        parse_tensor(&b).unwrap().to_i64_vec(&mem(), CAP).unwrap(),
        [-1, -8, 7]
    );
    let b = raw(21, &[3], &[0x8f, 0x07]);
    assert_eq!(
        parse_tensor(&b).unwrap().to_i64_vec(&mem(), CAP).unwrap(),
        [15, 8, 7]
    );
    // INT4 packed in int32_data: two elements per entry.
    let b = B::new().v(1, 3).v(2, 22).packed_varints(5, &[0x8f, 0x07]);
    assert_eq!(
        parse_tensor(&b).unwrap().to_i64_vec(&mem(), CAP).unwrap(),
        [-1, -8, 7]
    );
    // INT2: four per byte.
    let b = raw(26, &[4], &[0b00_01_10_11]);
    assert_eq!(
        parse_tensor(&b).unwrap().to_i64_vec(&mem(), CAP).unwrap(),
        [-1, -2, 1, 0]
    );
    // FLOAT16 and BFLOAT16, raw and in int32_data.
    let b = raw(10, &[3], &[0x00, 0x3c, 0x00, 0xc0, 0x01, 0x00]);
    assert_eq!(
        parse_tensor(&b).unwrap().to_f64_vec(&mem(), CAP).unwrap(),
        [1.0, -2.0, 2f64.powi(-24)]
    );
    let b = B::new()
        .v(1, 2)
        .v(2, 10)
        .packed_varints(5, &[0x7c00, 0x3800]);
    assert_eq!(
        parse_tensor(&b).unwrap().to_f64_vec(&mem(), CAP).unwrap(),
        [f64::INFINITY, 0.5]
    );
    let b = raw(16, &[1], &[0x80, 0x3f]);
    assert_eq!(
        parse_tensor(&b).unwrap().to_f64_vec(&mem(), CAP).unwrap(),
        [1.0]
    );
    // Scalar: no dims, one element.
    let b = raw(7, &[], &42i64.to_le_bytes());
    let t = parse_tensor(&b).unwrap();
    assert_eq!(t.num_elements().unwrap(), 1);
    assert_eq!(t.to_i64_vec(&mem(), CAP).unwrap(), [42]);
}

#[test]
fn tensor_decode_errors() {
    // raw_data size does not match the dims.
    let b = B::new().v(1, 2).v(2, 7).s(9, [0u8; 12]);
    assert!(matches!(
        parse_tensor(&b).unwrap().to_i64_vec(&mem(), CAP),
        Err(OnnxError::DataSizeMismatch {
            expected: 16,
            found: 12,
            ..
        })
    ));
    // Typed values fewer than the dims say.
    let b = B::new().v(1, 3).v(2, 7).v(7, 1);
    assert!(matches!(
        parse_tensor(&b).unwrap().to_i64_vec(&mem(), CAP),
        Err(OnnxError::ElementCountMismatch {
            field: "int64_data",
            expected: 3,
            found: 1,
            ..
        })
    ));
    // Negative and overflowing dims.
    let b = B::new().v(1, 2).v(1, -1).v(2, 7);
    assert!(matches!(
        parse_tensor(&b).unwrap().num_elements(),
        Err(OnnxError::NegativeDim {
            index: 1,
            value: -1,
            ..
        })
    ));
    let b = B::new().v(1, i64::MAX).v(1, i64::MAX).v(1, 4).v(2, 7);
    assert!(matches!(
        parse_tensor(&b).unwrap().num_elements(),
        Err(OnnxError::ElementCountOverflow { .. })
    ));
    // A huge declared tensor is refused before anything is read.
    let b = B::new().v(1, 1 << 40).v(2, 1).s(9, [0u8; 4]);
    assert!(matches!(
        parse_tensor(&b).unwrap().to_f64_vec(&mem(), CAP),
        Err(OnnxError::TooManyElements {
            count: 1099511627776,
            cap: CAP,
            ..
        })
    ));
    // Strings are not numbers; unknown types are kept.
    let b = B::new().v(1, 1).v(2, 8).s(6, "hi");
    let t = parse_tensor(&b).unwrap();
    assert_eq!(t.string_data, [b"hi"]);
    assert!(matches!(
        t.to_f64_vec(&mem(), CAP),
        Err(OnnxError::UnsupportedDataType {
            data_type: DType::String,
            ..
        })
    ));
    let b = B::new().v(2, 77);
    assert_eq!(parse_tensor(&b).unwrap().data_type, DType::Unknown(77));
    // Packed fixed-width payload of a wrong length.
    let b = B::new().s(4, [0u8; 5]);
    assert!(matches!(
        parse_tensor(&b),
        Err(OnnxError::PackedLength {
            field: 4,
            len: 5,
            elem_size: 4,
            ..
        })
    ));
    let b = B::new().s(10, [0u8; 12]);
    assert!(matches!(
        parse_tensor(&b),
        Err(OnnxError::PackedLength {
            field: 10,
            elem_size: 8,
            ..
        })
    ));
}

#[test]
fn wrong_wire_types_are_typed_errors() {
    // float_data as a varint.
    let b = B::new().v(4, 1);
    assert!(matches!(
        parse_tensor(&b),
        Err(OnnxError::WrongWireType {
            message: "TensorProto",
            field: 4,
            expected: WireType::I32,
            found: WireType::Varint,
            ..
        })
    ));
    // dims as fixed32.
    let b = B::new().f32(1, 1.0);
    assert!(matches!(
        parse_tensor(&b),
        Err(OnnxError::WrongWireType {
            field: 1,
            expected: WireType::Varint,
            found: WireType::I32,
            ..
        })
    ));
    // op_type as a varint, inside a graph inside a model: the offset is absolute.
    let node = B::new().s(1, "x").v(4, 3);
    let model = model_with_graph(B::new().m(1, node));
    let err = ModelProto::parse(model.bytes()).unwrap_err();
    match err {
        OnnxError::WrongWireType {
            offset,
            message: "NodeProto",
            field: 4,
            expected: WireType::Len,
            found: WireType::Varint,
        } => assert_eq!(model.bytes()[offset], 4 << 3),
        other => panic!("{other:?}"),
    }
    // ir_version as a string.
    let model = B::new().s(1, "8");
    assert!(matches!(
        ModelProto::parse(model.bytes()),
        Err(OnnxError::WrongWireType {
            message: "ModelProto",
            field: 1,
            ..
        })
    ));
    // Invalid UTF-8 in a name.
    let model = model_with_graph(B::new().s(2, [0xff, 0xfe]));
    assert!(matches!(
        ModelProto::parse(model.bytes()),
        Err(OnnxError::InvalidUtf8 {
            message: "GraphProto",
            field: 2,
            ..
        })
    ));
    // A group inside a node.
    let mut node = B::new().s(4, "Relu");
    node.0.extend_from_slice(&[(9 << 3) | 3, (9 << 3) | 4]);
    let model = model_with_graph(B::new().m(1, node));
    assert!(matches!(
        ModelProto::parse(model.bytes()),
        Err(OnnxError::UnsupportedWireType {
            field: 9,
            wire_type: 3,
            ..
        })
    ));
}

#[test]
fn unknown_fields_are_skipped() {
    let node = B::new()
        .v(999, 5)
        .s(4, "Relu")
        .f32(77, 1.0)
        .f64(78, 2.0)
        .s(1, "x")
        .s(6, "doc")
        .m(536_870_911, B::new().v(1, 1));
    let graph = B::new().m(1, node).v(99, 1).s(10, "doc");
    let model = model_with_graph(graph).s(6, "model doc").v(12345, 1);
    let m = ModelProto::parse(model.bytes()).unwrap();
    let n = &m.graph().unwrap().node[0];
    assert_eq!((n.op_type, n.input.as_slice()), ("Relu", &["x"][..]));
}

#[test]
fn attributes_packed_unpacked_and_typed() {
    let ints_unpacked = B::new().s(1, "perm").v(8, 0).v(8, 2).v(8, 1).v(20, 7);
    let ints_packed = B::new().s(1, "pads").packed_varints(8, &[1, -1]).v(20, 7);
    let floats = B::new().s(1, "scales").f32(7, 1.0).f32(7, 2.0).v(20, 6);
    // IR v1 style: no type field, type inferred from the value present.
    let untyped = B::new().s(1, "alpha").f32(2, 0.5);
    let string = B::new().s(1, "mode").s(4, "nearest").v(20, 3);
    let empty_ints = B::new().s(1, "axes").v(20, 7);
    let reference = B::new().s(1, "axis").s(21, "outer_axis").v(20, 2);
    let unknown = B::new().s(1, "future").v(20, 99);
    let tensor = B::new()
        .s(1, "value")
        .m(5, B::new().v(2, 7).s(9, 3i64.to_le_bytes()))
        .v(20, 4);
    let node = B::new()
        .s(4, "Op")
        .m(5, ints_unpacked)
        .m(5, ints_packed)
        .m(5, floats)
        .m(5, untyped)
        .m(5, string)
        .m(5, empty_ints)
        .m(5, reference)
        .m(5, unknown)
        .m(5, tensor);
    let model = model_with_graph(B::new().m(1, node));
    let m = ModelProto::parse(model.bytes()).unwrap();
    let n = &m.graph().unwrap().node[0];
    assert_eq!(n.attr_ints("perm").unwrap(), Some(&[0, 2, 1][..]));
    assert_eq!(n.attr_ints("pads").unwrap(), Some(&[1, -1][..]));
    assert_eq!(n.attr_floats("scales").unwrap(), Some(&[1.0, 2.0][..]));
    assert_eq!(n.attr_float("alpha").unwrap(), Some(0.5));
    assert_eq!(n.attr_string("mode").unwrap(), Some("nearest"));
    assert_eq!(n.attr_ints("axes").unwrap(), Some(&[][..]));
    assert!(matches!(
        n.attr_int("axis"),
        Err(OnnxError::AttributeIsReference { .. })
    ));
    assert_eq!(n.attr("axis").unwrap().ref_attr_name, Some("outer_axis"));
    assert_eq!(n.attr_type("future"), Some(AttrType::Unknown(99)));
    let t = n.attr_tensor("value").unwrap().unwrap();
    assert_eq!(t.to_i64_vec(&mem(), 1).unwrap(), [3]);
    assert!(matches!(
        n.attr_graph("value"),
        Err(OnnxError::AttributeType {
            expected: AttrType::Graph,
            found: AttrType::Tensor,
            ..
        })
    ));
    assert!(matches!(
        n.attr_int("perm"),
        Err(OnnxError::AttributeType {
            expected: AttrType::Int,
            found: AttrType::Ints,
            ..
        })
    ));
}

#[test]
fn value_info_shapes_and_non_tensor_types() {
    let graph = B::new()
        // Shape absent: unknown rank.
        .m(11, value_info("a", tensor_type(1, None)))
        // Shape present but empty: a scalar.
        .m(11, value_info("b", tensor_type(7, Some(&[]))))
        .m(
            11,
            value_info(
                "c",
                tensor_type(
                    16,
                    Some(&[
                        B::new().v(1, 3),
                        B::new().s(2, "N"),
                        B::new(),
                        B::new().s(3, "den"),
                    ]),
                ),
            ),
        )
        .m(
            11,
            value_info("d", B::new().m(4, B::new().m(1, tensor_type(1, None)))),
        )
        .m(11, value_info("e", B::new().m(9, B::new())))
        .m(
            11,
            value_info(
                "f",
                B::new().m(5, B::new().v(1, 8).m(2, tensor_type(1, None))),
            ),
        )
        .m(11, B::new().s(1, "g"));
    let model = model_with_graph(graph);
    let m = ModelProto::parse(model.bytes()).unwrap();
    let ins = &m.graph().unwrap().input;
    assert_eq!(ins[0].tensor_type().unwrap().rank(), None);
    assert_eq!(ins[0].shape(), None);
    assert_eq!(ins[1].tensor_type().unwrap().rank(), Some(0));
    assert_eq!(ins[1].shape(), Some(&[][..]));
    assert_eq!(ins[2].elem_type(), DType::Bfloat16);
    assert_eq!(
        ins[2].shape().unwrap(),
        &[Dim::Value(3), Dim::Param("N"), Dim::Unknown, Dim::Unknown]
    );
    match ins[3].r#type.as_ref().unwrap() {
        TypeProto::Sequence(Some(inner)) => assert!(inner.as_tensor().is_some()),
        other => panic!("{other:?}"),
    }
    assert!(matches!(ins[4].r#type, Some(TypeProto::Optional(None))));
    assert!(matches!(
        ins[5].r#type,
        Some(TypeProto::Map {
            key_type: DType::String,
            value_type: Some(_)
        })
    ));
    assert!(ins[5].r#type.as_ref().unwrap().is_non_tensor());
    assert!(ins[6].r#type.is_none());
    assert_eq!(ins[6].elem_type(), DType::Undefined);
}

fn nested_if_graph(levels: usize) -> B {
    let mut g = B::new().s(2, "leaf");
    for _ in 0..levels {
        let attr = B::new().s(1, "then_branch").m(6, g).v(20, 5);
        g = B::new().m(1, B::new().s(4, "If").m(5, attr));
    }
    g
}

#[test]
fn nesting_limit() {
    let ok = model_with_graph(nested_if_graph(MAX_NESTING));
    let m = ModelProto::parse(ok.bytes()).unwrap();
    assert_eq!(m.graph().unwrap().node_count_recursive(), MAX_NESTING);
    let deep = model_with_graph(nested_if_graph(MAX_NESTING + 1));
    assert!(matches!(
        ModelProto::parse(deep.bytes()),
        Err(OnnxError::NestingTooDeep {
            limit: MAX_NESTING,
            ..
        })
    ));
    // Very deep input must not overflow the stack either.
    let very_deep = model_with_graph(nested_if_graph(1000));
    assert!(matches!(
        ModelProto::parse(very_deep.bytes()),
        Err(OnnxError::NestingTooDeep { .. })
    ));
    // Nested sequence types.
    let mut ty = tensor_type(1, None);
    for _ in 0..200 {
        ty = B::new().m(4, B::new().m(1, ty));
    }
    let model = model_with_graph(B::new().m(11, value_info("x", ty)));
    assert!(matches!(
        ModelProto::parse(model.bytes()),
        Err(OnnxError::NestingTooDeep { .. })
    ));
}

fn small_model() -> B {
    let attr = B::new().s(1, "axis").v(3, 1).v(20, 2);
    let node = B::new()
        .s(1, "x")
        .s(1, "")
        .s(1, "w")
        .s(2, "y")
        .s(3, "n0")
        .s(4, "Concat")
        .m(5, attr);
    let init = B::new()
        .v(1, 2)
        .v(2, 7)
        .s(8, "w")
        .packed_varints(7, &[1, 2]);
    let graph = B::new()
        .m(1, node)
        .s(2, "g")
        .m(5, init)
        .m(
            11,
            value_info("x", tensor_type(1, Some(&[B::new().s(2, "N")]))),
        )
        .m(12, value_info("y", tensor_type(1, None)));
    model_with_graph(graph).m(14, B::new().s(1, "k").s(2, "v"))
}

#[test]
fn small_model_reads_back() {
    let b = small_model();
    let m = ModelProto::parse(b.bytes()).unwrap();
    assert_eq!((m.ir_version, m.producer_name), (8, "test"));
    assert_eq!(m.opset_version(""), Some(17));
    assert_eq!(m.metadata_props[0].key, "k");
    let g = m.graph().unwrap();
    let n = &g.node[0];
    // The empty optional input is kept in place.
    assert_eq!(n.input, ["x", "", "w"]);
    assert_eq!(n.attr_int("axis").unwrap(), Some(1));
    assert_eq!(
        g.initializer("w").unwrap().to_i64_vec(&mem(), 2).unwrap(),
        [1, 2]
    );
    assert!(looks_like_onnx(b.bytes()));
}

#[test]
fn truncation_at_every_offset() {
    let b = small_model();
    let bytes = b.bytes();
    // Offsets where a top-level field ends: a prefix ending there is a valid, shorter model.
    let mut boundaries = vec![0];
    let mut r = Reader::new(bytes, 0);
    while let Some(f) = r.next_field().unwrap() {
        boundaries.push(f.end);
    }
    for i in 0..=bytes.len() {
        let res = ModelProto::parse(&bytes[..i]);
        if boundaries.contains(&i) {
            assert!(res.is_ok(), "prefix {i}: {res:?}");
        } else {
            match res {
                Err(OnnxError::Truncated { offset, .. }) => assert!(offset <= i),
                other => panic!("prefix {i}: expected Truncated, got {other:?}"),
            }
        }
        let _ = looks_like_onnx(&bytes[..i]);
        let _ = write_with_shapes(&bytes[..i], &[]);
    }
}

#[test]
fn writer_preserves_unknown_fields_and_keeps_value_info() {
    let graph = B::new()
        .m(1, B::new().s(1, "x").s(2, "t").s(4, "Relu"))
        .m(1, B::new().s(1, "t").s(2, "y").s(4, "Relu"))
        .m(
            11,
            value_info("x", tensor_type(1, Some(&[B::new().v(1, 2)]))),
        )
        .m(13, value_info("old", tensor_type(1, None)))
        .v(4242, 9)
        .m(12, value_info("y", tensor_type(1, None)).s(3, "doc of y"))
        .m(13, value_info("old2", tensor_type(1, None)))
        .m(12, value_info("seq", B::new().m(4, B::new())));
    let model = model_with_graph(graph).v(31337, 1);
    let shapes = [
        InferredValueInfo {
            name: "t".into(),
            elem_type: DType::Float,
            shape: Some(vec![InferredDim::Value(2)]),
            containers: Vec::new(),
        },
        InferredValueInfo {
            name: "y".into(),
            elem_type: DType::Undefined,
            shape: Some(vec![InferredDim::Param("N".into())]),
            containers: Vec::new(),
        },
        InferredValueInfo {
            name: "seq".into(),
            elem_type: DType::Float,
            shape: None,
            containers: Vec::new(),
        },
        InferredValueInfo {
            name: "t".into(),
            elem_type: DType::Int8,
            shape: None,
            containers: Vec::new(),
        },
    ];
    let out = write_with_shapes(model.bytes(), &shapes).unwrap();
    let m = ModelProto::parse(&out).unwrap();
    let g = m.graph().unwrap();
    // Existing entries stay where they were (untouched: `shapes` does not name them);
    // the new one follows the last of them.
    let vi: Vec<_> = g.value_info.iter().map(|v| v.name).collect();
    assert_eq!(vi, ["old", "old2", "t"]);
    assert_eq!(g.value_info[2].elem_type(), DType::Float);
    let order: Vec<u32> = {
        let body = super::wire::Reader::new(&out, 0);
        let mut r = body;
        let mut graph = None;
        while let Some(f) = r.next_field().unwrap() {
            if f.number == 7 {
                graph = Some(f.message("ModelProto").unwrap());
            }
        }
        let mut g = graph.unwrap();
        let mut numbers = Vec::new();
        while let Some(f) = g.next_field().unwrap() {
            numbers.push(f.number);
        }
        numbers
    };
    assert_eq!(order, [1, 1, 11, 13, 4242, 12, 13, 13, 12]);
    // An existing entry named by `shapes` is rewritten in place.
    let again = write_with_shapes(
        &out,
        &[InferredValueInfo {
            name: "old".into(),
            elem_type: DType::Undefined,
            shape: Some(vec![InferredDim::Value(5)]),
            containers: Vec::new(),
        }],
    )
    .unwrap();
    let m2 = ModelProto::parse(&again).unwrap();
    let g2 = m2.graph().unwrap();
    let vi: Vec<_> = g2.value_info.iter().map(|v| v.name).collect();
    assert_eq!(vi, ["old", "old2", "t"]);
    assert_eq!(g2.value_info[0].shape().unwrap(), &[Dim::Value(5)]);
    assert_eq!(
        g2.value_info[0].elem_type(),
        DType::Float,
        "kept from the file"
    );
    // Output "y": shape from the inference, element type kept from the file.
    assert_eq!(g.output[0].elem_type(), DType::Float);
    assert_eq!(g.output[0].shape().unwrap(), &[Dim::Param("N")]);
    // A non-tensor output is left alone.
    assert!(matches!(
        g.output[1].r#type,
        Some(TypeProto::Sequence(None))
    ));
    // Unknown fields survive byte for byte, and so does the output's doc_string.
    let find = |needle: &B| out.windows(needle.0.len()).any(|w| w == needle.bytes());
    assert!(find(&B::new().v(4242, 9)));
    assert!(find(&B::new().v(31337, 1)));
    assert!(find(&B::new().s(3, "doc of y")));
    // Malformed input is an error, not a copy.
    assert!(write_with_shapes(&out[..out.len() - 3], &shapes).is_err());
    assert!(matches!(
        write_with_shapes(B::new().v(1, 8).bytes(), &shapes),
        Err(OnnxError::MissingGraph)
    ));
}

/// A scratch directory removed on drop.
struct TempDir(std::path::PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!("symdim-onnx-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn external_tensor(location: &str, offset: Option<&str>, length: Option<&str>) -> B {
    let entry = |k: &str, v: &str| B::new().s(1, k).s(2, v);
    let mut t = B::new()
        .v(1, 3)
        .v(2, 7)
        .s(8, "ext")
        .v(14, 1)
        .m(13, entry("location", location));
    if let Some(o) = offset {
        t = t.m(13, entry("offset", o));
    }
    if let Some(l) = length {
        t = t.m(13, entry("length", l));
    }
    t
}

#[test]
fn external_data() {
    let dir = TempDir::new("ext");
    let mut data = vec![0xeeu8; 8];
    for v in [10i64, -20, 30] {
        data.extend_from_slice(&v.to_le_bytes());
    }
    std::fs::create_dir_all(dir.0.join("sub")).unwrap();
    std::fs::write(dir.0.join("sub/w.bin"), &data).unwrap();
    let src = DataSource::for_model_file(dir.0.join("model.onnx"));
    assert_eq!(src.model_dir(), Some(dir.0.as_path()));

    let b = external_tensor("sub/w.bin", Some("8"), Some("24"));
    let t = parse_tensor(&b).unwrap();
    assert!(t.is_external());
    assert_eq!(t.external_value("offset"), Some("8"));
    assert_eq!(t.to_i64_vec(&src, CAP).unwrap(), [10, -20, 30]);
    assert_eq!(t.to_f64_vec(&src, CAP).unwrap(), [10.0, -20.0, 30.0]);
    assert!(matches!(
        t.to_i64_vec(&DataSource::in_memory(), CAP),
        Err(OnnxError::NoModelDirectory { .. })
    ));
    // Length absent: the expected size is read from the offset.
    let b = external_tensor("./sub/w.bin", Some("8"), None);
    assert_eq!(
        parse_tensor(&b).unwrap().to_i64_vec(&src, CAP).unwrap(),
        [10, -20, 30]
    );

    for bad in [
        "../w.bin",
        "/etc/passwd",
        "sub/../../w.bin",
        "",
        "sub\\..\\..\\w.bin",
    ] {
        let b = external_tensor(bad, None, None);
        assert!(
            matches!(
                parse_tensor(&b).unwrap().to_i64_vec(&src, CAP),
                Err(OnnxError::UnsafeExternalPath { .. })
            ),
            "{bad:?}"
        );
    }
    let b = external_tensor("sub/w.bin", Some("16"), None);
    assert!(matches!(
        parse_tensor(&b).unwrap().to_i64_vec(&src, CAP),
        Err(OnnxError::ExternalRange {
            offset: 16,
            length: 24,
            file_len: 32,
            ..
        })
    ));
    let b = external_tensor("sub/w.bin", Some("8"), Some("16"));
    assert!(matches!(
        parse_tensor(&b).unwrap().to_i64_vec(&src, CAP),
        Err(OnnxError::DataSizeMismatch {
            expected: 24,
            found: 16,
            ..
        })
    ));
    let b = external_tensor("sub/w.bin", Some("-8"), None);
    assert!(matches!(
        parse_tensor(&b).unwrap().to_i64_vec(&src, CAP),
        Err(OnnxError::InvalidExternalValue { key: "offset", .. })
    ));
    let b = external_tensor("sub/missing.bin", None, None);
    assert!(matches!(
        parse_tensor(&b).unwrap().to_i64_vec(&src, CAP),
        Err(OnnxError::Io { .. })
    ));
    let b = B::new().v(1, 1).v(2, 7).v(14, 1);
    assert!(matches!(
        parse_tensor(&b).unwrap().to_i64_vec(&src, CAP),
        Err(OnnxError::MissingExternalLocation { .. })
    ));

    // A symlink inside the model directory that leads out of it.
    #[cfg(unix)]
    {
        let outside = TempDir::new("ext-outside");
        std::fs::write(outside.0.join("secret.bin"), [0u8; 24]).unwrap();
        std::os::unix::fs::symlink(outside.0.join("secret.bin"), dir.0.join("link.bin")).unwrap();
        let b = external_tensor("link.bin", None, None);
        assert!(matches!(
            parse_tensor(&b).unwrap().to_i64_vec(&src, CAP),
            Err(OnnxError::UnsafeExternalPath { .. })
        ));
    }
}

#[test]
fn repeated_debug_is_bounded() {
    let b = B::new().packed_varints(7, &(0..100).collect::<Vec<_>>());
    let t = parse_tensor(&b).unwrap();
    let s = format!("{:?}", t.int64_data);
    assert!(s.contains("84 more"), "{s}");
}

/// `load_model` against its definition, `to_model` of `ModelProto::parse`: the same model,
/// or the same error.
fn loads_as_in_two_steps(bytes: &[u8]) {
    let src = mem();
    let streamed = load_model(bytes, "m.onnx", &src);
    let two_steps = ModelProto::parse(bytes).and_then(|m| to_model(&m, "m.onnx", &src));
    match (streamed, two_steps) {
        (Ok(a), Ok(b)) => {
            assert_eq!(
                (&a.path, a.format, &a.opsets),
                (&b.path, b.format, &b.opsets)
            );
            assert_eq!(a.graph, b.graph);
        }
        (Err(a), Err(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}")),
        (a, b) => panic!("streamed {a:?}, in two steps {b:?}"),
    }
}

/// A model of `n` nodes: every third node unnamed (its name comes from its index),
/// attributes, a subgraph, and calls of a model-local function, which are inlined.
fn many_nodes_model(n: usize) -> B {
    many_nodes_model_with_docs(n, 0)
}

/// [`many_nodes_model`] with a `doc_string` of `doc` bytes on every node (skipped when
/// read, as exporters' stack traces are).
fn many_nodes_model_with_docs(n: usize, doc: usize) -> B {
    let mut graph = B::new().s(2, "g");
    for i in 0..n {
        let mut node = B::new()
            .s(
                1,
                if i == 0 {
                    "x".to_string()
                } else {
                    format!("t{}", i - 1)
                },
            )
            .s(2, format!("t{i}"));
        if i % 3 != 0 {
            node = node.s(3, format!("node{i}"));
        }
        if doc > 0 {
            node = node.s(6, vec![b'#'; doc]);
        }
        node = match i % 5 {
            0 => node.s(4, "Relu"),
            1 => node
                .s(4, "Transpose")
                .m(5, B::new().s(1, "perm").packed_varints(8, &[1, 0]).v(20, 7)),
            2 => node.s(4, "Twice").s(7, "local"),
            3 => node.s(4, "If").m(
                5,
                B::new()
                    .s(1, "then_branch")
                    .m(
                        6,
                        B::new()
                            .s(2, "b")
                            .m(1, B::new().s(1, "c").s(2, "d").s(4, "Neg")),
                    )
                    .v(20, 5),
            ),
            _ => node.s(4, "Constant").m(
                5,
                B::new()
                    .s(1, "value")
                    .m(5, B::new().v(1, 2).v(2, 7).packed_varints(7, &[3, 4]))
                    .v(20, 4),
            ),
        };
        graph = graph.m(1, node);
    }
    let graph = graph
        .m(
            5,
            B::new().v(1, 2).v(2, 1).s(8, "w").f32(4, 1.0).f32(4, 2.0),
        )
        .m(
            11,
            value_info("x", tensor_type(1, Some(&[B::new().s(2, "N")]))),
        )
        .m(11, value_info("w", tensor_type(1, None)))
        .m(12, value_info(&format!("t{}", n - 1), tensor_type(1, None)));
    let function = B::new()
        .s(1, "Twice")
        .s(10, "local")
        .s(4, "a")
        .s(5, "b")
        .m(7, B::new().s(1, "a").s(2, "h").s(4, "Relu"))
        .m(7, B::new().s(1, "h").s(2, "b").s(4, "Relu"))
        .m(9, B::new().s(1, "").v(2, 17));
    model_with_graph(graph)
        .m(8, B::new().s(1, "local").v(2, 1))
        .m(25, function)
}

#[test]
fn streamed_load_matches_parse_then_convert() {
    loads_as_in_two_steps(small_model().bytes());
    // Thousands of nodes, function calls inlined throughout, generated names.
    let big = many_nodes_model(5000);
    loads_as_in_two_steps(big.bytes());
    let m = load_model(big.bytes(), "m.onnx", &mem()).unwrap();
    assert_eq!(m.graph.nodes.len(), 6000);
    assert_eq!(m.graph.nodes[4999 + 1000].name, "node4999");
    assert!(m.graph.nodes.iter().any(|n| n.name == "Relu_4995"));
    assert!(m.graph.nodes.iter().any(|n| n.name == "node4997/Relu_1"));
    assert_eq!(m.graph.inputs.len(), 1);
    // No graph; two graphs (the last one counts).
    loads_as_in_two_steps(B::new().v(1, 8).bytes());
    let two = model_with_graph(B::new().s(2, "first").m(1, B::new().s(4, "Relu")))
        .m(7, B::new().s(2, "second"));
    loads_as_in_two_steps(two.bytes());
}

#[test]
fn streamed_load_fails_as_parse_then_convert() {
    let small = small_model();
    let big = many_nodes_model(3000);
    for b in [small.bytes(), big.bytes()] {
        // Every prefix of the small model; about two dozen evenly spaced prefixes of
        // the big one.
        let step = if b.len() > 10_000 { b.len() / 23 } else { 1 };
        for i in (0..=b.len()).step_by(step) {
            loads_as_in_two_steps(&b[..i]);
        }
        // Damaged bytes anywhere: wrong wire types, bad lengths, bad UTF-8.
        for i in (0..b.len()).step_by(step / 3 + 1) {
            for v in [0x00, 0xff, 0x07] {
                let mut d = b.to_vec();
                d[i] = v;
                loads_as_in_two_steps(&d);
            }
        }
    }
}

#[test]
fn streamed_load_of_the_fixtures() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/onnx");
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.path().extension().is_some_and(|x| x == "onnx") {
            let b = std::fs::read(e.path()).unwrap();
            loads_as_in_two_steps(&b);
            for i in 0..b.len() {
                loads_as_in_two_steps(&b[..i]);
                let mut d = b.clone();
                d[i] ^= 0x80;
                loads_as_in_two_steps(&d);
            }
        }
    }
}

/// `"ai.onnx"` and `""` are one domain everywhere: the opsets, a node's domain and
/// version and the model's opset lookup (the op registry's own test checks its lookup).
#[test]
fn ai_onnx_is_the_default_domain() {
    let graph = B::new()
        .m(1, B::new().s(1, "x").s(2, "y").s(4, "Relu").s(7, "ai.onnx"))
        .m(1, B::new().s(1, "y").s(2, "z").s(4, "Relu"));
    let bytes = B::new()
        .v(1, 8)
        .m(7, graph)
        .m(8, B::new().s(1, "ai.onnx").v(2, 13));
    let m = ModelProto::parse(bytes.bytes()).unwrap();
    assert_eq!(m.opset_version(""), Some(13));
    assert_eq!(m.opset_version("ai.onnx"), Some(13));
    let model = load_model(bytes.bytes(), "m.onnx", &mem()).unwrap();
    assert_eq!(model.opsets.get(""), Some(&13));
    assert_eq!(model.opsets.len(), 1);
    for n in &model.graph.nodes {
        assert_eq!((n.domain.as_str(), n.version), ("", 13), "{}", n.name);
    }
    assert_eq!(canonical_domain("com.microsoft"), "com.microsoft");
}
