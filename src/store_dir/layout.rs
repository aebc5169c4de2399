//! What a directory is before it is opened: its entries classified (a new store,
//! this format, an older layout, or not memdir's) and its marker judged.

use super::error::DirError;
use super::names::{LOCK_PREFIX, TMP_PREFIX, key_of, plain};
use super::{FORMAT, VERSION};

/// The names of the old host layout (before the marker): values in `keys/`.
const OLD_HOST: [&str; 4] = ["keys", "tmp", "lock", "turn"];

/// What kind of thing a directory entry is (as `lstat` sees it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link (never followed).
    Symlink,
    /// Anything else: a FIFO, a socket, a device.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store_dir::MARKER_TEXT;

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
}
