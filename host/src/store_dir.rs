//! A backend in a store directory on disk, shared safely by any number of
//! processes: the `memdir-store` format, the same one the Node directory store
//! (`js/stores/store-dir.js`) reads and writes. What each file means is decided in
//! [`memdir::store_dir`], and the order of the system calls of every read and change
//! (opening and converting the directory, locks, packs, links, renames, syncs,
//! deletes and their pack mates) in [`memdir::store_dir::protocol`], shared with
//! Node; this module drives the protocol, takes the turn, and implements the
//! protocol's [`DirIo`] with `std::fs`.
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
//! Why the turn ([`TURN_LOCK`](memdir::store_dir::TURN_LOCK)): the engine publishes optimistically from its cached
//! head, so of two processes streaming writes the one that just won starts its next
//! command ahead while the loser re-reads what changed, and can lose every retry.
//! Hosts take turns for a whole command instead, as Node's memories on a directory
//! do (`js/stores/store-dir.js`, `inTurn`); the compare-and-swap still guards every
//! writer that does not (one that gave up waiting for the turn, or a store's own
//! `set` and `compareAndSwap` called directly).

use std::fs::{self, File};
use std::io::{self, ErrorKind, Read, Write};
use std::os::unix::fs::{DirBuilderExt, FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant, SystemTime};

use memdir::DirError;
use memdir::StoreError;
use memdir::store_dir::protocol::{
    self, Commit, Delete, DirIo, Durability, Error, IoKind, Listing, Opened, Poll, Set, TurnPoll,
};
use memdir::store_dir::{self as format, EntryKind};

use crate::backend::{Backend, TURN_WAIT, store_for};

const FILE_MODE: u32 = 0o600;
const DIR_MODE: u32 = 0o700;

#[derive(Debug)]
pub struct DirBackend {
    root: PathBuf,
    host: String,
    lock_wait: Duration,
    /// The keys a paged listing read, for its next pages ([`Listing`]).
    listing: Mutex<Listing>,
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

/// What an entry is, as `lstat` sees it.
fn entry_kind(t: fs::FileType) -> EntryKind {
    if t.is_symlink() {
        EntryKind::Symlink
    } else if t.is_dir() {
        EntryKind::Dir
    } else if t.is_file() {
        EntryKind::File
    } else {
        EntryKind::Other
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

/// Holds the turn until dropped; removes its lock only if it is still ours (it may
/// have been broken as stale meanwhile).
struct TurnHeld {
    root: PathBuf,
    host: String,
    held: Option<protocol::Held>,
}

impl Drop for TurnHeld {
    fn drop(&mut self) {
        if let Some(held) = self.held.take() {
            held.release(&mut HostIo {
                root: &self.root,
                host: &self.host,
            });
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

impl DirBackend {
    /// Opens the store in `dir`: creates it when missing or empty, opens a
    /// `memdir-store` directory (marking or converting one of the layouts from
    /// before the marker), and refuses anything else with nothing written
    /// ([`protocol::Open`], shared with Node, which leaves the old host layout to
    /// the host: converting it takes that layout's `flock`).
    pub fn open(dir: impl AsRef<Path>) -> Result<Self, DirError> {
        let host = rustix::system::uname()
            .nodename()
            .to_string_lossy()
            .into_owned();
        let store = DirBackend {
            root: dir.as_ref().to_path_buf(),
            host,
            lock_wait: Duration::from_millis(memdir::config::LOCK_WAIT_MS),
            listing: Mutex::default(),
        };
        let mut open = protocol::Open::new(true);
        protocol::run(&mut store.io(), |io, last| open.poll(io, last))?;
        Ok(store)
    }

    /// The same store, waiting at most `wait` for a key's lock (tests).
    pub fn with_lock_wait(mut self, wait: Duration) -> Self {
        self.lock_wait = wait;
        self
    }

    /// The listing's kept keys; a thread that panicked holding them left nothing
    /// half-made (a page is cut from them or they are replaced whole).
    fn listing(&self) -> MutexGuard<'_, Listing> {
        self.listing.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs a change to its end, then lets the kept listing go, so that the pages
    /// listed after it show it.
    fn change<R>(
        &self,
        io: &mut HostIo<'_>,
        poll: impl FnMut(&mut HostIo<'_>, io::Result<()>) -> Poll<R>,
    ) -> R {
        let r = protocol::run(io, poll);
        self.listing().forget();
        r
    }

    /// The protocol's system calls in this directory.
    fn io(&self) -> HostIo<'_> {
        HostIo {
            root: &self.root,
            host: &self.host,
        }
    }

    fn wait_ms(&self) -> u64 {
        u64::try_from(self.lock_wait.as_millis()).unwrap_or(u64::MAX)
    }

    /// Takes the turn ([`protocol::Turn`]); `None` when `wait` ended first (the
    /// command then runs without it).
    fn acquire_turn(&self, wait: Duration) -> Option<TurnHeld> {
        let mut io = self.io();
        let wait_ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX);
        let mut turn = protocol::Turn::new(&mut io, wait_ms);
        loop {
            match turn.poll(&mut io) {
                TurnPoll::Held(held) => {
                    return Some(TurnHeld {
                        root: self.root.clone(),
                        host: self.host.clone(),
                        held: Some(held),
                    });
                }
                TurnPoll::Wait(us) => io.sleep(us),
                TurnPoll::GaveUp => return None,
            }
        }
    }
}

/// A protocol error as the engine's kinds; the OS text and the path stay here.
fn store_error(e: Error<io::Error>) -> StoreError {
    match e {
        Error::Io(e) => kind(e),
        Error::Locked => StoreError::Unavailable,
        Error::NotAFile | Error::Damaged | Error::Format(_) => StoreError::Failed,
    }
}

/// The protocol's system calls ([`DirIo`]) with `std::fs`, on names in `root`.
struct HostIo<'a> {
    root: &'a Path,
    host: &'a str,
}

impl DirIo for HostIo<'_> {
    type File = File;
    type Id = (u64, u64);
    type Error = io::Error;

    fn kind(e: &io::Error) -> IoKind {
        if no_links(e) {
            return IoKind::NoLinks;
        }
        if rustix::io::Errno::from_io_error(e) == Some(rustix::io::Errno::LOOP) {
            return IoKind::Loop;
        }
        match e.kind() {
            ErrorKind::NotFound => IoKind::NotFound,
            ErrorKind::AlreadyExists => IoKind::Exists,
            ErrorKind::StorageFull | ErrorKind::QuotaExceeded | ErrorKind::FileTooLarge => {
                IoKind::Full
            }
            ErrorKind::PermissionDenied | ErrorKind::ReadOnlyFilesystem => IoKind::Denied,
            ErrorKind::NotADirectory => IoKind::NotADirectory,
            _ => IoKind::Other,
        }
    }

    fn open(&mut self, name: &str) -> io::Result<Opened<File>> {
        let file = open_read(&self.root.join(name))?;
        let meta = file.metadata()?;
        Ok(Opened {
            file,
            size: meta.len(),
            regular: meta.is_file(),
        })
    }

    fn read_at(&mut self, f: &File, offset: u64, len: u64) -> io::Result<Vec<u8>> {
        let len = usize::try_from(len).map_err(|_| io::Error::from(ErrorKind::OutOfMemory))?;
        let mut buf = vec![0; len];
        let mut done = 0;
        while let Some(rest) = buf.get_mut(done..).filter(|r| !r.is_empty()) {
            match f.read_at(rest, offset + done as u64) {
                Ok(0) => break,
                Ok(n) => done += n,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        buf.truncate(done);
        Ok(buf)
    }

    fn file_id(&mut self, f: &File) -> io::Result<(u64, u64)> {
        f.metadata().map(|m| (m.dev(), m.ino()))
    }

    fn close(&mut self, f: File) {
        drop(f);
    }

    fn stage(&mut self, bytes: &[u8]) -> io::Result<String> {
        let name = format!("{}{}", format::TMP_PREFIX, unique());
        let path = self.root.join(&name);
        let written = create_new(&path).and_then(|mut f| f.write_all(bytes));
        if let Err(e) = written {
            let _ = fs::remove_file(&path);
            return Err(e);
        }
        Ok(name)
    }

    fn sync_file(&mut self, name: &str) -> io::Result<()> {
        open_read(&self.root.join(name))?.sync_all()
    }

    fn create_excl(&mut self, name: &str, bytes: &[u8]) -> io::Result<()> {
        let path = self.root.join(name);
        let mut f = create_new(&path)?;
        if let Err(e) = f.write_all(bytes) {
            let _ = fs::remove_file(&path);
            return Err(e);
        }
        Ok(())
    }

    fn replace(&mut self, name: &str, bytes: &[u8]) -> io::Result<()> {
        File::options()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(FILE_MODE)
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
            .open(self.root.join(name))
            .and_then(|mut f| f.write_all(bytes))
    }

    fn read_small(&mut self, name: &str) -> Option<Vec<u8>> {
        read_small(&self.root.join(name))
    }

    fn exists(&mut self, name: &str) -> io::Result<bool> {
        match fs::symlink_metadata(self.root.join(name)) {
            Ok(_) => Ok(true),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }

    fn age_ms(&mut self, name: &str) -> io::Result<u64> {
        let meta = fs::symlink_metadata(self.root.join(name))?;
        Ok(u64::try_from(age(&meta).as_millis()).unwrap_or(u64::MAX))
    }

    fn link(&mut self, from: &str, to: &str) -> io::Result<()> {
        fs::hard_link(self.root.join(from), self.root.join(to))
    }

    fn rename(&mut self, from: &str, to: &str) -> io::Result<()> {
        fs::rename(self.root.join(from), self.root.join(to))
    }

    fn unlink(&mut self, name: &str) -> io::Result<()> {
        fs::remove_file(self.root.join(name))
    }

    fn remove_dir(&mut self, name: &str) -> io::Result<()> {
        fs::remove_dir(self.root.join(name))
    }

    fn sync_dir(&mut self) -> io::Result<()> {
        File::open(self.root).and_then(|d| d.sync_all())
    }

    fn list(&mut self) -> io::Result<Vec<String>> {
        let mut names = Vec::new();
        for entry in fs::read_dir(self.root)? {
            if let Ok(name) = entry?.file_name().into_string() {
                names.push(name);
            }
        }
        Ok(names)
    }

    fn root_kind(&mut self) -> io::Result<EntryKind> {
        fs::symlink_metadata(self.root).map(|m| entry_kind(m.file_type()))
    }

    fn create_root(&mut self) -> io::Result<()> {
        fs::DirBuilder::new()
            .recursive(true)
            .mode(DIR_MODE)
            .create(self.root)
    }

    fn entries(&mut self, sub: Option<&str>) -> io::Result<Vec<(String, EntryKind)>> {
        let dir = sub.map_or_else(|| self.root.to_path_buf(), |s| self.root.join(s));
        let mut out = Vec::new();
        for entry in fs::read_dir(dir)? {
            let entry = entry?;
            let kind = entry_kind(entry.file_type()?);
            out.push((entry.file_name().to_string_lossy().into_owned(), kind));
        }
        Ok(out)
    }

    fn lock_file(&mut self, f: &File) -> io::Result<()> {
        f.lock()
    }

    fn unique(&mut self) -> String {
        unique()
    }

    fn now_ms(&mut self) -> u64 {
        static START: OnceLock<Instant> = OnceLock::new();
        u64::try_from(START.get_or_init(Instant::now).elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn pid(&self) -> u32 {
        std::process::id()
    }

    fn host(&self) -> &str {
        self.host
    }

    fn alive(&mut self, pid: u32) -> bool {
        process_alive(pid)
    }

    fn sleep(&mut self, micros: u64) {
        std::thread::sleep(Duration::from_micros(micros));
    }
}

impl Backend for DirBackend {
    /// Temporaries older than `older_than_ms` go (`protocol::sweep_temporaries_older_than`),
    /// as the npm package's directory store sweeps them after a re-encryption.
    fn sweep_left_behind(&self, older_than_ms: u64) {
        let mut io = self.io();
        if let Ok(names) = io.list() {
            protocol::sweep_temporaries_older_than(&mut io, &names, older_than_ms);
        }
    }

    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        protocol::read_value(&mut self.io(), key).map_err(store_error)
    }

    fn set(&self, key: &str, value: &[u8]) -> Result<(), StoreError> {
        let mut op = Set::new(key, value, self.wait_ms(), Durability::strict())
            .map_err(|_| StoreError::Failed)?;
        self.change(&mut self.io(), |io, last| op.poll(io, last))
            .map_err(store_error)
    }

    /// Leaves no byte of the value on the disk ([`Delete`]).
    fn delete(&self, key: &str) -> Result<(), StoreError> {
        let mut op = Delete::new(key, self.wait_ms(), Durability::strict())
            .map_err(|_| StoreError::Failed)?;
        self.change(&mut self.io(), |io, last| op.poll(io, last))
            .map_err(store_error)
    }

    fn list(
        &self,
        prefix: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        self.listing()
            .page(&mut self.io(), prefix, after, limit)
            .map_err(store_error)
    }

    fn compare_and_swap(
        &self,
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError> {
        self.commit(&[], key, expected, new)
    }

    /// One pack of the objects and the new value ([`Commit`]); a refused commit
    /// publishes nothing, and the objects are durable before the key that points
    /// at them.
    fn commit(
        &self,
        objects: &[(String, Rc<[u8]>)],
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError> {
        let objects: Vec<(&str, &[u8])> = objects.iter().map(|(k, v)| (k.as_str(), &**v)).collect();
        let mut io = self.io();
        let mut op = Commit::new(
            &mut io,
            &objects,
            key,
            expected,
            new,
            self.wait_ms(),
            Durability::strict(),
        )
        .map_err(store_error)?;
        self.change(&mut io, |io, last| op.poll(io, last))
            .map_err(store_error)
    }

    fn turn(&self) -> Option<Box<dyn Send>> {
        self.acquire_turn(TURN_WAIT)
            .map(|held| Box::new(held) as Box<dyn Send>)
    }
}
