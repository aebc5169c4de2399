//! Why a store could not be opened, encrypted or re-keyed. Every text names a key
//! by its id only: no key material, no stored name, no backend text.

use alloc::string::String;
use core::fmt;

use crate::store::StoreError;

/// A refusal of the encryption layer; its `Display` is the text a user reads.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SealError {
    /// The key given is not 32 bytes (64 hex characters).
    BadKey,
    /// The key id given breaks the id rule.
    BadKeyId,
    /// An encrypted store was opened without a key.
    Encrypted {
        /// The id of the key the store is encrypted with.
        id: String,
    },
    /// A plaintext store was opened with a key.
    NotEncrypted,
    /// The key given has another id than the store's key.
    WrongKeyId {
        /// The store's key id.
        stored: String,
        /// The id of the key given.
        given: String,
    },
    /// The key given has the store's key id but is not its key.
    WrongKey {
        /// The id both carry.
        id: String,
    },
    /// A re-keying to another key is under way.
    RotatingTo {
        /// The key id the store is being re-encrypted to.
        id: String,
    },
    /// A re-keying was asked for with the key the store already has.
    SameKeyId {
        /// The store's key id.
        id: String,
    },
    /// The store's encryption record cannot be read as one.
    Damaged,
    /// The store itself failed.
    Storage(StoreError),
}

impl fmt::Display for SealError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SealError::BadKey => f.write_str("an encryption key is 32 bytes (64 hex characters)"),
            SealError::BadKeyId => {
                f.write_str("a key id is 1 to 64 letters, digits, '.', '_' or '-'")
            }
            SealError::Encrypted { id } => {
                write!(
                    f,
                    "this store is encrypted with key id {id}: open it with that key"
                )
            }
            SealError::NotEncrypted => {
                f.write_str("this store is not encrypted: encrypt it first (memdir encrypt)")
            }
            SealError::WrongKeyId { stored, given } => {
                write!(
                    f,
                    "this store is encrypted with key id {stored}, not {given}"
                )
            }
            SealError::WrongKey { id } => {
                write!(f, "the key given as key id {id} does not open this store")
            }
            SealError::RotatingTo { id } => write!(
                f,
                "this store is being re-encrypted to key id {id}: finish with that key"
            ),
            SealError::SameKeyId { id } => write!(
                f,
                "the new key has the store's key id {id}: a new key needs an id of its own"
            ),
            SealError::Damaged => f.write_str("the store's encryption record is damaged"),
            SealError::Storage(e) => fmt::Display::fmt(e, f),
        }
    }
}

impl core::error::Error for SealError {}

impl From<StoreError> for SealError {
    fn from(e: StoreError) -> Self {
        SealError::Storage(e)
    }
}
