//! Report text on its way out: a buffer, where it goes when it fills up (or nowhere:
//! the caller takes the whole text), and the first write error.

/// How much text the buffer holds before passing it on to its sink.
pub(super) const SPILL: usize = 1 << 16;

pub(super) struct Buffer<'w> {
    text: String,
    sink: Option<&'w mut dyn std::io::Write>,
    error: Option<std::io::Error>,
}

impl<'w> Buffer<'w> {
    pub(super) fn new(capacity: usize, sink: Option<&'w mut dyn std::io::Write>) -> Self {
        Buffer {
            text: String::with_capacity(capacity),
            sink,
            error: None,
        }
    }

    /// The text written so far (no sink).
    pub(super) fn into_text(self) -> String {
        self.text
    }

    pub(super) fn push(&mut self, c: char) {
        self.text.push(c);
    }

    pub(super) fn push_str(&mut self, s: &str) {
        self.text.push_str(s);
    }

    /// Pass the buffered text on once there is [`SPILL`] of it.
    pub(super) fn spill_if_full(&mut self) {
        if self.text.len() >= SPILL {
            self.spill();
        }
    }

    /// Write `text` to the sink, unless there is none or a write already failed
    /// (the first error is kept).
    fn send(&mut self, text: &str) {
        if let (Some(sink), None) = (self.sink.as_mut(), &self.error) {
            if let Err(e) = sink.write_all(text.as_bytes()) {
                self.error = Some(e);
            }
        }
    }

    /// Pass the buffered text to the sink, if there is one.
    fn spill(&mut self) {
        if self.sink.is_some() {
            let text = std::mem::take(&mut self.text);
            self.send(&text);
            self.text = text;
            self.text.clear();
        }
    }

    /// With a sink: everything written and flushed (or the first error), and an
    /// empty string; without: the text.
    pub(super) fn finish(mut self) -> (std::io::Result<()>, String) {
        self.spill();
        if let (Some(sink), None) = (self.sink.as_mut(), &self.error) {
            if let Err(e) = sink.flush() {
                self.error = Some(e);
            }
        }
        match self.error.take() {
            Some(e) => (Err(e), String::new()),
            None => (Ok(()), std::mem::take(&mut self.text)),
        }
    }
}

impl std::fmt::Write for Buffer<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.text.push_str(s);
        Ok(())
    }
}
