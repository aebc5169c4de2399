//! The keys: an application's key (a [`Key`]: 32 bytes and an id), and a store's
//! data key, which the application key wraps and from which the two ciphers that
//! seal names and values are derived. One data key per store (and per rotation),
//! from random bytes the face supplies, so equal texts in two stores under one
//! application key look unrelated, and a server's stores each have a key of their
//! own to destroy.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use aes_gcm_siv::aead::{Aead, KeyInit, Payload};
use aes_gcm_siv::{Aes256GcmSiv, Nonce};
use hkdf::Hkdf;
use sha2::Sha256;
use zeroize::Zeroizing;

use super::error::SealError;

/// The longest key id.
const MAX_KEY_ID: usize = 64;

/// An application's encryption key: 32 bytes and an id, the only part of it ever
/// written or shown (the bytes are wiped when the key is dropped).
#[derive(Clone)]
pub struct Key {
    bytes: Zeroizing<[u8; 32]>,
    id: String,
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Key")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl Key {
    /// The key of `bytes`, named `id`; without an id, one derived from the key
    /// (`k-` and 8 hex digits of a MAC of it), so the same key file always has
    /// the same id and the id reveals nothing of the key.
    pub fn new(bytes: [u8; 32], id: Option<&str>) -> Result<Key, SealError> {
        let bytes = Zeroizing::new(bytes);
        let id = match id {
            Some(id) => {
                let fine = !id.is_empty()
                    && id.len() <= MAX_KEY_ID
                    && id
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
                if !fine {
                    return Err(SealError::BadKeyId);
                }
                String::from(id)
            }
            None => {
                let mut tag = [0u8; 4];
                derive(&bytes[..], b"memdir-seal 1 key id", &mut tag);
                format!("k-{}", hex::encode(tag))
            }
        };
        Ok(Key { bytes, id })
    }

    /// The key written as 64 hex digits (a key file's text: one trailing newline,
    /// `\n` or `\r\n`, allowed). The error never quotes the text.
    pub fn from_hex(text: &str, id: Option<&str>) -> Result<Key, SealError> {
        let text = text
            .strip_suffix("\r\n")
            .or_else(|| text.strip_suffix('\n'))
            .unwrap_or(text);
        let mut bytes = Zeroizing::new([0u8; 32]);
        if text.len() != 64 || hex::decode_to_slice(text, &mut bytes[..]).is_err() {
            return Err(SealError::BadKey);
        }
        Key::new(*bytes, id)
    }

    /// The key's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The key as a cipher, for wrapping data keys.
    fn cipher(&self) -> Aes256GcmSiv {
        cipher_of(&self.bytes)
    }

    /// `data` (a data key) sealed under this key, bound to the generation's tag and
    /// this key's id.
    pub(crate) fn wrap(&self, data: &DataKey) -> Vec<u8> {
        let aad = wrap_aad(&data.tag, &self.id);
        self.cipher()
            .encrypt(
                &ZERO_NONCE.into(),
                Payload {
                    msg: &data.bytes[..],
                    aad: &aad,
                },
            )
            .unwrap_or_default()
    }

    /// The data key of generation `tag` that `wrapped` holds, if this key sealed it.
    pub(crate) fn unwrap(&self, tag: &str, wrapped: &[u8]) -> Option<DataKey> {
        let aad = wrap_aad(tag, &self.id);
        let bytes = self
            .cipher()
            .decrypt(
                &ZERO_NONCE.into(),
                Payload {
                    msg: wrapped,
                    aad: &aad,
                },
            )
            .ok()?;
        let bytes: [u8; 32] = bytes.as_slice().try_into().ok()?;
        let data = DataKey::new(Zeroizing::new(bytes));
        (data.tag == tag).then_some(data)
    }
}

/// A data key's wrapping is deterministic (the data key is random, so it never
/// repeats under one key); what binds it is the associated data.
const ZERO_NONCE: [u8; 12] = [0; 12];

fn wrap_aad(tag: &str, id: &str) -> Vec<u8> {
    let mut aad = Vec::from(&b"memdir-seal 1 data key\0"[..]);
    aad.extend_from_slice(tag.as_bytes());
    aad.push(0);
    aad.extend_from_slice(id.as_bytes());
    aad
}

/// HKDF-SHA256 of `ikm` for `info` into `out` (at most 8,160 bytes; memdir asks
/// for 32 at most, so the expansion cannot fail).
fn derive(ikm: &[u8], info: &[u8], out: &mut [u8]) {
    let _ = Hkdf::<Sha256>::new(None, ikm).expand(info, out);
}

fn cipher_of(bytes: &[u8; 32]) -> Aes256GcmSiv {
    Aes256GcmSiv::new(&(*bytes).into())
}

/// One store's data key (one generation of it: a re-keying makes a new one) and
/// what is derived from it.
pub(crate) struct DataKey {
    bytes: Zeroizing<[u8; 32]>,
    /// 8 hex digits naming the generation: every stored name starts with it, so
    /// a rotation lists the old generation's values by prefix.
    pub(crate) tag: String,
    /// Seals names (deterministically: the same name is always the same stored name).
    pub(crate) names: Aes256GcmSiv,
    /// Seals values, each bound to its name.
    pub(crate) values: Aes256GcmSiv,
}

impl DataKey {
    /// The data key made from `fresh` random bytes.
    pub(crate) fn from_fresh(fresh: [u8; 32]) -> DataKey {
        // Through HKDF, so a face handing less than perfect randomness still gets
        // a uniform key (and the bytes given are never the key itself).
        let mut bytes = Zeroizing::new([0u8; 32]);
        derive(&fresh, b"memdir-seal 1 fresh data key", &mut bytes[..]);
        DataKey::new(bytes)
    }

    fn new(bytes: Zeroizing<[u8; 32]>) -> DataKey {
        let mut names = Zeroizing::new([0u8; 32]);
        let mut values = Zeroizing::new([0u8; 32]);
        let mut tag = [0u8; 4];
        derive(&bytes[..], b"memdir-seal 1 names", &mut names[..]);
        derive(&bytes[..], b"memdir-seal 1 values", &mut values[..]);
        derive(&bytes[..], b"memdir-seal 1 tag", &mut tag);
        DataKey {
            tag: hex::encode(tag),
            names: cipher_of(&names),
            values: cipher_of(&values),
            bytes,
        }
    }
}

/// A nonce for AES-GCM-SIV from 12 bytes.
pub(crate) fn nonce(bytes: [u8; 12]) -> Nonce {
    bytes.into()
}
