//! Encryption at rest: [`Sealed`], a store that seals every name and value it
//! passes down, so a stolen disk, database dump, backup or browser profile shows no
//! memory, no path and no content hash (docs/encryption.md: the threat model and
//! what stays visible).
//!
//! It is a [`Store`] over a store, below the engine: the layers above (objects,
//! heads, the version log, records, the search index, vectors, sync state, gc's
//! lists) are sealed without knowing it, and every face opens its store through
//! [`Sealed::open`], with a key or without one — without, the store passes through
//! untouched, after one check that it is not an encrypted store.
//!
//! - `keys`: an application's [`Key`] and a store's data keys derived from random
//!   bytes the face supplies (the engine has no random source);
//! - `at_rest`: what a sealed name and value look like;
//! - `record`: the one value in clear, naming the key id and holding the wrapped
//!   data key;
//! - `rotate`: re-keying, encrypting a plaintext store, re-wrapping, shredding.

mod at_rest;
mod error;
mod keys;
mod record;
mod remember;
mod rotate;

pub use error::SealError;
pub use keys::Key;
pub use rotate::{Rekeyed, SealStatus};

use alloc::collections::BTreeSet;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::RefCell;

use crate::store::{Page, Store, StoreError, list_all};
use at_rest::content_addressed;
use keys::DataKey;
use record::{RECORD, Record};
use remember::Remembered;

/// A store whose names and values are sealed under a key (or, opened without
/// one, a plaintext store passed through).
pub struct Sealed<S> {
    inner: S,
    state: RefCell<Mode>,
    /// The changing names' stored forms and last values (`remember.rs`).
    memory: RefCell<remember::Memory>,
}

/// What the store below holds, as far as this handle knows.
#[derive(Clone)]
enum Mode {
    /// Plaintext, passed through.
    Plain,
    /// Sealed under a key.
    Keyed(Keyed),
    /// Its data key destroyed by [`Sealed::shred`]: nothing reads or writes.
    Shredded,
}

/// What a keyed store seals with.
#[derive(Clone)]
struct Keyed {
    /// The key the store was opened (or last re-keyed) with.
    key: keys::Key,
    /// The generation new values are written under.
    current: Rc<DataKey>,
    /// During a rotation, where values not yet moved are.
    previous: Option<Previous>,
}

#[derive(Clone)]
enum Previous {
    /// `encrypt` is moving a plaintext store in.
    Plaintext,
    /// A re-keying is moving the older generation's values.
    Sealed(Rc<DataKey>),
}

/// Whether `inner` holds a plaintext store (or none yet): the refusal naming its
/// key's id for an encrypted one. What [`Sealed::open`] checks without a key, apart,
/// so that a build without encryption (the npm package's lean `memdir/tool`) still
/// refuses an encrypted store in these words instead of reading its ciphertext as
/// damage, without linking the cipher.
pub async fn check_plaintext<S: Store>(inner: &S) -> Result<(), SealError> {
    match inner.get(RECORD).await? {
        None => Ok(()),
        Some(bytes) => Err(SealError::Encrypted {
            id: Record::parse(&bytes)?.current.key_id,
        }),
    }
}

impl<S: Store> Sealed<S> {
    /// Opens `inner`. With a key, an encrypted store: an empty store becomes one,
    /// its data key made from `fresh` (32 random bytes); a plaintext store is
    /// refused. Without a key, a plaintext store (an encrypted one is refused).
    pub async fn open(inner: S, key: Option<Key>, fresh: [u8; 32]) -> Result<Sealed<S>, SealError> {
        let Some(key) = key else {
            check_plaintext(&inner).await?;
            return Ok(Sealed::over(inner));
        };
        let sealed = Sealed::over(inner);
        // A rival opening the same empty store may write its record first: then
        // this one reads it (twice at most: a record once written stays).
        for _ in 0..2 {
            match sealed.inner.get(RECORD).await? {
                Some(bytes) => {
                    sealed.load(key, &Record::parse(&bytes)?)?;
                    return Ok(sealed);
                }
                None => {
                    if !sealed.inner.list("", None).await?.keys.is_empty() {
                        return Err(SealError::NotEncrypted);
                    }
                    let data = DataKey::from_fresh(fresh);
                    let record =
                        Record::new(record::Generation::new(&key, &data, &[&key]), None, false);
                    if sealed
                        .inner
                        .compare_and_swap(RECORD, None, &record.to_bytes())
                        .await?
                    {
                        sealed.set_state(key, Rc::new(data), None);
                        return Ok(sealed);
                    }
                }
            }
        }
        Err(SealError::Storage(StoreError::Failed))
    }

    /// A handle over `inner` that knows no keys yet.
    fn over(inner: S) -> Sealed<S> {
        Sealed {
            inner,
            state: RefCell::new(Mode::Plain),
            memory: RefCell::new(remember::Memory::default()),
        }
    }

    /// Takes `record`'s keys, as `key` unwraps them.
    fn load(&self, key: Key, record: &Record) -> Result<(), SealError> {
        let current = record
            .current
            .unwrap(&key)?
            .ok_or_else(|| SealError::WrongKeyId {
                stored: record.current.key_id.clone(),
                given: String::from(key.id()),
            })?;
        let previous = match &record.previous {
            Some(g) => Some(Previous::Sealed(Rc::new(
                g.unwrap(&key)?.ok_or(SealError::Damaged)?,
            ))),
            None if record.from_plaintext => Some(Previous::Plaintext),
            None => None,
        };
        self.memory.borrow_mut().clear();
        self.state.replace(Mode::Keyed(Keyed {
            key,
            current: Rc::new(current),
            previous,
        }));
        Ok(())
    }

    fn set_state(&self, key: Key, current: Rc<DataKey>, previous: Option<Previous>) {
        self.memory.borrow_mut().clear();
        self.state.replace(Mode::Keyed(Keyed {
            key,
            current,
            previous,
        }));
    }

    /// The keys to seal with (`None`: plaintext); a shredded store is unavailable.
    fn keyed(&self) -> Result<Option<Keyed>, StoreError> {
        match &*self.state.borrow() {
            Mode::Plain => Ok(None),
            Mode::Keyed(k) => Ok(Some(k.clone())),
            Mode::Shredded => Err(StoreError::Unavailable),
        }
    }

    /// The id of the key this store is sealed under (`None`: a plaintext store).
    pub fn key_id(&self) -> Option<String> {
        match &*self.state.borrow() {
            Mode::Keyed(k) => Some(String::from(k.key.id())),
            Mode::Plain | Mode::Shredded => None,
        }
    }

    /// The store below.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    /// Where `name` is stored in the current generation.
    fn name_of(&self, k: &Keyed, name: &str) -> String {
        if content_addressed(name) {
            return k.current.seal_name(name);
        }
        if let Some(r) = self.memory.borrow().get(name) {
            return r.raw.clone();
        }
        let raw = k.current.seal_name(name);
        self.memory.borrow_mut().put(name, &raw, None);
        raw
    }

    /// `value` sealed for `name`: the bytes remembered for it when they seal it.
    fn seal_value(&self, k: &Keyed, name: &str, value: &[u8]) -> Vec<u8> {
        if let Some(Remembered {
            value: Some((plain, sealed)),
            ..
        }) = self.memory.borrow().get(name)
            && plain == value
        {
            return sealed.clone();
        }
        k.current.seal_value(name, value)
    }

    /// Remembers that `name` (at `raw`) holds `plain`, sealed as `sealed`.
    fn remember(&self, name: &str, raw: &str, plain: &[u8], sealed: &[u8]) {
        if !content_addressed(name) {
            self.memory
                .borrow_mut()
                .put(name, raw, Some((plain, sealed)));
        }
    }

    /// Remembers that a swap of `name` did or did not write `plain`.
    fn swapped(&self, name: &str, raw: &str, done: bool, plain: &[u8], sealed: &[u8]) {
        if done {
            self.remember(name, raw, plain, sealed);
        } else {
            self.memory.borrow_mut().forget_value(name);
        }
    }

    /// The value at `name` in the generation being moved out of.
    async fn get_previous(
        &self,
        previous: &Previous,
        name: &str,
    ) -> Result<Option<Vec<u8>>, StoreError> {
        match previous {
            Previous::Plaintext => self.inner.get(name).await,
            Previous::Sealed(data) => {
                let at = data.seal_name(name);
                match self.inner.get(&at).await? {
                    Some(stored) => data
                        .open_value(name, &stored)
                        .map(Some)
                        .ok_or(StoreError::Damaged),
                    None => Ok(None),
                }
            }
        }
    }

    /// Where `name` is stored in the generation being moved out of.
    fn previous_raw(previous: &Previous, name: &str) -> String {
        match previous {
            Previous::Plaintext => String::from(name),
            Previous::Sealed(data) => data.seal_name(name),
        }
    }
}

/// Whether a stored name is a sealed one (8 hex digits, a slash): a plaintext
/// store being encrypted holds both kinds.
fn looks_sealed(raw: &str) -> bool {
    raw.as_bytes().get(8) == Some(&b'/')
        && raw
            .get(..8)
            .is_some_and(|t| t.bytes().all(|b| b.is_ascii_hexdigit()))
}

impl<S: Store> Store for Sealed<S> {
    /// Only a plaintext store's own: a store that searched vectors itself
    /// (PostgreSQL with pgvector) would have to hold them in clear, and embeddings
    /// can be inverted into approximate text. Sealed, vectors are values like any
    /// other, and the engine scans them.
    fn searches_vectors(&self) -> bool {
        matches!(*self.state.borrow(), Mode::Plain) && self.inner.searches_vectors()
    }

    async fn nearest(
        &self,
        fingerprint: &str,
        query: &[f32],
        k: usize,
    ) -> Result<Option<Vec<([u8; 32], f32)>>, StoreError> {
        if !self.searches_vectors() {
            return Ok(None);
        }
        self.inner.nearest(fingerprint, query, k).await
    }

    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let Some(k) = self.keyed()? else {
            return self.inner.get(key).await;
        };
        let at = self.name_of(&k, key);
        let open = |stored: Vec<u8>| {
            let plain = k
                .current
                .open_value(key, &stored)
                .ok_or(StoreError::Damaged)?;
            self.remember(key, &at, &plain, &stored);
            Ok(plain)
        };
        if let Some(stored) = self.inner.get(&at).await? {
            return open(stored).map(Some);
        }
        let Some(previous) = &k.previous else {
            return Ok(None);
        };
        if let Some(value) = self.get_previous(previous, key).await? {
            return Ok(Some(value));
        }
        // Moved meanwhile (a move writes the new name before deleting the old):
        // the new name has it now.
        match self.inner.get(&at).await? {
            Some(stored) => open(stored).map(Some),
            None => Ok(None),
        }
    }

    async fn set(&self, key: &str, value: &[u8]) -> Result<(), StoreError> {
        let Some(k) = self.keyed()? else {
            return self.inner.set(key, value).await;
        };
        let at = self.name_of(&k, key);
        let sealed = self.seal_value(&k, key, value);
        self.inner.set(&at, &sealed).await?;
        self.remember(key, &at, value, &sealed);
        if let Some(previous) = &k.previous {
            self.inner
                .delete(&Self::previous_raw(previous, key))
                .await?;
        }
        Ok(())
    }

    async fn delete(&self, key: &str) -> Result<(), StoreError> {
        let Some(k) = self.keyed()? else {
            return self.inner.delete(key).await;
        };
        self.memory.borrow_mut().forget_value(key);
        self.inner.delete(&self.name_of(&k, key)).await?;
        if let Some(previous) = &k.previous {
            self.inner
                .delete(&Self::previous_raw(previous, key))
                .await?;
        }
        Ok(())
    }

    /// Every plain name under `prefix` after `cursor`, in one page: sealed names
    /// do not sort like the names they seal, so the whole store is listed and
    /// opened (the engine lists only for gc and checks, which read it whole anyway).
    async fn list(&self, prefix: &str, cursor: Option<&str>) -> Result<Page, StoreError> {
        let Some(k) = self.keyed()? else {
            return self.inner.list(prefix, cursor).await;
        };
        let mut names = BTreeSet::new();
        for raw in list_all(&self.inner, "").await? {
            if raw == RECORD {
                continue;
            }
            let name = match (k.current.open_name(&raw), &k.previous) {
                (Some(name), _) => Some(name),
                (None, Some(Previous::Sealed(data))) => data.open_name(&raw),
                (None, Some(Previous::Plaintext)) if !looks_sealed(&raw) => Some(raw),
                // Not this store's (another generation's leftover, a stray):
                // nothing the engine could read, so nothing it lists.
                _ => None,
            };
            if let Some(name) = name
                && name.starts_with(prefix)
                && cursor.is_none_or(|c| name.as_str() > c)
            {
                names.insert(name);
            }
        }
        Ok(Page {
            keys: names.into_iter().collect(),
            cursor: None,
        })
    }

    async fn compare_and_swap(
        &self,
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError> {
        let Some(k) = self.keyed()? else {
            return self.inner.compare_and_swap(key, expected, new).await;
        };
        let at = self.name_of(&k, key);
        let sealed_new = k.current.seal_value(key, new);
        let Some(previous) = &k.previous else {
            // Sealing is deterministic: the value expected, sealed, is the bytes
            // stored, so the backend's own swap decides.
            let sealed_expected = expected.map(|e| self.seal_value(&k, key, e));
            let done = self
                .inner
                .compare_and_swap(&at, sealed_expected.as_deref(), &sealed_new)
                .await?;
            self.swapped(key, &at, done, new, &sealed_new);
            return Ok(done);
        };
        // Rotations are rare: nothing remembered of a value meanwhile.
        self.memory.borrow_mut().forget_value(key);
        // During a rotation the value may still be under the old generation:
        // compare what it holds, and swap the new name in from absent, so a rival
        // (or the rotation's own move) doing the same makes this swap fail.
        if let Some(stored) = self.inner.get(&at).await? {
            let now = k
                .current
                .open_value(key, &stored)
                .ok_or(StoreError::Damaged)?;
            if Some(now.as_slice()) != expected {
                return Ok(false);
            }
            return self
                .inner
                .compare_and_swap(&at, Some(&stored), &sealed_new)
                .await;
        }
        let old = self.get_previous(previous, key).await?;
        if old.as_deref() != expected {
            return Ok(false);
        }
        let swapped = self.inner.compare_and_swap(&at, None, &sealed_new).await?;
        if swapped && old.is_some() {
            self.inner
                .delete(&Self::previous_raw(previous, key))
                .await?;
        }
        Ok(swapped)
    }

    async fn commit(
        &self,
        objects: &[(String, Rc<[u8]>)],
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError> {
        let Some(k) = self.keyed()? else {
            return self.inner.commit(objects, key, expected, new).await;
        };
        if k.previous.is_some() {
            for (name, value) in objects {
                self.set(name, value).await?;
            }
            return self.compare_and_swap(key, expected, new).await;
        }
        // Sealed one by one, committed as one: a backend's single transaction
        // (IndexedDB, a store directory's pack) stays single.
        let sealed: Vec<(String, Rc<[u8]>)> = objects
            .iter()
            .map(|(name, value)| {
                let value = k.current.seal_value(name, value);
                (k.current.seal_name(name), Rc::from(value))
            })
            .collect();
        let at = self.name_of(&k, key);
        let sealed_expected = expected.map(|e| self.seal_value(&k, key, e));
        let sealed_new = k.current.seal_value(key, new);
        let done = self
            .inner
            .commit(&sealed, &at, sealed_expected.as_deref(), &sealed_new)
            .await?;
        self.swapped(key, &at, done, new, &sealed_new);
        Ok(done)
    }
}
