//! The content hash (SHA-256) every stored object is named by, and its hex form.

use alloc::string::String;

use serde::Serialize;
use sha2::{Digest, Sha256};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Hash(pub [u8; 32]);

/// A digest is uniformly random already: its first eight bytes are all a hash table
/// needs to place it, and the table's own key does the mixing (the caches).
impl core::hash::Hash for Hash {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        let [a, b, c, d, e, f, g, h, ..] = self.0;
        state.write_u64(u64::from_le_bytes([a, b, c, d, e, f, g, h]));
    }
}

impl Hash {
    pub fn of(bytes: &[u8]) -> Hash {
        Hash(Sha256::digest(bytes).into())
    }

    /// Lowercase hex, the form every stored name and wire field uses.
    pub fn hex(&self) -> String {
        String::from(self.hex_str().as_str())
    }

    /// The hex on the stack: what encoders write without allocating a string per hash.
    pub fn hex_str(&self) -> Hex {
        // The hex crate's slice encoder (a table loop, no allocation): every write
        // hex-encodes a few hundred hashes. 32 bytes always fit 64 digits, so it
        // cannot fail.
        let mut buf = [b'0'; 64];
        let _ = hex::encode_to_slice(self.0, &mut buf);
        Hex(buf)
    }

    pub fn from_hex(s: &str) -> Option<Hash> {
        let mut out = [0u8; 32];
        hex::decode_to_slice(s, &mut out).ok()?;
        Some(Hash(out))
    }

    pub fn key(&self, prefix: &str) -> String {
        let mut k = String::with_capacity(prefix.len() + 64);
        k.push_str(prefix);
        k.push_str(self.hex_str().as_str());
        k
    }
}

/// A hash's 64 lowercase hex digits, without a heap allocation.
#[derive(Clone, Copy)]
pub struct Hex([u8; 64]);

impl Hex {
    pub fn as_str(&self) -> &str {
        // Hex digits are ASCII, so this never falls back.
        core::str::from_utf8(&self.0).unwrap_or_default()
    }
}

impl Serialize for Hex {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl Hash {
    /// Nibble `depth` (0 = the high half of the first byte); 0 past the end.
    pub fn nibble(&self, depth: u8) -> u8 {
        let byte = self.0.get(usize::from(depth / 2)).copied().unwrap_or(0);
        if depth.is_multiple_of(2) {
            byte >> 4
        } else {
            byte & 15
        }
    }
}
