//! The store contract over the imported `wasi:keyvalue@0.2.0-draft2` bucket.
//!
//! Errors keep no host text: the bucket's `other(..)` strings are read only for the
//! three agreed kinds (`quota-exceeded`, `unavailable`, anything else is a failure).

use alloc::string::String;
use alloc::vec::Vec;
use core::cell::RefCell;

use ::memdir::config::MAX_LIST_PAGES;
use ::memdir::{Page, Store, StoreError};

use crate::wasi::keyvalue::atomics::{self, Cas, CasError};
use crate::wasi::keyvalue::store::{self, Bucket, Error};

pub struct KvStore {
    name: String,
    /// Opened on first use, so a host that refuses the bucket yields the engine's
    /// "storage unavailable" answer instead of a trap.
    bucket: RefCell<Option<Bucket>>,
}

fn kind(e: Error) -> StoreError {
    match e {
        Error::NoSuchStore | Error::AccessDenied => StoreError::Unavailable,
        Error::Other(s) if s == "quota-exceeded" => StoreError::QuotaExceeded,
        Error::Other(s) if s == "unavailable" => StoreError::Unavailable,
        Error::Other(_) => StoreError::Failed,
    }
}

impl KvStore {
    pub fn new(name: &str) -> Self {
        KvStore {
            name: name.into(),
            bucket: RefCell::new(None),
        }
    }

    fn with<T>(&self, f: impl FnOnce(&Bucket) -> Result<T, StoreError>) -> Result<T, StoreError> {
        let mut slot = self.bucket.borrow_mut();
        let bucket = match slot.take() {
            Some(b) => b,
            None => store::open(&self.name).map_err(kind)?,
        };
        let out = f(&bucket);
        *slot = Some(bucket);
        out
    }
}

impl Store for KvStore {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.with(|b| b.get(key).map_err(kind))
    }

    async fn set(&self, key: &str, value: &[u8]) -> Result<(), StoreError> {
        self.with(|b| b.set(key, value).map_err(kind))
    }

    async fn delete(&self, key: &str) -> Result<(), StoreError> {
        self.with(|b| b.delete(key).map_err(kind))
    }

    /// draft2's `list-keys` has no prefix and promises no order, so this reads every
    /// key, keeps the prefix's, sorts them and answers in one page. The engine lists
    /// only to collect garbage, never on a command's path.
    async fn list(&self, prefix: &str, cursor: Option<&str>) -> Result<Page, StoreError> {
        self.with(|b| {
            let mut keys = Vec::new();
            let mut next: Option<String> = None;
            // The engine's bound on a listing's pages: a host whose cursor never
            // ends must not hang the instance.
            for _ in 0..MAX_LIST_PAGES {
                let page = b.list_keys(next.as_deref()).map_err(kind)?;
                keys.extend(
                    page.keys
                        .into_iter()
                        .filter(|k| k.starts_with(prefix) && cursor.is_none_or(|c| k.as_str() > c)),
                );
                match page.cursor {
                    Some(c) if next.as_deref() != Some(c.as_str()) => next = Some(c),
                    Some(_) => return Err(StoreError::Failed),
                    None => {
                        keys.sort_unstable();
                        keys.dedup();
                        return Ok(Page { keys, cursor: None });
                    }
                }
            }
            Err(StoreError::Failed)
        })
    }

    async fn compare_and_swap(
        &self,
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError> {
        self.with(|b| {
            let cas = Cas::new(b, key).map_err(kind)?;
            if cas.current().map_err(kind)?.as_deref() != expected {
                return Ok(false);
            }
            match atomics::swap(cas, new) {
                Ok(()) => Ok(true),
                Err(CasError::CasFailed(_)) => Ok(false),
                Err(CasError::StoreError(e)) => Err(kind(e)),
            }
        })
    }
}
