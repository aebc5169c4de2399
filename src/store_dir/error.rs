//! Why a store directory cannot be opened or a store file used: one enum for the
//! format and the protocol, exported at the crate root beside [`crate::ToolError`].

use core::fmt;

use super::{FORMAT, VERSION};

/// Why a store directory cannot be opened, or a store file cannot be used. The
/// text names the directory's problem, never a path: the tools put the directory
/// the user named in front.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DirError {
    NotADirectory,
    Symlink,
    Unreadable,
    NotAStore,
    DamagedMarker,
    OtherFormat,
    NewerVersion(u32),
    /// The old host layout, in a tool that does not convert it (Node).
    OldHostLayout,
    /// The disk refused an operation while opening or creating the store.
    Io,
    KeyTooLong,
    ValueTooLarge,
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
