//! The JSON of tree nodes, written directly. Every write re-encodes a tree leaf per
//! directory on its path; through serde each hash became a heap string scanned for
//! escapes, which cost more than hashing the bytes. The writers here give exactly
//! the bytes serde_json gives (a test in `tree` holds them equal to it); reading
//! stays with serde, which checks what a store hands back.

use alloc::vec::Vec;

/// `"<64 hex digits>"`: a hash, given as its hex digits (so this writer needs no
/// type of `tree`'s, which calls it).
pub(crate) fn hash(out: &mut Vec<u8>, hex: &str) {
    out.push(b'"');
    out.extend_from_slice(hex.as_bytes());
    out.push(b'"');
}

pub(crate) fn number(out: &mut Vec<u8>, n: u64) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// A JSON string: written as is when nothing in it needs escaping (names almost
/// never do), else through serde_json.
pub(crate) fn string(out: &mut Vec<u8>, s: &str) {
    if s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    } else {
        out.extend_from_slice(&serde_json::to_vec(s).unwrap_or_default());
    }
}

/// `,` before every item but the first.
pub(crate) fn separate(out: &mut Vec<u8>, i: usize) {
    if i > 0 {
        out.push(b',');
    }
}
