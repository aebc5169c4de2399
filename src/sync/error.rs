//! Why a sync stopped: one enum whose `Display` is the text.

use alloc::string::String;
use core::fmt;

/// Which store a failure is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Side {
    /// This store.
    Local,
    /// The Memory Stores API store.
    Remote,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Local => "This memory store",
            Side::Remote => "The remote memory store",
        })
    }
}

/// Why a sync stopped. Whatever it had written stays written and agreed on both
/// sides; running it again goes on from there.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SyncError {
    /// The remote could not be reached.
    Unreachable,
    /// A request was refused (`status`, the API's error `type`); `path` is the
    /// memory written or read, empty for the list.
    Refused {
        /// Which store refused.
        side: Side,
        /// The memory written or read; empty for the list.
        path: String,
        /// The HTTP status.
        status: u16,
        /// The API's error `type`.
        kind: String,
    },
    /// An answer that is not the Memory Stores API's (a bad id, hash, content).
    BadAnswer {
        /// Which store answered.
        side: Side,
    },
    /// More memories than this store may hold.
    TooMany {
        /// Which store.
        side: Side,
        /// The most this store may hold.
        max: u64,
    },
    /// The sync record kept in this store is damaged.
    DamagedState,
    /// This store could not be read or written.
    Storage,
    /// A memory changed under every pass.
    Unsettled {
        /// The memory.
        path: String,
    },
    /// This store is mounted read-only: a sync writes to both stores (its record
    /// here, and what each side lacks), so it is refused before any request.
    ReadOnly,
    /// This store is archived: its memories may not be created or changed, so a
    /// sync is refused before any request, as for a read-only store.
    Archived,
    /// The remote answered with a redirect. Sync follows none: the request would
    /// carry the key (and a listing, a memory) to wherever the redirect points.
    Redirected,
}

impl fmt::Display for SyncError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SyncError::Unreachable => f.write_str(
                "The remote memory store could not be reached; what was synced so far stays, run the sync again to go on.",
            ),
            SyncError::Refused { side, path, status, kind } if path.is_empty() => write!(
                f,
                "{side} refused to list its memories ({status} {kind}); nothing more was synced."
            ),
            SyncError::Refused { side, path, status, kind } => write!(
                f,
                "{side} refused a change to {path} ({status} {kind}); the other memories were synced as far as they got."
            ),
            SyncError::BadAnswer { side } => write!(
                f,
                "{side} answered with something that is not a Memory Stores API answer; the sync stopped there."
            ),
            SyncError::TooMany { side, max } => write!(
                f,
                "{side} holds more than {max} memories, more than this store may hold; nothing was synced."
            ),
            SyncError::DamagedState => f.write_str(
                "The sync record kept in this memory store is damaged; nothing was synced.",
            ),
            SyncError::Storage => f.write_str("This memory store could not be read or written; the sync stopped there."),
            SyncError::Unsettled { path } => write!(
                f,
                "{path} kept changing while it was synced; run the sync again."
            ),
            SyncError::ReadOnly => f.write_str(
                "This memory store is mounted read-only, and a sync writes to both stores; nothing was synced.",
            ),
            SyncError::Archived => f.write_str(
                "This memory store is archived, and a sync writes to both stores; nothing was synced.",
            ),
            SyncError::Redirected => f.write_str(
                "The remote memory store answered with a redirect, which sync does not follow (the key goes to the URL given and nowhere else); nothing more was synced.",
            ),
        }
    }
}

impl core::error::Error for SyncError {}
