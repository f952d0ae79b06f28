//! `TensorProto` and `SparseTensorProto`: borrowed at parse time, decoded lazily on request.

use std::borrow::Cow;
use std::fmt;
use std::io::{Read, Seek, SeekFrom};
use std::marker::PhantomData;
use std::path::{Component, Path, PathBuf};

use smallvec::SmallVec;

use super::error::OnnxError;
use super::types::StringStringEntry;
use super::wire::{Field, Reader, Value, WireType};
use crate::graph::{bf16_to_f64, f16_to_f64, DType};

/// Where a tensor's data lives (`TensorProto.DataLocation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DataLocation {
    /// 0: inside the model (`raw_data` or a typed field).
    #[default]
    Default,
    /// 1: in a file named by `external_data`.
    External,
    /// Any other number.
    Unknown(i32),
}

mod sealed {
    pub trait Sealed {}
}

/// An element type of a lazily decoded repeated numeric field.
pub trait RepeatedElem: Copy + sealed::Sealed {
    /// The wire type of one unpacked element.
    #[doc(hidden)]
    const WIRE: WireType;
    /// Builds the value from a varint or fixed-width bit pattern.
    #[doc(hidden)]
    fn from_bits(bits: u64) -> Self;
}

macro_rules! repeated_elem {
    ($t:ty, $wire:expr, |$b:ident| $conv:expr) => {
        impl sealed::Sealed for $t {}
        impl RepeatedElem for $t {
            const WIRE: WireType = $wire;
            fn from_bits($b: u64) -> Self {
                $conv
            }
        }
    };
}
repeated_elem!(i32, WireType::Varint, |b| b as i32);
repeated_elem!(i64, WireType::Varint, |b| b as i64);
repeated_elem!(u64, WireType::Varint, |b| b);
repeated_elem!(f32, WireType::I32, |b| f32::from_bits(b as u32));
repeated_elem!(f64, WireType::I64, |b| f64::from_bits(b));

/// A repeated numeric field of a tensor (`int64_data`, `float_data`, ...), validated and
/// counted at parse time but not copied: values are decoded when iterated. Packed and
/// unpacked occurrences (even mixed) are both read.
#[derive(Clone, Copy)]
pub struct Repeated<'a, T> {
    /// The enclosing message's bytes (empty when the field is absent).
    msg: &'a [u8],
    field: u32,
    len: usize,
    _elem: PhantomData<fn() -> T>,
}

impl<'a, T: RepeatedElem> Repeated<'a, T> {
    fn empty(field: u32) -> Self {
        Repeated {
            msg: &[],
            field,
            len: 0,
            _elem: PhantomData,
        }
    }

    /// Validates one occurrence and counts its elements.
    fn add(
        &mut self,
        f: &Field<'a>,
        msg: &'a [u8],
        message: &'static str,
    ) -> Result<(), OnnxError> {
        let n = match (f.value, T::WIRE) {
            (Value::Varint(_), WireType::Varint)
            | (Value::I32(_), WireType::I32)
            | (Value::I64(_), WireType::I64) => 1,
            (Value::Len(b), WireType::Varint) => {
                let mut r = Reader::new(b, f.value_start);
                let mut n = 0;
                while !r.is_empty() {
                    r.varint()?;
                    n += 1;
                }
                n
            }
            (Value::Len(b), fixed) => {
                let size = if fixed == WireType::I32 { 4 } else { 8 };
                if b.len() % size != 0 {
                    return Err(OnnxError::PackedLength {
                        offset: f.value_start,
                        message,
                        field: f.number,
                        len: b.len(),
                        elem_size: size,
                    });
                }
                b.len() / size
            }
            (_, expected) => {
                return Err(OnnxError::WrongWireType {
                    offset: f.start,
                    message,
                    field: f.number,
                    expected,
                    found: f.wire_type(),
                })
            }
        };
        self.msg = msg;
        self.len += n;
        Ok(())
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the field has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Decodes the elements one by one.
    pub fn iter(&self) -> RepeatedIter<'a, T> {
        RepeatedIter {
            outer: Reader::new(self.msg, 0),
            packed: Reader::new(&[], 0),
            field: self.field,
            remaining: self.len,
            _elem: PhantomData,
        }
    }

    /// Decodes all elements into a vector.
    pub fn to_vec(&self) -> Vec<T> {
        self.iter().collect()
    }
}

impl<T: RepeatedElem + fmt::Debug> fmt::Debug for Repeated<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const SHOWN: usize = 16;
        let mut l = f.debug_list();
        l.entries(self.iter().take(SHOWN));
        if self.len > SHOWN {
            l.entry(&format_args!("... {} more", self.len - SHOWN));
        }
        l.finish()
    }
}

/// Iterator over a [`Repeated`] field.
#[derive(Debug, Clone)]
pub struct RepeatedIter<'a, T> {
    outer: Reader<'a>,
    packed: Reader<'a>,
    field: u32,
    remaining: usize,
    _elem: PhantomData<fn() -> T>,
}

impl<T: RepeatedElem> Iterator for RepeatedIter<'_, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        if self.remaining == 0 {
            return None;
        }
        // The field was validated at parse time, so the errors below cannot happen; if they
        // did, the iteration would just stop.
        loop {
            if !self.packed.is_empty() {
                let bits = match T::WIRE {
                    WireType::Varint => self.packed.varint().ok()?,
                    WireType::I32 => {
                        let b = self.packed.take(4).ok()?;
                        u64::from(u32::from_le_bytes(b.try_into().ok()?))
                    }
                    _ => {
                        let b = self.packed.take(8).ok()?;
                        u64::from_le_bytes(b.try_into().ok()?)
                    }
                };
                self.remaining -= 1;
                return Some(T::from_bits(bits));
            }
            let f = self.outer.next_field().ok()??;
            if f.number != self.field {
                continue;
            }
            let bits = match f.value {
                Value::Varint(v) | Value::I64(v) => v,
                Value::I32(v) => u64::from(v),
                Value::Len(b) => {
                    self.packed = Reader::new(b, 0);
                    continue;
                }
            };
            self.remaining -= 1;
            return Some(T::from_bits(bits));
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

/// `TensorProto`: a tensor constant. Nothing of the payload is copied at parse time:
/// `raw_data` is a borrowed slice and the typed fields are [`Repeated`] views.
#[derive(Debug, Clone)]
pub struct TensorProto<'a> {
    /// The tensor's name (the value it defines, for an initializer).
    pub name: &'a str,
    /// The dims.
    pub dims: SmallVec<[i64; 4]>,
    /// The element type.
    pub data_type: DType,
    /// `raw_data`, borrowed from the input.
    pub raw_data: Option<&'a [u8]>,
    /// `float_data` (FLOAT, COMPLEX64).
    pub float_data: Repeated<'a, f32>,
    /// `int32_data` (INT32 and narrower integer and float types, as bit patterns).
    pub int32_data: Repeated<'a, i32>,
    /// `string_data`, one byte string per element.
    pub string_data: Vec<&'a [u8]>,
    /// `int64_data` (INT64).
    pub int64_data: Repeated<'a, i64>,
    /// `double_data` (DOUBLE, COMPLEX128).
    pub double_data: Repeated<'a, f64>,
    /// `uint64_data` (UINT32, UINT64).
    pub uint64_data: Repeated<'a, u64>,
    /// `data_location`.
    pub data_location: DataLocation,
    /// `external_data` key/value pairs (`location`, `offset`, `length`, `checksum`).
    pub external_data: Vec<StringStringEntry<'a>>,
}

impl<'a> TensorProto<'a> {
    pub(crate) fn parse(mut r: Reader<'a>) -> Result<Self, OnnxError> {
        const M: &str = "TensorProto";
        let body = r.body();
        let mut t = TensorProto {
            name: "",
            dims: SmallVec::new(),
            data_type: DType::Undefined,
            raw_data: None,
            float_data: Repeated::empty(4),
            int32_data: Repeated::empty(5),
            string_data: Vec::new(),
            int64_data: Repeated::empty(7),
            double_data: Repeated::empty(10),
            uint64_data: Repeated::empty(11),
            data_location: DataLocation::Default,
            external_data: Vec::new(),
        };
        while let Some(f) = r.next_field()? {
            match f.number {
                1 => f.push_varints(M, &mut t.dims)?,
                2 => t.data_type = DType::from_i32(f.int32(M)?),
                4 => t.float_data.add(&f, body, M)?,
                5 => t.int32_data.add(&f, body, M)?,
                6 => t.string_data.push(f.bytes(M)?),
                7 => t.int64_data.add(&f, body, M)?,
                8 => t.name = f.str(M)?,
                9 => t.raw_data = Some(f.bytes(M)?),
                10 => t.double_data.add(&f, body, M)?,
                11 => t.uint64_data.add(&f, body, M)?,
                13 => t
                    .external_data
                    .push(StringStringEntry::parse(f.message(M)?)?),
                14 => {
                    t.data_location = match f.int32(M)? {
                        0 => DataLocation::Default,
                        1 => DataLocation::External,
                        n => DataLocation::Unknown(n),
                    }
                }
                _ => {} // 3 = segment, 12 = doc_string, 16 = metadata_props
            }
        }
        Ok(t)
    }

    /// The number of elements: the product of the dims (1 for a scalar), checked for
    /// negative dims and overflow.
    pub fn num_elements(&self) -> Result<u64, OnnxError> {
        let mut n: u64 = 1;
        for (index, &d) in self.dims.iter().enumerate() {
            if d < 0 {
                return Err(OnnxError::NegativeDim {
                    tensor: self.name.to_string(),
                    index,
                    value: d,
                });
            }
            n = n
                .checked_mul(d as u64)
                .ok_or_else(|| OnnxError::ElementCountOverflow {
                    tensor: self.name.to_string(),
                })?;
        }
        Ok(n)
    }

    /// Whether the data is stored in an external file.
    pub fn is_external(&self) -> bool {
        self.data_location == DataLocation::External
    }

    /// The value of an `external_data` key.
    pub fn external_value(&self, key: &str) -> Option<&'a str> {
        self.external_data
            .iter()
            .rev()
            .find(|e| e.key == key)
            .map(|e| e.value)
    }

    fn capped_count(&self, cap: usize) -> Result<usize, OnnxError> {
        let count = self.num_elements()?;
        if count > cap as u64 {
            return Err(OnnxError::TooManyElements {
                tensor: self.name.to_string(),
                count,
                cap,
            });
        }
        Ok(count as usize)
    }

    fn unsupported(&self, wanted: &'static str) -> OnnxError {
        OnnxError::UnsupportedDataType {
            tensor: self.name.to_string(),
            data_type: self.data_type,
            wanted,
        }
    }

    /// The packed bytes of `n` elements of `bits` each, if the tensor stores bytes
    /// (`raw_data` or external data) rather than a typed field; checked for size.
    fn stored_bytes(
        &self,
        src: &DataSource,
        n: usize,
        bits: u32,
    ) -> Result<Option<Cow<'a, [u8]>>, OnnxError> {
        let expected = ((n as u128 * u128::from(bits)).div_ceil(8)) as u64;
        let bytes = if self.is_external() {
            Cow::Owned(src.read_external(self, expected)?)
        } else if let Some(raw) = self.raw_data {
            Cow::Borrowed(raw)
        } else {
            return Ok(None);
        };
        if bytes.len() as u64 != expected {
            return Err(OnnxError::DataSizeMismatch {
                tensor: self.name.to_string(),
                expected,
                found: bytes.len() as u64,
            });
        }
        Ok(Some(bytes))
    }

    fn check_count(
        &self,
        field: &'static str,
        expected: usize,
        found: usize,
    ) -> Result<(), OnnxError> {
        if expected != found {
            return Err(OnnxError::ElementCountMismatch {
                tensor: self.name.to_string(),
                field,
                expected: expected as u64,
                found: found as u64,
            });
        }
        Ok(())
    }

    /// The low bytes of `int32_data`, used for sub-byte types packed into it.
    fn int32_low_bytes(&self, n: usize, bits: u32) -> Result<Vec<u8>, OnnxError> {
        let per = (8 / bits) as usize;
        self.check_count("int32_data", n.div_ceil(per), self.int32_data.len())?;
        Ok(self.int32_data.iter().map(|v| v as u8).collect())
    }

    /// Integer elements as 64-bit patterns (UINT64 values above `i64::MAX` come out negative;
    /// the public methods check or reinterpret them).
    fn int_bits(
        &self,
        src: &DataSource,
        cap: usize,
        wanted: &'static str,
    ) -> Result<Vec<i64>, OnnxError> {
        let dt = self.data_type;
        if !dt.is_integer() {
            return Err(self.unsupported(wanted));
        }
        let n = self.capped_count(cap)?;
        let bits = dt.bit_width().unwrap_or(64);
        if let Some(bytes) = self.stored_bytes(src, n, bits)? {
            return Ok(decode_raw_ints(dt, &bytes, n));
        }
        match dt {
            DType::Int64 => {
                self.check_count("int64_data", n, self.int64_data.len())?;
                Ok(self.int64_data.to_vec())
            }
            DType::Uint32 | DType::Uint64 => {
                self.check_count("uint64_data", n, self.uint64_data.len())?;
                Ok(self.uint64_data.iter().map(|v| v as i64).collect())
            }
            DType::Uint4 | DType::Int4 | DType::Uint2 | DType::Int2 => {
                let bytes = self.int32_low_bytes(n, bits)?;
                Ok(decode_raw_ints(dt, &bytes, n))
            }
            _ => {
                self.check_count("int32_data", n, self.int32_data.len())?;
                Ok(self
                    .int32_data
                    .iter()
                    .map(|v| match dt {
                        DType::Bool => i64::from(v != 0),
                        DType::Uint8 => i64::from(v as u8),
                        DType::Uint16 => i64::from(v as u16),
                        _ => i64::from(v),
                    })
                    .collect())
            }
        }
    }

    /// Decodes an integer tensor (INT64, INT32, INT16, INT8, UINT8, UINT16, UINT32, UINT64,
    /// BOOL, INT4, UINT4, INT2, UINT2) into `i64`s. Refuses (without decoding) tensors with
    /// more than `cap` elements. UINT64 values above `i64::MAX` give
    /// [`OnnxError::ValueOutOfRange`].
    pub fn to_i64_vec(&self, src: &DataSource, cap: usize) -> Result<Vec<i64>, OnnxError> {
        let v = self.int_bits(src, cap, "i64")?;
        if self.data_type == DType::Uint64 {
            if let Some(index) = v.iter().position(|&x| x < 0) {
                return Err(OnnxError::ValueOutOfRange {
                    tensor: self.name.to_string(),
                    index,
                    value: v[index] as u64,
                });
            }
        }
        Ok(v)
    }

    /// Decodes a numeric tensor (FLOAT, DOUBLE, FLOAT16, BFLOAT16 and every integer type that
    /// [`TensorProto::to_i64_vec`] reads) into `f64`s. Refuses (without decoding) tensors with
    /// more than `cap` elements.
    pub fn to_f64_vec(&self, src: &DataSource, cap: usize) -> Result<Vec<f64>, OnnxError> {
        let dt = self.data_type;
        if dt.is_integer() {
            let v = self.int_bits(src, cap, "f64")?;
            return Ok(if dt == DType::Uint64 {
                v.into_iter().map(|x| x as u64 as f64).collect()
            } else {
                v.into_iter().map(|x| x as f64).collect()
            });
        }
        let bits = match dt {
            DType::Float => 32,
            DType::Double => 64,
            DType::Float16 | DType::Bfloat16 => 16,
            _ => return Err(self.unsupported("f64")),
        };
        let n = self.capped_count(cap)?;
        if let Some(b) = self.stored_bytes(src, n, bits)? {
            return Ok(match dt {
                DType::Float => b
                    .chunks_exact(4)
                    .map(|c| f64::from(f32::from_le_bytes([c[0], c[1], c[2], c[3]])))
                    .collect(),
                DType::Double => b
                    .chunks_exact(8)
                    .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
                    .collect(),
                DType::Float16 => b
                    .chunks_exact(2)
                    .map(|c| f16_to_f64(u16::from_le_bytes([c[0], c[1]])))
                    .collect(),
                _ => b
                    .chunks_exact(2)
                    .map(|c| bf16_to_f64(u16::from_le_bytes([c[0], c[1]])))
                    .collect(),
            });
        }
        Ok(match dt {
            DType::Float => {
                self.check_count("float_data", n, self.float_data.len())?;
                self.float_data.iter().map(f64::from).collect()
            }
            DType::Double => {
                self.check_count("double_data", n, self.double_data.len())?;
                self.double_data.to_vec()
            }
            DType::Float16 => {
                self.check_count("int32_data", n, self.int32_data.len())?;
                self.int32_data
                    .iter()
                    .map(|v| f16_to_f64(v as u16))
                    .collect()
            }
            _ => {
                self.check_count("int32_data", n, self.int32_data.len())?;
                self.int32_data
                    .iter()
                    .map(|v| bf16_to_f64(v as u16))
                    .collect()
            }
        })
    }
}

fn decode_raw_ints(dt: DType, b: &[u8], n: usize) -> Vec<i64> {
    fn le<const N: usize>(c: &[u8]) -> [u8; N] {
        c.try_into().expect("chunk size")
    }
    match dt {
        DType::Int64 | DType::Uint64 => b
            .chunks_exact(8)
            .map(|c| i64::from_le_bytes(le(c)))
            .collect(),
        DType::Int32 => b
            .chunks_exact(4)
            .map(|c| i64::from(i32::from_le_bytes(le(c))))
            .collect(),
        DType::Uint32 => b
            .chunks_exact(4)
            .map(|c| i64::from(u32::from_le_bytes(le(c))))
            .collect(),
        DType::Int16 => b
            .chunks_exact(2)
            .map(|c| i64::from(i16::from_le_bytes(le(c))))
            .collect(),
        DType::Uint16 => b
            .chunks_exact(2)
            .map(|c| i64::from(u16::from_le_bytes(le(c))))
            .collect(),
        DType::Int8 => b.iter().map(|&x| i64::from(x as i8)).collect(),
        DType::Bool => b.iter().map(|&x| i64::from(x != 0)).collect(),
        DType::Int4 | DType::Uint4 | DType::Int2 | DType::Uint2 => {
            let bits = dt.bit_width().unwrap_or(4) as usize;
            let signed = matches!(dt, DType::Int4 | DType::Int2);
            let per = 8 / bits;
            let mask = (1u8 << bits) - 1;
            (0..n)
                .map(|i| {
                    let x = (b[i / per] >> ((i % per) * bits)) & mask;
                    if signed && x >> (bits - 1) == 1 {
                        i64::from(x) - (1i64 << bits)
                    } else {
                        i64::from(x)
                    }
                })
                .collect()
        }
        _ => b.iter().map(|&x| i64::from(x)).collect(), // UINT8
    }
}

/// `SparseTensorProto`: a sparse constant; only its parts are kept, nothing is decoded.
#[derive(Debug, Clone)]
pub struct SparseTensorProto<'a> {
    /// The non-zero values (its `name` names the sparse tensor).
    pub values: Option<TensorProto<'a>>,
    /// The indices of the values.
    pub indices: Option<TensorProto<'a>>,
    /// The dims of the dense tensor.
    pub dims: Vec<i64>,
}

impl<'a> SparseTensorProto<'a> {
    pub(crate) fn parse(mut r: Reader<'a>) -> Result<Self, OnnxError> {
        const M: &str = "SparseTensorProto";
        let mut s = SparseTensorProto {
            values: None,
            indices: None,
            dims: Vec::new(),
        };
        while let Some(f) = r.next_field()? {
            match f.number {
                1 => s.values = Some(TensorProto::parse(f.message(M)?)?),
                2 => s.indices = Some(TensorProto::parse(f.message(M)?)?),
                3 => f.push_varints(M, &mut s.dims)?,
                _ => {}
            }
        }
        Ok(s)
    }

    /// The sparse tensor's name (that of its `values`).
    pub fn name(&self) -> &'a str {
        self.values.as_ref().map_or("", |v| v.name)
    }
}

/// Where tensor data outside the model bytes comes from: the directory of the model file,
/// against which `external_data` locations are resolved. A location must be a relative path
/// without `..` components or backslashes, and must still lie inside the directory once
/// symlinks are resolved; anything else is [`OnnxError::UnsafeExternalPath`].
#[derive(Debug, Clone, Default)]
pub struct DataSource {
    model_dir: Option<PathBuf>,
}

impl DataSource {
    /// A source for a model held only in memory: external data cannot be read.
    pub fn in_memory() -> Self {
        DataSource { model_dir: None }
    }

    /// A source for the model file at `path`: external data is read next to it.
    pub fn for_model_file(path: impl AsRef<Path>) -> Self {
        let dir = match path.as_ref().parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        DataSource {
            model_dir: Some(dir),
        }
    }

    /// A source whose external data is read from `dir`.
    pub fn with_model_dir(dir: impl Into<PathBuf>) -> Self {
        DataSource {
            model_dir: Some(dir.into()),
        }
    }

    /// The model directory, if known.
    pub fn model_dir(&self) -> Option<&Path> {
        self.model_dir.as_deref()
    }

    /// Reads `expected` bytes of a tensor's external data, after checking that `location`
    /// stays inside the model directory.
    fn read_external(&self, t: &TensorProto<'_>, expected: u64) -> Result<Vec<u8>, OnnxError> {
        let tensor = || t.name.to_string();
        let dir = self
            .model_dir
            .as_deref()
            .ok_or_else(|| OnnxError::NoModelDirectory { tensor: tensor() })?;
        let location = t
            .external_value("location")
            .ok_or_else(|| OnnxError::MissingExternalLocation { tensor: tensor() })?;
        let unsafe_path = || OnnxError::UnsafeExternalPath {
            tensor: tensor(),
            location: location.to_string(),
        };
        let rel = Path::new(location);
        let lexically_safe = !location.is_empty()
            && !location.contains('\\')
            && rel
                .components()
                .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
        if !lexically_safe {
            return Err(unsafe_path());
        }
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| OnnxError::Io { path, source }
        };
        let full = dir.join(rel);
        // Symlinks may still lead outside: compare canonical paths.
        let canon_dir = dir.canonicalize().map_err(io(dir))?;
        let canon = full.canonicalize().map_err(io(&full))?;
        if !canon.starts_with(&canon_dir) {
            return Err(unsafe_path());
        }
        let number = |key: &'static str| -> Result<Option<u64>, OnnxError> {
            t.external_value(key)
                .map(|v| {
                    v.trim()
                        .parse::<u64>()
                        .map_err(|_| OnnxError::InvalidExternalValue {
                            tensor: tensor(),
                            key,
                            value: v.to_string(),
                        })
                })
                .transpose()
        };
        let offset = number("offset")?.unwrap_or(0);
        if let Some(length) = number("length")? {
            if length != expected {
                return Err(OnnxError::DataSizeMismatch {
                    tensor: tensor(),
                    expected,
                    found: length,
                });
            }
        }
        // A FIFO, a device or a directory inside the folder is refused unopened.
        let (mut file, file_len) =
            crate::read::files::open_regular(&canon).map_err(|e| OnnxError::file(&full, e))?;
        let in_range = matches!(offset.checked_add(expected), Some(end) if end <= file_len);
        if !in_range {
            return Err(OnnxError::ExternalRange {
                path: full,
                offset,
                length: expected,
                file_len,
            });
        }
        file.seek(SeekFrom::Start(offset)).map_err(io(&full))?;
        // `expected` is bounded by the caller's element cap.
        let mut buf = vec![0u8; expected as usize];
        file.read_exact(&mut buf).map_err(io(&full))?;
        Ok(buf)
    }
}
