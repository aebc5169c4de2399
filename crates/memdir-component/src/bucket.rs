//! The store the engine runs on: the imported bucket through `memdir::seal::Sealed`,
//! opened at the engine's first store operation rather than before the call, so a
//! command refused before storage (a bad path, input that is not JSON) still
//! touches no store, as in every runtime. A refused open (a wrong or missing key,
//! a plaintext store given one) fails that operation and is kept for the call to
//! answer with, in its own shape (`refusal`).

use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::{OnceCell, RefCell};

use memdir::seal::{Key, Rekeyed, SealError, SealStatus, Sealed};
use memdir::{Page, Store, StoreError};

use crate::kv::KvStore;

/// What the open needs: the bucket's name, the key (None: plaintext) and the
/// host's fresh bytes for a data key.
struct Pending {
    bucket: String,
    key: Option<Key>,
    fresh: [u8; 32],
}

pub struct Opening {
    sealed: OnceCell<Sealed<KvStore>>,
    pending: Pending,
    /// The open's refusal, kept for the call to answer with.
    refused: RefCell<Option<SealError>>,
}

impl Opening {
    /// The bucket `bucket`, to be opened with `key` at the first operation.
    pub fn new(bucket: &str, key: Option<Key>, fresh: [u8; 32]) -> Self {
        Opening {
            sealed: OnceCell::new(),
            pending: Pending {
                bucket: bucket.into(),
                key,
                fresh,
            },
            refused: RefCell::new(None),
        }
    }

    /// A bucket already opened (by `Sealed::encrypt`).
    pub fn opened(bucket: &str, sealed: Sealed<KvStore>) -> Self {
        let cell = OnceCell::new();
        let _ = cell.set(sealed);
        Opening {
            sealed: cell,
            pending: Pending {
                bucket: bucket.into(),
                key: None,
                fresh: [0; 32],
            },
            refused: RefCell::new(None),
        }
    }

    /// Why the open was refused, if it was: the call answers with it.
    pub fn refusal(&self) -> Option<SealError> {
        self.refused.borrow().clone()
    }

    /// The opened store, opening it on first use. A storage failure of the open
    /// is that operation's failure (the next one tries again); a refusal is kept
    /// and fails every operation after it, writing nothing.
    async fn sealed(&self) -> Result<&Sealed<KvStore>, StoreError> {
        if let Some(s) = self.sealed.get() {
            return Ok(s);
        }
        if self.refused.borrow().is_some() {
            return Err(StoreError::Unavailable);
        }
        let p = &self.pending;
        let inner = KvStore::new(&p.bucket);
        match Sealed::open(inner, p.key.clone(), p.fresh).await {
            Ok(s) => Ok(self.sealed.get_or_init(|| s)),
            Err(SealError::Storage(e)) => Err(e),
            Err(e) => {
                *self.refused.borrow_mut() = Some(e);
                Err(StoreError::Unavailable)
            }
        }
    }

    /// `Sealed::status` of the opened store.
    pub async fn status(&self) -> Result<SealStatus, SealError> {
        self.sealed().await?.status().await
    }

    /// `Sealed::rekey` of the opened store.
    pub async fn rekey(&self, new: Key, fresh: [u8; 32]) -> Result<Rekeyed, SealError> {
        self.sealed().await?.rekey(new, fresh).await
    }
}

impl Store for Opening {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.sealed().await?.get(key).await
    }

    async fn set(&self, key: &str, value: &[u8]) -> Result<(), StoreError> {
        self.sealed().await?.set(key, value).await
    }

    async fn delete(&self, key: &str) -> Result<(), StoreError> {
        self.sealed().await?.delete(key).await
    }

    async fn list(&self, prefix: &str, cursor: Option<&str>) -> Result<Page, StoreError> {
        self.sealed().await?.list(prefix, cursor).await
    }

    async fn compare_and_swap(
        &self,
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError> {
        self.sealed()
            .await?
            .compare_and_swap(key, expected, new)
            .await
    }

    async fn commit(
        &self,
        objects: &[(String, Rc<[u8]>)],
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError> {
        self.sealed()
            .await?
            .commit(objects, key, expected, new)
            .await
    }
}
