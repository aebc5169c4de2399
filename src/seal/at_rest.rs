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

/// A name written segment by segment, hashes as bytes (see [`pack`]).
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

/// Whether `name` holds a hash as a path segment (`blob/<sha256>`,
/// `vec/<sha256>/<fingerprint>`): such a name is written once with a value that
/// never changes, so it is not worth remembering.
pub(crate) fn content_addressed(name: &str) -> bool {
    name.split('/').any(is_digest)
}

/// A segment of 32 to 128 lowercase hex digits (a hash, or part of one), even in
/// length: packed as its bytes.
fn is_digest(segment: &str) -> bool {
    (32..=128).contains(&segment.len())
        && segment.len().is_multiple_of(2)
        && segment
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// A segment packed as bytes: its length in bytes with this bit set.
const BYTES: u8 = 0x80;

/// `name`, its hex segments as their bytes: a segment is a length byte and its
/// bytes (`BYTES` set: hex written as bytes). Keys stay short at rest (a store
/// directory's file names are at most 200 characters); a name with a segment too
/// long to count in 7 bits is written as it is.
fn pack(name: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 + name.len());
    out.push(PACKED);
    for segment in name.split('/') {
        if is_digest(segment) {
            out.push(BYTES | (segment.len() / 2) as u8);
            let start = out.len();
            out.resize(start + segment.len() / 2, 0);
            // Checked hex of even length: cannot fail.
            let _ = hex::decode_to_slice(segment, out.get_mut(start..).unwrap_or_default());
        } else if segment.len() < usize::from(BYTES) {
            out.push(segment.len() as u8);
            out.extend_from_slice(segment.as_bytes());
        } else {
            let mut whole = Vec::with_capacity(1 + name.len());
            whole.push(AS_IS);
            whole.extend_from_slice(name.as_bytes());
            return whole;
        }
    }
    out
}

fn unpack(packed: &[u8]) -> Option<String> {
    let (&how, mut rest) = packed.split_first()?;
    match how {
        AS_IS => String::from_utf8(rest.to_vec()).ok(),
        PACKED => {
            let mut name = String::with_capacity(2 * packed.len());
            let mut first = true;
            while let Some((&len, tail)) = rest.split_first() {
                if !first {
                    name.push('/');
                }
                first = false;
                let n = usize::from(len & !BYTES);
                let segment = tail.get(..n)?;
                if len & BYTES != 0 {
                    name.push_str(&hex::encode(segment));
                } else {
                    name.push_str(core::str::from_utf8(segment).ok()?);
                }
                rest = tail.get(n..)?;
            }
            (!first).then_some(name)
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
            alloc::format!("vec/{digest}/{}", &digest[..32]),
            alloc::format!("a//b/{}", "x".repeat(200)),
            String::from("/"),
            String::new(),
            String::from("gc/pending-at"),
        ] {
            assert_eq!(unpack(&pack(&name)).as_deref(), Some(name.as_str()));
        }
        assert_eq!(pack(&alloc::format!("blob/{digest}")).len(), 1 + 5 + 33);
        assert_eq!(
            pack(&alloc::format!("vec/{digest}/{}", &digest[..32])).len(),
            1 + 4 + 33 + 17
        );
        assert!(content_addressed(&alloc::format!(
            "vec/{digest}/{}",
            &digest[..32]
        )));
        assert!(!content_addressed("index/head"));
    }
}
