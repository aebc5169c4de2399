//! What the head said when it was read, and what a commit names: read by the
//! cache, carried by a change's overlay and checked by the publish, so here below
//! all three.

use alloc::rc::Rc;

use crate::storage::hash::Hash;
use crate::storage::meta::StoreMeta;
use crate::storage::versions::LogHead;

/// What the head said when it was read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Head {
    /// The head's raw value, the `expected` of the next compare-and-swap.
    pub raw: Option<alloc::vec::Vec<u8>>,
    pub commit: Option<Hash>,
    pub root: Hash,
    pub log: LogHead,
    pub store: Option<Rc<StoreMeta>>,
}

/// What a commit names, as the cache keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Published {
    pub root: Hash,
    pub log: LogHead,
    pub store: Option<Rc<StoreMeta>>,
}
