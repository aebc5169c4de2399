//! The one store type the exported `Memory` runs on: whichever backend the
//! application picked, behind a single enum so the engine is compiled once.
//!
//! Adding a backend (the browser's IndexedDB store) is one variant of [`Backend`]
//! and one arm in each method of its delegation below. Any backend may be opened
//! encrypted (`openMemory({ encryption })`): then the engine runs on
//! `memdir::seal::Sealed` over it, which encrypts every name and value on the way
//! down; a plaintext store's calls go straight to its backend.

use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;

#[cfg(not(feature = "tool"))]
use memdir::seal::Sealed;
use memdir::{MemoryStore, Page, Store, StoreError};

#[cfg(not(feature = "tool"))]
use crate::js_store::JsStore;
#[cfg(not(feature = "indexeddb"))]
use crate::store_dir::store::DirStore;
#[cfg(feature = "indexeddb")]
use memdir_idb::IdbStore;

/// A store as the engine runs on it: a backend as it is, or encrypted over one.
/// Two types rather than a variant of `Backend` holding `Sealed<Backend>`, so that
/// no store's future contains its own (a sealed store is never sealed again).
#[derive(Clone)]
pub enum AnyStore {
    Plain(Backend),
    /// Shared: every memory opened over this handle runs on the one sealed store,
    /// which holds the store's keys once opened. Not in the lean build (feature
    /// `tool`), which has no encryption.
    #[cfg(not(feature = "tool"))]
    Sealed(Rc<Sealed<Backend>>),
}

impl From<Backend> for AnyStore {
    fn from(backend: Backend) -> AnyStore {
        AnyStore::Plain(backend)
    }
}

impl AnyStore {
    /// A short name for the backend, for `StoreHandle.kind` in JS (an encrypted
    /// store's is its backend's).
    pub fn kind(&self) -> &'static str {
        match self {
            AnyStore::Plain(b) => b.kind(),
            #[cfg(not(feature = "tool"))]
            AnyStore::Sealed(s) => s.inner().kind(),
        }
    }
}

impl Store for AnyStore {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        match self {
            AnyStore::Plain(s) => s.get(key).await,
            #[cfg(not(feature = "tool"))]
            AnyStore::Sealed(s) => s.get(key).await,
        }
    }

    async fn set(&self, key: &str, value: &[u8]) -> Result<(), StoreError> {
        match self {
            AnyStore::Plain(s) => s.set(key, value).await,
            #[cfg(not(feature = "tool"))]
            AnyStore::Sealed(s) => s.set(key, value).await,
        }
    }

    async fn delete(&self, key: &str) -> Result<(), StoreError> {
        match self {
            AnyStore::Plain(s) => s.delete(key).await,
            #[cfg(not(feature = "tool"))]
            AnyStore::Sealed(s) => s.delete(key).await,
        }
    }

    async fn list(&self, prefix: &str, cursor: Option<&str>) -> Result<Page, StoreError> {
        match self {
            AnyStore::Plain(s) => s.list(prefix, cursor).await,
            #[cfg(not(feature = "tool"))]
            AnyStore::Sealed(s) => s.list(prefix, cursor).await,
        }
    }

    async fn compare_and_swap(
        &self,
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError> {
        match self {
            AnyStore::Plain(s) => s.compare_and_swap(key, expected, new).await,
            #[cfg(not(feature = "tool"))]
            AnyStore::Sealed(s) => s.compare_and_swap(key, expected, new).await,
        }
    }

    async fn commit(
        &self,
        objects: &[(String, Rc<[u8]>)],
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError> {
        match self {
            AnyStore::Plain(s) => s.commit(objects, key, expected, new).await,
            #[cfg(not(feature = "tool"))]
            AnyStore::Sealed(s) => s.commit(objects, key, expected, new).await,
        }
    }

    // An encrypted store's vectors are sealed: whether it searches them is the
    // seal's to say, not its backend's.
    fn searches_vectors(&self) -> bool {
        match self {
            AnyStore::Plain(s) => s.searches_vectors(),
            #[cfg(not(feature = "tool"))]
            AnyStore::Sealed(s) => s.searches_vectors(),
        }
    }

    async fn nearest(
        &self,
        fingerprint: &str,
        query: &[f32],
        k: usize,
    ) -> Result<Option<Vec<([u8; 32], f32)>>, StoreError> {
        match self {
            AnyStore::Plain(s) => s.nearest(fingerprint, query, k).await,
            #[cfg(not(feature = "tool"))]
            AnyStore::Sealed(s) => s.nearest(fingerprint, query, k).await,
        }
    }
}

/// Where a store's bytes live.
#[derive(Clone)]
pub enum Backend {
    /// Native, in the wasm instance's memory: no JS crossing per operation.
    Memory(MemoryStore),
    /// Any object following the JS store protocol (a directory on disk, Durable
    /// Object storage, an application's own backend). Not in the lean build
    /// (feature `tool`), whose stores are its own (in memory, IndexedDB, a directory).
    #[cfg(not(feature = "tool"))]
    Js(JsStore),
    /// The browser's IndexedDB, natively: one readwrite transaction per commit
    /// (the browser build only: feature `indexeddb`).
    #[cfg(feature = "indexeddb")]
    Idb(IdbStore),
    /// A store directory on disk (Node), its protocol called natively (the other
    /// builds only: the browser has no directory store).
    #[cfg(not(feature = "indexeddb"))]
    Dir(DirStore),
}

impl Backend {
    /// A short name for the backend.
    pub fn kind(&self) -> &'static str {
        match self {
            Backend::Memory(_) => "memory",
            #[cfg(not(feature = "tool"))]
            Backend::Js(_) => "js",
            #[cfg(feature = "indexeddb")]
            Backend::Idb(_) => "indexeddb",
            #[cfg(not(feature = "indexeddb"))]
            Backend::Dir(_) => "directory",
        }
    }
}

impl Store for Backend {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        match self {
            Backend::Memory(s) => s.get(key).await,
            #[cfg(not(feature = "tool"))]
            Backend::Js(s) => s.get(key).await,
            #[cfg(feature = "indexeddb")]
            Backend::Idb(s) => s.get(key).await,
            #[cfg(not(feature = "indexeddb"))]
            Backend::Dir(s) => s.get(key).await,
        }
    }

    async fn set(&self, key: &str, value: &[u8]) -> Result<(), StoreError> {
        match self {
            Backend::Memory(s) => s.set(key, value).await,
            #[cfg(not(feature = "tool"))]
            Backend::Js(s) => s.set(key, value).await,
            #[cfg(feature = "indexeddb")]
            Backend::Idb(s) => s.set(key, value).await,
            #[cfg(not(feature = "indexeddb"))]
            Backend::Dir(s) => s.set(key, value).await,
        }
    }

    async fn delete(&self, key: &str) -> Result<(), StoreError> {
        match self {
            Backend::Memory(s) => s.delete(key).await,
            #[cfg(not(feature = "tool"))]
            Backend::Js(s) => s.delete(key).await,
            #[cfg(feature = "indexeddb")]
            Backend::Idb(s) => s.delete(key).await,
            #[cfg(not(feature = "indexeddb"))]
            Backend::Dir(s) => s.delete(key).await,
        }
    }

    async fn list(&self, prefix: &str, cursor: Option<&str>) -> Result<Page, StoreError> {
        match self {
            Backend::Memory(s) => s.list(prefix, cursor).await,
            #[cfg(not(feature = "tool"))]
            Backend::Js(s) => s.list(prefix, cursor).await,
            #[cfg(feature = "indexeddb")]
            Backend::Idb(s) => s.list(prefix, cursor).await,
            #[cfg(not(feature = "indexeddb"))]
            Backend::Dir(s) => s.list(prefix, cursor).await,
        }
    }

    async fn compare_and_swap(
        &self,
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError> {
        match self {
            Backend::Memory(s) => s.compare_and_swap(key, expected, new).await,
            #[cfg(not(feature = "tool"))]
            Backend::Js(s) => s.compare_and_swap(key, expected, new).await,
            #[cfg(feature = "indexeddb")]
            Backend::Idb(s) => s.compare_and_swap(key, expected, new).await,
            #[cfg(not(feature = "indexeddb"))]
            Backend::Dir(s) => s.compare_and_swap(key, expected, new).await,
        }
    }

    async fn commit(
        &self,
        objects: &[(String, Rc<[u8]>)],
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError> {
        match self {
            Backend::Memory(s) => s.commit(objects, key, expected, new).await,
            #[cfg(not(feature = "tool"))]
            Backend::Js(s) => s.commit(objects, key, expected, new).await,
            #[cfg(feature = "indexeddb")]
            Backend::Idb(s) => s.commit(objects, key, expected, new).await,
            #[cfg(not(feature = "indexeddb"))]
            Backend::Dir(s) => s.commit(objects, key, expected, new).await,
        }
    }

    // Only a JS store may search vectors itself (the PostgreSQL store with pgvector).
    fn searches_vectors(&self) -> bool {
        match self {
            #[cfg(not(feature = "tool"))]
            Backend::Js(s) => s.searches_vectors(),
            _ => false,
        }
    }

    async fn nearest(
        &self,
        fingerprint: &str,
        query: &[f32],
        k: usize,
    ) -> Result<Option<Vec<([u8; 32], f32)>>, StoreError> {
        #[cfg(feature = "tool")]
        let _ = (fingerprint, query, k);
        match self {
            #[cfg(not(feature = "tool"))]
            Backend::Js(s) => s.nearest(fingerprint, query, k).await,
            _ => Ok(None),
        }
    }
}
