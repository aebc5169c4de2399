//! Changing what a store is sealed under: re-keying (every value re-sealed under a
//! new key and a new data key), encrypting a plaintext store, re-wrapping the data
//! key under a new key (a server's master key), and shredding.
//!
//! A move is resumable at any cut: the record first names both generations (each
//! data key wrapped under both keys, so either key reads the store), then values
//! move one by one, the new name written before the old is deleted (a reader
//! finds one or the other), at most [`SEAL_STEP_KEYS`] a listing; the record
//! names only the new generation once nothing is left to move. A rerun with the
//! same new key finishes what a cut left.
//!
//! Writers of other processes are not told that a rotation started (that would
//! cost a read per write): rotate while no other process writes the store
//! (docs/encryption.md).

use alloc::format;
use alloc::rc::Rc;
use alloc::string::String;

use super::keys::{DataKey, Key};
use super::record::{Generation, RECORD, Record};
use super::{Previous, SealError, Sealed, looks_sealed};
use crate::config::SEAL_STEP_KEYS;
use crate::store::{Store, StoreError};

/// What a re-keying or encrypting did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rekeyed {
    /// Values moved into the new generation by this call.
    pub moved: usize,
}

/// Whether and how a store is encrypted, from its record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SealStatus {
    /// The id of the key new values are sealed under (`None`: plaintext).
    pub key_id: Option<String>,
    /// During a rotation, what it moves from: the older key id, or `plaintext`.
    pub rotating_from: Option<String>,
}

impl SealStatus {
    /// `{"encrypted": bool, "keyId": string|null, "rotatingFrom": string|null}`.
    pub fn to_json(&self) -> String {
        let text = serde_json::json!({
            "encrypted": self.key_id.is_some(),
            "keyId": self.key_id,
            "rotatingFrom": self.rotating_from,
        });
        serde_json::to_string(&text).unwrap_or_default()
    }
}

/// How many times a change of the record is retried when a rival changed it.
const RECORD_TRIES: usize = 4;

impl<S: Store> Sealed<S> {
    /// The store's record as it is now.
    async fn record(&self) -> Result<Option<(alloc::vec::Vec<u8>, Record)>, SealError> {
        match self.inner.get(RECORD).await? {
            Some(bytes) => {
                let record = Record::parse(&bytes)?;
                Ok(Some((bytes, record)))
            }
            None => Ok(None),
        }
    }

    /// Whether and how the store is encrypted.
    pub async fn status(&self) -> Result<SealStatus, SealError> {
        Ok(match self.record().await? {
            None => SealStatus {
                key_id: None,
                rotating_from: None,
            },
            Some((_, r)) => SealStatus {
                rotating_from: match (&r.previous, r.from_plaintext) {
                    (Some(g), _) => Some(g.key_id.clone()),
                    (None, true) => Some(String::from("plaintext")),
                    (None, false) => None,
                },
                key_id: Some(r.current.key_id),
            },
        })
    }

    /// Re-seals every value under `new` and a new data key (from `fresh`, 32
    /// random bytes); resumes a rotation to `new` that a cut left.
    pub async fn rekey(&self, new: Key, fresh: [u8; 32]) -> Result<Rekeyed, SealError> {
        let Some(keyed) = self.keyed()? else {
            return Err(SealError::NotEncrypted);
        };
        let old = keyed.key;
        for _ in 0..RECORD_TRIES {
            let Some((bytes, record)) = self.record().await? else {
                return Err(SealError::Damaged);
            };
            if record.rotating() {
                if record.current.key_id != new.id() {
                    return Err(SealError::RotatingTo {
                        id: record.current.key_id,
                    });
                }
                self.load(new.clone(), &record)?;
                return self.finish(&new).await;
            }
            if record.current.key_id == new.id() {
                return Err(SealError::SameKeyId {
                    id: record.current.key_id,
                });
            }
            let current = record
                .current
                .unwrap(&old)?
                .ok_or_else(|| SealError::WrongKeyId {
                    stored: record.current.key_id.clone(),
                    given: String::from(old.id()),
                })?;
            let next = DataKey::from_fresh(fresh);
            let rotating = Record::new(
                Generation::new(&new, &next, &[&new, &old]),
                Some(Generation::new(&old, &current, &[&old, &new])),
                false,
            );
            if self
                .inner
                .compare_and_swap(RECORD, Some(&bytes), &rotating.to_bytes())
                .await?
            {
                self.set_state(
                    new.clone(),
                    Rc::new(next),
                    Some(Previous::Sealed(Rc::new(current))),
                );
                return self.finish(&new).await;
            }
        }
        Err(SealError::Storage(StoreError::Failed))
    }

    /// Turns the plaintext store `inner` into one sealed under `key` (its data
    /// key from `fresh`); resumes an `encrypt` a cut left; opens a store already
    /// sealed under `key` as it is.
    pub async fn encrypt(inner: S, key: Key, fresh: [u8; 32]) -> Result<Sealed<S>, SealError> {
        let sealed = Sealed::over(inner);
        for _ in 0..RECORD_TRIES {
            match sealed.record().await? {
                Some((_, record)) => {
                    if record.from_plaintext && record.current.key_id != key.id() {
                        return Err(SealError::RotatingTo {
                            id: record.current.key_id,
                        });
                    }
                    sealed.load(key.clone(), &record)?;
                    if record.from_plaintext {
                        sealed.finish(&key).await?;
                    }
                    return Ok(sealed);
                }
                None => {
                    let data = DataKey::from_fresh(fresh);
                    let record = Record::new(Generation::new(&key, &data, &[&key]), None, true);
                    if sealed
                        .inner
                        .compare_and_swap(RECORD, None, &record.to_bytes())
                        .await?
                    {
                        sealed.set_state(key.clone(), Rc::new(data), Some(Previous::Plaintext));
                        sealed.finish(&key).await?;
                        return Ok(sealed);
                    }
                }
            }
        }
        Err(SealError::Storage(StoreError::Failed))
    }

    /// Moves every value left in the previous generation, then writes the record
    /// naming only the current one (wrapped under `key` alone).
    async fn finish(&self, key: &Key) -> Result<Rekeyed, SealError> {
        let Some(keyed) = self.keyed()? else {
            return Err(SealError::NotEncrypted);
        };
        let current = keyed.current.clone();
        let moved = match &keyed.previous {
            Some(previous) => self.move_all(previous, &current).await?,
            None => 0,
        };
        for _ in 0..RECORD_TRIES {
            let Some((bytes, record)) = self.record().await? else {
                return Err(SealError::Damaged);
            };
            if record.current.tag != current.tag {
                return Err(SealError::RotatingTo {
                    id: record.current.key_id,
                });
            }
            let done = Record::new(Generation::new(key, &current, &[key]), None, false);
            if self
                .inner
                .compare_and_swap(RECORD, Some(&bytes), &done.to_bytes())
                .await?
            {
                self.set_state(key.clone(), current, None);
                return Ok(Rekeyed { moved });
            }
        }
        Err(SealError::Storage(StoreError::Failed))
    }

    /// Moves the values of `previous` into `current`, a listing of at most
    /// [`SEAL_STEP_KEYS`] names at a time, each written under its new name before
    /// its old one is deleted.
    async fn move_all(&self, previous: &Previous, current: &DataKey) -> Result<usize, SealError> {
        let prefix = match previous {
            Previous::Plaintext => String::new(),
            Previous::Sealed(data) => format!("{}/", data.tag),
        };
        let mut moved = 0;
        let mut cursor: Option<String> = None;
        loop {
            let page = self.inner.list(&prefix, cursor.as_deref()).await?;
            if page.cursor.is_some() && page.keys.is_empty() {
                return Err(SealError::Storage(StoreError::Failed));
            }
            for raw in page.keys.iter().take(SEAL_STEP_KEYS) {
                cursor = Some(raw.clone());
                let (name, value) = match previous {
                    Previous::Plaintext => {
                        if raw == RECORD || looks_sealed(raw) {
                            continue;
                        }
                        match self.inner.get(raw).await? {
                            Some(v) => (raw.clone(), v),
                            None => continue,
                        }
                    }
                    Previous::Sealed(data) => {
                        // A name under the old tag that does not open is not
                        // this store's: left where it is, never read.
                        let Some(name) = data.open_name(raw) else {
                            continue;
                        };
                        let Some(stored) = self.inner.get(raw).await? else {
                            continue;
                        };
                        let value = data
                            .open_value(&name, &stored)
                            .ok_or(SealError::Storage(StoreError::Damaged))?;
                        (name, value)
                    }
                };
                let at = current.seal_name(&name);
                // Absent only: a value written meanwhile under the new name is newer.
                self.inner
                    .compare_and_swap(&at, None, &current.seal_value(&name, &value))
                    .await?;
                self.inner.delete(raw).await?;
                moved += 1;
            }
            let more = page.keys.len() > SEAL_STEP_KEYS || page.cursor.is_some();
            if !more {
                return Ok(moved);
            }
        }
    }

    /// Wraps the store's data key under `new` alone (a server's master-key
    /// rotation): one change of the record, no value rewritten.
    pub async fn rewrap(&self, new: Key) -> Result<(), SealError> {
        let Some(keyed) = self.keyed()? else {
            return Err(SealError::NotEncrypted);
        };
        for _ in 0..RECORD_TRIES {
            let Some((bytes, record)) = self.record().await? else {
                return Err(SealError::Damaged);
            };
            if record.rotating() {
                return Err(SealError::RotatingTo {
                    id: record.current.key_id,
                });
            }
            if record.current.key_id == new.id() {
                return Err(SealError::SameKeyId {
                    id: record.current.key_id,
                });
            }
            let data = record
                .current
                .unwrap(&keyed.key)?
                .ok_or_else(|| SealError::WrongKeyId {
                    stored: record.current.key_id.clone(),
                    given: String::from(keyed.key.id()),
                })?;
            let next = Record::new(Generation::new(&new, &data, &[&new]), None, false);
            if self
                .inner
                .compare_and_swap(RECORD, Some(&bytes), &next.to_bytes())
                .await?
            {
                self.set_state(new, Rc::new(data), None);
                return Ok(());
            }
        }
        Err(SealError::Storage(StoreError::Failed))
    }

    /// Crypto-shredding: deletes the wrapped data key, after which nothing the
    /// store holds can be read by anyone; delete the rest at leisure.
    pub async fn shred(&self) -> Result<(), SealError> {
        if self.keyed()?.is_none() {
            return Err(SealError::NotEncrypted);
        }
        self.state.replace(super::Mode::Shredded);
        self.memory.borrow_mut().clear();
        self.inner.delete(RECORD).await?;
        Ok(())
    }
}
