//! Why a store directory cannot be opened or a store file used: one enum for the
//! format and the protocol, exported at the crate root beside [`crate::ToolError`].

use core::fmt;

use super::{FORMAT, VERSION};

/// Why a store directory cannot be opened, or a store file cannot be used. The
/// text names the directory's problem, never a path: the tools put the directory
/// the user named in front.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DirError {
    /// The store path, or a component of it, is a file or something else that is
    /// not a directory.
    NotADirectory,
    /// The store path is a symbolic link: refused rather than followed, so a link
    /// planted at the path cannot send the writes elsewhere.
    Symlink,
    /// Listing the directory was refused (permission denied, a read-only or
    /// unreadable filesystem).
    Unreadable,
    /// The directory holds a name memdir never writes (or one that is not UTF-8):
    /// refused, so that pointing the tool at the wrong directory never mixes a
    /// store into someone else's files.
    NotAStore,
    /// The format marker is there but is not a regular file holding one
    /// well-formed line `memdir-store <version>`.
    DamagedMarker,
    /// The marker is well formed but names another format than `memdir-store`.
    OtherFormat,
    /// The marker names a version of this format newer than this build reads (the
    /// version is in the field), so it is not opened rather than misread.
    NewerVersion(u32),
    /// The old host layout, in a tool that does not convert it (Node).
    OldHostLayout,
    /// The disk refused an operation while opening or creating the store.
    Io,
    /// The key's file name would be longer than [`super::MAX_NAME`] bytes, or the
    /// key longer than a pack's index can hold.
    KeyTooLong,
    /// The value is longer than a pack's index can hold (4 GiB less one byte).
    ValueTooLarge,
    /// A store file is short, or its index disagrees with its size or is larger
    /// than any pack memdir writes.
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

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn a_newer_store_names_both_versions() {
        assert_eq!(
            DirError::NewerVersion(2).to_string(),
            "the store is memdir-store version 2, newer than this memdir reads (version 1); upgrade memdir"
        );
    }
}
