//! Loading a large ONNX file while it is still being read.
//!
//! [`load`] finds the main graph in the file's first [`HEAD`] bytes and reads the
//! model's other top-level fields (before and after the graph) first. The file's
//! bytes then arrive in chunks ([`crate::chunked::Chunked`]) that a helper thread
//! reads ahead while this thread parses and converts the graph field by field, from
//! the chunks already read.
//!
//! On the 9 MB corpus model this made the whole run 0.87 × as long (docs/benchmarks.md):
//! the helper also takes the first writes to the buffer's fresh pages, which the
//! kernel zeroes (about 0.2 ms per 2 MB huge page here).
//!
//! The model and the errors are those of [`super::load_model`] on the whole file:
//! whenever the streaming pass fails, or the file is laid out otherwise than it
//! expects (another `graph` field, a graph that does not open within [`HEAD`]), the
//! whole file is read and [`super::load_model`] converts it.

use super::to_graph::stream_parts;
use super::wire::Reader;
use super::{DataSource, OnnxError};
use crate::chunked::{Chunked, CHUNK};
use crate::graph::Model;
use std::cell::RefCell;
use std::fs::File;

/// Files smaller than this are read whole before they are parsed: starting a helper
/// thread costs more than reading them.
pub const MIN_SIZE: usize = 1 << 20;

/// How much of the file's start is read to find where the main graph lies.
pub const HEAD: usize = 64 << 10;

/// The reader thread's stack: it only claims chunks and reads them.
const READER_STACK: usize = 256 << 10;

/// Why [`load`] gave no model.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The file could not be read.
    Io(std::io::Error),
    /// The file does not convert: [`super::load_model`]'s error on the whole file.
    Onnx(OnnxError),
}

/// Load an ONNX model of `size` bytes from `file`, reading it while it is parsed; the
/// model with the file's bytes, or `Ok(None)` when the file is too small for this or
/// does not open like an ONNX model (the caller then reads it whole).
pub(crate) fn load(
    file: &File,
    size: usize,
    path: &str,
    src: &DataSource,
) -> Result<Option<(Model, Vec<u8>)>, Failure> {
    if size < MIN_SIZE {
        return Ok(None);
    }
    let mut head = vec![0; HEAD.min(size)];
    std::os::unix::fs::FileExt::read_exact_at(file, &mut head, 0).map_err(Failure::Io)?;
    let Some(graph) = find_graph(&head, size) else {
        return Ok(None);
    };
    // The fields after the graph, read here: the file's bytes are all read in chunks.
    let mut tail = vec![0; size - graph.end];
    std::os::unix::fs::FileExt::read_exact_at(file, &mut tail, graph.end as u64)
        .map_err(Failure::Io)?;
    // The model without its graph: the fields before it and those after it.
    let mut top = head;
    top.truncate(graph.field);
    top.extend_from_slice(&tail);
    drop(tail);
    let chunked = Chunked::new(file, size);
    let io_error = RefCell::new(None);
    let streamed = std::thread::scope(|s| {
        // Without a helper (none could be started), this thread reads every chunk.
        // The reader's work is shallow: a small stack.
        let stack = Some(READER_STACK);
        let _helper = crate::overlap::spawn_helper(s, "symdim-reader", stack, || chunked.help());
        let streamed = stream(&chunked, &top, &graph, &io_error, path, src);
        chunked.stop();
        streamed
    });
    if let Some(e) = io_error.into_inner() {
        return Err(Failure::Io(e));
    }
    let bytes = chunked.into_bytes().map_err(Failure::Io)?;
    let model = match streamed {
        Ok(Some(model)) => model,
        // The whole file, for its model or error.
        Ok(None) | Err(_) => super::load_model(&bytes, path, src).map_err(Failure::Onnx)?,
    };
    Ok(Some((model, bytes)))
}

/// Where the main graph lies in the file.
struct GraphAt {
    /// The `graph` field's tag.
    field: usize,
    /// Its payload's first byte.
    start: usize,
    /// Just past its payload.
    end: usize,
}

/// The first `graph` field among the top-level fields in `head` (the file's first
/// bytes; the file has `size`); `None` when the file does not open like an ONNX
/// model, a field before the graph runs past `head`, or the graph past the file.
fn find_graph(head: &[u8], size: usize) -> Option<GraphAt> {
    if !super::opens_like_onnx(head) {
        return None;
    }
    let mut r = Reader::new(head, 0);
    loop {
        let field = r.offset();
        let (tag, start, end) = r.peek_field()?;
        if tag == (7 << 3 | 2) {
            return (end <= size).then_some(GraphAt { field, start, end });
        }
        // Any other field must lie within the head.
        r.next_field().ok()??;
    }
}

/// The streaming conversion of the model in `chunked`, whose graph lies at `graph`;
/// a read error is left in `io_error`.
fn stream(
    chunked: &Chunked<'_>,
    top: &[u8],
    graph: &GraphAt,
    io_error: &RefCell<Option<std::io::Error>>,
    path: &str,
    src: &DataSource,
) -> Result<Option<Model>, OnnxError> {
    let bytes = |from: usize, to: usize| {
        chunked.get(from, to).map_err(|e| {
            io_error.borrow_mut().get_or_insert(e);
            // Never shown: the read error is.
            OnnxError::Truncated {
                offset: from,
                needed: (to - from) as u64,
                remaining: 0,
            }
        })
    };
    // The graph's fields are read from the bytes known to be read, `[.., ready)`;
    // a field that runs past them (or the end of them) waits for the next chunk.
    let mut ready = graph.start;
    let mut r = Reader::new(&[], graph.start);
    let next = || loop {
        let at = r.clone();
        match r.next_field() {
            Ok(Some(f)) => return Ok(Some(f)),
            done if ready >= graph.end => return done,
            _ => {
                let pos = at.offset();
                ready = (ready / CHUNK + 1) * CHUNK;
                ready = ready.max(pos + 1).min(graph.end);
                r = Reader::new(bytes(pos, ready)?, pos);
            }
        }
    };
    stream_parts(top, graph.start..graph.end, next, path, src)
}
