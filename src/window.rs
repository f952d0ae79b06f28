//! A protobuf message in a file, read a field at a time through one small buffer.
//!
//! [`crate::chunked::Chunked`] reads a whole file into one buffer the size of the
//! file. That memory is fresh, and the kernel zeroes every page of it before the copy
//! from the page cache lands there: on the 9 MB corpus model, two thirds of the read's
//! time (docs/benchmarks.md). A [`Window`] instead reads the fields of one message
//! (the main graph's payload) through a buffer of [`WINDOW`] bytes that it refills,
//! so the file's bytes are copied once into memory that stays in the cache, and only
//! the fields its reader wants are read at all: a field it does not want is skipped
//! from its tag and length, and a wanted field larger than the buffer gets a buffer of
//! its own.
//!
//! Each field it gives is borrowed until the next is asked for ([`Fields`]). What it
//! checks of the fields it skips is what [`crate::onnx`]'s reader checks of any field:
//! a valid tag and field number, a known wire type, a length within the message.

use crate::onnx::wire::{Field, Fields, Reader, MAX_FIELD_NUMBER};
use crate::onnx::OnnxError;
use std::fs::File;
use std::os::unix::fs::FileExt;

/// The buffer's size: the fields of a 9 MB model arrive in 36 reads, and the buffer
/// stays in the core's second-level cache while they are parsed.
pub const WINDOW: usize = 256 << 10;

/// Enough bytes for any valid tag and length (two varints of at most ten bytes).
const HEADER: usize = 20;

/// The fields of the message at `[start, end)` of a file, read through a buffer (see
/// the module doc).
pub struct Window<'f> {
    file: &'f File,
    /// The buffer: `WINDOW` bytes, of which `len` hold the file from offset `lo`.
    buf: Box<[u8]>,
    lo: usize,
    len: usize,
    /// The next field's tag, and the message's end.
    pos: usize,
    end: usize,
    /// Which field numbers the reader wants; the others are skipped.
    want: fn(u32) -> bool,
    /// A wanted field longer than the buffer.
    big: Vec<u8>,
    /// The first read error: the fields then end with an error.
    io: Option<std::io::Error>,
}

impl<'f> Window<'f> {
    /// The fields numbered as `want` says of the message at `[start, end)` of `file`;
    /// nothing is read yet.
    pub fn new(file: &'f File, start: usize, end: usize, want: fn(u32) -> bool) -> Window<'f> {
        Window {
            file,
            buf: vec![0; WINDOW].into_boxed_slice(),
            lo: start,
            len: 0,
            pos: start,
            end,
            want,
            big: Vec::new(),
            io: None,
        }
    }

    /// The read error that ended the fields, if one did.
    pub fn take_error(&mut self) -> Option<std::io::Error> {
        self.io.take()
    }

    /// Read the buffer's worth of the message from `from` (less at its end).
    fn fill(&mut self, from: usize) -> Result<(), OnnxError> {
        let n = WINDOW.min(self.end - from);
        self.read(from, n)?;
        (self.lo, self.len) = (from, n);
        Ok(())
    }

    /// Read `n` bytes at `from` into the buffer (or into `big` when `n` is more).
    fn read(&mut self, from: usize, n: usize) -> Result<(), OnnxError> {
        let into = if n <= WINDOW {
            &mut self.buf[..n]
        } else {
            self.big.clear();
            self.big.resize(n, 0);
            &mut self.big[..]
        };
        self.file.read_exact_at(into, from as u64).map_err(|e| {
            self.io.get_or_insert(e);
            // Never shown: the caller reports the read error.
            OnnxError::Truncated {
                offset: from,
                needed: n as u64,
                remaining: 0,
            }
        })
    }

    /// The buffered bytes from `pos` on (none once `pos` is past them).
    fn rest(&self) -> &[u8] {
        self.buf[..self.len]
            .get(self.pos - self.lo..)
            .unwrap_or_default()
    }
}

impl Fields for Window<'_> {
    fn next_field(&mut self) -> Result<Option<Field<'_>>, OnnxError> {
        // Whether the wanted field's bytes are in `big` rather than the buffer.
        let in_big = loop {
            if self.pos >= self.end {
                return Ok(None);
            }
            if self.rest().len() < HEADER.min(self.end - self.pos) {
                self.fill(self.pos)?;
            }
            let header = Reader::new(self.rest(), self.pos);
            let (number, end) = match header.peek_field() {
                Some((tag, _, end)) if end <= self.end && valid_number(tag >> 3) => (tag >> 3, end),
                // A bad tag, length or field number, or a field past the message: the
                // error of the reader, which sees the message end where the buffer does.
                _ => {
                    return Err(header
                        .clone()
                        .next_field()
                        .err()
                        .unwrap_or(OnnxError::Truncated {
                            offset: self.pos,
                            needed: 0,
                            remaining: self.end - self.pos,
                        }))
                }
            };
            if !(self.want)(number as u32) {
                self.pos = end;
                continue;
            }
            if end <= self.lo + self.len {
                break false;
            }
            if end - self.pos <= WINDOW {
                self.fill(self.pos)?;
                break false;
            }
            self.read(self.pos, end - self.pos)?;
            break true;
        };
        let at = self.pos;
        let bytes = if in_big {
            &self.big[..]
        } else {
            &self.buf[at - self.lo..self.len]
        };
        let mut r = Reader::new(bytes, at);
        let f = r.next_field()?;
        self.pos = r.offset();
        Ok(f)
    }
}

/// Whether a tag's field number is one the reader accepts.
fn valid_number(n: u64) -> bool {
    n != 0 && n <= MAX_FIELD_NUMBER
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunked::tests::Scratch;
    use crate::onnx::wire::{put_len, put_tag, put_varint, put_varint_field, Value, WireType};

    /// What a test compares of a field: its number, where it lies, and its value.
    type Seen = (u32, usize, usize, usize, Vec<u8>);

    /// The fields a reader gave, and the error that ended them, if one did.
    type Given = (Vec<Seen>, Option<String>);

    fn seen(f: &Field<'_>) -> Seen {
        let value = match f.value {
            Value::Len(b) => b.to_vec(),
            Value::Varint(v) | Value::I64(v) => v.to_le_bytes().to_vec(),
            Value::I32(v) => v.to_le_bytes().to_vec(),
        };
        (f.number, f.start, f.value_start, f.end, value)
    }

    /// The fields of `[start, end)` of the file at `path` through a window, and of the
    /// same bytes through a reader over all of them, as `want` picks them; each list
    /// ends with the error that ended it, if any.
    fn both(
        path: &std::path::Path,
        bytes: &[u8],
        (start, end): (usize, usize),
        want: fn(u32) -> bool,
    ) -> [Given; 2] {
        let file = File::open(path).unwrap();
        let mut w = Window::new(&file, start, end, want);
        let mut r = Reader::new(&bytes[start..end], start);
        let mut lists: [Given; 2] = Default::default();
        for (k, fields) in [&mut w as &mut dyn Fields, &mut r].into_iter().enumerate() {
            loop {
                match fields.next_field() {
                    Ok(Some(f)) => {
                        if want(f.number) {
                            lists[k].0.push(seen(&f));
                        }
                    }
                    Ok(None) => break,
                    Err(e) => {
                        lists[k].1 = Some(format!("{e:?}"));
                        break;
                    }
                }
            }
        }
        lists
    }

    /// Fields of every wire type and of sizes around the window's: small ones that
    /// straddle its end, one just under it, and several longer than it.
    fn message() -> Vec<u8> {
        let mut m = Vec::new();
        let mut k = 0u32;
        for len in [
            10,
            WINDOW - 40,
            30,
            WINDOW,
            5,
            WINDOW + 1,
            3 * WINDOW + 7,
            1,
            0,
            WINDOW - 3,
        ] {
            k += 1;
            for _ in 0..50 {
                put_varint_field(&mut m, 3, u64::from(k) * 1_000_003);
                put_tag(&mut m, 4, WireType::I64);
                m.extend_from_slice(&(u64::from(k) << 40).to_le_bytes());
                put_tag(&mut m, 5, WireType::I32);
                m.extend_from_slice(&k.to_le_bytes());
                put_len(&mut m, 1, &[b'n'; 1700]);
            }
            put_len(&mut m, 2, &vec![k as u8; len]);
        }
        m
    }

    #[test]
    fn the_fields_wanted_are_those_of_a_reader_over_the_whole_message() {
        let mut bytes = vec![7u8; 33];
        bytes.extend(message());
        let scratch = Scratch::new("window", &bytes);
        let span = (33, bytes.len());
        let wants: [fn(u32) -> bool; 4] = [|_| true, |n| n == 1, |n| n != 1, |n| n == 2];
        for want in wants {
            let [w, r] = both(&scratch.0, &bytes, span, want);
            assert!(w.1.is_none() && r.1.is_none(), "{:?} {:?}", w.1, r.1);
            assert!(!w.0.is_empty());
            assert!(w == r);
        }
        let [w, r] = both(&scratch.0, &bytes, (33, 33), |_| true);
        assert!(w.0.is_empty() && w == r);
    }

    #[test]
    fn bad_fields_end_the_fields_with_an_error() {
        let good = message();
        let mut cases = Vec::new();
        // A bad wire type, field number 0, a field number too large, a varint that
        // never ends, a length past the message (a small field and one longer than
        // the window), each after a field that straddles the window's end.
        let mut lead = Vec::new();
        put_len(&mut lead, 1, &vec![1; WINDOW - 5]);
        for bad in [
            vec![0x0b, 1],
            vec![0x02, 1, 1],
            vec![0xf8, 0xff, 0xff, 0xff, 0x7f, 1],
            vec![
                0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
            ],
        ] {
            let mut m = lead.clone();
            m.extend(bad);
            cases.push(m);
        }
        for len in [100, 2 * WINDOW] {
            let mut m = lead.clone();
            put_tag(&mut m, 2, WireType::Len);
            put_varint(&mut m, len as u64);
            m.extend(vec![0; len - 1]);
            cases.push(m);
        }
        // The good message cut inside a field.
        cases.push(good[..WINDOW + 100].to_vec());
        for m in cases {
            let scratch = Scratch::new("window-bad", &m);
            for want in [(|_| true) as fn(u32) -> bool, |n| n == 7] {
                let [w, r] = both(&scratch.0, &m, (0, m.len()), want);
                assert!(w.1.is_some() && r.1.is_some(), "{:?} {:?}", w.1, r.1);
                assert_eq!(w.0, r.0);
            }
        }
    }

    #[test]
    fn a_file_shorter_than_the_message_is_a_read_error() {
        let m = message();
        let scratch = Scratch::new("window-short", &m[..m.len() / 2]);
        let file = File::open(&scratch.0).unwrap();
        let mut w = Window::new(&file, 0, m.len(), |_| true);
        let mut fields = 0;
        let e = loop {
            match w.next_field() {
                Ok(Some(_)) => fields += 1,
                Ok(None) => panic!("the fields ended without an error"),
                Err(e) => break e,
            }
        };
        assert!(fields > 100, "{fields}");
        let io = w.take_error().expect("no read error");
        assert_eq!(io.kind(), std::io::ErrorKind::UnexpectedEof, "{io} {e}");
    }
}
