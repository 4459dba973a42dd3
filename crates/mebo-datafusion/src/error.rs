//! A file that is not a readable blob of the table's kind: the error names
//! the file and carries the mebo code.

use std::fmt;

use datafusion::error::DataFusionError;

/// Why one file of a table could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileError {
    /// The file's location in its object store.
    pub path: String,
    /// The mebo error code (`TRUNCATED`, `BAD_MAGIC`, …), or `WRONG_KIND`
    /// for a blob of the other kind than the table's.
    pub code: &'static str,
    /// What the reader said.
    pub message: String,
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "mebo file {}: {}: {}", self.path, self.code, self.message)
    }
}

impl std::error::Error for FileError {}

impl FileError {
    pub(crate) fn into_datafusion(self) -> DataFusionError {
        DataFusionError::External(Box::new(self))
    }

    /// The `FileError` inside a DataFusion error, however deeply DataFusion
    /// wrapped it (context, shared errors, Arrow's external errors).
    pub fn find(error: &DataFusionError) -> Option<&FileError> {
        use std::error::Error;
        let mut next: Option<&(dyn Error + 'static)> = Some(error);
        while let Some(e) = next {
            if let Some(found) = e.downcast_ref::<FileError>() {
                return Some(found);
            }
            next = match e.downcast_ref::<DataFusionError>() {
                Some(DataFusionError::External(inner)) => Some(inner.as_ref()),
                Some(DataFusionError::Context(_, inner)) => Some(inner.as_ref()),
                Some(DataFusionError::Shared(inner)) => Some(inner.as_ref()),
                Some(DataFusionError::ArrowError(inner, _)) => Some(inner.as_ref()),
                _ => e.source(),
            };
        }
        None
    }
}
