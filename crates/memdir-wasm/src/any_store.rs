//! The one store type the exported `Memory` runs on: whichever backend the
//! application picked, behind a single enum so the engine is compiled once.
//!
//! Adding a backend (the browser's IndexedDB store) is one variant here and one arm
//! in each method of the delegation below.

use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;

use memdir::{MemoryStore, Page, Store, StoreError};

use crate::js_store::JsStore;
#[cfg(not(feature = "indexeddb"))]
use crate::store_dir::store::DirStore;
#[cfg(feature = "indexeddb")]
use memdir_idb::IdbStore;

#[derive(Clone)]
pub enum AnyStore {
    /// Native, in the wasm instance's memory: no JS crossing per operation.
    Memory(MemoryStore),
    /// Any object following the JS store protocol (a directory on disk, Durable
    /// Object storage, an application's own backend).
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

impl AnyStore {
    /// A short name for the backend, for `StoreHandle.kind` in JS.
    pub fn kind(&self) -> &'static str {
        match self {
            AnyStore::Memory(_) => "memory",
            AnyStore::Js(_) => "js",
            #[cfg(feature = "indexeddb")]
            AnyStore::Idb(_) => "indexeddb",
            #[cfg(not(feature = "indexeddb"))]
            AnyStore::Dir(_) => "directory",
        }
    }
}

impl Store for AnyStore {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        match self {
            AnyStore::Memory(s) => s.get(key).await,
            AnyStore::Js(s) => s.get(key).await,
            #[cfg(feature = "indexeddb")]
            AnyStore::Idb(s) => s.get(key).await,
            #[cfg(not(feature = "indexeddb"))]
            AnyStore::Dir(s) => s.get(key).await,
        }
    }

    async fn set(&self, key: &str, value: &[u8]) -> Result<(), StoreError> {
        match self {
            AnyStore::Memory(s) => s.set(key, value).await,
            AnyStore::Js(s) => s.set(key, value).await,
            #[cfg(feature = "indexeddb")]
            AnyStore::Idb(s) => s.set(key, value).await,
            #[cfg(not(feature = "indexeddb"))]
            AnyStore::Dir(s) => s.set(key, value).await,
        }
    }

    async fn delete(&self, key: &str) -> Result<(), StoreError> {
        match self {
            AnyStore::Memory(s) => s.delete(key).await,
            AnyStore::Js(s) => s.delete(key).await,
            #[cfg(feature = "indexeddb")]
            AnyStore::Idb(s) => s.delete(key).await,
            #[cfg(not(feature = "indexeddb"))]
            AnyStore::Dir(s) => s.delete(key).await,
        }
    }

    async fn list(&self, prefix: &str, cursor: Option<&str>) -> Result<Page, StoreError> {
        match self {
            AnyStore::Memory(s) => s.list(prefix, cursor).await,
            AnyStore::Js(s) => s.list(prefix, cursor).await,
            #[cfg(feature = "indexeddb")]
            AnyStore::Idb(s) => s.list(prefix, cursor).await,
            #[cfg(not(feature = "indexeddb"))]
            AnyStore::Dir(s) => s.list(prefix, cursor).await,
        }
    }

    async fn compare_and_swap(
        &self,
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError> {
        match self {
            AnyStore::Memory(s) => s.compare_and_swap(key, expected, new).await,
            AnyStore::Js(s) => s.compare_and_swap(key, expected, new).await,
            #[cfg(feature = "indexeddb")]
            AnyStore::Idb(s) => s.compare_and_swap(key, expected, new).await,
            #[cfg(not(feature = "indexeddb"))]
            AnyStore::Dir(s) => s.compare_and_swap(key, expected, new).await,
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
            AnyStore::Memory(s) => s.commit(objects, key, expected, new).await,
            AnyStore::Js(s) => s.commit(objects, key, expected, new).await,
            #[cfg(feature = "indexeddb")]
            AnyStore::Idb(s) => s.commit(objects, key, expected, new).await,
            #[cfg(not(feature = "indexeddb"))]
            AnyStore::Dir(s) => s.commit(objects, key, expected, new).await,
        }
    }

    // Only a JS store may search vectors itself (the PostgreSQL store with pgvector).
    fn searches_vectors(&self) -> bool {
        match self {
            AnyStore::Js(s) => s.searches_vectors(),
            _ => false,
        }
    }

    async fn nearest(
        &self,
        fingerprint: &str,
        query: &[f32],
        k: usize,
    ) -> Result<Option<Vec<([u8; 32], f32)>>, StoreError> {
        match self {
            AnyStore::Js(s) => s.nearest(fingerprint, query, k).await,
            _ => Ok(None),
        }
    }
}
