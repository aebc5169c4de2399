//! A backend in a store directory on disk, shared safely by any number of
//! processes: the `memdir-store` format, the same one the Node directory store
//! (`js/stores/directory.js`) reads and writes. What each file means is decided in
//! [`memdir::store_dir`]; this module does the system calls.
//!
//! - A command's commit writes ONE pack (its objects and the new head), syncs it,
//!   hard-links it under each object's name and renames it over the head, so a
//!   reader sees the old value or the new one, never a torn one, even after a crash.
//!   An object already stored under its name is left out of the pack, so a value
//!   is packed once.
//! - A delete leaves no byte of the value on the disk: every other key still
//!   linked to the deleted key's pack is first rewritten as a pack of its own
//!   (one synced file each, under that key's lock), then the name is unlinked.
//! - A change to a key holds its lock file (`.lock-k…`, created with `O_EXCL`), so a
//!   compare-and-swap's read-compare-rename cannot interleave with another writer
//!   in any process, Node's included. A lock left by a crashed process is broken once
//!   its owner is gone or it is old; whatever sits at a lock's path, a wait for it
//!   ends at its deadline.
//! - Files are 0600, directories 0700; every open refuses a symlink
//!   (`O_NOFOLLOW`), and renames, links and unlinks never follow one.
//!
//! Durability: a pack's bytes are synced before it is linked or renamed; the
//! directory is synced before and after a compare-and-swap renames its key, so the
//! objects a new head points at are durable before the head is. A plain `set` is
//! durable once a later compare-and-swap (or `delete`) has returned.
//!
//! Why the turn ([`TURN_LOCK`]): the engine publishes optimistically from its cached
//! head, so of two processes streaming writes the one that just won starts its next
//! command ahead while the loser re-reads what changed, and can lose every retry.
//! Hosts take turns for a whole command instead; the compare-and-swap still guards
//! every writer that does not (the Node store).

use std::fs::{self, File};
use std::io::{self, ErrorKind, Read, Write};
use std::os::unix::fs::{DirBuilderExt, FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use memdir::StoreError;
use memdir::store_dir::{self as format, DirError, EntryKind, Layout, Locate, Mates};

use crate::backend::{Backend, TURN_WAIT, store_for};

pub use memdir::store_dir::{file_name, key_of};

const FILE_MODE: u32 = 0o600;
const DIR_MODE: u32 = 0o700;

#[derive(Debug)]
pub struct DirBackend {
    root: PathBuf,
    host: String,
    lock_wait: Duration,
}

store_for!(DirBackend);

/// What an I/O failure means to the engine. The OS text and the path stay here.
fn kind(e: io::Error) -> StoreError {
    match e.kind() {
        ErrorKind::StorageFull | ErrorKind::QuotaExceeded | ErrorKind::FileTooLarge => {
            StoreError::QuotaExceeded
        }
        ErrorKind::NotFound | ErrorKind::PermissionDenied | ErrorKind::ReadOnlyFilesystem => {
            StoreError::Unavailable
        }
        _ => StoreError::Failed,
    }
}

fn io_open(_: io::Error) -> DirError {
    DirError::Io
}

/// Opens a file for reading without following a symlink (nor blocking on a FIFO).
fn open_read(path: &Path) -> io::Result<File> {
    let flags = rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK;
    File::options()
        .read(true)
        .custom_flags(flags.bits() as i32)
        .open(path)
}

/// A new file (never an existing one, never through a symlink), 0600.
fn create_new(path: &Path) -> io::Result<File> {
    File::options()
        .write(true)
        .create_new(true)
        .mode(FILE_MODE)
        .open(path)
}

/// A name no other writer in any process uses at the same time.
fn unique() -> String {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!(
        "{}-{nanos:x}-{}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    )
}

fn age(meta: &fs::Metadata) -> Duration {
    meta.modified()
        .ok()
        .and_then(|m| SystemTime::now().duration_since(m).ok())
        .unwrap_or_default()
}

fn process_alive(pid: u32) -> bool {
    let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return false;
    };
    match rustix::process::test_kill_process(pid) {
        Ok(()) => true,
        Err(e) => e == rustix::io::Errno::PERM,
    }
}

/// Errors of a filesystem (or an inode) that takes no more hard links.
fn no_links(e: &io::Error) -> bool {
    use rustix::io::Errno;
    let errno = Errno::from_io_error(e);
    [
        Errno::PERM,
        Errno::NOTSUP,
        Errno::OPNOTSUPP,
        Errno::NOSYS,
        Errno::MLINK,
        Errno::XDEV,
    ]
    .iter()
    .any(|x| Some(*x) == errno)
}

/// Holds a lock file until dropped; removes it only if it is still ours (it may
/// have been broken as stale meanwhile).
struct Held {
    path: PathBuf,
    token: String,
}

impl Drop for Held {
    fn drop(&mut self) {
        if read_small(&self.path).as_deref() == Some(self.token.as_bytes()) {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// A short file's bytes (a lock's token, the marker), never through a symlink.
fn read_small(path: &Path) -> Option<Vec<u8>> {
    let f = open_read(path).ok()?;
    if !f.metadata().ok()?.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    f.take(256).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

/// A temporary file not yet renamed into place; removed if dropped.
struct Staged(PathBuf);

impl Drop for Staged {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.0);
    }
}

impl DirBackend {
    /// Opens the store in `dir`: creates it when missing or empty, opens a
    /// `memdir-store` directory (marking or converting one of the layouts from
    /// before the marker), and refuses anything else with nothing written.
    pub fn open(dir: impl AsRef<Path>) -> Result<Self, DirError> {
        let root = dir.as_ref().to_path_buf();
        match fs::symlink_metadata(&root) {
            Err(e) if e.kind() == ErrorKind::NotFound => {
                fs::DirBuilder::new()
                    .recursive(true)
                    .mode(DIR_MODE)
                    .create(&root)
                    .map_err(io_open)?;
            }
            Err(e) if e.kind() == ErrorKind::PermissionDenied => return Err(DirError::Unreadable),
            Err(e) => return Err(io_open(e)),
            Ok(m) if m.file_type().is_symlink() => return Err(DirError::Symlink),
            Ok(m) if !m.is_dir() => return Err(DirError::NotADirectory),
            Ok(_) => {}
        }
        let host = rustix::system::uname()
            .nodename()
            .to_string_lossy()
            .into_owned();
        let store = DirBackend {
            root,
            host,
            lock_wait: Duration::from_millis(format::LOCK_WAIT_MS),
        };
        match store.layout()? {
            Layout::Empty | Layout::OldFlat => store.write_marker()?,
            Layout::Current => store.check_marker()?,
            Layout::OldHost => store.convert_old_host()?,
        }
        // Leftovers of a conversion that stopped after its marker was written.
        if fs::symlink_metadata(store.root.join("keys")).is_ok_and(|m| m.is_dir()) {
            store.convert_old_host()?;
        }
        store.sweep_temporaries();
        Ok(store)
    }

    /// The same store, waiting at most `wait` for a key's lock (tests).
    pub fn with_lock_wait(mut self, wait: Duration) -> Self {
        self.lock_wait = wait;
        self
    }

    fn layout(&self) -> Result<Layout, DirError> {
        let unreadable = |e: io::Error| {
            if e.kind() == ErrorKind::PermissionDenied {
                DirError::Unreadable
            } else {
                DirError::Io
            }
        };
        let mut entries = Vec::new();
        for entry in fs::read_dir(&self.root).map_err(unreadable)? {
            let entry = entry.map_err(unreadable)?;
            let Ok(name) = entry.file_name().into_string() else {
                return Err(DirError::NotAStore);
            };
            let t = entry.file_type().map_err(unreadable)?;
            let kind = if t.is_symlink() {
                EntryKind::Symlink
            } else if t.is_dir() {
                EntryKind::Dir
            } else if t.is_file() {
                EntryKind::File
            } else {
                EntryKind::Other
            };
            entries.push((name, kind));
        }
        format::classify(entries.iter().map(|(n, k)| (n.as_str(), *k)))
    }

    fn check_marker(&self) -> Result<(), DirError> {
        format::marker_verdict(
            &read_small(&self.root.join(format::FORMAT)).ok_or(DirError::DamagedMarker)?,
        )
    }

    /// Writes the marker whole (a synced temporary renamed into place).
    fn write_marker(&self) -> Result<(), DirError> {
        let staged = self
            .stage(format::MARKER_TEXT.as_bytes())
            .map_err(|_| DirError::Io)?;
        fs::rename(&staged.0, self.root.join(format::FORMAT)).map_err(io_open)?;
        std::mem::forget(staged);
        self.sync_dir().map_err(|_| DirError::Io)
    }

    /// Converts the old host layout (raw values in `keys/`, an advisory `lock`):
    /// under that lock, so no old host changes anything meanwhile, each value is
    /// written as a pack beside it; the marker, written last, is the commit point.
    /// Stopped before it, the old layout is whole and the next open starts over;
    /// after it, the next open removes what is left of the old one.
    fn convert_old_host(&self) -> Result<(), DirError> {
        let old_lock = match open_read(&self.root.join("lock")) {
            Ok(f) if f.metadata().is_ok_and(|m| m.is_file()) => Some(f),
            _ => None,
        };
        if let Some(f) = &old_lock {
            f.lock().map_err(io_open)?;
        }
        if !self.root.join(format::FORMAT).exists() {
            let keys = self.root.join("keys");
            for entry in fs::read_dir(&keys).map_err(io_open)? {
                let entry = entry.map_err(io_open)?;
                let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                    continue;
                };
                let Some(key) = key_of(&name) else { continue };
                let f = open_read(&keys.join(&name)).map_err(io_open)?;
                if !f.metadata().is_ok_and(|m| m.is_file()) {
                    continue;
                }
                let mut value = Vec::new();
                (&f).read_to_end(&mut value).map_err(io_open)?;
                let pack = format::pack(&[(key.as_str(), &value)])?;
                let staged = self.stage(&pack).map_err(|_| DirError::Io)?;
                fs::rename(&staged.0, self.root.join(&name)).map_err(io_open)?;
                std::mem::forget(staged);
            }
            self.sync_dir().map_err(|_| DirError::Io)?;
            self.write_marker()?;
        }
        // The old layout, gone: only files memdir-host wrote there.
        for sub in ["keys", "tmp"] {
            let dir = self.root.join(sub);
            if let Ok(entries) = fs::read_dir(&dir) {
                for entry in entries.flatten() {
                    if entry.file_type().is_ok_and(|t| t.is_file()) {
                        let _ = fs::remove_file(entry.path());
                    }
                }
            }
            let _ = fs::remove_dir(&dir);
        }
        for name in ["turn", "lock"] {
            let p = self.root.join(name);
            if fs::symlink_metadata(&p).is_ok_and(|m| m.is_file()) {
                let _ = fs::remove_file(p);
            }
        }
        let _ = self.sync_dir();
        Ok(())
    }

    /// Removes temporary files that a crashed writer left long ago.
    fn sweep_temporaries(&self) {
        let Ok(entries) = fs::read_dir(&self.root) else {
            return;
        };
        for entry in entries.flatten() {
            let is_tmp = entry
                .file_name()
                .to_str()
                .is_some_and(|n| n.starts_with(format::TMP_PREFIX));
            if is_tmp
                && entry
                    .metadata()
                    .is_ok_and(|m| age(&m) > Duration::from_millis(format::TMP_STALE_MS))
            {
                let _ = fs::remove_file(entry.path());
            }
        }
    }

    fn path(&self, key: &str) -> Result<(String, PathBuf), StoreError> {
        let name = file_name(key).map_err(|_| StoreError::Failed)?;
        let path = self.root.join(&name);
        Ok((name, path))
    }

    /// Writes `bytes` to a fresh temporary file and syncs it; renaming it into
    /// place later publishes it whole.
    fn stage(&self, bytes: &[u8]) -> io::Result<Staged> {
        let staged = Staged(
            self.root
                .join(format!("{}{}", format::TMP_PREFIX, unique())),
        );
        let mut f = create_new(&staged.0)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        Ok(staged)
    }

    /// Makes the renames, links and removals in the directory durable.
    fn sync_dir(&self) -> io::Result<()> {
        File::open(&self.root).and_then(|d| d.sync_all())
    }

    /// Waits up to `wait` for the lock file `name`; `None` when the wait ended.
    /// Every way round the loop passes the deadline check, whatever sits at the
    /// lock's path.
    fn acquire(&self, name: &str, wait: Duration) -> Result<Option<Held>, StoreError> {
        let path = self.root.join(name);
        let token = format::lock_token(std::process::id(), &self.host, &unique());
        let start = std::time::Instant::now();
        let mut pause = Duration::from_micros(200);
        loop {
            match create_new(&path) {
                Ok(mut f) => {
                    if let Err(e) = f.write_all(token.as_bytes()) {
                        let _ = fs::remove_file(&path);
                        return Err(kind(e));
                    }
                    return Ok(Some(Held { path, token }));
                }
                Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
                Err(e) => return Err(kind(e)),
            }
            let broke = self.break_if_stale(&path);
            if start.elapsed() >= wait {
                return Ok(None);
            }
            if !broke {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(25));
            }
        }
    }

    /// Breaks a lock whose owner process is gone or that is too old to be live;
    /// true when the lock may be free now.
    fn break_if_stale(&self, path: &Path) -> bool {
        let meta = match fs::symlink_metadata(path) {
            Ok(m) => m,
            Err(e) => return e.kind() == ErrorKind::NotFound, // released meanwhile
        };
        let token = read_small(path);
        let token_text = token.as_deref().and_then(|t| std::str::from_utf8(t).ok());
        let age_ms = u64::try_from(age(&meta).as_millis()).unwrap_or(u64::MAX);
        if !format::lock_is_stale(
            token_text,
            age_ms,
            &self.host,
            std::process::id(),
            process_alive,
        ) {
            return false;
        }
        // Moved aside first: of two processes breaking one lock, one wins the rename.
        let mut aside = path.as_os_str().to_owned();
        aside.push(format!(".stale-{}", unique()));
        let aside = PathBuf::from(aside);
        if fs::rename(path, &aside).is_err() {
            return true;
        }
        if token.is_some() && read_small(&aside) != token {
            // A lock taken after our check: put it back unless a newer one exists.
            let _ = fs::hard_link(&aside, path);
        }
        if fs::remove_file(&aside).is_err() {
            let _ = fs::remove_dir(&aside);
        }
        true
    }

    /// Takes the turn (see [`format::TURN_WANT`]): first letting a fresh waiter
    /// that is not us go ahead, then saying that we wait while we do. `None` when
    /// `wait` ended first (the command then runs without it).
    fn acquire_turn(&self, wait: Duration) -> Option<Held> {
        let path = self.root.join(format::TURN_LOCK);
        let want = self.root.join(format::TURN_WANT);
        let token = format::lock_token(std::process::id(), &self.host, &unique());
        let start = std::time::Instant::now();
        let poll = Duration::from_millis(format::TURN_POLL_MS);
        while start.elapsed() < wait {
            let wanted = fs::symlink_metadata(&want)
                .ok()
                .filter(|m| age(m) < Duration::from_millis(format::WANT_FRESH_MS));
            if wanted.is_some() && read_small(&want).as_deref() != Some(token.as_bytes()) {
                std::thread::sleep(poll);
                continue;
            }
            match create_new(&path) {
                Ok(mut f) => {
                    if f.write_all(token.as_bytes()).is_err() {
                        let _ = fs::remove_file(&path);
                        return None;
                    }
                    if wanted.is_some() {
                        let _ = fs::remove_file(&want);
                    }
                    return Some(Held { path, token });
                }
                Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
                Err(_) => return None,
            }
            self.break_if_stale(&path);
            let said = File::options()
                .write(true)
                .create(true)
                .truncate(true)
                .mode(FILE_MODE)
                .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
                .open(&want)
                .and_then(|mut f| f.write_all(token.as_bytes()));
            let _ = said; // a waiter that cannot say so still waits, only unfavoured
            std::thread::sleep(poll);
        }
        None
    }

    fn lock_key(&self, name: &str) -> Result<Held, StoreError> {
        self.acquire(&format::lock_name(name), self.lock_wait)?
            .ok_or(StoreError::Unavailable)
    }

    fn read(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let (_, path) = self.path(key)?;
        let f = match open_read(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(kind(e)),
        };
        let meta = f.metadata().map_err(kind)?;
        if !meta.is_file() {
            return Err(StoreError::Failed);
        }
        self.read_open(&f, meta.len(), key).map(Some)
    }

    /// `key`'s value in the pack open at `f`, of `size` bytes.
    fn read_open(&self, f: &File, size: u64, key: &str) -> Result<Vec<u8>, StoreError> {
        // Only the index and the wanted value: a pack may hold a whole import.
        let mut head = read_at(f, 0, size.min(4096))?;
        loop {
            match format::locate(&head, size, key).map_err(|_| StoreError::Failed)? {
                Locate::Need(n) => head = read_at(f, 0, n)?,
                Locate::Found { offset, len } => return read_at(f, offset, len),
            }
        }
    }

    /// The other keys of the pack open at `f` when it holds `key` (see
    /// [`format::mates`]); none for a damaged file, whose keys cannot be known.
    fn mates(&self, f: &File, size: u64, key: &str) -> Result<Vec<String>, StoreError> {
        let mut head = read_at(f, 0, size.min(4096))?;
        loop {
            match format::mates(&head, size, key) {
                Ok(Mates::Need(n)) => head = read_at(f, 0, n)?,
                Ok(Mates::Keys(keys)) => return Ok(keys),
                Err(_) => return Ok(Vec::new()),
            }
        }
    }

    /// Rewrites `mate` as a pack of its own value only, if its file still holds
    /// `deleted`'s value: under `mate`'s lock, so no set or swap of it interleaves;
    /// its value is copied byte for byte, so a reader sees the old pack or the new
    /// one, with the same value. A mate gone meanwhile stays gone.
    fn split(&self, mate: &str, deleted: &str) -> Result<(), StoreError> {
        let (name, path) = self.path(mate)?;
        let _lock = self.lock_key(&name)?;
        let f = match open_read(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(kind(e)),
        };
        let meta = f.metadata().map_err(kind)?;
        if !meta.is_file() || self.mates(&f, meta.len(), deleted)?.is_empty() {
            return Ok(());
        }
        // A pack holding `deleted` but not `mate` is damaged: there is no value
        // of its own to keep, so it stays as it is (reading it is an error).
        let Some(value) = self.read_open(&f, meta.len(), mate).ok() else {
            return Ok(());
        };
        let pack = format::pack(&[(mate, &value)]).map_err(|_| StoreError::Failed)?;
        let staged = self.stage(&pack).map_err(kind)?;
        fs::rename(&staged.0, &path).map_err(kind)?;
        std::mem::forget(staged);
        Ok(())
    }

    /// Removes a key's name, then makes that durable.
    fn unlink(&self, path: &Path) -> Result<(), StoreError> {
        match fs::remove_file(path) {
            Ok(()) => self.sync_dir().map_err(kind),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
            Err(e) => Err(kind(e)),
        }
    }

    /// Whether `key`'s name already holds `value`: a commit then leaves the
    /// object out of its pack, so a value is packed once (see [`format::mates`]).
    fn holds(&self, key: &str, value: &[u8]) -> bool {
        matches!(self.read(key), Ok(Some(v)) if v == value)
    }

    /// Makes `name` another link to the staged pack, replacing what it named; on
    /// a filesystem without hard links, a copy of `bytes` instead.
    fn link_as(&self, staged: &Staged, name: &str, bytes: &[u8]) -> Result<(), StoreError> {
        let target = self.root.join(name);
        let tmp = Staged(
            self.root
                .join(format!("{}{}", format::TMP_PREFIX, unique())),
        );
        match fs::hard_link(&staged.0, &tmp.0) {
            Ok(()) => {}
            Err(e) if no_links(&e) => {
                let copy = self.stage(bytes).map_err(kind)?;
                fs::rename(&copy.0, &target).map_err(kind)?;
                std::mem::forget(copy);
                return Ok(());
            }
            Err(e) => return Err(kind(e)),
        }
        // Renamed over the name, atomically (a link to the same file leaves `tmp`,
        // which its drop removes).
        fs::rename(&tmp.0, &target).map_err(kind)
    }
}

/// Exactly `len` bytes at `offset` of `f`; a short file is a damaged one.
fn read_at(f: &File, offset: u64, len: u64) -> Result<Vec<u8>, StoreError> {
    let len = usize::try_from(len).map_err(|_| StoreError::Failed)?;
    let mut buf = vec![0; len];
    f.read_exact_at(&mut buf, offset)
        .map_err(|e| match e.kind() {
            ErrorKind::UnexpectedEof => StoreError::Failed,
            _ => kind(e),
        })?;
    Ok(buf)
}

impl Backend for DirBackend {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.read(key)
    }

    fn set(&self, key: &str, value: &[u8]) -> Result<(), StoreError> {
        let (name, path) = self.path(key)?;
        let pack = format::pack(&[(key, value)]).map_err(|_| StoreError::Failed)?;
        let staged = self.stage(&pack).map_err(kind)?;
        let _lock = self.lock_key(&name)?;
        fs::rename(&staged.0, path).map_err(kind)?;
        std::mem::forget(staged);
        Ok(())
    }

    /// Leaves no byte of the value on the disk: when the key's file is a pack
    /// shared with other keys, each of them still linked to it is first rewritten
    /// as a pack of its own ([`format::mates`]), one lock at a time (two deletes
    /// of one pack's keys would otherwise wait on each other's lock); the key's
    /// name is then unlinked if it still names the pack that was split (the open
    /// file keeps its inode from being reused meanwhile), or looked at afresh.
    fn delete(&self, key: &str) -> Result<(), StoreError> {
        let (name, path) = self.path(key)?;
        let mut split: Option<File> = None;
        loop {
            let mates = {
                let _lock = self.lock_key(&name)?;
                let f = match open_read(&path) {
                    Ok(f) => f,
                    Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
                    // A symlink or a FIFO at a key's name: unlinked, never followed.
                    Err(_) => return self.unlink(&path),
                };
                let meta = f.metadata().map_err(kind)?;
                let same = |old: &File| {
                    old.metadata()
                        .is_ok_and(|m| (m.dev(), m.ino()) == (meta.dev(), meta.ino()))
                };
                let mates = if !meta.is_file() || split.as_ref().is_some_and(same) {
                    Vec::new()
                } else {
                    self.mates(&f, meta.len(), key)?
                };
                if mates.is_empty() {
                    return self.unlink(&path);
                }
                split = Some(f);
                mates
            };
            for mate in &mates {
                self.split(mate, key)?;
            }
        }
    }

    fn list(
        &self,
        prefix: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        let mut names = Vec::new();
        for entry in fs::read_dir(&self.root).map_err(kind)? {
            if let Ok(name) = entry.map_err(kind)?.file_name().into_string() {
                names.push(name);
            }
        }
        Ok(format::list_keys(
            names.iter().map(String::as_str),
            prefix,
            after,
            limit,
        ))
    }

    fn compare_and_swap(
        &self,
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError> {
        self.commit(&[], key, expected, new)
    }

    /// One pack of the objects and the new value, written and synced before the
    /// lock is taken; under the lock the swap is checked first, so a refused
    /// commit publishes nothing. The objects are made durable before the key that
    /// points at them.
    fn commit(
        &self,
        objects: &[(String, Vec<u8>)],
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError> {
        let (name, path) = self.path(key)?;
        for (k, _) in objects {
            self.path(k)?;
        }
        // An object already stored under its name stays out of the pack: packed
        // twice, a later delete would leave the older copy behind.
        let (stored, fresh): (Vec<_>, Vec<_>) = objects.iter().partition(|(k, v)| self.holds(k, v));
        let names = fresh
            .iter()
            .map(|(k, _)| self.path(k).map(|(n, _)| n))
            .collect::<Result<Vec<_>, _>>()?;
        let mut entries: Vec<(&str, &[u8])> = fresh
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_slice()))
            .collect();
        entries.push((key, new));
        let pack = format::pack(&entries).map_err(|_| StoreError::Failed)?;
        let staged = self.stage(&pack).map_err(kind)?;
        let _lock = self.lock_key(&name)?;
        let matches = match self.read(key) {
            Ok(v) => v.as_deref() == expected,
            Err(StoreError::Failed) => false, // a damaged value matches nothing
            Err(e) => return Err(e),
        };
        if !matches {
            return Ok(false);
        }
        for n in &names {
            self.link_as(&staged, n, &pack)?;
        }
        // One left out but deleted since (a sweep): written again, on its own.
        for (k, v) in &stored {
            let (_, p) = self.path(k)?;
            if fs::symlink_metadata(&p).is_err_and(|e| e.kind() == ErrorKind::NotFound) {
                let own =
                    format::pack(&[(k.as_str(), v.as_slice())]).map_err(|_| StoreError::Failed)?;
                let copy = self.stage(&own).map_err(kind)?;
                fs::rename(&copy.0, &p).map_err(kind)?;
                std::mem::forget(copy);
            }
        }
        // Earlier links and renames (these objects, and plain sets) before the key's.
        self.sync_dir().map_err(kind)?;
        fs::rename(&staged.0, path).map_err(kind)?;
        std::mem::forget(staged);
        self.sync_dir().map_err(kind)?;
        Ok(true)
    }

    fn turn(&self) -> Option<Box<dyn Send>> {
        self.acquire_turn(TURN_WAIT)
            .map(|held| Box::new(held) as Box<dyn Send>)
    }
}
