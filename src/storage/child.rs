//! A directory's entry for one child: its kind, hash, size, times and memory id.

use crate::storage::hash::Hash;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
}

/// A directory's entry for one child.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Child {
    pub kind: Kind,
    pub hash: Hash,
    /// The file's bytes, or the sum of all file bytes beneath the directory.
    pub size: u64,
    /// When it was last written, in ms since the Unix epoch: for a directory, the
    /// last change at or beneath it (as a directory's mtime moves when an entry is
    /// added or removed). The expiry sweep skips or drops whole subtrees by it.
    pub written: u64,
    /// A file's memory id: the number of the version that created it, so it stays
    /// the same across edits and renames (0: a directory, or a file written before
    /// memdir kept versions, which gets an id when next changed).
    pub mem: u64,
    /// When the memory was created, in ms since the Unix epoch (0 with `mem`).
    pub created: u64,
    /// The memory's version that wrote this content (0: none named here, as in
    /// every entry an earlier build wrote). A write that changes only a memory's
    /// content names its new version here, in the entry it rewrites anyway, rather
    /// than in the memory's first slot of the version log, whose leaf it would
    /// otherwise rewrite too; the memory's newest version is the later of the two
    /// (`history::log::newest`).
    pub ver: u64,
}

impl Child {
    /// A file without an identity yet, or a directory.
    pub const fn plain(kind: Kind, hash: Hash, size: u64, written: u64) -> Child {
        Child {
            kind,
            hash,
            size,
            written,
            mem: 0,
            created: 0,
            ver: 0,
        }
    }
}
