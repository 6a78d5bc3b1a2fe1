//! What went wrong in a file, and where.

use std::fmt;

/// Bytes that are not what leveldb writes: where in the file (or in a block's decompressed
/// contents, as the message says) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// The file offset the problem was found at.
    pub offset: u64,
    /// What is wrong there, in a few words.
    pub message: String,
}

impl Error {
    pub(crate) fn at(offset: u64, message: impl Into<String>) -> Error {
        Error {
            offset,
            message: message.into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at offset {}: {}", self.offset, self.message)
    }
}

impl std::error::Error for Error {}
