//! What a name in a store directory means: the marker's, a key's file name (one
//! spelling per key, the same on every filesystem), a temporary's and a lock's.

use alloc::string::String;
use alloc::vec::Vec;

use super::error::DirError;

/// Prefix of temporary files (swept once older than [`TMP_STALE_MS`](crate::config::TMP_STALE_MS)).
pub const TMP_PREFIX: &str = ".tmp-";
/// Prefix of lock files: `.lock-` + a key's file name, or [`TURN_LOCK`].
pub const LOCK_PREFIX: &str = ".lock-";
/// The lock a host holds for a whole command so that processes take turns.
pub const TURN_LOCK: &str = ".lock-turn";
/// Where a process waiting for the turn says so, with its lock token: whoever
/// would take the turn next, the process that just gave it back included, lets
/// that process go first while the file is fresh. Without it the holder's next
/// command takes the turn again within microseconds and a polling waiter never
/// gets it.
pub const TURN_WANT: &str = ".lock-turn-want";
/// Longest key file name: short enough that its lock's name and the name a stale
/// lock is moved aside to (`.lock-` + name + `.stale-` + 36) stay within 255 bytes.
pub const MAX_NAME: usize = 200;

/// A byte a file name holds as it is.
pub(super) fn plain(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'
}

fn hex(n: u8) -> char {
    char::from(if n < 10 { b'0' + n } else { b'a' + n - 10 })
}

/// A key as a file name that means the same on every filesystem: `k`, then the
/// key's UTF-8 bytes, lowercase ASCII letters, digits and `-` as they are and every
/// other byte `_` and two lowercase hex digits. Upper case is escaped because some
/// filesystems fold case; the leading `k` keeps `.`, `..` and the empty key plain.
pub fn file_name(key: &str) -> Result<String, DirError> {
    let mut name = String::with_capacity(key.len() + 1);
    name.push('k');
    for b in key.bytes() {
        if plain(b) {
            name.push(char::from(b));
        } else {
            name.push('_');
            name.push(hex(b >> 4));
            name.push(hex(b & 15));
        }
    }
    if name.len() > MAX_NAME {
        return Err(DirError::KeyTooLong);
    }
    Ok(name)
}

/// The key a file name stands for; `None` for files that are not keys. One
/// spelling per key, [`file_name`]'s, checked as the name is read (`_4F` is not
/// `_4f` and `_61` is not `a`): opening a store reads every name in it.
pub fn key_of(name: &str) -> Option<String> {
    if name.len() > MAX_NAME {
        return None;
    }
    let rest = name.strip_prefix('k')?;
    let mut bytes = Vec::with_capacity(rest.len());
    let mut it = rest.bytes();
    while let Some(b) = it.next() {
        if b == b'_' {
            let (hi, lo) = (lower_hex(it.next()?)?, lower_hex(it.next()?)?);
            let byte = hi * 16 + lo;
            if plain(byte) {
                return None;
            }
            bytes.push(byte);
        } else if plain(b) {
            bytes.push(b);
        } else {
            return None;
        }
    }
    String::from_utf8(bytes).ok()
}

/// A digit as [`hex`] writes it.
fn lower_hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        _ => None,
    }
}

/// The keys among a directory's file names that start with `prefix` and sort
/// strictly after `after`, ascending by bytes, at most `limit`.
pub fn list_keys<'a>(
    names: impl IntoIterator<Item = &'a str>,
    prefix: &str,
    after: Option<&str>,
    limit: usize,
) -> Vec<String> {
    let mut keys: Vec<String> = names
        .into_iter()
        .filter_map(key_of)
        .filter(|k| k.starts_with(prefix) && after.is_none_or(|a| k.as_str() > a))
        .collect();
    keys.sort_unstable();
    keys.truncate(limit);
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_never_collide_by_case() {
        for key in [
            "",
            ".",
            "..",
            "head",
            "blob/ab12",
            "ls/A/0",
            "ls/a/0",
            "a_b",
            "k",
            "é/x y",
        ] {
            let name = file_name(key).unwrap_or_default();
            assert_eq!(key_of(&name).as_deref(), Some(key), "{key:?} as {name:?}");
        }
        assert_eq!(file_name("ls/A/0").as_deref(), Ok("kls_2f_41_2f0"));
        assert_eq!(file_name("ls/a/0").as_deref(), Ok("kls_2fa_2f0"));
        assert_eq!(file_name("."), Ok("k_2e".into()));
        assert_eq!(file_name(&"x".repeat(300)), Err(DirError::KeyTooLong));
        for not_a_key in ["lock", "kA", "k_zz", "k_61", "k_4F", "memdir-store", "k_ff"] {
            assert_eq!(key_of(not_a_key), None, "{not_a_key}");
        }
    }

    /// What `key_of` means: the key whose `file_name` is exactly this name.
    fn key_of_by_round_trip(name: &str) -> Option<String> {
        let rest = name.strip_prefix('k')?;
        let mut bytes = Vec::new();
        let mut it = rest.bytes();
        while let Some(b) = it.next() {
            if b == b'_' {
                let hi = char::from(it.next()?).to_digit(16)?;
                let lo = char::from(it.next()?).to_digit(16)?;
                bytes.push(u8::try_from(hi * 16 + lo).ok()?);
            } else {
                bytes.push(b);
            }
        }
        let key = String::from_utf8(bytes).ok()?;
        (file_name(&key).ok().as_deref() == Some(name)).then_some(key)
    }

    #[test]
    fn a_name_is_a_key_exactly_when_it_is_that_key_s_file_name() {
        // Every name of up to four characters from an alphabet that covers each
        // case (plain, escapes in both cases, non-hex, non-plain), the long ones
        // around the limit, and escapes of every byte.
        let alphabet = ['k', 'a', '-', '0', '9', 'f', 'F', 'g', '_', 'A', '.', 'é'];
        let mut names = alloc::vec![String::new()];
        for _ in 0..4 {
            let longer: Vec<String> = names
                .iter()
                .flat_map(|n| alphabet.iter().map(move |c| alloc::format!("{n}{c}")))
                .collect();
            names.extend(longer);
        }
        for b in 0..=255u8 {
            names.push(alloc::format!("k_{b:02x}"));
            names.push(alloc::format!("k_{b:02X}"));
            names.push(alloc::format!("kx_{b:02x}_{:02x}", b ^ 0x80));
        }
        names.push(alloc::format!("k{}", "a".repeat(MAX_NAME - 1)));
        names.push(alloc::format!("k{}", "a".repeat(MAX_NAME)));
        names.push(file_name("é/x y").unwrap_or_default());
        for name in &names {
            assert_eq!(key_of(name), key_of_by_round_trip(name), "{name:?}");
        }
        assert!(names.iter().filter(|n| key_of(n).is_some()).count() > 500);
    }

    #[test]
    fn lists_keys_in_byte_order_after_a_cursor() {
        let names = ["kb", "ka", "memdir-store", ".lock-ka", "kc", "k_41"];
        assert_eq!(list_keys(names, "", None, 10), ["A", "a", "b", "c"]);
        assert_eq!(list_keys(names, "", Some("a"), 2), ["b", "c"]);
        assert_eq!(list_keys(names, "c", None, 10), ["c"]);
    }
}
