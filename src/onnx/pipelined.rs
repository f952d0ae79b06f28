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
//! [`load_and_infer`] also runs the inference while the file loads (files of at most
//! [`MAX_INFER_AHEAD`] bytes). The helper thread, once it has read the file, converts
//! the main graph's fields other than its nodes (initializers, inputs, outputs,
//! value_info: ONNX writes them after the nodes), then infers the nodes that this
//! thread converts and hands it, in batches, in file order
//! ([`crate::infer::infer_ahead`]). The two threads make their tensor names
//! separately. On the 2.7 MB corpus model, where inference took longer than loading,
//! the whole run took 0.79 × as long; on the 9 MB one, whose helper first reads
//! 9 MB, about as long (docs/benchmarks.md). The context is
//! [`crate::infer::infer_context`]'s on the loaded model, exactly (see
//! [`crate::infer::infer_rest`]).
//!
//! The model and the errors are those of [`super::load_model`] on the whole file:
//! whenever the streaming pass fails, or the file is laid out otherwise than it
//! expects (another `graph` field, a graph that does not open within [`HEAD`]), the
//! whole file is read and [`super::load_model`] converts it.

use super::to_graph::{graph_tail, stream_parts};
use super::wire::{Fields, FromFn, Reader};
use super::{DataSource, OnnxError};
use crate::chunked::{Chunked, CHUNK};
use crate::context::ShapesContext;
use crate::graph::{Graph, Model, Node};
use crate::infer::Options;
use crate::window::Window;
use std::cell::RefCell;
use std::fs::File;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender, TryRecvError};

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
#[cfg(test)]
pub(crate) fn load(
    file: &File,
    size: usize,
    path: &str,
    src: &DataSource,
) -> Result<Option<(Model, Vec<u8>)>, Failure> {
    Ok(load_and_infer(file, size, path, src, None, true)?.map(|(m, bytes, _)| (m, bytes)))
}

/// [`load`], and when `infer` gives the inference options and the file is at most
/// [`MAX_INFER_AHEAD`] bytes, the model's inference too: the helper thread, once it
/// has read the file, infers the main graph's nodes while this thread converts the
/// rest ([`crate::infer::infer_ahead`]). The context is then
/// [`crate::infer::infer_context`]'s on the model, exactly; `None` when the
/// inference did not run ahead (the caller runs it).
///
/// Without `keep` (the caller has no use for the file's bytes), an inference ahead
/// reads the graph through two [`Window`]s instead of one buffer the size of the
/// file: the helper's, which skips the nodes, and this thread's, which skips the
/// rest. The bytes given back are then empty (or the whole file, when it had to be
/// read whole after all).
pub(crate) fn load_and_infer(
    file: &File,
    size: usize,
    path: &str,
    src: &DataSource,
    infer: Option<&Options>,
    keep: bool,
) -> Result<Option<Loaded>, Failure> {
    if size < MIN_SIZE {
        return Ok(None);
    }
    let mut head = vec![0; HEAD.min(size)];
    std::os::unix::fs::FileExt::read_exact_at(file, &mut head, 0).map_err(Failure::Io)?;
    let Some(graph) = find_graph(&head, size) else {
        return Ok(None);
    };
    // Without the bytes to keep, a file of any size: its graph is read through windows.
    let options = infer.filter(|_| size <= MAX_INFER_AHEAD || !keep);
    let tensors = options.map(|_| tensors_estimate(&head, &graph));
    // The fields after the graph, read here: the file's bytes are all read in chunks.
    let mut tail = vec![0; size - graph.end];
    std::os::unix::fs::FileExt::read_exact_at(file, &mut tail, graph.end as u64)
        .map_err(Failure::Io)?;
    // The model without its graph: the fields before it and those after it.
    let mut top = head;
    top.truncate(graph.field);
    top.extend_from_slice(&tail);
    drop(tail);
    // The file's bytes in one buffer, or read through windows.
    let chunked = (keep || options.is_none()).then(|| Chunked::new(file, size));
    let io_error = RefCell::new(None);
    // With inference, this thread hands the helper the nodes it converts, and the
    // context to infer in (see below).
    let (tx, rx) = options.map(|_| std::sync::mpsc::channel()).unzip();
    let (ctx_tx, ctx_rx) = options.map(|_| std::sync::mpsc::channel()).unzip();
    // The helper hands the batches back once they ran, for this thread to gather.
    let (back_tx, back_rx) = options.map(|_| std::sync::mpsc::channel()).unzip();
    let mut order = None;
    let fields = AtomicUsize::new(0);
    let (streamed, ahead) = std::thread::scope(|s| {
        // Without a helper (none could be started), this thread reads every chunk.
        // A reader's work is shallow: a small stack; one that infers runs what the
        // main thread would.
        let (name, stack) = match options {
            None => ("symdim-reader", READER_STACK),
            Some(_) => ("symdim-ahead", AHEAD_STACK),
        };
        let helper = crate::overlap::spawn_helper(s, name, Some(stack), {
            let (chunked, top, graph, fields) = (chunked.as_ref(), &top, &graph, &fields);
            move || {
                if let Some(c) = chunked {
                    c.help();
                }
                let (ctx_rx, rx, back_tx) = (ctx_rx?, rx?, back_tx?);
                // A read error or a bad field: this thread has nothing to do (the
                // other thread reports the error, or the whole file is read for it).
                let (tail, count) = match chunked {
                    Some(c) => {
                        // The whole graph is read.
                        let body = c.get(graph.start, graph.end).ok()?;
                        graph_tail(top, &mut Reader::new(body, graph.start), path, src)
                    }
                    None => {
                        let mut w = Window::new(file, graph.start, graph.end, |n| n != 1);
                        graph_tail(top, &mut w, path, src)
                    }
                }
                .ok()?;
                fields.store(count, Ordering::Release);
                let ctx = ctx_rx.recv().ok()?;
                Some(infer_from(tail, count, &rx, &back_tx, ctx))
            }
        });
        // Made once the helper is on its way: the context to infer in (this thread's
        // heap is in use already, and the op rules' table too, while the helper's heap
        // is fresh memory for the kernel to fault in, and this thread has time to
        // spare at the end), and the check that the nodes are sorted, which this
        // thread makes as it converts them (the helper has more to do).
        if let (Some(o), Some(ctx_tx), Some(tensors)) = (options, ctx_tx, tensors) {
            let _ = crate::ops::rule_for("", "");
            let _ = ctx_tx.send(crate::infer::prepare(o, tensors));
            order = Some(crate::infer::SortCheck::with_capacity(tensors));
        }
        // With inference, the nodes go to the helper and come back to be put in
        // order: one move each, here, where the helper's thread has none to make.
        let mut handoff = match (tx, back_rx, order.as_mut()) {
            (Some(tx), Some(back), Some(order)) => Some(Handoff {
                tx: Some(tx),
                back,
                order,
                fields: &fields,
                nodes: Vec::new(),
                sent: 0,
                returned: 0,
            }),
            _ => None,
        };
        let mut send = handoff.as_mut().map(|h| move |batch| h.send(batch));
        let send = send.as_mut().map(|f| f as &mut dyn FnMut(Vec<Node>));
        let span = graph.start..graph.end;
        let streamed = match &chunked {
            Some(c) => {
                let mut fields = chunk_fields(c, &graph, &io_error);
                let streamed = stream_parts(&top, span, &mut fields, path, src, send);
                c.stop();
                streamed
            }
            None => {
                let mut w = Window::new(file, graph.start, graph.end, |n| n == 1);
                let streamed = stream_parts(&top, span, &mut w, path, src, send);
                if let Some(e) = w.take_error() {
                    io_error.borrow_mut().get_or_insert(e);
                }
                streamed
            }
        };
        // While the helper infers, the last nodes it ran come back to be put in order.
        let nodes = handoff.map(Handoff::finish);
        // No helper, or a panic in its inference: this thread infers afterwards (and
        // meets the same panic).
        let ahead = helper.ok().and_then(|h| h.join().ok()).flatten();
        (streamed, ahead.zip(nodes))
    });
    if let Some(e) = io_error.into_inner() {
        return Err(Failure::Io(e));
    }
    let bytes = match chunked {
        Some(c) => c.into_bytes().map_err(Failure::Io)?,
        None => Vec::new(),
    };
    let (model, ctx) = match (streamed, ahead, options) {
        (Ok(Some(mut model)), Some(((mut tail, ahead), nodes)), Some(options)) => {
            tail.nodes = nodes;
            model.graph = tail;
            let ctx = crate::infer::infer_rest(ahead, &model, options, order);
            (model, Some(ctx))
        }
        (Ok(Some(model)), _, None) => (model, None),
        // The whole file, for its model or error (a graph whose nodes this thread
        // converted is converted again when the helper's part did not come back).
        _ => {
            let bytes = file_bytes(bytes, file, size).map_err(Failure::Io)?;
            let model = super::load_model(&bytes, path, src).map_err(Failure::Onnx)?;
            return Ok(Some((model, bytes, None)));
        }
    };
    Ok(Some((model, bytes, ctx)))
}

/// The file's bytes: `read` when it is the whole file (read in chunks), else the file
/// read whole (its graph was read through windows).
fn file_bytes(read: Vec<u8>, file: &File, size: usize) -> std::io::Result<Vec<u8>> {
    if read.len() == size {
        return Ok(read);
    }
    let mut whole = vec![0; size];
    std::os::unix::fs::FileExt::read_exact_at(file, &mut whole, 0)?;
    Ok(whole)
}

/// A model loaded by [`load_and_infer`]: the model, the file's bytes, and the
/// context when the inference ran ahead.
pub(crate) type Loaded = (Model, Vec<u8>, Option<ShapesContext>);

/// Files larger than this are not inferred ahead when their bytes are kept: they stay
/// in memory until the graph is converted, while the inference ahead fills the
/// context, and on the largest models that would pass the memory target
/// (docs/benchmarks.md).
pub const MAX_INFER_AHEAD: usize = 16 << 20;

/// The stack of the thread that infers ahead: the main thread's usual 8 MiB, as it
/// runs the same inference.
const AHEAD_STACK: usize = 8 << 20;

/// The next batch of nodes, or `None` once the converting thread has dropped its
/// sender. It yields a while before it sleeps: the other thread usually hands a batch
/// on within microseconds, and waking a sleeping thread takes longer.
fn receive(rx: &Receiver<Vec<Node>>) -> Option<Vec<Node>> {
    for _ in 0..256 {
        match rx.try_recv() {
            Ok(m) => return Some(m),
            Err(TryRecvError::Disconnected) => return None,
            Err(TryRecvError::Empty) => std::thread::yield_now(),
        }
    }
    rx.recv().ok()
}

/// How many batches of nodes the helper hands back at a time (2048 nodes): a send
/// may wake the thread that gathers them, which costs the helper a system call (in
/// groups of 32 batches the sends were 1.7% of its samples on ts17), and the last
/// group is put in order after the helper is done.
const HAND_BACK: usize = 128;

/// The helper's inference of the graph whose tail (the graph without its nodes, and
/// `count` node fields) it converted, its nodes coming on `rx`
/// ([`crate::infer::infer_ahead`]) and going back on `back` once they ran, in
/// groups of [`HAND_BACK`] batches: the tail back, with the run ahead.
fn infer_from(
    tail: Graph,
    count: usize,
    rx: &Receiver<Vec<Node>>,
    back: &Sender<Vec<Vec<Node>>>,
    ctx: ShapesContext,
) -> (Graph, crate::infer::Ahead) {
    let mut ran = Vec::with_capacity(HAND_BACK);
    let batches = std::iter::from_fn(|| receive(rx));
    let ahead = crate::infer::infer_ahead(&tail, ctx, count, batches, |batch| {
        ran.push(batch);
        if ran.len() == HAND_BACK {
            let _ = back.send(std::mem::replace(&mut ran, Vec::with_capacity(HAND_BACK)));
        }
    });
    let _ = back.send(ran);
    (tail, ahead)
}

/// How many tensors a main graph at `graph` is likely to define, from the node fields
/// within the file's first bytes (`head`): the graph's bytes over the bytes per node
/// there, and a quarter more, but at most one per 256 bytes of the graph (exporters
/// spend from 169 bytes per node, torchscript's, to 1658, torch.export's with its
/// metadata; the graph's initializers count as nodes here, hence the bound).
fn tensors_estimate(head: &[u8], graph: &GraphAt) -> usize {
    let len = graph.end - graph.start;
    let bound = len / 256;
    let Some(body) = head.get(graph.start..graph.end.min(head.len())) else {
        return bound;
    };
    let mut r = Reader::new(body, graph.start);
    let (mut nodes, mut bytes) = (0usize, 0usize);
    while let Ok(Some(f)) = r.next_field() {
        if f.number == 1 {
            nodes += 1;
            bytes += f.end - f.start;
        }
    }
    match len.checked_mul(nodes).and_then(|n| n.checked_div(bytes)) {
        Some(n) => (n + n / 4).min(bound),
        None => bound,
    }
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

/// The fields of the graph at `graph` as the chunks of `chunked` arrive; a read
/// error is left in `io_error`.
fn chunk_fields<'c>(
    chunked: &'c Chunked<'_>,
    graph: &GraphAt,
    io_error: &'c RefCell<Option<std::io::Error>>,
) -> impl Fields + 'c {
    let bytes = move |from: usize, to: usize| {
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
    let (start, end) = (graph.start, graph.end);
    let mut ready = start;
    let mut r = Reader::new(&[], start);
    let next = move || loop {
        let at = r.clone();
        match r.next_field() {
            Ok(Some(f)) => return Ok(Some(f)),
            done if ready >= end => return done,
            _ => {
                let pos = at.offset();
                ready = (ready / CHUNK + 1) * CHUNK;
                ready = ready.max(pos + 1).min(end);
                r = Reader::new(bytes(pos, ready)?, pos);
            }
        }
    };
    FromFn(next, std::marker::PhantomData)
}

/// This thread's side of the inference ahead: it hands the helper the nodes it
/// converts, in batches, checking their order first, and puts the batches the helper
/// hands back in order as they come (so their memory is used again for the next
/// batches, instead of the model's nodes being a second copy of them at the end).
struct Handoff<'a> {
    /// `None` once every node is handed on.
    tx: Option<Sender<Vec<Node>>>,
    back: Receiver<Vec<Vec<Node>>>,
    order: &'a mut crate::infer::SortCheck,
    /// The node fields the helper counted in the graph, once it has: room for them
    /// is made when the first batches come back.
    fields: &'a AtomicUsize,
    /// The nodes handed back, in order.
    nodes: Vec<Node>,
    /// Batches handed on, and handed back.
    sent: usize,
    returned: usize,
}

/// How many batches may be out with the helper before this thread waits for some to
/// come back: a file's nodes convert faster than they infer, and those ahead would
/// otherwise be a second copy of the model's nodes at the end (15 MB on a 100k-node
/// model). At least [`HAND_BACK`] (the helper hands back that many at a time), so a
/// wait always ends.
const MAX_OUT: usize = 4 * HAND_BACK;

impl Handoff<'_> {
    /// Hand a batch on (a send fails only when the helper is gone: the caller then
    /// converts again), and put away those handed back meanwhile.
    fn send(&mut self, batch: Vec<Node>) {
        batch.iter().for_each(|n| self.order.node(n));
        if let Some(tx) = &self.tx {
            let _ = tx.send(batch);
        }
        self.sent += 1;
        while let Ok(group) = self.back.try_recv() {
            self.gather(group);
        }
        // The helper hands back `HAND_BACK` batches at a time, or closes its end.
        while self.sent - self.returned > MAX_OUT {
            match self.back.recv() {
                Ok(group) => self.gather(group),
                Err(_) => break,
            }
        }
    }

    fn gather(&mut self, group: Vec<Vec<Node>>) {
        if self.nodes.capacity() == 0 {
            // The helper counted the fields before it ran any node.
            self.nodes.reserve(self.fields.load(Ordering::Acquire));
        }
        self.returned += group.len();
        group.into_iter().for_each(|batch| self.nodes.extend(batch));
    }

    /// The nodes, once the helper is done (or gone): it closes its end when it is.
    fn finish(mut self) -> Vec<Node> {
        self.tx = None;
        while let Ok(group) = self.back.recv() {
            self.gather(group);
        }
        self.nodes
    }
}
