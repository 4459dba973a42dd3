//! One error for both directions: the blob's, Arrow's, or a batch that does
//! not fit the schema.

use std::fmt;

use arrow::error::ArrowError;

/// What went wrong turning a blob into a batch or a batch into a blob.
#[derive(Debug)]
pub enum Error {
    /// The blob could not be read or written.
    Mebo(mebo::Error),
    /// Arrow refused to build an array or a batch.
    Arrow(ArrowError),
    /// A record batch that does not fit the mebo schema: a column missing,
    /// of the wrong type, or a null where a value is needed.
    Schema(String),
}

/// The crate's result.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// A stable code: the blob's own (`mebo::Error::code`), `ARROW` or `SCHEMA`.
    pub fn code(&self) -> &'static str {
        match self {
            Error::Mebo(e) => e.code(),
            Error::Arrow(_) => "ARROW",
            Error::Schema(_) => "SCHEMA",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Mebo(e) => write!(f, "{}: {e}", e.code()),
            Error::Arrow(e) => write!(f, "ARROW: {e}"),
            Error::Schema(what) => write!(f, "SCHEMA: {what}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Mebo(e) => Some(e),
            Error::Arrow(e) => Some(e),
            Error::Schema(_) => None,
        }
    }
}

impl From<mebo::Error> for Error {
    fn from(e: mebo::Error) -> Self {
        Error::Mebo(e)
    }
}

impl From<ArrowError> for Error {
    fn from(e: ArrowError) -> Self {
        Error::Arrow(e)
    }
}
