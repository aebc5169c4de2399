//! The store directory's protocol: the order of system calls of opening a store
//! directory and of every change to one, written once for both tools that share one (the Node directory
//! store, `js/stores/store-dir.js`, through the wasm; the host's directory backend,
//! `host/src/store_dir.rs`). [`super`] says what a name or a file means; this module says
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
//! ready; reads ([`read_value`], [`Listing`]) and the rare rewrites of a delete's pack
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

use super::error::DirError;

mod delete;
mod lock;
mod open;
mod read;
mod write;
pub use delete::Delete;
pub use lock::{Acquire, Held, Turn, TurnPoll, break_if_stale};
pub use open::Open;
pub use read::{Listing, read_value, sweep_temporaries, sweep_temporaries_older_than};
pub use write::{Commit, Set};
// The helpers the steps share.
use read::{mates_in, value_in};
use write::{copy_as, discard};

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
    /// Any other failure: the protocol gives up and hands it back as it was.
    Other,
}

/// An open file (regular or not, never through a symlink).
pub struct Opened<F> {
    /// The open file, closed with [`DirIo::close`].
    pub file: F,
    /// Its size in bytes when opened (a pack's index is checked against it).
    pub size: u64,
    /// Whether it is a regular file: anything else at a key's name is refused
    /// ([`Error::NotAFile`]) without being read.
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
    /// Closes a file [`DirIo::open`] opened (and releases a [`DirIo::lock_file`]
    /// lock on it).
    fn close(&mut self, f: Self::File);
    /// A new temporary file (`O_EXCL`, 0600, name starting [`super::TMP_PREFIX`])
    /// holding `bytes`, not yet synced; its name. Removed again when writing fails.
    fn stage(&mut self, bytes: &[u8]) -> Result<String, Self::Error>;
    /// Makes the file `name` durable.
    fn sync_file(&mut self, name: &str) -> Result<(), Self::Error>;
    /// Makes `name` exclusively, holding `bytes` and modified now (a lock): fails
    /// with [`IoKind::Exists`] when anything is at `name`, and leaves nothing there
    /// when writing fails. The host creates the file (`O_EXCL`); Node hard-links a
    /// spare file that already holds `bytes` (js/stores/store-dir.js, `LockSpares`),
    /// one directory entry instead of a new inode.
    fn create_excl(&mut self, name: &str, bytes: &[u8]) -> Result<(), Self::Error>;
    /// Writes `name` whole, created or truncated (0600, never through a symlink):
    /// the turn's want.
    fn replace(&mut self, name: &str, bytes: &[u8]) -> Result<(), Self::Error>;
    /// The first 256 bytes of the regular file `name`, if it can be read.
    fn read_small(&mut self, name: &str) -> Option<Vec<u8>>;
    /// Whether the lock `name` this process made holding `token` is still the
    /// one there (a lock found stale may have been broken and taken by another):
    /// asked once, as the lock is given back. By default, whether `name` holds
    /// `token`; Node, whose locks are its spare files linked ([`DirIo::create_excl`]),
    /// asks whether `name` is still the spare it linked, one `lstat` where reading
    /// the token takes four system calls.
    fn still_holds(&mut self, name: &str, token: &[u8]) -> bool {
        self.read_small(name).as_deref() == Some(token)
    }
    /// Whether anything is at `name` (`lstat`); a path through something that is
    /// not a directory may also answer false (Node's `lstat` tells it from an
    /// absent name only by throwing).
    fn exists(&mut self, name: &str) -> Result<bool, Self::Error>;
    /// How long ago `name` was last modified (`lstat`), in milliseconds; for a
    /// path through something that is not a directory, Node's may fail as for an
    /// absent name (see [`DirIo::exists`]).
    fn age_ms(&mut self, name: &str) -> Result<u64, Self::Error>;
    /// Makes `to` a second name of the file `from` (a hard link): fails with
    /// [`IoKind::Exists`] when anything is at `to`, [`IoKind::NoLinks`] when the
    /// filesystem takes no more links (the protocol then copies instead).
    fn link(&mut self, from: &str, to: &str) -> Result<(), Self::Error>;
    /// Renames `from` to `to`, atomically replacing whatever was at `to`.
    fn rename(&mut self, from: &str, to: &str) -> Result<(), Self::Error>;
    /// Removes the name `name` (the file itself lives on while another name or
    /// an open handle holds it).
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
    /// This machine's name, as lock tokens name it: a lock of another host is
    /// judged stale by its age alone, since its process cannot be asked after.
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
    /// The operation is done, with this outcome.
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

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests;
