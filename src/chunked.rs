//! A file read in chunks by two threads, one of which parses what has arrived.
//!
//! Reading a model file is a copy from the page cache into fresh memory, and on the
//! 9 MB corpus model it took half as long as parsing it (docs/benchmarks.md).
//! [`Chunked`] splits the file into chunks that a helper thread reads ahead, in order,
//! while the parsing thread works through the chunks already read: it asks for a
//! range with [`Chunked::get`], which waits for the chunks under it, and reads the
//! next unclaimed chunk itself rather than wait idle. So the result never depends on
//! the helper: if it starts late or never, the parsing thread reads everything.
//!
//! Every byte is written once, by the thread that claimed its chunk, before any
//! reference to it exists: slices are only made over chunks already read, and the
//! readers write through a raw pointer into chunks nobody else touches.

use std::fs::File;
use std::os::unix::io::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
use std::sync::Mutex;

/// The size of one chunk of the file.
pub const CHUNK: usize = 256 << 10;

const PENDING: u8 = 0;
const DONE: u8 = 1;
const FAILED: u8 = 2;

/// A buffer for a whole file, filled in chunks by whoever claims them (see the module
/// doc).
pub struct Chunked<'f> {
    file: &'f File,
    /// The buffer: `cap` bytes, of which the first `size` are the file once read. Made
    /// from a `Vec` that [`Chunked::into_bytes`] gives back (or `Drop` frees).
    ptr: *mut u8,
    cap: usize,
    size: usize,
    /// The next chunk nobody has claimed.
    next: AtomicUsize,
    /// Each chunk's state: pending (unclaimed or being read), done, failed.
    state: Box<[AtomicU8]>,
    /// The first read error, reported (as a copy) to every caller that meets a failed
    /// chunk.
    error: Mutex<Option<std::io::Error>>,
    /// Set when the parsing thread no longer needs the helper.
    stop: AtomicBool,
    /// Set when [`Chunked::into_bytes`] has handed the buffer on.
    taken: bool,
}

// SAFETY: the raw pointer is the only thing that is not `Send`/`Sync`. Threads write
// through it only into chunks they claimed (one claim per chunk, by `fetch_add`), and
// slices over the buffer are made only for bytes whose writer has published them with
// a release store that the reader acquired (see `get`).
unsafe impl Sync for Chunked<'_> {}

impl<'f> Chunked<'f> {
    /// A buffer for the first `size` bytes of `file`; nothing is read yet.
    pub fn new(file: &'f File, size: usize) -> Chunked<'f> {
        let mut v = std::mem::ManuallyDrop::new(Vec::<u8>::with_capacity(size));
        Chunked {
            file,
            ptr: v.as_mut_ptr(),
            cap: v.capacity(),
            size,
            next: AtomicUsize::new(0),
            state: (0..size.div_ceil(CHUNK))
                .map(|_| AtomicU8::new(PENDING))
                .collect(),
            error: Mutex::new(None),
            stop: AtomicBool::new(false),
            taken: false,
        }
    }

    /// Read `[from, to)` of the file into the same bytes of the buffer.
    fn pread(&self, mut from: usize, to: usize) -> std::io::Result<()> {
        while from < to {
            // SAFETY: `from..to` is within the buffer's `size <= cap` bytes and is this
            // call's alone (a chunk it claimed); the kernel writes at most `to - from`
            // bytes there.
            let n = unsafe {
                libc::pread(
                    self.file.as_raw_fd(),
                    self.ptr.add(from).cast(),
                    to - from,
                    from as libc::off_t,
                )
            };
            if n < 0 {
                let e = std::io::Error::last_os_error();
                if e.kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(e);
            }
            if n == 0 {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    "the file became shorter while it was read",
                ));
            }
            from += n as usize;
        }
        Ok(())
    }

    /// Claim the next chunk and read it: `false` when none is left.
    fn claim(&self) -> bool {
        let k = self.next.fetch_add(1, Ordering::Relaxed);
        let Some(state) = self.state.get(k) else {
            return false;
        };
        let from = k * CHUNK;
        let to = (from + CHUNK).min(self.size);
        match self.pread(from, to) {
            Ok(()) => state.store(DONE, Ordering::Release),
            Err(e) => {
                let mut held = self.error.lock().unwrap_or_else(|p| p.into_inner());
                held.get_or_insert(e);
                state.store(FAILED, Ordering::Release);
            }
        }
        true
    }

    /// The helper's loop: read chunks ahead until none is left or [`Chunked::stop`].
    pub fn help(&self) {
        // Not a busy wait: each turn reads a chunk.
        while !self.stop.load(Ordering::Relaxed) {
            if !self.claim() {
                break;
            }
        }
    }

    /// Tell the helper to claim nothing more; [`Chunked::get`] still reads what it
    /// needs.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// The bytes `[from, to)` (clamped to the file), once read: waits for the chunks
    /// under them, reading unclaimed ones on this thread meanwhile.
    pub fn get(&self, from: usize, to: usize) -> std::io::Result<&[u8]> {
        let to = to.min(self.size);
        let from = from.min(to);
        if from < to {
            for k in from / CHUNK..=(to - 1) / CHUNK {
                self.wait(k)?;
            }
        }
        // SAFETY: every byte of `from..to` has been written by the reader of its
        // chunk, whose release store `wait` acquired. Nobody writes them again.
        Ok(unsafe { std::slice::from_raw_parts(self.ptr.add(from), to - from) })
    }

    /// Wait until chunk `k` is read, reading unclaimed chunks meanwhile.
    fn wait(&self, k: usize) -> std::io::Result<()> {
        loop {
            match self.state[k].load(Ordering::Acquire) {
                DONE => return Ok(()),
                FAILED => {
                    // The first error stays held, so every call that meets a failed
                    // chunk reports it (an `io::Error` is not `Clone`: its kind and
                    // message are copied). A failed chunk's reader stored one before
                    // publishing `FAILED`.
                    let held = self.error.lock().unwrap_or_else(|p| p.into_inner());
                    return Err(match held.as_ref() {
                        Some(e) => std::io::Error::new(e.kind(), e.to_string()),
                        None => std::io::Error::other("a chunk of the file could not be read"),
                    });
                }
                // The helper is reading chunk `k`, or this thread reads the next one.
                _ => {
                    if !self.claim() {
                        std::thread::yield_now();
                    }
                }
            }
        }
    }

    /// The whole file, once every byte is read: `Err` when a chunk failed.
    pub fn into_bytes(mut self) -> std::io::Result<Vec<u8>> {
        self.get(0, self.size)?;
        self.taken = true;
        // SAFETY: the pointer and capacity come from a `Vec<u8>` (`new`) that nothing
        // else owns (`Drop` no longer frees it), and its first `size` bytes are
        // initialized (the `get` above). Taking `self` by value means no thread still
        // reads into it.
        Ok(unsafe { Vec::from_raw_parts(self.ptr, self.size, self.cap) })
    }
}

impl Drop for Chunked<'_> {
    fn drop(&mut self) {
        if !self.taken {
            // SAFETY: as in `into_bytes`, but with no bytes claimed initialized.
            drop(unsafe { Vec::from_raw_parts(self.ptr, 0, self.cap) });
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A scratch file with `bytes`, removed on drop.
    pub(crate) struct Scratch(pub std::path::PathBuf);

    impl Scratch {
        pub(crate) fn new(tag: &str, bytes: &[u8]) -> Scratch {
            let p =
                std::env::temp_dir().join(format!("symdim-chunked-{tag}-{}", std::process::id()));
            std::fs::write(&p, bytes).unwrap();
            Scratch(p)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    #[test]
    fn chunks_read_by_either_thread_make_the_file() {
        let data: Vec<u8> = (0..3 * CHUNK + 123).map(|i| (i * 7 % 251) as u8).collect();
        let scratch = Scratch::new("whole", &data);
        let file = File::open(&scratch.0).unwrap();
        // With a helper reading ahead; with none; with a helper stopped at once.
        for (helper, stop_first) in [(true, false), (false, false), (true, true)] {
            let c = Chunked::new(&file, data.len());
            std::thread::scope(|s| {
                if stop_first {
                    c.stop();
                }
                if helper {
                    s.spawn(|| c.help());
                }
                let n = data.len();
                assert_eq!(c.get(5, 10).unwrap(), &data[5..10]);
                assert_eq!(
                    c.get(CHUNK - 3, CHUNK + 4).unwrap(),
                    &data[CHUNK - 3..CHUNK + 4]
                );
                assert_eq!(c.get(7, 7).unwrap(), &[] as &[u8]);
                assert_eq!(c.get(n - 2, n + 50).unwrap(), &data[n - 2..]);
                assert_eq!(c.get(0, 3 * CHUNK).unwrap(), &data[..3 * CHUNK]);
                c.stop();
            });
            assert!(c.into_bytes().unwrap() == data);
        }
        // An empty file.
        let empty = Scratch::new("empty", &[]);
        let file = File::open(&empty.0).unwrap();
        assert!(Chunked::new(&file, 0).into_bytes().unwrap().is_empty());
    }

    #[test]
    fn a_file_shorter_than_its_size_is_a_read_error() {
        let data = vec![1u8; CHUNK + 10];
        let scratch = Scratch::new("short", &data);
        let file = File::open(&scratch.0).unwrap();
        // Chunks 1 and 2 both fail. Every call that meets a failed chunk gets the
        // error, whichever thread read it and however often it is asked: without a
        // helper this thread reads all three chunks, so the order is fixed.
        for helper in [false, true] {
            let c = Chunked::new(&file, 3 * CHUNK);
            std::thread::scope(|s| {
                if helper {
                    s.spawn(|| c.help());
                }
                assert_eq!(c.get(0, 4).unwrap(), &[1, 1, 1, 1]);
                for _ in 0..2 {
                    let e = c.get(CHUNK, CHUNK + 20).unwrap_err();
                    assert_eq!(e.kind(), std::io::ErrorKind::UnexpectedEof, "{e}");
                }
            });
            let e = c.into_bytes().unwrap_err();
            assert_eq!(e.kind(), std::io::ErrorKind::UnexpectedEof, "{e}");
        }
    }
}
