//! The resources the guest holds handles to, named by the world's bindings
//! (`lib.rs`) and served by `keyvalue.rs`: here, below both, so that the bindings
//! and the code behind them do not name each other.

/// The one bucket a host lends; it carries nothing, the backend is in keyvalue's `State`.
pub struct BucketHandle;

/// A compare-and-swap in progress: the value seen when it began.
pub struct CasHandle {
    pub(crate) key: String,
    pub(crate) seen: Option<Vec<u8>>,
}
