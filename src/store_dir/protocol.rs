//! The store directory's protocol: the order of system calls of opening a store
//! directory and of every change to one, written once for both tools that share one (the Node directory
//! store, `js/stores/directory.js`, through the wasm; the host's directory backend,
//! `host/src/dir.rs`). [`super`] says what a name or a file means; this module says
//! in which order they are written, locked, linked, renamed, synced and removed.
//!
//! Design: the sequencing is sans-IO. Each tool implements [`DirIo`], a handful of
//! synchronous calls on names in the one directory (open and read at an offset,
//! stage a temporary file, create a lock exclusively, link, rename, unlink, list,
//! the clock...), the host with `std::fs`, Node with `node:fs`'s synchronous calls
//! (each a few microseconds on a local disk). What must not block a JS event loop
//! is not done through it but handed back to the driver as a [`Poll`]: a wait for a
//! lock held by another process ([`Poll::Wait`], a timer in JS, a sleep in the host)
//! and the fsyncs of the hot path ([`Poll::SyncFile`] for the pack before its lock
//! is taken, [`Poll::SyncDir`] for the directory after a change), which take
//! milliseconds and run off the event loop in Node. An operation ([`Open`],
//! [`Set`], [`Commit`], [`Delete`]) is a small state machine polled until it is
//! ready; reads ([`read_value`], [`list`]) and the rare rewrites of a delete's pack
//! mates and of the old host layout's conversion run straight through (syncing
//! inline). The host drives
//! everything with [`run`]. Chosen over a full step machine (every system call a
//! request) because a JS call out of the wasm costs about what a wasm call costs,
//! so the number of crossings per operation stays what it was, and the code reads
//! as the sequence it is.
//!
//! Within one process, a key's lock is never held across a JS await unless the
//! directory is synced after each change, so commands of one process no longer
//! queue on each other in JS: a lock file another one of them holds is waited for
//! like any other.
//!
//! Durability: a pack is synced before it is linked or renamed. [`Durability`] says
//! when the directory is synced: the host's ([`Durability::strict`]) before and after
//! a compare-and-swap renames its key and after a delete, Node's only when asked
//! (`syncDirectory`), after each change.

//!
//! Where the two tools used to differ, and the rule kept: a refused commit publishes
//! nothing (the host's; Node linked the objects anyway, which nothing reads); a
//! name is linked directly first and only replaced by a link renamed over it when it
//! exists (Node's, one rename fewer); a symlink at a pack mate's name is left alone
//! by a delete (Node's; the host failed); a head that cannot be read for another
//! reason than damage fails a commit instead of being taken as a mismatch (the
//! host's); a busy lock is looked at again after 0.2 ms, doubling to 25 ms (the
//! host's; Node's was jittered 0.5-37 ms). The directory syncs stay each tool's
//! ([`Durability`]). Opening ([`Open`]): a store path under a file is not a
//! directory (Node's; the host said it could not be opened), a directory just
//! created is looked at again before it is read (Node's), a marker that cannot be
//! written is [`DirError::Io`] (the host's; Node threw the system call's own error,
//! path included), and a name that is not UTF-8 is not memdir's whatever its prefix
//! (the host's; Node let one starting `.tmp-` or `.lock-` pass).
//!
//! Still each tool's own: whether it converts the old host layout (the host; it
//! needs `flock`, which Node lacks, so Node refuses that layout), the Node
//! process's queue for its turn, and how an error is shown (the host's
//! [`crate::StoreError`] kinds, Node's own `fs` errors as thrown).

use alloc::string::String;
use alloc::vec::Vec;

use super::{DirError, Locate, Mates};

mod open;
pub use open::Open;

/// What a failed system call means to the protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IoKind {
    /// No such name.
    NotFound,
    /// The name exists (an exclusive create or a link).
    Exists,
    /// The filesystem (or the inode) takes no more hard links.
    NoLinks,
    /// A symlink at the name, refused (`O_NOFOLLOW`).
    Loop,
    /// The disk is full.
    Full,
    /// Permission denied, a read-only filesystem.
    Denied,
    /// A component of the path is not a directory (`ENOTDIR`).
    NotADirectory,
    Other,
}

/// An open file (regular or not, never through a symlink).
pub struct Opened<F> {
    pub file: F,
    pub size: u64,
    pub regular: bool,
}

/// The system calls, on names in the store directory; none follows a symlink. A
/// name is one entry of the directory, or `sub/entry` for an entry of one of its
/// subdirectories (only the old host layout's `keys/` and `tmp/`, when converted).
pub trait DirIo {
    /// An open file.
    type File;
    /// A file's identity (device and inode), to tell whether a name still names it.
    type Id: PartialEq;
    /// A failed call: handed back to the tool as it was, for its own error.
    type Error;
    /// What the failure means.
    fn kind(e: &Self::Error) -> IoKind;
    /// Opens `name` for reading (`O_NOFOLLOW`, `O_NONBLOCK`).
    fn open(&mut self, name: &str) -> Result<Opened<Self::File>, Self::Error>;
    /// Up to `len` bytes at `offset` (fewer only at the end of the file).
    fn read_at(&mut self, f: &Self::File, offset: u64, len: u64) -> Result<Vec<u8>, Self::Error>;
    /// The file's identity.
    fn file_id(&mut self, f: &Self::File) -> Result<Self::Id, Self::Error>;
    fn close(&mut self, f: Self::File);
    /// A new temporary file (`O_EXCL`, 0600, name starting [`super::TMP_PREFIX`])
    /// holding `bytes`, not yet synced; its name. Removed again when writing fails.
    fn stage(&mut self, bytes: &[u8]) -> Result<String, Self::Error>;
    /// Makes the file `name` durable.
    fn sync_file(&mut self, name: &str) -> Result<(), Self::Error>;
    /// Creates `name` exclusively holding `bytes` (a lock); removed again when
    /// writing fails.
    fn create_excl(&mut self, name: &str, bytes: &[u8]) -> Result<(), Self::Error>;
    /// Writes `name` whole, created or truncated (0600, never through a symlink):
    /// the turn's want.
    fn replace(&mut self, name: &str, bytes: &[u8]) -> Result<(), Self::Error>;
    /// The first 256 bytes of the regular file `name`, if it can be read.
    fn read_small(&mut self, name: &str) -> Option<Vec<u8>>;
    /// Whether anything is at `name` (`lstat`); a path through something that is
    /// not a directory may also answer false (Node's `lstat` tells it from an
    /// absent name only by throwing).
    fn exists(&mut self, name: &str) -> Result<bool, Self::Error>;
    /// How long ago `name` was last modified (`lstat`), in milliseconds; for a
    /// path through something that is not a directory, Node's may fail as for an
    /// absent name (see [`DirIo::exists`]).
    fn age_ms(&mut self, name: &str) -> Result<u64, Self::Error>;
    fn link(&mut self, from: &str, to: &str) -> Result<(), Self::Error>;
    fn rename(&mut self, from: &str, to: &str) -> Result<(), Self::Error>;
    fn unlink(&mut self, name: &str) -> Result<(), Self::Error>;
    /// Removes an empty directory at `name`.
    fn remove_dir(&mut self, name: &str) -> Result<(), Self::Error>;
    /// Makes the renames, links and removals in the directory durable.
    fn sync_dir(&mut self) -> Result<(), Self::Error>;
    /// The directory's names.
    fn list(&mut self) -> Result<Vec<String>, Self::Error>;
    /// What the store directory itself is (`lstat`: a symlink is not followed).
    fn root_kind(&mut self) -> Result<super::EntryKind, Self::Error>;
    /// Creates the store directory, and its missing parents, 0700.
    fn create_root(&mut self) -> Result<(), Self::Error>;
    /// The names in the directory, or in its subdirectory `sub`, each with its
    /// kind (`lstat`); a name that is not UTF-8 comes with U+FFFD in place of its
    /// bad bytes (what `to_string_lossy` and Node's `readdir` give), which
    /// [`super::classify`] refuses.
    fn entries(
        &mut self,
        sub: Option<&str>,
    ) -> Result<Vec<(String, super::EntryKind)>, Self::Error>;
    /// Takes an exclusive advisory lock (`flock`) on the open file `f`, held until
    /// it is closed: the old host layout's `lock`, which a host of that layout
    /// held for each change. Called only by a tool that converts that layout
    /// ([`Open::new`]), so Node, which has no `flock`, need not implement it.
    fn lock_file(&mut self, f: &Self::File) -> Result<(), Self::Error>;
    /// A string no other writer in any process uses at the same time.
    fn unique(&mut self) -> String;
    /// A clock in milliseconds (for deadlines only).
    fn now_ms(&mut self) -> u64;
    /// This process and its host, as lock tokens name them.
    fn pid(&self) -> u32;
    fn host(&self) -> &str;
    /// Whether process `pid` of this host still runs.
    fn alive(&mut self, pid: u32) -> bool;
    /// Blocks for `micros` ([`run`]'s waits; a JS driver uses a timer instead).
    fn sleep(&mut self, micros: u64);
}

/// Why an operation failed.
#[derive(Debug, PartialEq, Eq)]
pub enum Error<E> {
    /// A system call failed.
    Io(E),
    /// A key's lock was not had before its deadline.
    Locked,
    /// A key's name holds something that is not a regular file.
    NotAFile,
    /// A pack is damaged (short, or its index disagrees).
    Damaged,
    /// A key too long for a file name, a value too large for a pack.
    Format(DirError),
}

impl<E> From<DirError> for Error<E> {
    fn from(e: DirError) -> Self {
        match e {
            DirError::DamagedFile => Error::Damaged,
            e => Error::Format(e),
        }
    }
}

/// When the directory itself is synced (a pack is always synced before it is linked
/// or renamed into place).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Durability {
    /// Before and after a compare-and-swap renames its key, and after a delete: the
    /// objects a new head points at are durable before the head is.
    pub around_swap: bool,
    /// After each change (set, swap, delete): durable at once.
    pub each_change: bool,
}

impl Durability {
    /// The host's.
    pub const fn strict() -> Self {
        Durability {
            around_swap: true,
            each_change: false,
        }
    }
}

/// What an operation asks of its driver before it is polled again.
#[derive(Debug, PartialEq, Eq)]
pub enum Poll<T> {
    Ready(T),
    /// Poll again after this many microseconds.
    Wait(u64),
    /// Sync the file of this name, then poll again with the outcome.
    SyncFile(String),
    /// Sync the directory, then poll again with the outcome.
    SyncDir,
}

impl<T> Poll<T> {
    /// The same step, with `f` applied to its outcome once ready.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Poll<U> {
        match self {
            Poll::Ready(r) => Poll::Ready(f(r)),
            Poll::Wait(us) => Poll::Wait(us),
            Poll::SyncFile(n) => Poll::SyncFile(n),
            Poll::SyncDir => Poll::SyncDir,
        }
    }
}

/// Drives `op` to its end, blocking: syncs and waits through `io`.
pub fn run<I: DirIo, R>(
    io: &mut I,
    mut poll: impl FnMut(&mut I, Result<(), I::Error>) -> Poll<R>,
) -> R {
    let mut last = Ok(());
    loop {
        last = match poll(io, last) {
            Poll::Ready(r) => return r,
            Poll::Wait(us) => {
                io.sleep(us);
                Ok(())
            }
            Poll::SyncFile(name) => io.sync_file(&name),
            Poll::SyncDir => io.sync_dir(),
        }
    }
}

// READING

/// Exactly `len` bytes at `offset`; a short file is a damaged one.
fn read_exact<I: DirIo>(
    io: &mut I,
    f: &I::File,
    offset: u64,
    len: u64,
) -> Result<Vec<u8>, Error<I::Error>> {
    let bytes = io.read_at(f, offset, len).map_err(Error::Io)?;
    if (bytes.len() as u64) < len {
        return Err(Error::Damaged);
    }
    Ok(bytes)
}

/// `key`'s value in the pack open at `f` (`size` bytes), reading only its index
/// and that value: a pack may hold a whole import.
fn value_in<I: DirIo>(
    io: &mut I,
    f: &I::File,
    size: u64,
    key: &str,
) -> Result<Vec<u8>, Error<I::Error>> {
    let mut head = read_exact(io, f, 0, size.min(4096))?;
    loop {
        match super::locate(&head, size, key)? {
            Locate::Need(n) => head = read_exact(io, f, 0, n)?,
            Locate::Found { offset, len } => {
                // A small pack is read whole with its index: no second read.
                let within = usize::try_from(offset)
                    .ok()
                    .zip(usize::try_from(offset + len).ok())
                    .and_then(|(from, to)| head.get(from..to));
                return match within {
                    Some(v) => Ok(Vec::from(v)),
                    None => read_exact(io, f, offset, len),
                };
            }
        }
    }
}

/// The other keys of the pack open at `f` when it holds `key` ([`super::mates`]);
/// none for a damaged file, whose keys cannot be known.
fn mates_in<I: DirIo>(
    io: &mut I,
    f: &I::File,
    size: u64,
    key: &str,
) -> Result<Vec<String>, Error<I::Error>> {
    let mut head = match read_exact(io, f, 0, size.min(4096)) {
        Err(Error::Damaged) => return Ok(Vec::new()),
        r => r?,
    };
    loop {
        match super::mates(&head, size, key) {
            Ok(Mates::Need(n)) => {
                head = match read_exact(io, f, 0, n) {
                    Err(Error::Damaged) => return Ok(Vec::new()),
                    r => r?,
                }
            }
            Ok(Mates::Keys(keys)) => return Ok(keys),
            Err(_) => return Ok(Vec::new()),
        }
    }
}

/// The value of `key`, or `None` when absent; never through a symlink.
pub fn read_value<I: DirIo>(io: &mut I, key: &str) -> Result<Option<Vec<u8>>, Error<I::Error>> {
    let name = super::file_name(key)?;
    let opened = match io.open(&name) {
        Ok(o) => o,
        Err(e) if I::kind(&e) == IoKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::Io(e)),
    };
    let r = if opened.regular {
        value_in(io, &opened.file, opened.size, key).map(Some)
    } else {
        Err(Error::NotAFile)
    };
    io.close(opened.file);
    r
}

/// The keys starting with `prefix`, strictly after `after`, ascending, at most `limit`.
pub fn list<I: DirIo>(
    io: &mut I,
    prefix: &str,
    after: Option<&str>,
    limit: usize,
) -> Result<Vec<String>, Error<I::Error>> {
    let names = io.list().map_err(Error::Io)?;
    Ok(super::list_keys(
        names.iter().map(String::as_str),
        prefix,
        after,
        limit,
    ))
}

/// Removes temporary files that a crashed writer left long ago.
pub fn sweep_temporaries<I: DirIo>(io: &mut I) {
    let Ok(names) = io.list() else { return };
    for name in names {
        if name.starts_with(super::TMP_PREFIX)
            && io.age_ms(&name).is_ok_and(|a| a > super::TMP_STALE_MS)
        {
            let _ = io.unlink(&name);
        }
    }
}

// LOCKS

/// A lock file this process holds.
#[derive(Debug)]
pub struct Held {
    name: String,
    token: String,
}

impl Held {
    /// Removes the lock only if it is still ours (it may have been broken as stale).
    pub fn release<I: DirIo>(self, io: &mut I) {
        if io.read_small(&self.name).as_deref() == Some(self.token.as_bytes()) {
            let _ = io.unlink(&self.name);
        }
    }
}

/// Breaks the lock `name` if its owner is gone or it is too old to be live; true
/// when it may be free now.
pub fn break_if_stale<I: DirIo>(io: &mut I, name: &str) -> bool {
    let age = match io.age_ms(name) {
        Ok(a) => a,
        Err(e) => return I::kind(&e) == IoKind::NotFound, // released meanwhile
    };
    let token = io.read_small(name);
    let text = token.as_deref().and_then(|t| core::str::from_utf8(t).ok());
    let (pid, host) = (io.pid(), String::from(io.host()));
    let mut alive = |p| io.alive(p);
    if !super::lock_is_stale(text, age, &host, pid, &mut alive) {
        return false;
    }
    // Moved aside first: of two processes breaking one lock, one wins the rename.
    let aside = alloc::format!("{name}.stale-{}", io.unique());
    if io.rename(name, &aside).is_err() {
        return true;
    }
    if token.is_some() && io.read_small(&aside) != token {
        // A lock taken after our check: put it back unless a newer one exists.
        let _ = io.link(&aside, name);
    }
    if io.unlink(&aside).is_err() {
        // A directory with something in it stays aside, under a name no lock uses.
        let _ = io.remove_dir(&aside);
    }
    true
}

/// Taking one lock file: polled until had, or its deadline passed.
#[derive(Debug)]
pub struct Acquire {
    name: String,
    token: String,
    wait_ms: u64,
    deadline: Option<u64>,
    pause_us: u64,
}

/// The first pause between two looks at a busy lock, doubled up to [`MAX_PAUSE_US`].
const FIRST_PAUSE_US: u64 = 200;
const MAX_PAUSE_US: u64 = 25_000;

impl Acquire {
    /// Waits at most `wait_ms` for the lock file `lock` (a [`super::lock_name`]).
    pub fn new<I: DirIo>(io: &mut I, lock: String, wait_ms: u64) -> Self {
        let unique = io.unique();
        let token = super::lock_token(io.pid(), io.host(), &unique);
        Acquire {
            name: lock,
            token,
            wait_ms,
            deadline: None,
            pause_us: FIRST_PAUSE_US,
        }
    }

    /// `Ok(Some)` once had, `Ok(None)` to poll again after [`Acquire::pause_us`].
    /// Every way round passes the deadline check, whatever sits at the lock's path.
    pub fn poll<I: DirIo>(&mut self, io: &mut I) -> Result<Option<Held>, Error<I::Error>> {
        let deadline = *self
            .deadline
            .get_or_insert_with(|| io.now_ms().saturating_add(self.wait_ms));
        loop {
            match io.create_excl(&self.name, self.token.as_bytes()) {
                Ok(()) => {
                    return Ok(Some(Held {
                        name: core::mem::take(&mut self.name),
                        token: core::mem::take(&mut self.token),
                    }));
                }
                Err(e) if I::kind(&e) == IoKind::Exists => {}
                Err(e) => return Err(Error::Io(e)),
            }
            let broke = break_if_stale(io, &self.name);
            if io.now_ms() >= deadline {
                return Err(Error::Locked);
            }
            if !broke {
                return Ok(None);
            }
        }
    }

    /// How long to wait before the next poll; each call doubles the next.
    pub fn pause_us(&mut self) -> u64 {
        let p = self.pause_us;
        self.pause_us = (p * 2).min(MAX_PAUSE_US);
        p
    }
}

/// What taking the turn needs next.
#[derive(Debug)]
pub enum TurnPoll {
    /// Had: release it once the command is done.
    Held(Held),
    /// Poll again after this many microseconds.
    Wait(u64),
    /// Not had in time (or the lock cannot be made): the command runs without it,
    /// the compare-and-swap keeps it safe.
    GaveUp,
}

/// Taking the turn ([`super::TURN_LOCK`]) for a whole command: first letting a
/// fresh waiter that is not us go ahead ([`super::TURN_WANT`]), then saying that we
/// wait while we do. Fairness only.
#[derive(Debug)]
pub struct Turn {
    token: String,
    wait_ms: u64,
    deadline: Option<u64>,
}

impl Turn {
    /// Waits at most `wait_ms` ([`super::TURN_WAIT_MS`] in both tools).
    pub fn new<I: DirIo>(io: &mut I, wait_ms: u64) -> Self {
        let unique = io.unique();
        Turn {
            token: super::lock_token(io.pid(), io.host(), &unique),
            wait_ms,
            deadline: None,
        }
    }

    pub fn poll<I: DirIo>(&mut self, io: &mut I) -> TurnPoll {
        let deadline = *self
            .deadline
            .get_or_insert_with(|| io.now_ms().saturating_add(self.wait_ms));
        if io.now_ms() >= deadline {
            return TurnPoll::GaveUp;
        }
        let pause = super::TURN_POLL_MS * 1000;
        let wanted = io
            .age_ms(super::TURN_WANT)
            .is_ok_and(|a| a < super::WANT_FRESH_MS);
        if wanted && io.read_small(super::TURN_WANT).as_deref() != Some(self.token.as_bytes()) {
            return TurnPoll::Wait(pause);
        }
        match io.create_excl(super::TURN_LOCK, self.token.as_bytes()) {
            Ok(()) => {
                if wanted {
                    let _ = io.unlink(super::TURN_WANT);
                }
                return TurnPoll::Held(Held {
                    name: super::TURN_LOCK.into(),
                    token: core::mem::take(&mut self.token),
                });
            }
            Err(e) if I::kind(&e) == IoKind::Exists => {}
            Err(_) => return TurnPoll::GaveUp,
        }
        break_if_stale(io, super::TURN_LOCK);
        // A waiter that cannot say so still waits, only unfavoured.
        let _ = io.replace(super::TURN_WANT, self.token.as_bytes());
        TurnPoll::Wait(pause)
    }
}

// WRITING

/// Removes a temporary file that was not renamed into place.
/// A write's last step, whichever way it ended: its key's lock given back and its
/// staged file removed (the pack already linked or renamed into place, or unused).
fn finish<I: DirIo, T>(
    io: &mut I,
    r: Poll<T>,
    held: &mut Option<Held>,
    tmp: &mut Option<String>,
) -> Poll<T> {
    if matches!(r, Poll::Ready(_)) {
        if let Some(h) = held.take() {
            h.release(io);
        }
        discard(io, tmp.take());
    }
    r
}

fn discard<I: DirIo>(io: &mut I, tmp: Option<String>) {
    if let Some(t) = tmp {
        let _ = io.unlink(&t);
    }
}

/// Writes `bytes` as `name`, whole: a synced temporary renamed into place (inline:
/// the rare paths of a commit and a delete).
fn copy_as<I: DirIo>(io: &mut I, bytes: &[u8], name: &str) -> Result<(), Error<I::Error>> {
    let tmp = io.stage(bytes).map_err(Error::Io)?;
    let r = io.sync_file(&tmp).and_then(|()| io.rename(&tmp, name));
    if r.is_err() {
        let _ = io.unlink(&tmp);
    }
    r.map_err(Error::Io)
}

/// Makes `name` another link to the staged pack `tmp`, replacing what it named; on
/// a filesystem without hard links, a copy of `bytes` instead.
fn link_as<I: DirIo>(
    io: &mut I,
    tmp: &str,
    name: &str,
    bytes: &[u8],
) -> Result<(), Error<I::Error>> {
    match io.link(tmp, name) {
        Ok(()) => return Ok(()),
        Err(e) if I::kind(&e) == IoKind::NoLinks => return copy_as(io, bytes, name),
        Err(e) if I::kind(&e) == IoKind::Exists => {}
        Err(e) => return Err(Error::Io(e)),
    }
    // Replaced atomically: a fresh link, renamed over the old name (a rename of two
    // names of one file leaves the fresh link, removed after).
    let fresh = alloc::format!("{}{}", super::TMP_PREFIX, io.unique());
    let r = match io.link(tmp, &fresh) {
        Ok(()) => io.rename(&fresh, name).map_err(Error::Io),
        Err(e) if I::kind(&e) == IoKind::NoLinks => return copy_as(io, bytes, name),
        Err(e) => Err(Error::Io(e)),
    };
    let _ = io.unlink(&fresh);
    r
}

/// A plain write of one key: its pack staged and synced before the lock is taken,
/// renamed into place under it.
#[derive(Debug)]
pub struct Set {
    name: String,
    pack: Option<Vec<u8>>,
    tmp: Option<String>,
    lock: Option<Acquire>,
    held: Option<Held>,
    wait_ms: u64,
    durability: Durability,
}

impl Set {
    pub fn new(
        key: &str,
        value: &[u8],
        wait_ms: u64,
        durability: Durability,
    ) -> Result<Self, DirError> {
        Ok(Set {
            name: super::file_name(key)?,
            pack: Some(super::pack(&[(key, value)])?),
            tmp: None,
            lock: None,
            held: None,
            wait_ms,
            durability,
        })
    }

    pub fn poll<I: DirIo>(
        &mut self,
        io: &mut I,
        last: Result<(), I::Error>,
    ) -> Poll<Result<(), Error<I::Error>>> {
        let r = self.step(io, last);
        finish(io, r, &mut self.held, &mut self.tmp)
    }

    fn step<I: DirIo>(
        &mut self,
        io: &mut I,
        last: Result<(), I::Error>,
    ) -> Poll<Result<(), Error<I::Error>>> {
        if let Err(e) = last {
            return Poll::Ready(Err(Error::Io(e)));
        }
        if let Some(pack) = self.pack.take() {
            return match io.stage(&pack) {
                Ok(tmp) => {
                    self.tmp = Some(tmp.clone());
                    Poll::SyncFile(tmp)
                }
                Err(e) => Poll::Ready(Err(Error::Io(e))),
            };
        }
        if self.held.is_some() {
            return Poll::Ready(Ok(())); // the directory synced
        }
        let lock = self
            .lock
            .get_or_insert_with(|| Acquire::new(io, super::lock_name(&self.name), self.wait_ms));
        match lock.poll(io) {
            Ok(Some(held)) => self.held = Some(held),
            Ok(None) => return Poll::Wait(lock.pause_us()),
            Err(e) => return Poll::Ready(Err(e)),
        }
        let Some(tmp) = self.tmp.take() else {
            return Poll::Ready(Ok(()));
        };
        if let Err(e) = io.rename(&tmp, &self.name) {
            self.tmp = Some(tmp);
            return Poll::Ready(Err(Error::Io(e)));
        }
        if self.durability.each_change {
            return Poll::SyncDir;
        }
        Poll::Ready(Ok(()))
    }
}

/// Whether `key`'s file, `name`, already holds `value` (a commit then leaves it
/// out of its pack, so a value is packed once).
///
/// Asks first whether anything is at the name: a commit's objects are almost
/// always new, and Node's failed open builds an exception, several times the cost
/// of the `lstat` that finds nothing.
fn holds<I: DirIo>(io: &mut I, name: &str, key: &str, value: &[u8]) -> bool {
    matches!(io.exists(name), Ok(true)) && matches!(read_value(io, key), Ok(Some(v)) if v == value)
}

/// Writes `objects` (fresh content-addressed keys nothing reads until the swap
/// publishes them) and compare-and-swaps `key`, with one fsync: one pack holds the
/// objects and the new value; it is synced before the lock is taken; under the lock
/// the swap is checked first, so a refused commit publishes nothing; then the pack
/// is linked under each object's name and renamed over the key.
#[derive(Debug)]
pub struct Commit {
    key: String,
    name: String,
    expected: Option<Vec<u8>>,
    pack: Vec<u8>,
    fresh: Vec<String>,
    stored: Vec<(String, Vec<u8>)>,
    tmp: Option<String>,
    lock: Option<Acquire>,
    held: Option<Held>,
    wait_ms: u64,
    durability: Durability,
    phase: Phase,
}

#[derive(Debug, PartialEq, Eq)]
enum Phase {
    Start,
    Locking,
    Synced(bool),
}

impl Commit {
    /// Checks every name and leaves out of the pack an object whose name already
    /// holds its value (packed twice, a later delete would leave the older copy).
    pub fn new<I: DirIo>(
        io: &mut I,
        objects: &[(&str, &[u8])],
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
        wait_ms: u64,
        durability: Durability,
    ) -> Result<Self, Error<I::Error>> {
        let name = super::file_name(key)?;
        // Every name made before any is looked at: a bad key refuses the commit first.
        let names = objects
            .iter()
            .map(|(k, _)| super::file_name(k))
            .collect::<Result<Vec<_>, _>>()?;
        let mut entries: Vec<(&str, &[u8])> = Vec::new();
        let (mut fresh, mut stored) = (Vec::new(), Vec::new());
        for ((k, v), n) in objects.iter().zip(names) {
            if holds(io, &n, k, v) {
                stored.push((String::from(*k), Vec::from(*v)));
            } else {
                fresh.push(n);
                entries.push((k, v));
            }
        }
        entries.push((key, new));
        Ok(Commit {
            key: key.into(),
            name,
            expected: expected.map(Vec::from),
            pack: super::pack(&entries)?,
            fresh,
            stored,
            tmp: None,
            lock: None,
            held: None,
            wait_ms,
            durability,
            phase: Phase::Start,
        })
    }

    /// `Ready(Ok(true))` once swapped, `Ready(Ok(false))` when `key` did not hold
    /// the expected value.
    pub fn poll<I: DirIo>(
        &mut self,
        io: &mut I,
        last: Result<(), I::Error>,
    ) -> Poll<Result<bool, Error<I::Error>>> {
        let r = self.step(io, last);
        finish(io, r, &mut self.held, &mut self.tmp)
    }

    fn step<I: DirIo>(
        &mut self,
        io: &mut I,
        last: Result<(), I::Error>,
    ) -> Poll<Result<bool, Error<I::Error>>> {
        if let Err(e) = last {
            return Poll::Ready(Err(Error::Io(e)));
        }
        match self.phase {
            Phase::Start => {
                self.phase = Phase::Locking;
                return match io.stage(&self.pack) {
                    Ok(tmp) => {
                        self.tmp = Some(tmp.clone());
                        Poll::SyncFile(tmp)
                    }
                    Err(e) => Poll::Ready(Err(Error::Io(e))),
                };
            }
            Phase::Synced(swapped) => return Poll::Ready(Ok(swapped)),
            Phase::Locking => {}
        }
        let lock = self
            .lock
            .get_or_insert_with(|| Acquire::new(io, super::lock_name(&self.name), self.wait_ms));
        match lock.poll(io) {
            Ok(Some(held)) => self.held = Some(held),
            Ok(None) => return Poll::Wait(lock.pause_us()),
            Err(e) => return Poll::Ready(Err(e)),
        }
        match self.locked(io) {
            Ok(swapped)
                if swapped && (self.durability.around_swap || self.durability.each_change) =>
            {
                self.phase = Phase::Synced(true);
                Poll::SyncDir
            }
            r => Poll::Ready(r),
        }
    }

    /// Under the key's lock: compare, link, rename.
    fn locked<I: DirIo>(&mut self, io: &mut I) -> Result<bool, Error<I::Error>> {
        let matches = match read_value(io, &self.key) {
            Ok(v) => v.as_deref() == self.expected.as_deref(),
            // A damaged value (or a symlink at its name) matches nothing.
            Err(Error::Damaged | Error::NotAFile) => false,
            Err(Error::Io(e)) if I::kind(&e) == IoKind::Loop => false,
            Err(e) => return Err(e),
        };
        if !matches {
            return Ok(false);
        }
        let Some(tmp) = self.tmp.take() else {
            return Ok(false);
        };
        self.tmp = Some(tmp.clone());
        for n in &self.fresh {
            link_as(io, &tmp, n, &self.pack)?;
        }
        // One left out but deleted since (a sweep): written again, on its own.
        for (k, v) in &self.stored {
            let n = super::file_name(k)?;
            if !io.exists(&n).map_err(Error::Io)? {
                copy_as(io, &super::pack(&[(k.as_str(), v.as_slice())])?, &n)?;
            }
        }
        // Earlier links and renames (these objects, and plain sets) before the key's.
        if self.durability.around_swap {
            io.sync_dir().map_err(Error::Io)?;
        }
        io.rename(&tmp, &self.name).map_err(Error::Io)?;
        self.tmp = None;
        Ok(true)
    }
}

/// Removes a key leaving no byte of its value on the disk: when its file is a pack
/// shared with other keys, each of them still holding it is first rewritten as a
/// pack of its own, one lock at a time (two deletes of one pack's keys would
/// otherwise wait on each other's lock); the name is then unlinked if it still names
/// the pack that was split (kept open, so its inode is not reused meanwhile), or
/// looked at afresh.
pub struct Delete<F, Id> {
    key: String,
    name: String,
    split: Option<(F, Id)>,
    /// Mates still to rewrite, last first.
    mates: Vec<String>,
    lock: Option<Acquire>,
    held: Option<Held>,
    wait_ms: u64,
    durability: Durability,
    done: bool,
}

impl<F, Id: PartialEq> Delete<F, Id> {
    pub fn new(key: &str, wait_ms: u64, durability: Durability) -> Result<Self, DirError> {
        Ok(Delete {
            key: key.into(),
            name: super::file_name(key)?,
            split: None,
            mates: Vec::new(),
            lock: None,
            held: None,
            wait_ms,
            durability,
            done: false,
        })
    }

    pub fn poll<I: DirIo<File = F, Id = Id>>(
        &mut self,
        io: &mut I,
        last: Result<(), I::Error>,
    ) -> Poll<Result<(), Error<I::Error>>> {
        let r = self.step(io, last);
        if !matches!(r, Poll::Ready(_)) {
            return r;
        }
        if let Some(h) = self.held.take() {
            h.release(io);
        }
        if let Some((f, _)) = self.split.take() {
            io.close(f);
        }
        r
    }

    fn step<I: DirIo<File = F, Id = Id>>(
        &mut self,
        io: &mut I,
        last: Result<(), I::Error>,
    ) -> Poll<Result<(), Error<I::Error>>> {
        if let Err(e) = last {
            return Poll::Ready(Err(Error::Io(e)));
        }
        if self.done {
            return Poll::Ready(Ok(())); // the directory synced
        }
        loop {
            let lock_of =
                super::file_name(self.mates.last().map_or(self.key.as_str(), |m| m.as_str()));
            let lock_of = match lock_of {
                Ok(n) => n,
                Err(e) => return Poll::Ready(Err(e.into())),
            };
            let wait_ms = self.wait_ms;
            let lock = self
                .lock
                .get_or_insert_with(|| Acquire::new(io, super::lock_name(&lock_of), wait_ms));
            let held = match lock.poll(io) {
                Ok(Some(held)) => held,
                Ok(None) => return Poll::Wait(lock.pause_us()),
                Err(e) => return Poll::Ready(Err(e)),
            };
            self.lock = None;
            self.held = Some(held);
            let r = match self.mates.pop() {
                Some(mate) => self.rewrite(io, &mate).map(|()| false),
                None => self.own(io),
            };
            match r {
                Err(e) => return Poll::Ready(Err(e)),
                Ok(true) => {
                    self.done = true;
                    let sync = self.durability.around_swap || self.durability.each_change;
                    return if sync {
                        Poll::SyncDir
                    } else {
                        Poll::Ready(Ok(()))
                    };
                }
                Ok(false) => {}
            }
            if let Some(h) = self.held.take() {
                h.release(io);
            }
            if self.done {
                return Poll::Ready(Ok(()));
            }
        }
    }

    /// Under the key's own lock: unlinks its name (true: a sync of the directory
    /// follows) or finds the mates to rewrite first (false).
    fn own<I: DirIo<File = F, Id = Id>>(&mut self, io: &mut I) -> Result<bool, Error<I::Error>> {
        let opened = match io.open(&self.name) {
            Ok(o) => o,
            Err(e) if I::kind(&e) == IoKind::NotFound => {
                self.done = true;
                return Ok(false);
            }
            // A symlink or anything else at a key's name: unlinked, never followed.
            Err(_) => return self.unlink(io),
        };
        let id = match io.file_id(&opened.file) {
            Ok(id) => id,
            Err(e) => {
                io.close(opened.file);
                return Err(Error::Io(e));
            }
        };
        let same = self.split.as_ref().is_some_and(|(_, old)| *old == id);
        let mates = if opened.regular && !same {
            match mates_in(io, &opened.file, opened.size, &self.key) {
                Ok(m) => m,
                Err(e) => {
                    io.close(opened.file);
                    return Err(e);
                }
            }
        } else {
            Vec::new()
        };
        if mates.is_empty() {
            io.close(opened.file);
            return self.unlink(io);
        }
        if let Some((old, _)) = self.split.replace((opened.file, id)) {
            io.close(old);
        }
        self.mates = mates;
        self.mates.reverse();
        Ok(false)
    }

    /// Removes the key's name (gone already is fine).
    fn unlink<I: DirIo<File = F, Id = Id>>(&mut self, io: &mut I) -> Result<bool, Error<I::Error>> {
        match io.unlink(&self.name) {
            Ok(()) => Ok(true),
            Err(e) if I::kind(&e) == IoKind::NotFound => {
                self.done = true;
                Ok(false)
            }
            Err(e) => Err(Error::Io(e)),
        }
    }

    /// Under `mate`'s lock: rewrites it as a pack of its own value, if its file
    /// still holds the deleted key's value; its value is copied byte for byte, so a
    /// reader sees the old pack or the new one with the same value. A mate gone
    /// meanwhile (or a symlink at its name) is left alone.
    fn rewrite<I: DirIo<File = F, Id = Id>>(
        &mut self,
        io: &mut I,
        mate: &str,
    ) -> Result<(), Error<I::Error>> {
        let name = super::file_name(mate)?;
        let opened = match io.open(&name) {
            Ok(o) => o,
            Err(e) if matches!(I::kind(&e), IoKind::NotFound | IoKind::Loop) => return Ok(()),
            Err(e) => return Err(Error::Io(e)),
        };
        let value = if !opened.regular {
            Ok(None)
        } else {
            match mates_in(io, &opened.file, opened.size, &self.key) {
                Ok(m) if m.is_empty() => Ok(None),
                Ok(_) => match value_in(io, &opened.file, opened.size, mate) {
                    Ok(v) => Ok(Some(v)),
                    // Holds the deleted key but not `mate`: damaged, nothing of its
                    // own to keep, so it stays as it is.
                    Err(Error::Damaged) => Ok(None),
                    Err(e) => Err(e),
                },
                Err(e) => Err(e),
            }
        };
        io.close(opened.file);
        match value? {
            Some(v) => copy_as(io, &super::pack(&[(mate, &v)])?, &name),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests;
