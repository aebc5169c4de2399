//! What the host lends the component: a bucket of bytes with compare-and-swap.
//!
//! One synchronous, thread-safe trait serves both faces of a backend: the host's
//! `wasi:keyvalue` imports (through `dyn Backend`) and `memdir::Store` directly, so
//! the engine's store-contract suite runs against exactly what the component sees.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::rc::Rc;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use memdir::{Page, StoreError};

/// Keys per page of [`Backend::list`] when a caller asks for "a page".
pub const PAGE: usize = 1000;

/// A key-value backend: keys are short strings, values are bytes.
///
/// Errors are only the three kinds of [`StoreError`]; whatever the medium said
/// (paths, OS messages) stays inside the backend.
pub trait Backend: Send + Sync {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError>;
    fn set(&self, key: &str, value: &[u8]) -> Result<(), StoreError>;
    /// Removing an absent key is not an error.
    fn delete(&self, key: &str) -> Result<(), StoreError>;
    /// Up to `limit` keys starting with `prefix`, strictly after `after`, ascending.
    fn list(
        &self,
        prefix: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<String>, StoreError>;
    /// Writes `new` only if the value is still `expected` (`None`: absent), atomically
    /// with respect to every other writer of this backend, in any process.
    fn compare_and_swap(
        &self,
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError>;
    /// Fresh objects, then the swap. Backends that can make this one durable step
    /// override it; this default is safe because unpublished objects are unread.
    fn commit(
        &self,
        objects: &[(String, Rc<[u8]>)],
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError> {
        for (k, v) in objects {
            self.set(k, v)?;
        }
        self.compare_and_swap(key, expected, new)
    }

    /// Exclusive use for one command that may write (the host asks it for no read),
    /// across threads and processes, until the returned guard is dropped; `None`
    /// when the backend has no such thing (or could not get it in time). Only fairness depends on it: correctness rests
    /// on the compare-and-swap alone.
    fn turn(&self) -> Option<Box<dyn Send>> {
        None
    }

    /// Removes what writers killed before `older_than_ms` ago left half-made
    /// (a store directory's temporary files), for a re-encryption that just
    /// finished in the backend's turn: a run killed midway may have left a
    /// temporary holding a value it was moving in clear. Most backends leave
    /// nothing of the kind.
    fn sweep_left_behind(&self, _older_than_ms: u64) {}
}

/// One page of [`Backend::list`] in the contract's shape: the cursor is the last key.
pub fn page(
    b: &(impl Backend + ?Sized),
    prefix: &str,
    cursor: Option<&str>,
) -> Result<Page, StoreError> {
    Ok(Page::of(b.list(prefix, cursor, PAGE + 1)?, PAGE))
}

/// `memdir::Store` for a backend: the same operations as ready futures.
macro_rules! store_for {
    ($t:ty) => {
        impl ::memdir::Store for $t {
            async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, ::memdir::StoreError> {
                $crate::backend::Backend::get(self, key)
            }
            async fn set(&self, key: &str, value: &[u8]) -> Result<(), ::memdir::StoreError> {
                $crate::backend::Backend::set(self, key, value)
            }
            async fn delete(&self, key: &str) -> Result<(), ::memdir::StoreError> {
                $crate::backend::Backend::delete(self, key)
            }
            async fn list(
                &self,
                prefix: &str,
                cursor: Option<&str>,
            ) -> Result<::memdir::Page, ::memdir::StoreError> {
                $crate::backend::page(self, prefix, cursor)
            }
            async fn compare_and_swap(
                &self,
                key: &str,
                expected: Option<&[u8]>,
                new: &[u8],
            ) -> Result<bool, ::memdir::StoreError> {
                $crate::backend::Backend::compare_and_swap(self, key, expected, new)
            }
            async fn commit(
                &self,
                objects: &[(String, Rc<[u8]>)],
                key: &str,
                expected: Option<&[u8]>,
                new: &[u8],
            ) -> Result<bool, ::memdir::StoreError> {
                $crate::backend::Backend::commit(self, objects, key, expected, new)
            }
        }
    };
}
pub(crate) use store_for;

store_for!(dyn Backend);
store_for!(MemoryBackend);

/// Values held in this process's memory. Clones share the map (several hosts, one
/// store), and it is `Sync`, so threads can share it too.
#[derive(Clone, Debug, Default)]
pub struct MemoryBackend {
    map: Arc<Mutex<BTreeMap<String, Vec<u8>>>>,
    turn: Arc<Turn>,
}

/// Whose turn it is to run a command (see [`Backend::turn`]).
#[derive(Debug, Default)]
struct Turn {
    taken: Mutex<bool>,
    freed: Condvar,
}

/// How long a host waits for its turn before running the command anyway (a stopped
/// process may hold it; the compare-and-swap keeps going ahead safe).
pub const TURN_WAIT: Duration = Duration::from_millis(memdir::config::TURN_WAIT_MS);

struct TurnGuard(Arc<Turn>);

impl Drop for TurnGuard {
    fn drop(&mut self) {
        *self.0.taken.lock().unwrap_or_else(PoisonError::into_inner) = false;
        self.0.freed.notify_one();
    }
}

impl MemoryBackend {
    pub fn new() -> Self {
        Self::default()
    }

    fn map(&self) -> MutexGuard<'_, BTreeMap<String, Vec<u8>>> {
        // A panicking writer cannot leave a half-written map: every change is one
        // insert or remove, so the data behind a poisoned lock is still whole.
        self.map.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A copy of everything held, for tests that compare before and after.
    pub fn snapshot(&self) -> BTreeMap<String, Vec<u8>> {
        self.map().clone()
    }
}

impl Backend for MemoryBackend {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.map().get(key).cloned())
    }

    fn set(&self, key: &str, value: &[u8]) -> Result<(), StoreError> {
        self.map().insert(key.to_owned(), value.to_vec());
        Ok(())
    }

    fn delete(&self, key: &str) -> Result<(), StoreError> {
        self.map().remove(key);
        Ok(())
    }

    fn list(
        &self,
        prefix: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        let start = match after {
            Some(a) if a >= prefix => Bound::Excluded(a),
            _ => Bound::Included(prefix),
        };
        Ok(self
            .map()
            .range::<str, _>((start, Bound::Unbounded))
            .map(|(k, _)| k)
            .take_while(|k| k.starts_with(prefix))
            .take(limit)
            .cloned()
            .collect())
    }

    fn compare_and_swap(
        &self,
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError> {
        let mut map = self.map();
        if map.get(key).map(Vec::as_slice) != expected {
            return Ok(false);
        }
        map.insert(key.to_owned(), new.to_vec());
        Ok(true)
    }

    fn turn(&self) -> Option<Box<dyn Send>> {
        let taken = self
            .turn
            .taken
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let (mut taken, _) = self
            .turn
            .freed
            .wait_timeout_while(taken, TURN_WAIT, |t| *t)
            .unwrap_or_else(PoisonError::into_inner);
        if *taken {
            return None;
        }
        *taken = true;
        Some(Box::new(TurnGuard(self.turn.clone())))
    }

    fn commit(
        &self,
        objects: &[(String, Rc<[u8]>)],
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError> {
        let mut map = self.map();
        if map.get(key).map(Vec::as_slice) != expected {
            return Ok(false);
        }
        for (k, v) in objects {
            map.insert(k.clone(), v.to_vec());
        }
        map.insert(key.to_owned(), new.to_vec());
        Ok(true)
    }
}
