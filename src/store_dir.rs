//! What a store directory on disk is: the one format shared by the Node directory
//! store (`js/stores/directory.js`) and the host's directory backend
//! (`host/src/dir.rs`). Pure rules, no I/O: what a name, a file or a listing means;
//! [`protocol`] says in which order the tools' system calls use them, opening the
//! directory included.
//!
//! Format `memdir-store`, version 1, flat in one directory:
//! - `memdir-store`: the marker, one line `memdir-store 1\n`, written at creation;
//! - `k…`: one file per key, named by [`file_name`], holding a pack ([`pack`]) of
//!   that key's value and possibly others (a commit writes one pack and hard-links
//!   it under every key it holds, so it pays one fsync). A value is packed once:
//!   a commit leaves out an object whose name already holds that value, and a
//!   delete first rewrites every other key still sharing the deleted key's pack
//!   as a pack of its own ([`mates`]), so no byte of a deleted value stays behind;
//! - `.tmp-…`: files being written, renamed into place once complete (and Node's
//!   spare lock files);
//! - `.lock-…`: lock files, made exclusively ([`protocol::DirIo::create_excl`])
//!   and holding a token ([`lock_token`]); `.lock-k…` guards a key's read-compare-rename,
//!   [`TURN_LOCK`] is a process's turn for a whole command (fairness only: of two
//!   processes streaming writes, the one that just won would otherwise start its
//!   next command ahead while the loser re-reads, and the loser can lose every
//!   retry), with [`TURN_WANT`] so that a waiter gets the next turn.
//!
//! A directory is opened ([`protocol::Open`]) only when [`classify`] and
//! [`marker_verdict`] say it is one of these; anything else is refused before a
//! byte is written.

pub mod protocol;

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

/// The marker's file name and the format's name.
pub const FORMAT: &str = "memdir-store";
/// The version this build writes and reads.
pub const VERSION: u32 = 1;
/// The marker's whole contents.
pub const MARKER_TEXT: &str = "memdir-store 1\n";
/// Prefix of temporary files (swept once older than [`TMP_STALE_MS`]).
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
// The directory's waits and ages, in config.rs with every other limit.
use crate::config::{
    LOCK_STALE_MS, STORE_DIR_LISTING_KEEP_MS, TMP_STALE_MS, TURN_POLL_MS, WANT_FRESH_MS,
};
/// Longest key file name: short enough that its lock's name and the name a stale
/// lock is moved aside to (`.lock-` + name + `.stale-` + 36) stay within 255 bytes.
pub const MAX_NAME: usize = 200;

/// The names of the old host layout (before the marker): values in `keys/`.
const OLD_HOST: [&str; 4] = ["keys", "tmp", "lock", "turn"];

/// Why a store directory cannot be opened, or a store file cannot be used. The
/// text names the directory's problem, never a path: the tools put the directory
/// the user named in front.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DirError {
    NotADirectory,
    Symlink,
    Unreadable,
    NotAStore,
    DamagedMarker,
    OtherFormat,
    NewerVersion(u32),
    /// The old host layout, in a tool that does not convert it (Node).
    OldHostLayout,
    /// The disk refused an operation while opening or creating the store.
    Io,
    KeyTooLong,
    ValueTooLarge,
    DamagedFile,
}

impl fmt::Display for DirError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DirError::NotADirectory => f.write_str("the store path is not a directory"),
            DirError::Symlink => {
                f.write_str("the store path is a symbolic link, which memdir does not follow; name the directory itself")
            }
            DirError::Unreadable => f.write_str("the store directory cannot be read"),
            DirError::NotAStore => f.write_str(
                "the directory is not a memdir store: it holds files memdir did not write; name an empty or new directory",
            ),
            DirError::DamagedMarker => write!(f, "the store's format marker ({FORMAT}) is damaged"),
            DirError::OtherFormat => write!(f, "the store's format marker ({FORMAT}) names a format memdir does not know"),
            DirError::NewerVersion(v) => write!(
                f,
                "the store is {FORMAT} version {v}, newer than this memdir reads (version {VERSION}); upgrade memdir"
            ),
            DirError::OldHostLayout => f.write_str(
                "the directory is a memdir-host store of the old layout (keys/); open it once with memdir-host \
                 (for example `memdir-host export --store DIR`) to convert it",
            ),
            DirError::Io => f.write_str("the store directory could not be opened or written"),
            DirError::KeyTooLong => f.write_str("the key is too long for a file name"),
            DirError::ValueTooLarge => f.write_str("the value is too large for a store file"),
            DirError::DamagedFile => f.write_str("a store file is damaged"),
        }
    }
}

impl core::error::Error for DirError {}

fn plain(b: u8) -> bool {
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

/// The name of the lock file guarding the file `name`.
pub fn lock_name(name: &str) -> String {
    format!("{LOCK_PREFIX}{name}")
}

/// A lock file's contents: who holds it (`unique` tells two holders of one
/// process apart).
pub fn lock_token(pid: u32, host: &str, unique: &str) -> String {
    format!("{pid} {host} {unique}")
}

/// The process id and host a lock's token names, when it is a token at all.
pub fn lock_owner(token: &str) -> Option<(u32, &str)> {
    let mut parts = token.split(' ');
    let pid = parts.next()?;
    let host = parts.next()?;
    if pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) || host.is_empty() {
        return None;
    }
    Some((pid.parse().ok()?, host))
}

/// Whether a lock may be broken: its owner is a process of this host that is gone,
/// or it is older than [`LOCK_STALE_MS`]. `token` is `None` when the lock could not
/// be read (a directory, a dangling symlink, an unreadable file): only its age
/// counts then, so a wait for it still ends at the deadline.
pub fn lock_is_stale(
    token: Option<&str>,
    age_ms: u64,
    host: &str,
    pid: u32,
    alive: impl FnOnce(u32) -> bool,
) -> bool {
    if age_ms > LOCK_STALE_MS {
        return true;
    }
    match token.and_then(lock_owner) {
        Some((owner, h)) => h == host && owner != pid && !alive(owner),
        None => false,
    }
}

/// What kind of thing a directory entry is (as `lstat` sees it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    File,
    Dir,
    Symlink,
    Other,
}

/// What a directory holds, as far as its names tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Nothing: a new store (write the marker).
    Empty,
    /// The marker is there (check it with [`marker_verdict`]).
    Current,
    /// The Node layout from before the marker: the same files, no marker. Writing
    /// the marker is the whole migration.
    OldFlat,
    /// The host layout from before the marker: raw values in `keys/`.
    OldHost,
}

/// What a directory is, from the names and kinds of its entries; a directory with
/// anything memdir did not write is refused.
pub fn classify<'a>(
    entries: impl IntoIterator<Item = (&'a str, EntryKind)>,
) -> Result<Layout, DirError> {
    let (mut any, mut marker, mut old_host) = (false, false, false);
    for (name, kind) in entries {
        any = true;
        if name.contains(char::REPLACEMENT_CHARACTER) {
            // Every name memdir writes is ASCII; one that is not UTF-8 (listed with
            // U+FFFD in place of its bad bytes) is not memdir's, whatever its prefix.
            return Err(DirError::NotAStore);
        } else if name == FORMAT {
            if kind != EntryKind::File {
                return Err(DirError::DamagedMarker);
            }
            marker = true;
        } else if name.starts_with(TMP_PREFIX) || name.starts_with(LOCK_PREFIX) {
            // Anything may sit at a temporary's or a lock's name; its owner or a
            // sweep deals with it.
        } else if name == "keys" && kind == EntryKind::Dir {
            // `keys/` marks the old host layout (a file `keys` is the key `eys`);
            // with the marker, it is what an interrupted migration left.
            old_host = true;
        } else if key_of(name).is_some() {
            // Whatever it is, a key's name is memdir's: a symlink or a directory
            // there is refused when that key is read (never followed), not here.
        } else if OLD_HOST.contains(&name) {
            // The rest of the old host layout (or of an interrupted migration).
        } else {
            return Err(DirError::NotAStore);
        }
    }
    Ok(match (any, marker, old_host) {
        (_, true, _) => Layout::Current,
        (_, false, true) => Layout::OldHost,
        (false, false, false) => Layout::Empty,
        (true, false, false) => Layout::OldFlat,
    })
}

/// Whether the marker's contents say this build can open the store.
pub fn marker_verdict(bytes: &[u8]) -> Result<(), DirError> {
    let text = core::str::from_utf8(bytes).map_err(|_| DirError::DamagedMarker)?;
    let line = text.strip_suffix('\n').ok_or(DirError::DamagedMarker)?;
    let (name, version) = line.split_once(' ').ok_or(DirError::DamagedMarker)?;
    let well_formed =
        |s: &str| !s.is_empty() && s.len() <= 64 && s.bytes().all(|b| plain(b) || b == b'.');
    if !well_formed(name) || version.is_empty() || !version.bytes().all(|b| b.is_ascii_digit()) {
        return Err(DirError::DamagedMarker);
    }
    if name != FORMAT {
        return Err(DirError::OtherFormat);
    }
    // One spelling per version: no leading zero, and no version 0.
    if version.starts_with('0') {
        return Err(DirError::DamagedMarker);
    }
    match version.parse::<u32>() {
        Ok(VERSION) => Ok(()),
        Ok(v) => Err(DirError::NewerVersion(v)),
        Err(_) => Err(DirError::DamagedMarker),
    }
}

// PACK: "MDP1", u32 count, then per entry u16 key length, the key (UTF-8), u32
// value length; then the values in the same order. All little-endian.
const MAGIC: [u8; 4] = *b"MDP1";

/// The index of a pack (everything before the values) for keys with values of
/// these lengths; the values follow it in the same order.
pub fn pack_index<'a>(
    entries: impl IntoIterator<Item = (&'a str, u64)>,
) -> Result<Vec<u8>, DirError> {
    let mut out = Vec::from(MAGIC);
    out.extend_from_slice(&[0; 4]);
    let mut count: u32 = 0;
    for (key, len) in entries {
        let klen = u16::try_from(key.len()).map_err(|_| DirError::KeyTooLong)?;
        let vlen = u32::try_from(len).map_err(|_| DirError::ValueTooLarge)?;
        out.extend_from_slice(&klen.to_le_bytes());
        out.extend_from_slice(key.as_bytes());
        out.extend_from_slice(&vlen.to_le_bytes());
        count = count.checked_add(1).ok_or(DirError::ValueTooLarge)?;
    }
    if let Some(c) = out.get_mut(4..8) {
        c.copy_from_slice(&count.to_le_bytes());
    }
    Ok(out)
}

/// A whole pack of these keys and values.
pub fn pack(entries: &[(&str, &[u8])]) -> Result<Vec<u8>, DirError> {
    let mut out = pack_index(entries.iter().map(|(k, v)| (*k, v.len() as u64)))?;
    for (_, v) in entries {
        out.extend_from_slice(v);
    }
    Ok(out)
}

/// Where a key's value lies in a pack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Locate {
    /// Read at least this many bytes from the start and ask again.
    Need(u64),
    /// The value is `len` bytes at `offset`.
    Found { offset: u64, len: u64 },
}

/// How far a walk over a pack's index got.
enum Walk {
    /// Read at least this many bytes from the start and walk again.
    Need(u64),
    /// The whole index was walked; the values start at this offset.
    Done(u64),
}

/// Walks the index of a pack of `size` bytes from `head`, its first bytes,
/// calling `visit(key, offset among the values, length)` for each entry. A pack
/// whose index and size disagree, or whose index is larger than any value memdir
/// writes ([`crate::config::MAX_VALUE_BYTES`]), is damaged: no reader is ever asked
/// to hold more.
fn walk(head: &[u8], size: u64, mut visit: impl FnMut(&[u8], u64, u64)) -> Result<Walk, DirError> {
    let bad = DirError::DamagedFile;
    let cap = crate::config::MAX_VALUE_BYTES as u64;
    let at = |i: u64, n: usize| -> Result<Result<&[u8], u64>, DirError> {
        let end = i + n as u64;
        if end > size {
            return Err(bad);
        }
        Ok(
            match usize::try_from(i)
                .ok()
                .zip(usize::try_from(end).ok())
                .and_then(|(i, e)| head.get(i..e))
            {
                Some(s) => Ok(s),
                None => Err(end),
            },
        )
    };
    macro_rules! take {
        ($i:expr, $n:expr) => {
            match at($i, $n)? {
                Ok(s) => s,
                Err(end) if end > cap => return Err(bad),
                Err(end) => {
                    return Ok(Walk::Need(
                        end.max(head.len() as u64 * 2).min(size).min(cap),
                    ))
                }
            }
        };
    }
    let top = take!(0, 8);
    if top.get(..4) != Some(&MAGIC[..]) {
        return Err(bad);
    }
    let count = u64::from(u32::from_le_bytes(
        top.get(4..8).and_then(|s| s.try_into().ok()).ok_or(bad)?,
    ));
    if 8 + count * 6 > size {
        return Err(bad);
    }
    let (mut i, mut offset) = (8u64, 0u64);
    for _ in 0..count {
        let kl = take!(i, 2);
        let klen = u16::from_le_bytes(kl.try_into().map_err(|_| bad)?) as usize;
        let k = take!(i + 2, klen);
        let vl = take!(i + 2 + klen as u64, 4);
        let vlen = u64::from(u32::from_le_bytes(vl.try_into().map_err(|_| bad)?));
        visit(k, offset, vlen);
        offset += vlen;
        i += 6 + klen as u64;
    }
    if i + offset != size {
        return Err(bad);
    }
    Ok(Walk::Done(i))
}

/// Finds `key`'s value in a pack of `size` bytes from `head`, the pack's first
/// bytes (the index; a pack may hold a whole import, so a reader need not read
/// the values it does not want). A pack that does not hold the key, or whose
/// index and size disagree, is damaged; so is one whose index or wanted value is
/// larger than any value memdir writes ([`crate::config::MAX_VALUE_BYTES`]): no
/// reader is ever asked to hold more.
pub fn locate(head: &[u8], size: u64, key: &str) -> Result<Locate, DirError> {
    let mut found = None;
    let walked = walk(head, size, |k, offset, len| {
        if found.is_none() && k == key.as_bytes() {
            found = Some((offset, len));
        }
    })?;
    match (walked, found) {
        (Walk::Need(n), _) => Ok(Locate::Need(n)),
        (Walk::Done(at), Some((offset, len))) if len <= crate::config::MAX_VALUE_BYTES as u64 => {
            Ok(Locate::Found {
                offset: at + offset,
                len,
            })
        }
        _ => Err(DirError::DamagedFile),
    }
}

/// Which keys a delete must rewrite first, from one pack's index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mates {
    /// Read at least this many bytes from the start and ask again.
    Need(u64),
    /// The pack's other keys, each once, in index order.
    Keys(Vec<String>),
}

/// The other keys of a pack (`size` bytes, `head` its first bytes) when it holds
/// `key`; none when it does not, or holds `key` alone.
///
/// A pack's bytes live on under every name linked to it (or under each copy, on a
/// filesystem without hard links), so unlinking `key`'s name alone would leave its
/// value on the disk. A delete of `key` therefore first asks this of `key`'s own
/// file, and then, holding each mate's lock, of that mate's file: when the mate's
/// file still holds `key` (the same pack, or a copy of it), the mate is rewritten
/// as a pack of its own value only; then `key`'s name is unlinked. Each rewrite
/// keeps the mate's value byte for byte, so a reader sees the old pack or the new
/// one with the same value. A key that another key's pack holds but whose name
/// links elsewhere does not arise: a commit leaves out of its pack every object
/// whose name already holds the same value ([`crate::store::Store::commit`]'s
/// objects are content-addressed), so a value is packed once.
pub fn mates(head: &[u8], size: u64, key: &str) -> Result<Mates, DirError> {
    let (mut keys, mut holds) = (Vec::<String>::new(), false);
    let mut utf8 = true;
    let walked = walk(head, size, |k, _, _| {
        if k == key.as_bytes() {
            holds = true;
        } else if let Ok(k) = core::str::from_utf8(k) {
            if !keys.iter().any(|have| have == k) {
                keys.push(k.into());
            }
        } else {
            utf8 = false;
        }
    })?;
    match walked {
        Walk::Need(n) => Ok(Mates::Need(n)),
        Walk::Done(_) if !utf8 => Err(DirError::DamagedFile),
        Walk::Done(_) if !holds => Ok(Mates::Keys(Vec::new())),
        Walk::Done(_) => Ok(Mates::Keys(keys)),
    }
}

/// `key`'s value in a whole pack held in memory.
pub fn pack_value<'a>(bytes: &'a [u8], key: &str) -> Result<&'a [u8], DirError> {
    match locate(bytes, bytes.len() as u64, key)? {
        Locate::Found { offset, len } => bytes
            .get(offset as usize..(offset + len) as usize)
            .ok_or(DirError::DamagedFile),
        Locate::Need(_) => Err(DirError::DamagedFile),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

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
    fn a_pack_claiming_a_value_past_the_cap_is_damaged_before_anything_is_read() {
        let mut head = Vec::from(&MAGIC[..]);
        head.extend_from_slice(&1u32.to_le_bytes());
        head.extend_from_slice(&4u16.to_le_bytes());
        head.extend_from_slice(b"head");
        head.extend_from_slice(&(1u32 << 30).to_le_bytes());
        let size = head.len() as u64 + (1 << 30);
        assert_eq!(locate(&head, size, "head"), Err(DirError::DamagedFile));
        // A reader is never asked for more than the cap, however large the pack.
        let mut many = Vec::from(&MAGIC[..]);
        many.extend_from_slice(&u32::MAX.to_le_bytes());
        many.resize(crate::config::MAX_VALUE_BYTES / 2 + 1, 0);
        let asked = locate(&many, 8 + u64::from(u32::MAX) * 300, "head");
        assert_eq!(
            asked,
            Ok(Locate::Need(crate::config::MAX_VALUE_BYTES as u64))
        );
    }

    #[test]
    fn lists_keys_in_byte_order_after_a_cursor() {
        let names = ["kb", "ka", "memdir-store", ".lock-ka", "kc", "k_41"];
        assert_eq!(list_keys(names, "", None, 10), ["A", "a", "b", "c"]);
        assert_eq!(list_keys(names, "", Some("a"), 2), ["b", "c"]);
        assert_eq!(list_keys(names, "c", None, 10), ["c"]);
    }

    #[test]
    fn packs_round_trip_and_damage_is_caught() {
        let p = pack(&[("blob/1", b"one"), ("head", b"")]).unwrap_or_default();
        assert_eq!(pack_value(&p, "blob/1"), Ok(&b"one"[..]));
        assert_eq!(pack_value(&p, "head"), Ok(&b""[..]));
        assert_eq!(pack_value(&p, "other"), Err(DirError::DamagedFile));
        assert_eq!(
            pack_value(p.get(..p.len() - 1).unwrap_or_default(), "head"),
            Err(DirError::DamagedFile)
        );
        assert_eq!(
            pack_value(b"MDP1\xff\xff\xff\xff", "head"),
            Err(DirError::DamagedFile)
        );
        assert_eq!(pack_value(b"junk", "head"), Err(DirError::DamagedFile));
        // A reader holding only the start is told how much more to read.
        assert_eq!(
            locate(p.get(..10).unwrap_or_default(), p.len() as u64, "head"),
            Ok(Locate::Need(20))
        );
        assert_eq!(
            locate(&p, p.len() as u64, "blob/1"),
            Ok(Locate::Found { offset: 30, len: 3 })
        );
    }

    #[test]
    fn a_delete_rewrites_the_mates_of_its_pack_and_only_those() {
        let p = pack(&[
            ("blob/1", b"one"),
            ("head", b"h"),
            ("tree/2", b"two"),
            ("head", b"again"),
        ])
        .unwrap_or_default();
        let size = p.len() as u64;
        assert_eq!(
            mates(&p, size, "blob/1"),
            Ok(Mates::Keys(alloc::vec!["head".into(), "tree/2".into()]))
        );
        assert_eq!(
            mates(&p, size, "tree/2"),
            Ok(Mates::Keys(alloc::vec!["blob/1".into(), "head".into()]))
        );
        // A pack not holding the key has nothing of it to rewrite, nor has one
        // holding it alone.
        assert_eq!(mates(&p, size, "blob/9"), Ok(Mates::Keys(Vec::new())));
        let alone = pack(&[("blob/1", b"one")]).unwrap_or_default();
        assert_eq!(
            mates(&alone, alone.len() as u64, "blob/1"),
            Ok(Mates::Keys(Vec::new()))
        );
        // Only the index is read, and a short head asks for more.
        assert_eq!(
            mates(p.get(..10).unwrap_or_default(), size, "blob/1"),
            Ok(Mates::Need(20))
        );
        assert_eq!(
            mates(p.get(..p.len() - 1).unwrap_or_default(), size - 1, "blob/1"),
            Err(DirError::DamagedFile)
        );
        assert_eq!(mates(b"junk", 4, "blob/1"), Err(DirError::DamagedFile));
        let mut both = pack_index([("a", 0), ("\u{e9}", 0)]).unwrap_or_default();
        if let Some(b) = both.get_mut(17) {
            *b = 0xff; // the second key's first byte: no longer UTF-8
        }
        assert_eq!(
            mates(&both, both.len() as u64, "a"),
            Err(DirError::DamagedFile)
        );
    }

    #[test]
    fn markers_are_judged() {
        assert_eq!(marker_verdict(MARKER_TEXT.as_bytes()), Ok(()));
        assert_eq!(
            marker_verdict(b"memdir-store 2\n"),
            Err(DirError::NewerVersion(2))
        );
        assert_eq!(
            marker_verdict(b"other-tool 1\n"),
            Err(DirError::OtherFormat)
        );
        for bad in [
            &b""[..],
            b"memdir-store 1",
            b"memdir-store 0\n",
            b"memdir-store 01\n",
            b"memdir-store 99999999999\n",
            b"\xff\n",
            b"memdir-store\n",
            b"memdir-store 1\nx\n",
        ] {
            assert_eq!(marker_verdict(bad), Err(DirError::DamagedMarker), "{bad:?}");
        }
    }

    #[test]
    fn directories_are_classified_by_their_names() {
        use EntryKind::{Dir, File, Symlink};
        assert_eq!(classify([]), Ok(Layout::Empty));
        assert_eq!(
            classify([("memdir-store", File), ("khead", File), (".lock-turn", Dir)]),
            Ok(Layout::Current)
        );
        assert_eq!(
            classify([("khead", File), (".tmp-1-x", File)]),
            Ok(Layout::OldFlat)
        );
        assert_eq!(
            classify([("keys", Dir), ("tmp", Dir), ("lock", File), ("turn", File)]),
            Ok(Layout::OldHost)
        );
        assert_eq!(
            classify([("keys", Dir), ("khead", File)]),
            Ok(Layout::OldHost)
        );
        assert_eq!(
            classify([("memdir-store", File), ("keys", Dir)]),
            Ok(Layout::Current)
        );
        assert_eq!(classify([("notes.txt", File)]), Err(DirError::NotAStore));
        assert_eq!(
            classify([(".tmp-\u{fffd}", File)]),
            Err(DirError::NotAStore),
            "a name that is not UTF-8"
        );
        assert_eq!(classify([("khead", Symlink)]), Ok(Layout::OldFlat));
        assert_eq!(
            classify([("memdir-store", Symlink)]),
            Err(DirError::DamagedMarker)
        );
    }

    #[test]
    fn locks_break_only_when_their_owner_is_gone_or_they_are_old() {
        let token = lock_token(42, "h", "u");
        assert_eq!(lock_owner(&token), Some((42, "h")));
        assert!(lock_is_stale(Some(&token), 0, "h", 1, |_| false));
        assert!(!lock_is_stale(Some(&token), 0, "h", 1, |_| true));
        assert!(!lock_is_stale(Some(&token), 0, "other", 1, |_| false));
        assert!(
            !lock_is_stale(Some(&token), 0, "h", 42, |_| false),
            "never our own"
        );
        assert!(
            !lock_is_stale(None, 0, "h", 1, |_| false),
            "unreadable: only age counts"
        );
        assert!(lock_is_stale(None, LOCK_STALE_MS + 1, "h", 1, |_| true));
        assert_eq!(lock_owner("garbage"), None);
        assert_eq!(
            DirError::NewerVersion(2).to_string(),
            "the store is memdir-store version 2, newer than this memdir reads (version 1); upgrade memdir"
        );
    }
}
