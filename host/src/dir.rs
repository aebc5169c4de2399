//! A backend in a directory on disk, shared safely by any number of processes.
//!
//! Layout under the store directory:
//! - `keys/`: one file per key, named by [`file_name`]; its bytes are the value;
//! - `tmp/`: values being written, renamed into `keys/` once complete and synced;
//! - `lock`: an advisory lock file held around every change;
//! - `turn`: an advisory lock file a host holds for a whole command ([`Backend::turn`]).
//!
//! A value is replaced by renaming a synced temporary file over it, so a reader sees
//! the old value or the new one, never a torn one, even after a crash. Every change
//! takes the exclusive lock, so a compare-and-swap's read-compare-rename cannot
//! interleave with another writer in this process or any other.
//!
//! Durability: a value's bytes are synced before its rename; the directory is
//! synced before and after a compare-and-swap renames its key, so the objects a new
//! head points at are durable before the head is. A plain `set` is durable once a
//! later compare-and-swap (or `delete`) has returned.
//!
//! Why `turn`: the engine publishes optimistically from its cached head, so of two
//! processes streaming writes the one that just won starts its next command ahead
//! while the loser re-reads what changed, and can lose every retry. Hosts take
//! turns for a whole command instead; the compare-and-swap still guards every
//! writer that does not.

use std::fs::{self, File};
use std::io::{self, ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use memdir::StoreError;

use crate::backend::{Backend, TURN_WAIT, store_for};

/// Longest file name the encoding may produce; most filesystems allow 255 bytes.
const MAX_NAME: usize = 255;

#[derive(Debug)]
pub struct DirBackend {
    keys: PathBuf,
    tmp: PathBuf,
    lock: PathBuf,
    turn: PathBuf,
}


store_for!(DirBackend);

/// What an I/O failure means to the engine. The OS text and the path stay here.
fn kind(e: io::Error) -> StoreError {
    match e.kind() {
        ErrorKind::StorageFull | ErrorKind::QuotaExceeded | ErrorKind::FileTooLarge => StoreError::QuotaExceeded,
        ErrorKind::NotFound | ErrorKind::PermissionDenied | ErrorKind::ReadOnlyFilesystem => {
            StoreError::Unavailable
        }
        _ => StoreError::Failed,
    }
}

/// A key as a file name that means the same on every filesystem: lowercase ASCII
/// letters, digits and `-` stand for themselves, every other byte is `_` and two
/// lowercase hex digits. Upper case is escaped because some filesystems fold case;
/// the leading `k` keeps the empty key, `.` and `..` from being special.
pub fn file_name(key: &str) -> Option<String> {
    let mut name = String::with_capacity(key.len() + 1);
    name.push('k');
    for b in key.bytes() {
        if b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' {
            name.push(char::from(b));
        } else {
            name.push('_');
            name.push(hex(b >> 4));
            name.push(hex(b & 15));
        }
    }
    (name.len() <= MAX_NAME).then_some(name)
}

fn hex(n: u8) -> char {
    char::from(if n < 10 { b'0' + n } else { b'a' + n - 10 })
}

/// The key a file name stands for; `None` for files that are not keys.
pub fn key_of(name: &str) -> Option<String> {
    let rest = name.strip_prefix('k')?;
    let mut bytes = Vec::with_capacity(rest.len());
    let mut it = rest.bytes();
    while let Some(b) = it.next() {
        if b == b'_' {
            let hi = char::from(it.next()?).to_digit(16)?;
            let lo = char::from(it.next()?).to_digit(16)?;
            bytes.push(u8::try_from(hi * 16 + lo).ok()?);
        } else if b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' {
            bytes.push(b);
        } else {
            return None;
        }
    }
    let key = String::from_utf8(bytes).ok()?;
    // One spelling per key: `_4F` is not `_4f`, so no two files name the same key.
    (file_name(&key).as_deref() == Some(name)).then_some(key)
}

/// Holds the store's advisory lock until dropped (closing the file releases it).
struct Locked(#[allow(dead_code)] File);

impl DirBackend {
    /// Opens the store in `dir`, creating it if needed.
    pub fn open(dir: impl AsRef<Path>) -> io::Result<Self> {
        let dir = dir.as_ref();
        let keys = dir.join("keys");
        let tmp = dir.join("tmp");
        fs::create_dir_all(&keys)?;
        fs::create_dir_all(&tmp)?;
        let lock = dir.join("lock");
        let turn = dir.join("turn");
        File::options().create(true).append(true).open(&lock)?;
        File::options().create(true).append(true).open(&turn)?;
        Ok(DirBackend { keys, tmp, lock, turn })
    }

    fn path(&self, key: &str) -> Result<PathBuf, StoreError> {
        file_name(key).map(|n| self.keys.join(n)).ok_or(StoreError::Failed)
    }

    fn lock(&self) -> Result<Locked, StoreError> {
        let f = File::options().append(true).open(&self.lock).map_err(kind)?;
        f.lock().map_err(kind)?;
        Ok(Locked(f))
    }

    /// Writes `value` to a fresh temporary file and syncs it; renaming it into
    /// `keys/` later publishes it whole.
    fn stage(&self, value: &[u8]) -> Result<Staged, StoreError> {
        static SEQ: AtomicU64 = AtomicU64::new(0);
        // A crashed process may have left a file of the same name (its pid reused).
        let (staged, mut f) = loop {
            let n = SEQ.fetch_add(1, Ordering::Relaxed);
            let path = self.tmp.join(format!("{}-{n}", std::process::id()));
            match File::options().write(true).create_new(true).open(&path) {
                Ok(f) => break (Staged(path), f),
                Err(e) if e.kind() == ErrorKind::AlreadyExists && n % 1000 != 999 => continue,
                Err(e) => return Err(kind(e)),
            }
        };
        f.write_all(value).map_err(kind)?;
        f.sync_all().map_err(kind)?;
        Ok(staged)
    }

    /// Makes the renames and removals in `keys/` durable.
    fn sync_keys(&self) -> Result<(), StoreError> {
        File::open(&self.keys).and_then(|d| d.sync_all()).map_err(kind)
    }

    fn publish(&self, staged: Staged, key: &str) -> Result<(), StoreError> {
        let to = self.path(key)?;
        fs::rename(&staged.0, to).map_err(kind)?;
        std::mem::forget(staged);
        Ok(())
    }

    fn read(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        match fs::read(self.path(key)?) {
            Ok(v) => Ok(Some(v)),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(kind(e)),
        }
    }
}

/// A temporary file not yet renamed into place; removed if dropped.
struct Staged(PathBuf);

impl Drop for Staged {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.0);
    }
}

impl Backend for DirBackend {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.read(key)
    }

    fn set(&self, key: &str, value: &[u8]) -> Result<(), StoreError> {
        self.path(key)?;
        let staged = self.stage(value)?;
        let _lock = self.lock()?;
        self.publish(staged, key)
    }

    fn delete(&self, key: &str) -> Result<(), StoreError> {
        let path = self.path(key)?;
        let _lock = self.lock()?;
        match fs::remove_file(path) {
            Ok(()) => self.sync_keys(),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
            Err(e) => Err(kind(e)),
        }
    }

    fn list(&self, prefix: &str, after: Option<&str>, limit: usize) -> Result<Vec<String>, StoreError> {
        let mut keys = Vec::new();
        for entry in fs::read_dir(&self.keys).map_err(kind)? {
            let entry = entry.map_err(kind)?;
            let Some(key) = entry.file_name().to_str().and_then(key_of) else { continue };
            if key.starts_with(prefix) && after.is_none_or(|a| key.as_str() > a) {
                keys.push(key);
            }
        }
        keys.sort_unstable();
        keys.truncate(limit);
        Ok(keys)
    }

    fn compare_and_swap(&self, key: &str, expected: Option<&[u8]>, new: &[u8]) -> Result<bool, StoreError> {
        self.commit(&[], key, expected, new)
    }

    /// Objects are written and synced before the lock is taken; under the lock the
    /// swap is checked first, so a refused commit publishes nothing. The objects
    /// are made durable before the key that points at them.
    fn commit(
        &self,
        objects: &[(String, Vec<u8>)],
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError> {
        self.path(key)?;
        let staged = objects
            .iter()
            .map(|(k, v)| Ok((self.path(k).map(|_| k.as_str())?, self.stage(v)?)))
            .collect::<Result<Vec<_>, StoreError>>()?;
        let head = self.stage(new)?;
        let _lock = self.lock()?;
        if self.read(key)?.as_deref() != expected {
            return Ok(false);
        }
        for (k, s) in staged {
            self.publish(s, k)?;
        }
        // Earlier renames (these objects, and plain sets) before the key's.
        self.sync_keys()?;
        self.publish(head, key)?;
        self.sync_keys()?;
        Ok(true)
    }

    fn turn(&self) -> Option<Box<dyn Send>> {
        let f = File::options().append(true).open(&self.turn).ok()?;
        let start = Instant::now();
        let mut pause = Duration::from_micros(200);
        loop {
            match f.try_lock() {
                Ok(()) => return Some(Box::new(Locked(f))),
                Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < TURN_WAIT => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(5));
                }
                Err(_) => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_never_collide_by_case() {
        for key in ["", ".", "..", "head", "blob/ab12", "ls/A/0", "ls/a/0", "a_b", "k", "é/x y"] {
            let name = file_name(key).unwrap_or_default();
            assert_eq!(key_of(&name).as_deref(), Some(key), "{key:?} as {name:?}");
        }
        assert_eq!(file_name("ls/A/0").as_deref(), Some("kls_2f_41_2f0"));
        assert_eq!(file_name("ls/a/0").as_deref(), Some("kls_2fa_2f0"));
        assert_eq!(file_name("."), Some("k_2e".into()));
        assert_eq!(file_name(&"x".repeat(300)), None);
        assert_eq!(key_of("lock"), None);
        assert_eq!(key_of("kA"), None);
        assert_eq!(key_of("k_zz"), None);
    }
}
