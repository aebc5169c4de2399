//! Deleting a key so that no byte of its value stays on the disk ([`Delete`]).

use alloc::string::String;
use alloc::vec::Vec;

use super::{Acquire, DirIo, Durability, Error, Held, IoKind, Poll, copy_as, mates_in, value_in};
use crate::store_dir::error::DirError;
use crate::store_dir::{self as dir};

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
    /// The delete of `key`, waiting at most `wait_ms` for each lock; fails at
    /// once, before any system call, when the key cannot be a file name.
    pub fn new(key: &str, wait_ms: u64, durability: Durability) -> Result<Self, DirError> {
        Ok(Delete {
            key: key.into(),
            name: dir::file_name(key)?,
            split: None,
            mates: Vec::new(),
            lock: None,
            held: None,
            wait_ms,
            durability,
            done: false,
        })
    }

    /// One step of the delete; `last` is the outcome of the sync the previous
    /// [`Poll`] asked for (`Ok(())` at the first poll).
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
                dir::file_name(self.mates.last().map_or(self.key.as_str(), |m| m.as_str()));
            let lock_of = match lock_of {
                Ok(n) => n,
                Err(e) => return Poll::Ready(Err(e.into())),
            };
            let wait_ms = self.wait_ms;
            let lock = self
                .lock
                .get_or_insert_with(|| Acquire::new(io, dir::lock_name(&lock_of), wait_ms));
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
        let name = dir::file_name(mate)?;
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
            Some(v) => copy_as(io, &dir::pack(&[(mate, &v)])?, &name),
            None => Ok(()),
        }
    }
}
