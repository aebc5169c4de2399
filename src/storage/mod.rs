//! The storage layer: the stored data model (`tree`, a directory's `entries`, its
//! leaves' binary form in `node_binary` and the JSON form earlier builds wrote in
//! `node_json`, the one
//! checked reader of the binary forms in `reader`, a
//! store's record in `meta`, the version log's format in `versions`), the object
//! cache (`cache`), a change's new objects (`overlay`), large directories split
//! across branches (`shard`) and the one compare-and-swap that publishes a change
//! (`publish`). It names paths, the store contract, config and the error texts
//! below it, never a command, the history or a face above it.
//!
//! [`Engine`] is defined here because it is the state every layer works on. Its
//! fields are storage's alone: the layers above read the store, the config and the
//! clock through [`Engine::store`], [`Engine::config`] and `now`, and reach what
//! storage keeps for itself (the object cache, the empty tree's address, the
//! backoff between races, where the next pass over the version log starts) only
//! through the methods at the end of this file. Each layer adds its own methods in
//! its own files (storage: reading objects and publishing; `history`: the version
//! log; `command`: running a tool call; the faces: the API and the toolset).

use alloc::boxed::Box;
use core::future::Future;
use core::pin::Pin;

use crate::config::Config;
use crate::store::Store;

pub(crate) mod cache;
pub(crate) mod child;
pub(crate) mod entries;
pub(crate) mod hash;
pub(crate) mod head;
pub(crate) mod meta;
pub(crate) mod node_binary;
pub(crate) mod node_json;
pub(crate) mod overlay;
pub(crate) mod publish;
pub(crate) mod reader;
pub(crate) mod shard;
pub(crate) mod tree;
pub(crate) mod versions;

use cache::Cache;
use tree::{Hash, Node};

/// The prefixes of the keys of the tree's and the history's own objects: tree
/// nodes, commits, version-log nodes and records, the small objects every command
/// walks (a file's contents, under [`tree::BLOB`], are not among them). Each such
/// key names its value by its SHA-256, so the value never changes: it is only ever
/// written whole or deleted. A store adapter may keep such values it has seen and
/// answer a later read of the key with them (the PostgreSQL store does, for the rows
/// other instances commit); the engine checks each value against its key's hash
/// wherever it came from.
pub const STRUCTURE_PREFIXES: [&str; 4] =
    [tree::TREE, tree::COMMIT, versions::LOG, versions::RECORD];

/// A wait supplied by the runtime: given how many races this command has lost in a
/// row, a future that resolves when it should try again.
pub type Backoff = Box<dyn Fn(u32) -> Pin<Box<dyn Future<Output = ()>>>>;

/// The memory tool over one [`Store`]: its config, clock, backoff and object cache.
/// Run a command with [`Engine::run`] (or [`Engine::execute_json`] for JSON text).
pub struct Engine<S> {
    pub(in crate::storage) store: S,
    pub(in crate::storage) config: Config,
    pub(in crate::storage) clock: Box<dyn Fn() -> u64>,
    pub(in crate::storage) backoff: Option<Backoff>,
    pub(in crate::storage) empty_root: Hash,
    /// The empty tree as earlier builds wrote it (JSON): a store they made may name
    /// it without ever having stored it, as this build may its own.
    pub(in crate::storage) json_empty_root: Hash,
    pub(in crate::storage) cache: Cache,
    /// The version log's slot where the next retention pass starts: past the slots
    /// a pass cut short has read, so passes over a long log make progress.
    pub(in crate::storage) retain_from: core::cell::Cell<u64>,
    /// The search index between calls: the search layer's own state, kept here
    /// because the engine is what every runtime holds; storage never looks inside.
    pub(in crate::storage) search: core::cell::RefCell<Option<Box<dyn core::any::Any>>>,
    /// The application's embedder (`None`: lexical search only) as the search
    /// layer keeps it (`search/embed.rs`), and the vectors between calls (see
    /// `search/vectors.rs`), kept like the index: storage never looks inside.
    pub(in crate::storage) embedder: Option<Box<dyn core::any::Any>>,
    pub(in crate::storage) vectors: core::cell::RefCell<Option<Box<dyn core::any::Any>>>,
}

impl<S: Store> Engine<S> {
    /// An engine over `store`, with `config`; it reads nothing until the first call.
    pub fn new(store: S, config: Config) -> Self {
        Engine {
            store,
            config,
            clock: Box::new(|| 0),
            backoff: None,
            empty_root: Hash::of(&Node::default().encode()),
            json_empty_root: Hash::of(&Node::default().encode_json()),
            cache: Cache::default(),
            retain_from: core::cell::Cell::new(1),
            search: core::cell::RefCell::new(None),
            embedder: None,
            vectors: core::cell::RefCell::new(None),
        }
    }

    /// Milliseconds since the Unix epoch, for commit times. Default: always 0.
    pub fn set_clock(&mut self, clock: Box<dyn Fn() -> u64>) {
        self.clock = clock;
    }

    /// Random bits for the object caches' hash tables, from the runtime (the engine
    /// has no random source of its own); set before the first command, since the
    /// caches start again empty. Without it the tables use a fixed key: fine for
    /// one user's own data, but a writer who knows the key could pick contents whose
    /// digests crowd one place of a table and slow every lookup there.
    pub fn set_cache_key(&mut self, key: u64) {
        self.cache = Cache::keyed(key);
    }

    /// How to wait after losing a compare-and-swap race. Without one the engine
    /// retries at once, which is right for one process but lets a writer that runs
    /// commands back to back starve another (it never needs to re-read): a random,
    /// growing wait spreads the loser's retries beyond the winner's burst. The engine
    /// has no timer of its own, so the runtime supplies this.
    pub fn set_backoff(&mut self, backoff: Backoff) {
        self.backoff = Some(backoff);
    }

    /// The store it runs over.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// The configuration it was opened with.
    pub fn config(&self) -> &Config {
        &self.config
    }
}

/// What the layers above may ask of storage's own state.
impl<S> Engine<S> {
    /// Milliseconds since the Unix epoch, by the runtime's clock.
    pub(crate) fn now(&self) -> u64 {
        (self.clock)()
    }

    /// The version log's slot where the next retention pass starts (at least 1).
    pub(crate) fn retain_cursor(&self) -> u64 {
        self.retain_from.get().max(1)
    }

    /// Where the next retention pass starts: past what this one read.
    pub(crate) fn set_retain_cursor(&self, slot: u64) {
        self.retain_from.set(slot);
    }

    /// The root of the empty tree.
    pub(crate) fn empty_root(&self) -> Hash {
        self.empty_root
    }

    /// The slot the search index is kept in between calls (see `search/`): taken
    /// out for the length of a call, so two interleaved calls never share it.
    pub(crate) fn search_slot(&self) -> &core::cell::RefCell<Option<Box<dyn core::any::Any>>> {
        &self.search
    }

    /// The search layer's embedder, as it was put (`search/embed.rs` reads it).
    pub(crate) fn embedder_slot(&self) -> Option<&dyn core::any::Any> {
        self.embedder.as_deref()
    }

    /// Puts the search layer's embedder, forgetting the vectors kept for the last.
    pub(crate) fn put_embedder(&mut self, embedder: Option<Box<dyn core::any::Any>>) {
        self.embedder = embedder;
        *self.vectors.borrow_mut() = None;
    }

    /// The slot the vectors are kept in between calls (see `search/vectors.rs`).
    pub(crate) fn vector_slot(&self) -> &core::cell::RefCell<Option<Box<dyn core::any::Any>>> {
        &self.vectors
    }

    /// Forgets the cached head, so the next command reads it from the store (after
    /// a failure, whose cause may have been a stale head).
    pub(crate) fn forget_head(&self) {
        self.cache.forget_head();
    }

    /// Forgets a record and a blob the store no longer holds (a redaction's erase).
    pub(crate) fn forget_record(&self, hash: &Hash) {
        self.cache.forget_record(hash);
    }

    pub(crate) fn forget_blob(&self, hash: &Hash) {
        self.cache.forget_blob(hash);
    }

    /// Forgets a tree node the store no longer holds (a redaction's erase).
    pub(crate) fn forget_node(&self, hash: &Hash) {
        self.cache.forget_node(hash);
    }

    /// The head this engine saw last, without asking the store.
    pub(crate) fn last_head(&self) -> Option<head::Head> {
        self.cache.head.borrow().clone()
    }

    /// `work` run from the cache alone, in one poll: its output, or `None` if it
    /// needed an object from the store (or would have waited on anything else).
    pub(crate) fn cache_alone<T>(&self, work: impl Future<Output = T>) -> Option<T> {
        use core::task::{Context, Poll, Waker};
        let mut work = core::pin::pin!(work);
        self.cache.set_cache_only(true);
        let polled = work.as_mut().poll(&mut Context::from_waker(Waker::noop()));
        self.cache.set_cache_only(false);
        match polled {
            Poll::Ready(out) if !self.cache.missed() => Some(out),
            _ => None,
        }
    }
}
