//! Why a set of mounts cannot be opened: one enum whose `Display` is the text.

use alloc::string::String;
use core::fmt;

use crate::config::MAX_MOUNTS;
use crate::error::Echo;

/// Why a set of mounts cannot be opened. `Display` is the text.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MountError {
    /// Not 1 to [`MAX_MOUNTS`](crate::config::MAX_MOUNTS) stores (how many were given).
    Count(usize),
    /// A name that is not a valid directory name under `/memories`.
    BadName(String),
    /// Two stores mounted at the same name.
    Twice(String),
    /// A store at `/memories` itself (name `""`) beside others.
    RootBeside,
    /// A description or instructions over its limit.
    TooLong {
        /// The mount's name.
        name: String,
        /// Which text: `description` or `instructions`.
        field: &'static str,
        /// Its limit, in characters.
        max: usize,
    },
}

impl fmt::Display for MountError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MountError::Count(n) => write!(f, "a memory mounts 1 to {MAX_MOUNTS} stores, got {n}"),
            MountError::BadName(name) => write!(
                f,
                "mount name {} is not a valid directory name under /memories",
                Echo(name)
            ),
            MountError::Twice(name) => write!(f, "two stores are mounted at /memories/{name}"),
            MountError::RootBeside => {
                f.write_str("a store mounted at /memories itself (name \"\") must be the only one")
            }
            MountError::TooLong { name, field, max } => {
                write!(
                    f,
                    "the {field} of mount {} is over {max} characters",
                    Echo(name)
                )
            }
        }
    }
}

impl core::error::Error for MountError {}
