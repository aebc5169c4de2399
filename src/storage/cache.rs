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

use alloc::rc::Rc;
use alloc::string::String;
use core::cell::{Cell, RefCell};

use foldhash::fast::FixedState;
use hashbrown::HashMap;

use crate::error::ToolError;
use crate::storage::Engine;
use crate::storage::head::{Head, Published};
use crate::storage::overlay::Overlay;
use crate::storage::tree::{BLOB, COMMIT, Child, Commit, HEAD, Hash, Node, Stored, TREE};
use crate::storage::versions::{LOG, LogHead, LogNode, RECORD, Record};
use crate::store::Store;

use crate::config::COMMIT_CACHE_MAX;
use crate::config::{
    BLOB_CACHE_MAX_BYTES, LOG_CACHE_MAX_BYTES, NODE_CACHE_MAX_BYTES, RECORD_CACHE_MAX_BYTES,
};

/// One cached object. Each kind keeps its own map and budget, but every map has
/// this one value type, so the map's code (insert, lookup, removal, drop) is
/// compiled once rather than once per kind.
#[derive(Clone)]
enum Cached {
    Node(Rc<Stored>),
    Blob(Rc<str>),
    Commit(Rc<Published>),
    Log(Rc<LogNode>),
    Record(Rc<Record>),
}

/// Objects by digest, in a hash table: a lookup is one probe, where an ordered map
/// compared 32-byte keys down a tree (every command looks up several). A digest is
/// chosen by whoever writes the content, so where an entry goes is keyed
/// ([`Cache::keyed`]): no writer can make objects that pile into one place.
type Objects = RefCell<HashMap<Hash, Cached, FixedState>>;

#[derive(Default)]
pub(crate) struct Cache {
    pub head: RefCell<Option<Head>>,
    nodes: Objects,
    node_bytes: Cell<usize>,
    blobs: Objects,
    blob_bytes: Cell<usize>,
    commits: Objects,
    logs: Objects,
    log_bytes: Cell<usize>,
    records: Objects,
    record_bytes: Cell<usize>,
    /// Set while a view is rendered from the cache alone (`Engine::cache_alone`): a
    /// read that would go to the store is refused instead, and `missed` says so.
    cache_only: Cell<bool>,
    missed: Cell<bool>,
}

/// Keeps `value` under `hash` in a cache of at most `max` stored bytes; a cache
/// over budget starts again empty.
fn remember(
    cache: &Objects,
    used: &Cell<usize>,
    max: usize,
    hash: Hash,
    value: Cached,
    bytes: usize,
) {
    let mut cache = cache.borrow_mut();
    if used.get() + bytes > max {
        cache.clear();
        used.set(0);
    }
    if cache.insert(hash, value).is_none() {
        used.set(used.get() + bytes);
    }
}

impl Cache {
    /// Empty caches whose tables place entries by `key`: random bits from the
    /// runtime ([`Engine::set_cache_key`]). `Cache::default()` uses a fixed key.
    pub(crate) fn keyed(key: u64) -> Cache {
        let table = || RefCell::new(HashMap::with_hasher(FixedState::with_seed(key)));
        Cache {
            nodes: table(),
            blobs: table(),
            commits: table(),
            logs: table(),
            records: table(),
            ..Cache::default()
        }
    }

    /// `bytes`: the size of the node's stored form, what the budget counts.
    pub(crate) fn remember_node(&self, hash: Hash, node: Rc<Stored>, bytes: usize) {
        remember(
            &self.nodes,
            &self.node_bytes,
            NODE_CACHE_MAX_BYTES,
            hash,
            Cached::Node(node),
            bytes,
        );
    }

    pub(crate) fn remember_blob(&self, hash: Hash, text: Rc<str>) {
        let len = text.len();
        remember(
            &self.blobs,
            &self.blob_bytes,
            BLOB_CACHE_MAX_BYTES,
            hash,
            Cached::Blob(text),
            len,
        );
    }

    pub(crate) fn remember_commit(&self, commit: Hash, published: Rc<Published>) {
        let mut cache = self.commits.borrow_mut();
        if cache.len() >= COMMIT_CACHE_MAX {
            cache.clear();
        }
        cache.insert(commit, Cached::Commit(published));
    }

    pub(crate) fn remember_log(&self, hash: Hash, node: Rc<LogNode>, bytes: usize) {
        remember(
            &self.logs,
            &self.log_bytes,
            LOG_CACHE_MAX_BYTES,
            hash,
            Cached::Log(node),
            bytes,
        );
    }

    pub(crate) fn remember_record(&self, hash: Hash, record: Rc<Record>, bytes: usize) {
        remember(
            &self.records,
            &self.record_bytes,
            RECORD_CACHE_MAX_BYTES,
            hash,
            Cached::Record(record),
            bytes,
        );
    }

    fn node(&self, hash: &Hash) -> Option<Rc<Stored>> {
        match self.nodes.borrow().get(hash) {
            Some(Cached::Node(n)) => Some(n.clone()),
            _ => None,
        }
    }

    fn blob(&self, hash: &Hash) -> Option<Rc<str>> {
        match self.blobs.borrow().get(hash) {
            Some(Cached::Blob(b)) => Some(b.clone()),
            _ => None,
        }
    }

    fn commit(&self, hash: &Hash) -> Option<Rc<Published>> {
        match self.commits.borrow().get(hash) {
            Some(Cached::Commit(p)) => Some(p.clone()),
            _ => None,
        }
    }

    fn log(&self, hash: &Hash) -> Option<Rc<LogNode>> {
        match self.logs.borrow().get(hash) {
            Some(Cached::Log(n)) => Some(n.clone()),
            _ => None,
        }
    }

    fn record(&self, hash: &Hash) -> Option<Rc<Record>> {
        match self.records.borrow().get(hash) {
            Some(Cached::Record(r)) => Some(r.clone()),
            _ => None,
        }
    }

    /// Forgets a record (redaction replaced it; its key is about to be deleted).
    pub(crate) fn forget_record(&self, hash: &Hash) {
        self.records.borrow_mut().remove(hash);
    }

    pub(crate) fn forget_blob(&self, hash: &Hash) {
        self.blobs.borrow_mut().remove(hash);
    }

    pub(crate) fn forget_node(&self, hash: &Hash) {
        self.nodes.borrow_mut().remove(hash);
    }

    /// Forgets the head, so the next command reads it (objects stay: immutable).
    pub(crate) fn forget_head(&self) {
        self.head.replace(None);
    }

    /// Enters (`true`) or leaves cache-only reading; entering clears `missed`.
    pub(crate) fn set_cache_only(&self, on: bool) {
        self.cache_only.set(on);
        if on {
            self.missed.set(false);
        }
    }

    /// Whether a read was refused since cache-only reading began.
    pub(crate) fn missed(&self) -> bool {
        self.missed.get()
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
                log: LogHead::default(),
                store: None,
            },
            Some(bytes) => {
                let hex = core::str::from_utf8(bytes).map_err(|_| ToolError::Damaged)?;
                let commit = Hash::from_hex(hex).ok_or(ToolError::Damaged)?;
                let published = self.published(commit).await?;
                Head {
                    raw: raw.clone(),
                    commit: Some(commit),
                    root: published.root,
                    log: published.log,
                    store: published.store.clone(),
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

    async fn published(&self, commit: Hash) -> Result<Rc<Published>, ToolError> {
        if let Some(p) = self.cache.commit(&commit) {
            return Ok(p);
        }
        let bytes = self.object_bytes(&commit.key(COMMIT)).await?;
        let parsed = Some(bytes.as_slice())
            .filter(|b| Hash::of(b) == commit)
            .and_then(Commit::decode)
            .ok_or(ToolError::Damaged)?;
        let root = parsed.root_hash().ok_or(ToolError::Damaged)?;
        let log = LogHead::of_commit(
            parsed.log_hash(),
            parsed.versions,
            parsed.memories,
            parsed.log_fanout,
        )
        .ok_or(ToolError::Damaged)?;
        let published = Rc::new(Published {
            root,
            log,
            store: parsed.store.map(Rc::new),
        });
        self.cache.remember_commit(commit, published.clone());
        Ok(published)
    }

    /// The node `hash` of `log`: [`Self::log_node`], refused as damage if wider
    /// than the log's fanout.
    pub(crate) async fn node_of_log(
        &self,
        overlay: &Overlay,
        log: &LogHead,
        hash: Hash,
    ) -> Result<Rc<LogNode>, ToolError> {
        let node = self.log_node(overlay, hash).await?;
        if log.fits(&node) {
            Ok(node)
        } else {
            Err(ToolError::Damaged)
        }
    }

    /// The log node `hash`: from the change's new objects, the cache, or the store
    /// (checked against its hash, then decoded).
    pub(crate) async fn log_node(
        &self,
        overlay: &Overlay,
        hash: Hash,
    ) -> Result<Rc<LogNode>, ToolError> {
        if let Some((n, _)) = overlay.log.nodes.get(&hash) {
            return Ok(n.clone());
        }
        if let Some(n) = self.cache.log(&hash) {
            return Ok(n);
        }
        let (node, bytes) = self.fetch(LOG, hash, LogNode::decode).await?;
        let node = Rc::new(node);
        self.cache.remember_log(hash, node.clone(), bytes);
        Ok(node)
    }

    /// The record `hash` of version `seq`, checked like a node.
    pub(crate) async fn record(
        &self,
        overlay: &Overlay,
        hash: Hash,
        seq: u64,
    ) -> Result<Rc<Record>, ToolError> {
        if let Some((r, _)) = overlay.log.records.get(&hash) {
            return Ok(r.clone());
        }
        if let Some(r) = self.cache.record(&hash) {
            return Ok(r);
        }
        let (record, bytes) = self.fetch(RECORD, hash, |b| Record::decode(b, seq)).await?;
        let record = Rc::new(record);
        self.cache.remember_record(hash, record.clone(), bytes);
        Ok(record)
    }

    /// The content `hash` of `size` bytes (a version's blob), checked like a file's.
    pub(crate) async fn blob_of(&self, hash: Hash, size: u64) -> Result<Rc<str>, ToolError> {
        self.blob(&Child::plain(
            crate::storage::tree::Kind::File,
            hash,
            size,
            0,
        ))
        .await
    }

    /// The stored bytes of the object at `key` (missing: damage). The one place an
    /// object read reaches the store, so rendering from the cache alone can refuse it.
    async fn object_bytes(&self, key: &str) -> Result<alloc::vec::Vec<u8>, ToolError> {
        if self.cache.cache_only.get() {
            self.cache.missed.set(true);
            return Err(ToolError::Damaged);
        }
        self.store.get(key).await?.ok_or(ToolError::Damaged)
    }

    /// The stored object `hash` under `prefix`, checked against its hash, then
    /// decoded; answers it with its stored size (what the caches' budgets count).
    /// Missing, altered or undecodable: damage.
    async fn fetch<T>(
        &self,
        prefix: &str,
        hash: Hash,
        decode: impl FnOnce(&[u8]) -> Option<T>,
    ) -> Result<(T, usize), ToolError> {
        let bytes = self.object_bytes(&hash.key(prefix)).await?;
        if Hash::of(&bytes) != hash {
            return Err(ToolError::Damaged);
        }
        let value = decode(&bytes).ok_or(ToolError::Damaged)?;
        Ok((value, bytes.len()))
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
        if hash == self.empty_root || hash == self.json_empty_root {
            return Ok(Rc::new(Stored::Leaf(Rc::new(Node::default()))));
        }
        if let Some(n) = self.cache.node(&hash) {
            return Ok(n);
        }
        let (node, bytes) = self.fetch(TREE, hash, Stored::decode).await?;
        let node = Rc::new(node);
        self.cache.remember_node(hash, node.clone(), bytes);
        Ok(node)
    }

    /// The content of the file `child` names, checked against its hash and the
    /// size its directory records.
    pub(crate) async fn blob(&self, child: &Child) -> Result<Rc<str>, ToolError> {
        let hash = child.hash;
        if let Some(b) = self.cache.blob(&hash) {
            return Ok(b);
        }
        let bytes = self.object_bytes(&hash.key(BLOB)).await?;
        if bytes.len() as u64 != child.size || Hash::of(&bytes) != hash {
            return Err(ToolError::Damaged);
        }
        let text: Rc<str> = Rc::from(String::from_utf8(bytes).map_err(|_| ToolError::Damaged)?);
        self.cache.remember_blob(hash, text.clone());
        Ok(text)
    }
}

#[cfg(test)]
mod tests {
    use core::hash::BuildHasher;

    use super::*;
    use crate::config::Config;
    use crate::store::MemoryStore;

    /// Where each table would place `hash`.
    fn places(cache: &Cache, hash: Hash) -> [u64; 5] {
        [
            &cache.nodes,
            &cache.blobs,
            &cache.commits,
            &cache.logs,
            &cache.records,
        ]
        .map(|table| table.borrow().hasher().hash_one(hash))
    }

    #[test]
    fn every_table_places_a_digest_by_the_engines_key() {
        let hash = Hash::of(b"content");
        let mut engine = Engine::new(MemoryStore::new(), Config::default());
        let fixed = places(&engine.cache, hash);
        engine.set_cache_key(7);
        let keyed = places(&engine.cache, hash);
        assert_eq!(keyed, [keyed[0]; 5]);
        assert_eq!(keyed, places(&Cache::keyed(7), hash));
        assert_ne!(keyed[0], fixed[0]);
        assert_ne!(keyed[0], places(&Cache::keyed(8), hash)[0]);
    }
}
