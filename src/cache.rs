//! The object cache: reading the head, commits, tree nodes and blobs, and keeping
//! what was read. Objects are immutable (named by their hash), so a cached one never
//! goes stale; only memory is at stake, so each cache has a budget in bytes. The
//! head is the one mutable record: it is cached only as a guess that the
//! compare-and-swap checks.
//!
//! What a store hands back is input: every object read is checked against the hash
//! that names it (an edited or truncated value is damage, never served), then
//! decoded by rules that refuse what memdir could not have written. Because a
//! node's name is the hash of its bytes, no node can reach itself: trees read this
//! way have no cycles.

use alloc::collections::BTreeMap;
use alloc::rc::Rc;
use alloc::string::String;
use core::cell::{Cell, RefCell};

use crate::engine::Engine;
use crate::error::ToolError;
use crate::overlay::Overlay;
use crate::store::Store;
use crate::tree::{BLOB, COMMIT, Child, Commit, HEAD, Hash, Node, Stored, TREE};

/// Budgets, in bytes of the stored form (a decoded node takes a few times its
/// encoding; a commit entry is two hashes). A cache over budget starts again empty.
pub const NODE_CACHE_MAX_BYTES: usize = 4 << 20;
pub const BLOB_CACHE_MAX_BYTES: usize = 16 << 20;
const COMMIT_CACHE_MAX: usize = 8192;

/// What the head said when it was read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Head {
    /// The head's raw value, the `expected` of the next compare-and-swap.
    pub raw: Option<alloc::vec::Vec<u8>>,
    pub commit: Option<Hash>,
    pub root: Hash,
}

#[derive(Default)]
pub(crate) struct Cache {
    pub head: RefCell<Option<Head>>,
    nodes: RefCell<BTreeMap<Hash, Rc<Stored>>>,
    node_bytes: Cell<usize>,
    blobs: RefCell<BTreeMap<Hash, Rc<str>>>,
    blob_bytes: Cell<usize>,
    commits: RefCell<BTreeMap<Hash, Hash>>,
}

impl Cache {
    /// `bytes`: the size of the node's stored form, what the budget counts.
    pub fn remember_node(&self, hash: Hash, node: Rc<Stored>, bytes: usize) {
        let mut cache = self.nodes.borrow_mut();
        if self.node_bytes.get() + bytes > NODE_CACHE_MAX_BYTES {
            cache.clear();
            self.node_bytes.set(0);
        }
        if cache.insert(hash, node).is_none() {
            self.node_bytes.set(self.node_bytes.get() + bytes);
        }
    }

    pub fn remember_blob(&self, hash: Hash, text: Rc<str>) {
        let mut cache = self.blobs.borrow_mut();
        if self.blob_bytes.get() + text.len() > BLOB_CACHE_MAX_BYTES {
            cache.clear();
            self.blob_bytes.set(0);
        }
        let len = text.len();
        if cache.insert(hash, text).is_none() {
            self.blob_bytes.set(self.blob_bytes.get() + len);
        }
    }

    pub fn remember_commit(&self, commit: Hash, root: Hash) {
        let mut cache = self.commits.borrow_mut();
        if cache.len() >= COMMIT_CACHE_MAX {
            cache.clear();
        }
        cache.insert(commit, root);
    }

    /// Forgets the head, so the next command reads it (objects stay: immutable).
    pub fn forget_head(&self) {
        self.head.replace(None);
    }
}

impl<S: Store> Engine<S> {
    /// Reads the head from the store (never from the cache) and caches it.
    pub(crate) async fn read_head(&self) -> Result<Head, ToolError> {
        let raw = self.store.get(HEAD).await?;
        let head = match &raw {
            None => Head {
                raw: None,
                commit: None,
                root: self.empty_root,
            },
            Some(bytes) => {
                let hex = core::str::from_utf8(bytes).map_err(|_| ToolError::Damaged)?;
                let commit = Hash::from_hex(hex).ok_or(ToolError::Damaged)?;
                let root = self.commit_root(commit).await?;
                Head {
                    raw: raw.clone(),
                    commit: Some(commit),
                    root,
                }
            }
        };
        self.cache.head.replace(Some(head.clone()));
        Ok(head)
    }

    /// The head as last seen by this engine, or read now if it has none.
    pub(crate) async fn cached_head(&self) -> Result<(Head, bool), ToolError> {
        let cached = self.cache.head.borrow().clone();
        match cached {
            Some(h) => Ok((h, false)),
            None => Ok((self.read_head().await?, true)),
        }
    }

    async fn commit_root(&self, commit: Hash) -> Result<Hash, ToolError> {
        if let Some(root) = self.cache.commits.borrow().get(&commit) {
            return Ok(*root);
        }
        let bytes = self.store.get(&commit.key(COMMIT)).await?;
        let root = bytes
            .as_deref()
            .filter(|b| Hash::of(b) == commit)
            .and_then(Commit::decode)
            .and_then(|c| c.root_hash())
            .ok_or(ToolError::Damaged)?;
        self.cache.remember_commit(commit, root);
        Ok(root)
    }

    /// The tree object `hash`: from the command's own new objects, the cache, or
    /// the store (checked against its hash, then decoded).
    pub(crate) async fn stored(
        &self,
        overlay: &Overlay,
        hash: Hash,
    ) -> Result<Rc<Stored>, ToolError> {
        if let Some(n) = overlay.stored(&hash) {
            return Ok(n);
        }
        if hash == self.empty_root {
            return Ok(Rc::new(Stored::Leaf(Rc::new(Node::default()))));
        }
        if let Some(n) = self.cache.nodes.borrow().get(&hash) {
            return Ok(n.clone());
        }
        let bytes = self
            .store
            .get(&hash.key(TREE))
            .await?
            .ok_or(ToolError::Damaged)?;
        if Hash::of(&bytes) != hash {
            return Err(ToolError::Damaged);
        }
        let node = Rc::new(Stored::decode(&bytes).ok_or(ToolError::Damaged)?);
        self.cache.remember_node(hash, node.clone(), bytes.len());
        Ok(node)
    }

    /// The content of the file `child` names, checked against its hash and the
    /// size its directory records.
    pub(crate) async fn blob(&self, child: &Child) -> Result<Rc<str>, ToolError> {
        let hash = child.hash;
        if let Some(b) = self.cache.blobs.borrow().get(&hash) {
            return Ok(b.clone());
        }
        let bytes = self
            .store
            .get(&hash.key(BLOB))
            .await?
            .ok_or(ToolError::Damaged)?;
        if bytes.len() as u64 != child.size || Hash::of(&bytes) != hash {
            return Err(ToolError::Damaged);
        }
        let text: Rc<str> = Rc::from(String::from_utf8(bytes).map_err(|_| ToolError::Damaged)?);
        self.cache.remember_blob(hash, text.clone());
        Ok(text)
    }
}
