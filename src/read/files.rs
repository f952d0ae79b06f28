//! Opening the files a model is read from: regular files only.
//!
//! A model path, an ONNX external-data location and an OpenVINO `.bin` may name
//! anything the file system holds. Reading a FIFO blocks until a writer comes,
//! `/dev/zero` never ends and a directory cannot be read, so every input file is
//! checked to be a regular file (after following symlinks) before any byte is read:
//!
//! 1. `stat` the path: anything but a regular file is refused without opening it
//!    (opening some devices has effects of its own);
//! 2. open it without blocking (`O_NONBLOCK` on Unix: opening a FIFO for reading
//!    otherwise waits for a writer);
//! 3. `fstat` the open handle and refuse anything but a regular file, so a path
//!    swapped for a FIFO between steps 1 and 2 is refused too.
//!
//! `O_NONBLOCK` changes nothing for a regular file, which is all that is ever read
//! through the handle.

use std::fs::File;
use std::io::Read;
use std::path::Path;

/// What a path names when it is not a regular file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// A directory.
    Directory,
    /// A named pipe.
    Fifo,
    /// A character device (`/dev/zero`, `/dev/full`, a terminal).
    CharDevice,
    /// A block device.
    BlockDevice,
    /// A Unix domain socket.
    Socket,
    /// Anything else that is not a regular file.
    Other,
}

impl FileKind {
    /// The kind of a file that is not regular, from its metadata; `None` for a regular
    /// file.
    pub fn of(meta: &std::fs::Metadata) -> Option<FileKind> {
        let t = meta.file_type();
        if t.is_file() {
            return None;
        }
        if t.is_dir() {
            return Some(FileKind::Directory);
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            if t.is_fifo() {
                return Some(FileKind::Fifo);
            }
            if t.is_char_device() {
                return Some(FileKind::CharDevice);
            }
            if t.is_block_device() {
                return Some(FileKind::BlockDevice);
            }
            if t.is_socket() {
                return Some(FileKind::Socket);
            }
        }
        Some(FileKind::Other)
    }
}

impl std::fmt::Display for FileKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FileKind::Directory => "a directory",
            FileKind::Fifo => "a FIFO (named pipe)",
            FileKind::CharDevice => "a character device",
            FileKind::BlockDevice => "a block device",
            FileKind::Socket => "a socket",
            FileKind::Other => "not a regular file",
        })
    }
}

/// Why a file could not be opened or read as a regular file.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// The path is not a regular file (after following symlinks).
    #[error("{kind}, not a regular file")]
    NotRegular {
        /// What the path names instead.
        kind: FileKind,
    },
    /// The file system refused (missing file, no permission, an I/O error).
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Open `path` for reading, refusing anything that is not a regular file (see the
/// module documentation). Returns the file and its length.
pub fn open_regular(path: &Path) -> Result<(File, u64), FileError> {
    // Refuse before opening: opening a device may do something by itself.
    if let Some(kind) = FileKind::of(&std::fs::metadata(path)?) {
        return Err(FileError::NotRegular { kind });
    }
    let file = open_nonblocking(path)?;
    // The handle's own metadata: the path may have changed since the check above.
    let meta = file.metadata()?;
    if let Some(kind) = FileKind::of(&meta) {
        return Err(FileError::NotRegular { kind });
    }
    Ok((file, meta.len()))
}

#[cfg(unix)]
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    File::open(path)
}

/// The whole content of the regular file `path` (see [`open_regular`]).
pub fn read_regular(path: &Path) -> Result<Vec<u8>, FileError> {
    let (mut file, len) = open_regular(path)?;
    // The length is a hint: a file that grows while it is read is read to its end.
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_is_refused_and_a_file_is_read() {
        let dir = std::env::temp_dir().join(format!("symdim-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert!(matches!(
            read_regular(&dir),
            Err(FileError::NotRegular {
                kind: FileKind::Directory
            })
        ));
        let f = dir.join("f.bin");
        std::fs::write(&f, b"abc").unwrap();
        assert_eq!(read_regular(&f).unwrap(), b"abc");
        assert!(matches!(
            read_regular(&dir.join("missing")),
            Err(FileError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn devices_are_refused_without_reading() {
        assert!(matches!(
            read_regular(Path::new("/dev/zero")),
            Err(FileError::NotRegular {
                kind: FileKind::CharDevice
            })
        ));
    }
}
