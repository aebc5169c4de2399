//! Writing: a plain set ([`Set`]) and a commit ([`Commit`]: the objects and the
//! compare-and-swap of a key in one pack, one fsync), and the steps they share.

use alloc::string::String;
use alloc::vec::Vec;

use super::{Acquire, DirIo, Durability, Error, Held, IoKind, Poll, read_value};
use crate::store_dir::error::DirError;
use crate::store_dir::{self as dir};

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

/// Removes a temporary file that was not renamed into place.
pub(super) fn discard<I: DirIo>(io: &mut I, tmp: Option<String>) {
    if let Some(t) = tmp {
        let _ = io.unlink(&t);
    }
}

/// Writes `bytes` as `name`, whole: a synced temporary renamed into place (inline:
/// the rare paths of a commit and a delete).
pub(super) fn copy_as<I: DirIo>(
    io: &mut I,
    bytes: &[u8],
    name: &str,
) -> Result<(), Error<I::Error>> {
    let tmp = io.stage(bytes).map_err(Error::Io)?;
    let r = io.sync_file(&tmp).and_then(|()| io.rename(&tmp, name));
    if r.is_err() {
        let _ = io.unlink(&tmp);
    }
    r.map_err(Error::Io)
}

/// How a link to a staged pack went.
enum Linked {
    Done,
    /// The filesystem refused the link (no hard links there, or the file has as
    /// many as it may have); nothing was done.
    Refused,
}

/// Makes `name` another link to the staged pack `tmp`, replacing what it named.
fn link_as<I: DirIo>(io: &mut I, tmp: &str, name: &str) -> Result<Linked, Error<I::Error>> {
    match io.link(tmp, name) {
        Ok(()) => return Ok(Linked::Done),
        Err(e) if I::kind(&e) == IoKind::NoLinks => return Ok(Linked::Refused),
        Err(e) if I::kind(&e) == IoKind::Exists => {}
        Err(e) => return Err(Error::Io(e)),
    }
    // Replaced atomically: a fresh link, renamed over the old name (a rename of two
    // names of one file leaves the fresh link, removed after).
    let fresh = alloc::format!("{}{}", dir::TMP_PREFIX, io.unique());
    let r = match io.link(tmp, &fresh) {
        Ok(()) => io
            .rename(&fresh, name)
            .map(|()| Linked::Done)
            .map_err(Error::Io),
        Err(e) if I::kind(&e) == IoKind::NoLinks => return Ok(Linked::Refused),
        Err(e) => Err(Error::Io(e)),
    };
    let _ = io.unlink(&fresh);
    r
}

/// Makes each of `names` a link to the staged pack `tmp` (which holds `bytes`). A
/// refused link means either a filesystem without hard links or a pack with as
/// many links as a file may have (ext4: 65,000; a commit of more keys than that):
/// the pack is staged again once, and the rest link to that copy; if that copy's
/// first link is refused too, the filesystem has none, and each name gets a copy
/// of its own. `tmp` is left naming the staged pack the caller removes at the end.
fn link_all<I: DirIo>(
    io: &mut I,
    tmp: &mut String,
    names: &[String],
    bytes: &[u8],
) -> Result<(), Error<I::Error>> {
    let mut links = true;
    for n in names {
        if !links {
            copy_as(io, bytes, n)?;
            continue;
        }
        if let Linked::Done = link_as(io, tmp, n)? {
            continue;
        }
        let again = io.stage(bytes).map_err(Error::Io)?;
        if let Err(e) = io.sync_file(&again) {
            let _ = io.unlink(&again);
            return Err(Error::Io(e));
        }
        match link_as(io, &again, n) {
            Ok(Linked::Done) => {
                let _ = io.unlink(tmp);
                *tmp = again;
            }
            Ok(Linked::Refused) => {
                let _ = io.unlink(&again);
                links = false;
                copy_as(io, bytes, n)?;
            }
            Err(e) => {
                let _ = io.unlink(&again);
                return Err(e);
            }
        }
    }
    Ok(())
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
    /// The write of `value` at `key`, waiting at most `wait_ms` for the key's
    /// lock; fails at once, before any system call, when the key cannot be a
    /// file name or the value cannot be packed.
    pub fn new(
        key: &str,
        value: &[u8],
        wait_ms: u64,
        durability: Durability,
    ) -> Result<Self, DirError> {
        Ok(Set {
            name: dir::file_name(key)?,
            pack: Some(dir::pack(&[(key, value)])?),
            tmp: None,
            lock: None,
            held: None,
            wait_ms,
            durability,
        })
    }

    /// One step of the write; `last` is the outcome of the sync the previous
    /// [`Poll`] asked for (`Ok(())` at the first poll).
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
            .get_or_insert_with(|| Acquire::new(io, dir::lock_name(&self.name), self.wait_ms));
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
    // Read by the tests: which objects a commit packs.
    pub(super) fresh: Vec<String>,
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
        let name = dir::file_name(key)?;
        // Every name made before any is looked at: a bad key refuses the commit first.
        let names = objects
            .iter()
            .map(|(k, _)| dir::file_name(k))
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
            pack: dir::pack(&entries)?,
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
            .get_or_insert_with(|| Acquire::new(io, dir::lock_name(&self.name), self.wait_ms));
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
        let mut tmp = tmp;
        let linked = link_all(io, &mut tmp, &self.fresh, &self.pack);
        self.tmp = Some(tmp.clone());
        linked?;
        // One left out but deleted since (a sweep): written again, on its own.
        for (k, v) in &self.stored {
            let n = dir::file_name(k)?;
            if !io.exists(&n).map_err(Error::Io)? {
                copy_as(io, &dir::pack(&[(k.as_str(), v.as_slice())])?, &n)?;
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
