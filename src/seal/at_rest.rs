//! What a name and a value look like at rest under a data key.
//!
//! A name is sealed deterministically (AES-GCM-SIV, fixed nonce): the same name
//! is always the same stored name, so a get finds it, yet it reveals no content
//! hash and differs between stores (each has its own data key). It is stored as
//! `<tag>/<hex>`, the generation's tag first, and opens back into the name, so a
//! listing answers plain names. A value is sealed under the values key with the
//! name as associated data: moved under another name, into another store (another
//! data key) or changed in any bit, it no longer opens. Both use a fixed nonce,
//! which AES-GCM-SIV allows (its IV is synthetic: a MAC of the name and the
//! value); what that reveals is only that a name holds the same value as before.

use alloc::string::String;
use alloc::vec::Vec;

use aes_gcm_siv::aead::{Aead, Payload};

use super::keys::{DataKey, nonce};

/// The first byte of every sealed value: the format, so a later one can be told apart.
const VALUE_FORMAT: u8 = 1;

/// A name written with its 64 hex digits as 32 bytes: content-addressed names
/// (`blob/<sha256>`) are most of a store, and keys stay short at rest.
const PACKED: u8 = 1;
/// A name written as it is.
const AS_IS: u8 = 0;

/// The nonce of every seal: see the module's comment.
const NONCE: [u8; 12] = [0; 12];

impl DataKey {
    /// `name` as stored under this key.
    pub(crate) fn seal_name(&self, name: &str) -> String {
        let sealed = self
            .names
            .encrypt(&nonce(NONCE), &pack(name)[..])
            .unwrap_or_default();
        let mut raw = String::with_capacity(self.tag.len() + 1 + sealed.len() * 2);
        raw.push_str(&self.tag);
        raw.push('/');
        raw.push_str(&hex::encode(&sealed));
        raw
    }

    /// The name a stored name of this generation seals, or `None` if it is not one
    /// of this key's names (another generation's, a stray, a forgery).
    pub(crate) fn open_name(&self, raw: &str) -> Option<String> {
        let sealed = hex::decode(raw.strip_prefix(&self.tag)?.strip_prefix('/')?).ok()?;
        let packed = self.names.decrypt(&nonce(NONCE), &sealed[..]).ok()?;
        unpack(&packed)
    }

    /// `value` sealed for `name`.
    pub(crate) fn seal_value(&self, name: &str, value: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(1 + value.len() + 16);
        out.push(VALUE_FORMAT);
        let sealed = self
            .values
            .encrypt(
                &nonce(NONCE),
                Payload {
                    msg: value,
                    aad: name.as_bytes(),
                },
            )
            .unwrap_or_default();
        out.extend_from_slice(&sealed);
        out
    }

    /// The value sealed for `name`, or `None` if `stored` does not open: damaged,
    /// truncated, or sealed for another name or store.
    pub(crate) fn open_value(&self, name: &str, stored: &[u8]) -> Option<Vec<u8>> {
        let (&format, sealed) = stored.split_first()?;
        if format != VALUE_FORMAT {
            return None;
        }
        self.values
            .decrypt(
                &nonce(NONCE),
                Payload {
                    msg: sealed,
                    aad: name.as_bytes(),
                },
            )
            .ok()
    }
}

/// Whether `name` ends in a content hash (`blob/<64 hex>`): such a name is written
/// once, and its value never changes.
pub(crate) fn content_addressed(name: &str) -> bool {
    split_digest(name).is_some()
}

/// `name` as its prefix and its 64 lowercase hex digits, if it ends in them.
fn split_digest(name: &str) -> Option<(&str, &str)> {
    let split = name.len().checked_sub(64)?;
    let (head, digest) = (name.get(..split)?, name.get(split..)?);
    let fine = head.ends_with('/')
        && digest
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    fine.then_some((head, digest))
}

fn pack(name: &str) -> Vec<u8> {
    match split_digest(name) {
        Some((head, digest)) => {
            let mut out = Vec::with_capacity(1 + head.len() + 32);
            out.push(PACKED);
            out.extend_from_slice(head.as_bytes());
            let mut raw = [0u8; 32];
            // 64 lowercase hex digits, checked above: cannot fail.
            let _ = hex::decode_to_slice(digest, &mut raw);
            out.extend_from_slice(&raw);
            out
        }
        None => {
            let mut out = Vec::with_capacity(1 + name.len());
            out.push(AS_IS);
            out.extend_from_slice(name.as_bytes());
            out
        }
    }
}

fn unpack(packed: &[u8]) -> Option<String> {
    let (&how, rest) = packed.split_first()?;
    match how {
        AS_IS => String::from_utf8(rest.to_vec()).ok(),
        PACKED => {
            let split = rest.len().checked_sub(32)?;
            let head = core::str::from_utf8(rest.get(..split)?).ok()?;
            let mut name = String::with_capacity(head.len() + 64);
            name.push_str(head);
            name.push_str(&hex::encode(rest.get(split..)?));
            Some(name)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_pack_and_unpack() {
        let digest = "0123456789abcdef".repeat(4);
        for name in [
            alloc::format!("blob/{digest}"),
            alloc::format!("index/chunk/{digest}"),
            String::from("head"),
            String::from("blob/0123"),
            alloc::format!("blob/{}", digest.to_uppercase()),
        ] {
            assert_eq!(unpack(&pack(&name)).as_deref(), Some(name.as_str()));
        }
        assert_eq!(pack(&alloc::format!("blob/{digest}")).len(), 1 + 5 + 32);
    }
}
