//! Opening a store directory, once for both tools: the directory is created when
//! missing, judged by its names ([`dir::classify`]) and its marker
//! ([`dir::marker_verdict`]), marked when empty or of the Node layout from before
//! the marker, converted when of the old host layout (by a tool that can,
//! [`Open::new`]), and refused otherwise, with nothing written. Then the
//! temporaries a crashed writer left long ago are swept.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{DirIo, IoKind, Poll, copy_as, discard, sweep_temporaries};
use crate::store_dir::error::DirError;
use crate::store_dir::{self as dir, EntryKind, Layout};

/// The old host layout's names: raw values in `keys/`, temporaries in `tmp/`, the
/// advisory lock of its changes and its turn.
const OLD_KEYS: &str = "keys";
const OLD_TMP: &str = "tmp";
const OLD_LOCK: &str = "lock";
const OLD_TURN: &str = "turn";

/// Opening a store directory: polled like a change ([`Poll`]); the marker a new
/// store gets is synced through the driver (its file, then the directory), so a
/// Node store opens without blocking its event loop on an fsync. A store of the
/// old host layout is converted inline (the host drives everything with
/// [`super::run`]).
#[derive(Debug)]
pub struct Open {
    convert_old_host: bool,
    phase: Phase,
    /// The marker, staged and not yet renamed into place.
    tmp: Option<String>,
    /// The temporaries the directory held when it was judged, swept once it is open.
    temporaries: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Start,
    /// The marker is staged; its sync was asked for.
    Staged,
    /// The marker is in place; the directory's sync was asked for.
    Placed,
}

impl Open {
    /// `convert_old_host`: whether this tool converts the old host layout (the host
    /// does, under that layout's `flock`, [`DirIo::lock_file`]); a tool that does
    /// not (Node, which has no `flock` to keep a host of that layout out) refuses
    /// it with [`DirError::OldHostLayout`], and leaves the leftovers of a conversion
    /// that stopped after its marker alone.
    pub fn new(convert_old_host: bool) -> Self {
        Open {
            convert_old_host,
            phase: Phase::Start,
            tmp: None,
            temporaries: Vec::new(),
        }
    }

    /// `Ready(Ok(()))` once the store can be used; what was wrong with the
    /// directory otherwise. `last` is the outcome of the sync asked for last.
    pub fn poll<I: DirIo>(
        &mut self,
        io: &mut I,
        last: Result<(), I::Error>,
    ) -> Poll<Result<(), DirError>> {
        let r = match last {
            Ok(()) => self.step(io),
            Err(_) => Poll::Ready(Err(DirError::Io)),
        };
        match &r {
            Poll::Ready(Ok(())) => sweep_temporaries(io, &core::mem::take(&mut self.temporaries)),
            Poll::Ready(Err(_)) => discard(io, self.tmp.take()),
            _ => {}
        }
        r
    }

    fn step<I: DirIo>(&mut self, io: &mut I) -> Poll<Result<(), DirError>> {
        match self.phase {
            Phase::Start => match self.start(io) {
                Ok(Some(tmp)) => {
                    self.tmp = Some(tmp.clone());
                    self.phase = Phase::Staged;
                    Poll::SyncFile(tmp)
                }
                Ok(None) => Poll::Ready(Ok(())),
                Err(e) => Poll::Ready(Err(e)),
            },
            Phase::Staged => {
                let Some(tmp) = self.tmp.take() else {
                    return Poll::Ready(Err(DirError::Io));
                };
                if io.rename(&tmp, dir::FORMAT).is_err() {
                    self.tmp = Some(tmp);
                    return Poll::Ready(Err(DirError::Io));
                }
                self.phase = Phase::Placed;
                Poll::SyncDir
            }
            Phase::Placed => Poll::Ready(Ok(())),
        }
    }

    /// Everything up to the marker's syncs: the directory made or checked and
    /// judged, refused with nothing written, converted, or checked; the name of the
    /// marker staged for a store that gets one.
    fn start<I: DirIo>(&mut self, io: &mut I) -> Result<Option<String>, DirError> {
        check_root(io)?;
        let entries = io.entries(None).map_err(|e| match I::kind(&e) {
            IoKind::Denied => DirError::Unreadable,
            _ => DirError::Io,
        })?;
        let layout = dir::classify(entries.iter().map(|(n, k)| (n.as_str(), *k)))?;
        self.temporaries = entries
            .iter()
            .filter(|(n, _)| n.starts_with(dir::TMP_PREFIX))
            .map(|(n, _)| n.clone())
            .collect();
        match layout {
            // Empty, or the Node layout from before the marker (the same files):
            // the marker is all there is to write.
            Layout::Empty | Layout::OldFlat => io
                .stage(dir::MARKER_TEXT.as_bytes())
                .map(Some)
                .map_err(|_| DirError::Io),
            Layout::Current => {
                let marker = io.read_small(dir::FORMAT);
                dir::marker_verdict(&marker.ok_or(DirError::DamagedMarker)?)?;
                // What a conversion that stopped after its marker left.
                let leftovers = entries
                    .iter()
                    .any(|(n, k)| n == OLD_KEYS && *k == EntryKind::Dir);
                if self.convert_old_host && leftovers {
                    convert_old_host(io)?;
                }
                Ok(None)
            }
            Layout::OldHost if self.convert_old_host => {
                convert_old_host(io)?;
                Ok(None)
            }
            Layout::OldHost => Err(DirError::OldHostLayout),
        }
    }
}

/// The store directory is one (made, with its parents, when missing), not a
/// symlink nor anything else.
fn check_root<I: DirIo>(io: &mut I) -> Result<(), DirError> {
    let kind = match io.root_kind() {
        Ok(k) => k,
        Err(e) if I::kind(&e) == IoKind::NotFound => io
            .create_root()
            // Looked at again: whatever is there now is what is opened.
            .and_then(|()| io.root_kind())
            .map_err(|e| match I::kind(&e) {
                IoKind::NotADirectory => DirError::NotADirectory,
                _ => DirError::Io,
            })?,
        Err(e) => {
            return Err(match I::kind(&e) {
                IoKind::Denied => DirError::Unreadable,
                IoKind::NotADirectory => DirError::NotADirectory,
                _ => DirError::Io,
            });
        }
    };
    match kind {
        EntryKind::Dir => Ok(()),
        EntryKind::Symlink => Err(DirError::Symlink),
        EntryKind::File | EntryKind::Other => Err(DirError::NotADirectory),
    }
}

/// Converts the old host layout (raw values in `keys/`, an advisory `lock`):
/// under that lock, so that no host of that layout changes anything meanwhile,
/// each value is written as a pack beside it; the marker, written last, is the
/// commit point. Stopped before it, the old layout is whole and the next open
/// starts over; after it, the next open removes what is left of the old one.
fn convert_old_host<I: DirIo>(io: &mut I) -> Result<(), DirError> {
    let lock = match io.open(OLD_LOCK) {
        Ok(o) if o.regular => Some(o.file),
        Ok(o) => {
            io.close(o.file);
            None
        }
        Err(_) => None,
    };
    let locked = match &lock {
        Some(f) => io.lock_file(f).map_err(|_| DirError::Io),
        None => Ok(()),
    };
    let r = locked.and_then(|()| convert_locked(io));
    if let Some(f) = lock {
        io.close(f);
    }
    r
}

fn convert_locked<I: DirIo>(io: &mut I) -> Result<(), DirError> {
    if !io.exists(dir::FORMAT).map_err(|_| DirError::Io)? {
        let old = io.entries(Some(OLD_KEYS)).map_err(|_| DirError::Io)?;
        for (name, _) in old {
            let Some(key) = dir::key_of(&name) else {
                continue;
            };
            let opened = io
                .open(&format!("{OLD_KEYS}/{name}"))
                .map_err(|_| DirError::Io)?;
            let value = opened
                .regular
                .then(|| io.read_at(&opened.file, 0, opened.size));
            io.close(opened.file);
            let Some(value) = value else {
                continue;
            };
            let value = value.map_err(|_| DirError::Io)?;
            let pack = dir::pack(&[(key.as_str(), &value)])?;
            copy_as(io, &pack, &name).map_err(|_| DirError::Io)?;
        }
        // The packs' names are durable before the marker that makes them the store.
        io.sync_dir().map_err(|_| DirError::Io)?;
        copy_as(io, dir::MARKER_TEXT.as_bytes(), dir::FORMAT).map_err(|_| DirError::Io)?;
        io.sync_dir().map_err(|_| DirError::Io)?;
    }
    // Found in place, the marker may not be durable yet (its writer died before
    // the sync), but the packs it stands for are: removing the old copies is safe.
    remove_old_host(io);
    Ok(())
}

/// Removes what is left of the old host layout, once the marker is durable: only
/// the files a host of that layout wrote there.
fn remove_old_host<I: DirIo>(io: &mut I) {
    for sub in [OLD_KEYS, OLD_TMP] {
        if let Ok(entries) = io.entries(Some(sub)) {
            for (name, kind) in entries {
                if kind == EntryKind::File {
                    let _ = io.unlink(&format!("{sub}/{name}"));
                }
            }
        }
        let _ = io.remove_dir(sub);
    }
    if let Ok(entries) = io.entries(None) {
        for (name, kind) in entries {
            if kind == EntryKind::File && (name == OLD_TURN || name == OLD_LOCK) {
                let _ = io.unlink(&name);
            }
        }
    }
    let _ = io.sync_dir();
}
