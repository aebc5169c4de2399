//! What the API accepts: store paths, content, ids and their formats. Pure, so a
//! refusal costs no storage.

use alloc::format;
use alloc::string::String;

use super::error::{ApiError, store_path_refusal};
use crate::path::{self, ValidPath};

pub use crate::storage::meta::{STORE_ID_CHARS, STORE_PREFIX, is_store_id};
/// How much of a store id its memory and version ids carry.
const TAG_CHARS: usize = 12;
/// The tag of a store that has no record (one opened only for the memory tool).
const LOCAL_TAG: &str = "local";

pub use crate::path::is_store_path;

/// A store path (`/notes/a.md`) as the memory tool's path (`/memories/notes/a.md`),
/// or why it is refused.
pub fn store_path(p: &str) -> Result<ValidPath, ApiError> {
    store_path_as(p, p)
}

/// [`store_path`], its refusal quoting the path as `shown` (the toolset shows a
/// store mounted at `/team` as `/team/…`, so its errors name the path the model gave).
pub(crate) fn store_path_as(p: &str, shown: &str) -> Result<ValidPath, ApiError> {
    path::store_path(p).map_err(|f| store_path_refusal(&f, shown))
}

/// A `path_prefix`: `/` or a store path followed by `/`.
pub fn prefix(p: &str) -> Result<Option<ValidPath>, ApiError> {
    if p == "/" {
        return Ok(None);
    }
    match p.strip_suffix('/') {
        Some(dir) if !dir.is_empty() => store_path(dir).map(Some),
        _ => Err(ApiError::prefix_shape(p)),
    }
}

/// The tag that a store's memory and version ids carry.
pub fn tag(store_id: Option<&str>) -> &str {
    store_id
        .and_then(|id| id.strip_prefix(STORE_PREFIX))
        .and_then(|rest| rest.get(..TAG_CHARS))
        .unwrap_or(LOCAL_TAG)
}

/// `mem_<tag>_<n>` / `memver_<tag>_<n>`.
pub fn id(kind: &str, tag: &str, n: u64) -> String {
    format!("{kind}_{tag}_{n}")
}

/// The number in an id of this store, or `None` when it is not one (another
/// store's, another kind's, or not an id at all).
pub fn parse_id(kind: &str, tag: &str, id: &str) -> Option<u64> {
    let rest = id
        .strip_prefix(kind)?
        .strip_prefix('_')?
        .strip_prefix(tag)?;
    let n = rest.strip_prefix('_')?;
    if n.is_empty() || n.len() > 19 || !n.bytes().all(|b| b.is_ascii_digit()) || n.starts_with('0')
    {
        return None;
    }
    n.parse().ok()
}

/// A store id from random bytes: the prefix and [`STORE_ID_CHARS`] characters of
/// lowercase base 32.
pub fn new_store_id(random: &[u8]) -> Option<String> {
    const ALPHABET: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";
    if random.len() * 8 < STORE_ID_CHARS * 5 {
        return None;
    }
    let mut out = String::from(STORE_PREFIX);
    let (mut acc, mut bits) = (0u32, 0u32);
    for b in random {
        acc = (acc << 8) | u32::from(*b);
        bits += 8;
        while bits >= 5 && out.len() < STORE_PREFIX.len() + STORE_ID_CHARS {
            bits -= 5;
            out.push(char::from(*ALPHABET.get(((acc >> bits) & 31) as usize)?));
        }
    }
    Some(out)
}

/// Lowercase hex SHA-256, as a precondition must give it.
pub fn sha256_arg(name: &str, v: &str) -> Result<crate::storage::tree::Hash, ApiError> {
    let lower_hex = v
        .bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    match crate::storage::tree::Hash::from_hex(v) {
        Some(h) if lower_hex => return Ok(h),
        _ => {}
    }
    Err(ApiError::not_sha256(name))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn ids_name_their_store() {
        let t = tag(Some("memstore_abcdefghjkmn0123456789ab"));
        assert_eq!(t, "abcdefghjkmn");
        assert_eq!(id("mem", t, 7), "mem_abcdefghjkmn_7");
        assert_eq!(parse_id("mem", t, "mem_abcdefghjkmn_7"), Some(7));
        assert_eq!(parse_id("mem", t, "mem_zzzzzzzzzzzz_7"), None);
        assert_eq!(parse_id("mem", t, "memver_abcdefghjkmn_7"), None);
        assert_eq!(parse_id("mem", t, "mem_abcdefghjkmn_07"), None);
        let s = new_store_id(&[255; 15]).unwrap();
        assert_eq!(s, "memstore_zzzzzzzzzzzzzzzzzzzzzzzz");
        assert!(is_store_id(&s));
    }

    #[test]
    fn store_paths() {
        assert_eq!(store_path("/a/b.md").unwrap().as_str(), "/memories/a/b.md");
        for bad in ["a", "/", "/a/", "//a", "/a/../b", "/a/./b", "/x\u{7}"] {
            assert!(store_path(bad).is_err(), "{bad:?}");
        }
        assert!(prefix("/notes").is_err());
        assert_eq!(prefix("/").unwrap(), None);
    }
}
