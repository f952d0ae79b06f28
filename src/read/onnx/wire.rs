//! Protobuf wire format: a bounds-checked, zero-copy field reader and the few encoders the
//! writer needs.

use std::fmt;

use super::error::OnnxError;

/// Longest legal varint, in bytes.
pub(crate) const MAX_VARINT_LEN: usize = 10;
/// Largest legal protobuf field number.
pub(crate) const MAX_FIELD_NUMBER: u64 = (1 << 29) - 1;

/// A protobuf wire type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WireType {
    /// 0: a varint (int32, int64, uint64, bool, enum).
    Varint,
    /// 1: eight little-endian bytes (fixed64, double).
    I64,
    /// 2: a length-delimited payload (string, bytes, message, packed repeated).
    Len,
    /// 5: four little-endian bytes (fixed32, float).
    I32,
}

impl WireType {
    /// The wire type's number in a tag.
    pub fn number(self) -> u8 {
        match self {
            WireType::Varint => 0,
            WireType::I64 => 1,
            WireType::Len => 2,
            WireType::I32 => 5,
        }
    }
}

impl fmt::Display for WireType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            WireType::Varint => "varint",
            WireType::I64 => "i64",
            WireType::Len => "len",
            WireType::I32 => "i32",
        };
        write!(f, "{} ({name})", self.number())
    }
}

/// The value of one decoded field.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Value<'a> {
    Varint(u64),
    I64(u64),
    Len(&'a [u8]),
    I32(u32),
}

/// One field of a message: its number, value and where it sits in the input.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Field<'a> {
    pub number: u32,
    pub value: Value<'a>,
    /// Absolute offset of the tag.
    pub start: usize,
    /// Absolute offset of the value (payload start for `Len`).
    pub value_start: usize,
    /// Absolute offset just past the field.
    pub end: usize,
}

impl<'a> Field<'a> {
    pub fn wire_type(&self) -> WireType {
        match self.value {
            Value::Varint(_) => WireType::Varint,
            Value::I64(_) => WireType::I64,
            Value::Len(_) => WireType::Len,
            Value::I32(_) => WireType::I32,
        }
    }

    #[cold]
    #[inline(never)]
    fn wrong(&self, message: &'static str, expected: WireType) -> OnnxError {
        OnnxError::WrongWireType {
            offset: self.start,
            message,
            field: self.number,
            expected,
            found: self.wire_type(),
        }
    }

    /// The payload of a length-delimited field.
    #[inline]
    pub fn bytes(&self, message: &'static str) -> Result<&'a [u8], OnnxError> {
        match self.value {
            Value::Len(b) => Ok(b),
            _ => Err(self.wrong(message, WireType::Len)),
        }
    }

    /// A length-delimited field as a sub-message reader.
    #[inline]
    pub fn message(&self, message: &'static str) -> Result<Reader<'a>, OnnxError> {
        Ok(Reader::new(self.bytes(message)?, self.value_start))
    }

    /// A `string` field, checked for UTF-8.
    #[inline]
    pub fn str(&self, message: &'static str) -> Result<&'a str, OnnxError> {
        let b = self.bytes(message)?;
        match utf8(b) {
            Some(s) => Ok(s),
            None => Err(self.invalid_utf8(message)),
        }
    }

    #[cold]
    #[inline(never)]
    fn invalid_utf8(&self, message: &'static str) -> OnnxError {
        OnnxError::InvalidUtf8 {
            offset: self.value_start,
            message,
            field: self.number,
        }
    }

    /// A varint field, raw.
    #[inline]
    pub fn varint(&self, message: &'static str) -> Result<u64, OnnxError> {
        match self.value {
            Value::Varint(v) => Ok(v),
            _ => Err(self.wrong(message, WireType::Varint)),
        }
    }

    /// An `int64` field.
    #[inline]
    pub fn int64(&self, message: &'static str) -> Result<i64, OnnxError> {
        Ok(self.varint(message)? as i64)
    }

    /// An `int32` (or enum) field: protobuf truncates to the low 32 bits.
    #[inline]
    pub fn int32(&self, message: &'static str) -> Result<i32, OnnxError> {
        Ok(self.varint(message)? as i32)
    }

    /// A `float` field.
    #[inline]
    pub fn float(&self, message: &'static str) -> Result<f32, OnnxError> {
        match self.value {
            Value::I32(v) => Ok(f32::from_bits(v)),
            _ => Err(self.wrong(message, WireType::I32)),
        }
    }

    /// Appends a repeated varint field (packed or not) to `out`.
    pub fn push_varints(
        &self,
        message: &'static str,
        out: &mut impl Extend<i64>,
    ) -> Result<(), OnnxError> {
        match self.value {
            Value::Varint(v) => {
                out.extend(std::iter::once(v as i64));
                Ok(())
            }
            Value::Len(b) => {
                let mut r = Reader::new(b, self.value_start);
                while !r.is_empty() {
                    let v = r.varint()?;
                    out.extend(std::iter::once(v as i64));
                }
                Ok(())
            }
            _ => Err(self.wrong(message, WireType::Varint)),
        }
    }

    /// Appends a repeated `float` field (packed or not) to `out`.
    pub fn push_floats(&self, message: &'static str, out: &mut Vec<f32>) -> Result<(), OnnxError> {
        match self.value {
            Value::I32(v) => {
                out.push(f32::from_bits(v));
                Ok(())
            }
            Value::Len(b) => {
                if b.len() % 4 != 0 {
                    return Err(OnnxError::PackedLength {
                        offset: self.value_start,
                        message,
                        field: self.number,
                        len: b.len(),
                        elem_size: 4,
                    });
                }
                out.extend(
                    b.chunks_exact(4)
                        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
                );
                Ok(())
            }
            _ => Err(self.wrong(message, WireType::I32)),
        }
    }
}

/// `b` as a `str` if it is valid UTF-8. The names in a model are short and almost always
/// ASCII: an inlined ASCII check decides those without calling the general validator.
#[inline]
pub(crate) fn utf8(b: &[u8]) -> Option<&str> {
    if b.is_ascii() {
        // SAFETY: every ASCII byte sequence is valid UTF-8.
        Some(unsafe { std::str::from_utf8_unchecked(b) })
    } else {
        std::str::from_utf8(b).ok()
    }
}

/// A cursor over one message's bytes. `base` is the absolute offset of `buf[0]` in the input,
/// so that errors carry absolute offsets.
#[derive(Debug, Clone)]
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    base: usize,
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8], base: usize) -> Self {
        Reader { buf, pos: 0, base }
    }

    pub fn is_empty(&self) -> bool {
        self.pos >= self.buf.len()
    }

    /// The whole message this reader walks, from its first byte.
    pub fn body(&self) -> &'a [u8] {
        self.buf
    }

    /// Absolute offset of the cursor.
    pub fn offset(&self) -> usize {
        self.base + self.pos
    }

    /// Decodes one varint (at most 10 bytes, no bits beyond 64).
    #[inline]
    pub fn varint(&mut self) -> Result<u64, OnnxError> {
        // Fast path: most tags and lengths fit in one byte.
        match self.buf.get(self.pos) {
            Some(&b) if b < 0x80 => {
                self.pos += 1;
                Ok(u64::from(b))
            }
            _ => self.varint_slow(),
        }
    }

    #[inline(never)]
    fn varint_slow(&mut self) -> Result<u64, OnnxError> {
        let start = self.pos;
        let mut value: u64 = 0;
        for i in 0..MAX_VARINT_LEN {
            let Some(&b) = self.buf.get(start + i) else {
                return Err(self.truncated(start, (i + 1) as u64));
            };
            if i == MAX_VARINT_LEN - 1 && b > 1 {
                // The 10th byte may carry only the 64th bit and no continuation.
                return Err(OnnxError::VarintOverflow {
                    offset: self.base + start,
                });
            }
            value |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                self.pos = start + i + 1;
                return Ok(value);
            }
        }
        Err(OnnxError::VarintOverflow {
            offset: self.base + start,
        })
    }

    #[cold]
    #[inline(never)]
    fn truncated(&self, at: usize, needed: u64) -> OnnxError {
        OnnxError::Truncated {
            offset: self.base + at,
            needed,
            remaining: self.buf.len().saturating_sub(at),
        }
    }

    /// Takes the next `n` bytes.
    #[inline]
    pub fn take(&mut self, n: u64) -> Result<&'a [u8], OnnxError> {
        let remaining = self.buf.len() - self.pos;
        if n > remaining as u64 {
            return Err(self.truncated(self.pos, n));
        }
        let n = n as usize;
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// Reads the next field (tag and value), or `None` at the end of the message.
    // Always inlined: returned through memory, the field costs store-forwarding stalls
    // in the callers' loops.
    #[inline(always)]
    pub fn next_field(&mut self) -> Result<Option<Field<'a>>, OnnxError> {
        if self.is_empty() {
            return Ok(None);
        }
        let start = self.offset();
        let tag = self.varint()?;
        let number = tag >> 3;
        if number == 0 || number > MAX_FIELD_NUMBER {
            return Err(OnnxError::InvalidFieldNumber {
                offset: start,
                field: number,
            });
        }
        let number = number as u32;
        let value_start = self.offset();
        let value = match tag & 7 {
            0 => Value::Varint(self.varint()?),
            1 => {
                let b = self.take(8)?;
                Value::I64(u64::from_le_bytes(b.try_into().expect("8 bytes")))
            }
            2 => {
                let len = self.varint()?;
                let payload_start = self.offset();
                let b = self.take(len)?;
                return Ok(Some(Field {
                    number,
                    value: Value::Len(b),
                    start,
                    value_start: payload_start,
                    end: self.offset(),
                }));
            }
            5 => {
                let b = self.take(4)?;
                Value::I32(u32::from_le_bytes(b.try_into().expect("4 bytes")))
            }
            wt => {
                return Err(OnnxError::UnsupportedWireType {
                    offset: start,
                    field: number,
                    wire_type: wt as u8,
                })
            }
        };
        Ok(Some(Field {
            number,
            value,
            start,
            value_start,
            end: self.offset(),
        }))
    }
}

/// Appends `v` as a varint.
pub(crate) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends a tag.
pub(crate) fn put_tag(out: &mut Vec<u8>, field: u32, wt: WireType) {
    put_varint(out, (u64::from(field) << 3) | u64::from(wt.number()));
}

/// Appends a length-delimited field.
pub(crate) fn put_len(out: &mut Vec<u8>, field: u32, payload: &[u8]) {
    put_tag(out, field, WireType::Len);
    put_varint(out, payload.len() as u64);
    out.extend_from_slice(payload);
}

/// Appends a varint field.
pub(crate) fn put_varint_field(out: &mut Vec<u8>, field: u32, v: u64) {
    put_tag(out, field, WireType::Varint);
    put_varint(out, v);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(bytes: &[u8]) -> Result<u64, OnnxError> {
        Reader::new(bytes, 0).varint()
    }

    #[test]
    fn varint_round_trip() {
        for v in [
            0u64,
            1,
            127,
            128,
            300,
            16_383,
            16_384,
            u32::MAX as u64,
            u64::MAX,
        ] {
            let mut b = Vec::new();
            put_varint(&mut b, v);
            let mut r = Reader::new(&b, 0);
            assert_eq!(r.varint().unwrap(), v);
            assert!(r.is_empty());
        }
        assert_eq!(decode(&[0x96, 0x01]).unwrap(), 150);
        // Non-minimal encodings are legal.
        assert_eq!(decode(&[0x80, 0x80, 0x00]).unwrap(), 0);
        // -1 as int64: ten bytes.
        let mut b = Vec::new();
        put_varint(&mut b, -1i64 as u64);
        assert_eq!(b.len(), 10);
        assert_eq!(decode(&b).unwrap() as i64, -1);
    }

    #[test]
    fn varint_overflow_and_truncation() {
        // 11 bytes with continuation bits.
        let long = [0xffu8; 11];
        assert!(matches!(
            decode(&long),
            Err(OnnxError::VarintOverflow { offset: 0 })
        ));
        // 10th byte with bits beyond 64.
        let mut b = [0xffu8; 10];
        b[9] = 0x02;
        assert!(matches!(decode(&b), Err(OnnxError::VarintOverflow { .. })));
        b[9] = 0x01;
        assert_eq!(decode(&b).unwrap(), u64::MAX);
        // Truncated.
        assert!(matches!(
            decode(&[0x80, 0x80]),
            Err(OnnxError::Truncated { offset: 0, .. })
        ));
        assert!(matches!(decode(&[]), Err(OnnxError::Truncated { .. })));
    }

    #[test]
    fn utf8_fast_path_and_fallback() {
        assert_eq!(utf8(b""), Some(""));
        assert_eq!(
            utf8(b"/model/layers.0/Mul_1"),
            Some("/model/layers.0/Mul_1")
        );
        assert_eq!(utf8("größe·Ω".as_bytes()), Some("größe·Ω"));
        for bad in [
            &b"\xff"[..],
            b"ab\xc3",
            b"\xc3\x28",
            b"x\xed\xa0\x80y",
            b"\x80",
        ] {
            assert_eq!(utf8(bad), None, "{bad:?}");
        }
        let mut b = Vec::new();
        put_len(&mut b, 3, b"ok\xfe");
        let f = Reader::new(&b, 10).next_field().unwrap().unwrap();
        assert!(matches!(
            f.str("T"),
            Err(OnnxError::InvalidUtf8 {
                offset: 12,
                field: 3,
                ..
            })
        ));
    }

    #[test]
    fn fields_and_wire_types() {
        let mut b = Vec::new();
        put_varint_field(&mut b, 1, 7);
        put_len(&mut b, 2, b"abc");
        b.extend_from_slice(&[(3 << 3) | 5, 1, 0, 0, 0]);
        b.extend_from_slice(&[(4 << 3) | 1, 1, 0, 0, 0, 0, 0, 0, 0]);
        let mut r = Reader::new(&b, 100);
        let f = r.next_field().unwrap().unwrap();
        assert_eq!((f.number, f.varint("T").unwrap()), (1, 7));
        assert_eq!((f.start, f.end), (100, 102));
        let f = r.next_field().unwrap().unwrap();
        assert_eq!(f.str("T").unwrap(), "abc");
        assert_eq!(f.value_start, 104);
        assert!(matches!(
            f.varint("T"),
            Err(OnnxError::WrongWireType {
                offset: 102,
                field: 2,
                expected: WireType::Varint,
                found: WireType::Len,
                ..
            })
        ));
        let f = r.next_field().unwrap().unwrap();
        assert_eq!(f.wire_type(), WireType::I32);
        let f = r.next_field().unwrap().unwrap();
        assert_eq!(f.wire_type(), WireType::I64);
        assert!(r.next_field().unwrap().is_none());
    }

    #[test]
    fn bad_tags() {
        // Field number 0.
        assert!(matches!(
            Reader::new(&[0x00, 0x00], 0).next_field(),
            Err(OnnxError::InvalidFieldNumber { field: 0, .. })
        ));
        // Groups and undefined wire types.
        for wt in [3u8, 4, 6, 7] {
            let b = [(1 << 3) | wt, 0, 0, 0, 0, 0, 0, 0, 0];
            assert!(matches!(
                Reader::new(&b, 0).next_field(),
                Err(OnnxError::UnsupportedWireType { wire_type, field: 1, .. }) if wire_type == wt
            ));
        }
        // Length past the end.
        assert!(matches!(
            Reader::new(&[0x0a, 0x05, 1, 2], 0).next_field(),
            Err(OnnxError::Truncated {
                offset: 2,
                needed: 5,
                remaining: 2
            })
        ));
        // Huge length: no allocation, just an error.
        let mut b = vec![0x0a];
        put_varint(&mut b, u64::MAX);
        assert!(matches!(
            Reader::new(&b, 0).next_field(),
            Err(OnnxError::Truncated { .. })
        ));
        // Fixed-width truncated.
        assert!(matches!(
            Reader::new(&[(1 << 3) | 1, 0, 0], 0).next_field(),
            Err(OnnxError::Truncated { needed: 8, .. })
        ));
    }

    #[test]
    fn packed_and_unpacked_varints() {
        // Unpacked: three separate fields.
        let mut b = Vec::new();
        for v in [1i64, -2, 300] {
            put_varint_field(&mut b, 8, v as u64);
        }
        // Packed: one field.
        let mut payload = Vec::new();
        for v in [4i64, -5] {
            put_varint(&mut payload, v as u64);
        }
        put_len(&mut b, 8, &payload);
        let mut out = Vec::new();
        let mut r = Reader::new(&b, 0);
        while let Some(f) = r.next_field().unwrap() {
            f.push_varints("T", &mut out).unwrap();
        }
        assert_eq!(out, vec![1, -2, 300, 4, -5]);
        // A packed payload that ends inside a varint.
        let mut b = Vec::new();
        put_len(&mut b, 8, &[0x05, 0x80]);
        let f = Reader::new(&b, 0).next_field().unwrap().unwrap();
        assert!(matches!(
            f.push_varints("T", &mut out),
            Err(OnnxError::Truncated { offset: 3, .. })
        ));
    }

    #[test]
    fn packed_floats() {
        let mut b = Vec::new();
        b.extend_from_slice(&[(7 << 3) | 5]);
        b.extend_from_slice(&1.5f32.to_le_bytes());
        let mut payload = Vec::new();
        payload.extend_from_slice(&2.5f32.to_le_bytes());
        payload.extend_from_slice(&(-1.0f32).to_le_bytes());
        put_len(&mut b, 7, &payload);
        put_len(&mut b, 7, &[0, 0, 0]);
        let mut r = Reader::new(&b, 0);
        let mut out = Vec::new();
        r.next_field()
            .unwrap()
            .unwrap()
            .push_floats("T", &mut out)
            .unwrap();
        r.next_field()
            .unwrap()
            .unwrap()
            .push_floats("T", &mut out)
            .unwrap();
        assert_eq!(out, vec![1.5, 2.5, -1.0]);
        assert!(matches!(
            r.next_field().unwrap().unwrap().push_floats("T", &mut out),
            Err(OnnxError::PackedLength {
                len: 3,
                elem_size: 4,
                ..
            })
        ));
    }
}
