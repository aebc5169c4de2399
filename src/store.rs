//! The store contract: five operations on opaque string keys and byte values.
//!
//! This is the whole interface between the engine and a runtime. It is shaped like
//! `wasi:keyvalue` (store + atomics `cas`) so a wasmtime host, IndexedDB, Durable
//! Object storage, a directory on disk or a JS object can each serve it in a page.
//!
//! Operations are `async` because most real backends are; a synchronous backend
//! returns ready futures and the engine needs no executor (see [`crate::now_or_never`]).

use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::RefCell;
use core::fmt;

use alloc::collections::BTreeMap;

/// Why a storage operation failed. Deliberately carries no backend text: whatever a
/// backend says (paths, keys, driver messages) stays in the adapter, never reaches a
/// user. The engine turns each kind into one fixed sentence.
/// Deliberately exhaustive: the contract's failures are all an adapter can
/// report, and adapters map each to and from their own errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreError {
    /// The backend is out of space (IndexedDB `QuotaExceededError`, a full disk).
    QuotaExceeded,
    /// The backend cannot be reached or was closed (a closed database, a blocked
    /// upgrade, private mode refusing storage).
    Unavailable,
    /// Anything else the backend reported, including values of the wrong type.
    Failed,
    /// A value that does not open under the store's key (a flipped bit, a
    /// truncation, a value moved from another name or store): see `seal`.
    Damaged,
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StoreError::QuotaExceeded => "storage quota exceeded",
            StoreError::Unavailable => "storage unavailable",
            StoreError::Failed => "storage operation failed",
            StoreError::Damaged => "stored data is damaged",
        })
    }
}

impl core::error::Error for StoreError {}

/// One page of [`Store::list`]: keys in ascending byte order, and the cursor to pass
/// back for the next page (`None` when this was the last page).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Page {
    /// The keys, ascending by bytes.
    pub keys: Vec<String>,
    /// Where the next page starts (after this key); `None` on the last page.
    pub cursor: Option<String>,
}

impl Page {
    /// The page of at most `size` keys made from `keys`, ascending and fetched one
    /// over `size`: the extra key, when it came, says there is a next page, whose
    /// cursor is the last key kept.
    pub fn of(mut keys: Vec<String>, size: usize) -> Page {
        let cursor = if keys.len() > size {
            keys.truncate(size);
            keys.last().cloned()
        } else {
            None
        };
        Page { keys, cursor }
    }
}

/// The key-value contract every backend implements.
///
/// Keys are short ASCII strings chosen by the engine (`head`, `blob/<sha256>`, …).
/// `compare_and_swap` is the only operation that must be atomic.
#[allow(async_fn_in_trait)] // JS-backed stores are !Send; callers pick their executor.
pub trait Store {
    /// The value at `key`, or `None` if there is none.
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError>;
    /// Writes `value` at `key`, replacing any value there.
    async fn set(&self, key: &str, value: &[u8]) -> Result<(), StoreError>;
    /// Removing an absent key is not an error.
    async fn delete(&self, key: &str) -> Result<(), StoreError>;
    /// Keys starting with `prefix`, ascending, resuming after `cursor` when given.
    /// A page may hold any number of keys, zero included only on the last page.
    async fn list(&self, prefix: &str, cursor: Option<&str>) -> Result<Page, StoreError>;
    /// Writes `new` only if the current value equals `expected` (`None`: the key is
    /// absent). `Ok(false)` means someone else got there first; nothing was written.
    async fn compare_and_swap(
        &self,
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError>;

    /// Writes fresh content-addressed `objects`, then compare-and-swaps `key`.
    ///
    /// Nothing reads the objects until the swap publishes them, so a backend with
    /// transactions (IndexedDB, Durable Objects, a disk store's single fsync) may
    /// override this to do the whole command in one round trip. The default does
    /// them one by one, which is just as safe: unpublished objects are invisible.
    /// The bytes are shared with the engine's own copy (an `Rc`), so a store that
    /// keeps values in memory keeps them without copying.
    async fn commit(
        &self,
        objects: &[(String, Rc<[u8]>)],
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError> {
        for (k, v) in objects {
            self.set(k, v).await?;
        }
        self.compare_and_swap(key, expected, new).await
    }

    /// Whether this store searches vectors itself ([`Store::nearest`]): if so,
    /// the engine keeps no vectors in memory and asks it for candidates instead of
    /// scanning (the PostgreSQL store with pgvector). Default: no.
    fn searches_vectors(&self) -> bool {
        false
    }

    /// The extension point for a store that searches vectors itself: the `k`
    /// content hashes whose stored vectors (keys `vec/<content sha256>/<fingerprint>`,
    /// the form in `search/vectors.rs`) of the fingerprint key `fingerprint` are
    /// nearest `query` (unit length, `f32`), each with its cosine, best first;
    /// `Ok(None)`: this store does not (the engine scans). The engine keeps only
    /// candidates live in the current tree under the searched directory, so a
    /// store may answer vectors of deleted texts without harm.
    async fn nearest(
        &self,
        fingerprint: &str,
        query: &[f32],
        k: usize,
    ) -> Result<Option<Vec<([u8; 32], f32)>>, StoreError> {
        let _ = (fingerprint, query, k);
        Ok(None)
    }
}

use crate::config::MAX_LIST_PAGES;

/// Every key starting with `prefix`, ascending, through all pages. A page that
/// does not move the cursor forward, or an empty page with a cursor, is a broken
/// store (it would loop forever), answered as a failure.
pub async fn list_all<S: Store + ?Sized>(s: &S, prefix: &str) -> Result<Vec<String>, StoreError> {
    let mut keys: Vec<String> = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_LIST_PAGES {
        let page = s.list(prefix, cursor.as_deref()).await?;
        if page.cursor.is_some() && page.keys.is_empty() {
            return Err(StoreError::Failed);
        }
        keys.extend(page.keys);
        match page.cursor {
            Some(c) if cursor.as_ref().is_some_and(|old| *old >= c) => {
                return Err(StoreError::Failed);
            }
            Some(c) => cursor = Some(c),
            None => return Ok(keys),
        }
    }
    Err(StoreError::Failed)
}

/// A reference or an `Rc` to a store is a store, so one store can back several
/// engines (tabs, isolates, tests' probes).
macro_rules! forward_store {
    ($($ty:ty),*) => {$(
        impl<S: Store + ?Sized> Store for $ty {
            async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
                (**self).get(key).await
            }
            async fn set(&self, key: &str, value: &[u8]) -> Result<(), StoreError> {
                (**self).set(key, value).await
            }
            async fn delete(&self, key: &str) -> Result<(), StoreError> {
                (**self).delete(key).await
            }
            async fn list(&self, prefix: &str, cursor: Option<&str>) -> Result<Page, StoreError> {
                (**self).list(prefix, cursor).await
            }
            async fn compare_and_swap(
                &self,
                key: &str,
                expected: Option<&[u8]>,
                new: &[u8],
            ) -> Result<bool, StoreError> {
                (**self).compare_and_swap(key, expected, new).await
            }
            async fn commit(
                &self,
                objects: &[(String, Rc<[u8]>)],
                key: &str,
                expected: Option<&[u8]>,
                new: &[u8],
            ) -> Result<bool, StoreError> {
                (**self).commit(objects, key, expected, new).await
            }
            fn searches_vectors(&self) -> bool {
                (**self).searches_vectors()
            }
            async fn nearest(
                &self,
                fingerprint: &str,
                query: &[f32],
                k: usize,
            ) -> Result<Option<Vec<([u8; 32], f32)>>, StoreError> {
                (**self).nearest(fingerprint, query, k).await
            }
        }
    )*};
}

forward_store!(&S, Rc<S>);

use crate::config::MEMORY_PAGE;

/// An in-memory store. Cloning shares the same map, so clones model several
/// clients (tabs, isolates) over one backend. A commit's values are kept as the
/// engine made them, shared, not copied.
#[derive(Clone, Debug, Default)]
pub struct MemoryStore {
    map: Rc<RefCell<BTreeMap<String, Rc<[u8]>>>>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of keys held; for tests and garbage-collection reports.
    pub fn len(&self) -> usize {
        self.map.borrow().len()
    }

    /// Whether it holds no key.
    pub fn is_empty(&self) -> bool {
        self.map.borrow().is_empty()
    }

    /// Total bytes of all values held.
    pub fn value_bytes(&self) -> usize {
        self.map.borrow().values().map(|v| v.len()).sum()
    }
}

impl Store for MemoryStore {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.map.borrow().get(key).map(|v| v.to_vec()))
    }

    async fn set(&self, key: &str, value: &[u8]) -> Result<(), StoreError> {
        self.map.borrow_mut().insert(key.into(), value.into());
        Ok(())
    }

    async fn delete(&self, key: &str) -> Result<(), StoreError> {
        self.map.borrow_mut().remove(key);
        Ok(())
    }

    async fn list(&self, prefix: &str, cursor: Option<&str>) -> Result<Page, StoreError> {
        use core::ops::Bound;
        let map = self.map.borrow();
        let start = match cursor {
            Some(c) => Bound::Excluded(c),
            None => Bound::Included(prefix),
        };
        let keys: Vec<String> = map
            .range::<str, _>((start, Bound::Unbounded))
            .map(|(k, _)| k)
            .take_while(|k| k.starts_with(prefix))
            .take(MEMORY_PAGE + 1)
            .cloned()
            .collect();
        Ok(Page::of(keys, MEMORY_PAGE))
    }

    async fn compare_and_swap(
        &self,
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError> {
        let mut map = self.map.borrow_mut();
        if map.get(key).map(|v| &**v) != expected {
            return Ok(false);
        }
        map.insert(key.into(), new.into());
        Ok(true)
    }

    /// The objects and the swap under one borrow; a refused swap stores nothing.
    async fn commit(
        &self,
        objects: &[(String, Rc<[u8]>)],
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError> {
        let mut map = self.map.borrow_mut();
        if map.get(key).map(|v| &**v) != expected {
            return Ok(false);
        }
        for (k, v) in objects {
            map.insert(k.clone(), v.clone());
        }
        map.insert(key.into(), new.into());
        Ok(true)
    }
}

/// `fut`, polled by a function of its own (`#[inline(never)]`), so its code is not
/// folded into the caller's: a runtime that compiles each function on its first
/// call (V8's lazy wasm compilation, on the main thread) then compiles only the
/// paths a process takes. The engine outlines a view from a write with it: a cold
/// process's first view compiled every write's code (bench/cold).
pub(crate) async fn outlined<F: core::future::Future>(fut: F) -> F::Output {
    Outlined(core::pin::pin!(fut)).await
}

/// See [`outlined`].
struct Outlined<'a, F>(core::pin::Pin<&'a mut F>);

impl<F: core::future::Future> core::future::Future for Outlined<'_, F> {
    type Output = F::Output;

    #[inline(never)]
    fn poll(
        mut self: core::pin::Pin<&mut Self>,
        cx: &mut core::task::Context<'_>,
    ) -> core::task::Poll<F::Output> {
        self.0.as_mut().poll(cx)
    }
}
