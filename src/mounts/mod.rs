//! Several stores in one memory: each mounted at `/memories/<name>` (or one alone
//! at `/memories`), read-write or read-only, with a description and instructions
//! for the model. This module says what a mount is and which sets of mounts may be
//! opened; `route` decides which store a command goes to (each store's engine does
//! the rest with the same paths, so every answer reads as with one store),
//! `instructions` writes the system prompt's text, `search` searches every store
//! and merges their hits (and defines the `memory_find` tool), `error` every
//! refusal's.

use alloc::string::String;

use crate::config::{MAX_MOUNT_DESCRIPTION_CHARS, MAX_MOUNT_INSTRUCTIONS_CHARS, MAX_MOUNTS};
use crate::path;

pub(crate) mod error;
mod instructions;
mod route;
mod search;

use error::MountError;
pub use instructions::instructions;
pub use route::{MountTarget, Mounted, ToolsetTarget, Top, TopEntry};
pub use search::{FIND_TOOL, find_answer};

/// Whether a mounted store may be written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Access {
    /// The model may read and write it.
    ReadWrite,
    /// The model may only read it; every write is refused.
    ReadOnly,
}

impl Access {
    /// The access as every face spells it (the hosted API's words).
    pub fn name(self) -> &'static str {
        match self {
            Access::ReadWrite => "read_write",
            Access::ReadOnly => "read_only",
        }
    }

    /// The access of that name, or `None`.
    pub fn from_name(name: &str) -> Option<Access> {
        match name {
            "read_write" => Some(Access::ReadWrite),
            "read_only" => Some(Access::ReadOnly),
            _ => None,
        }
    }
}

/// One store's place in a memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mount {
    /// The directory's name under `/memories`; `""`: the store is `/memories`.
    pub name: String,
    /// Whether it may be written.
    pub access: Access,
    /// What the store holds, for the model (at most [`MAX_MOUNT_DESCRIPTION_CHARS`](crate::config::MAX_MOUNT_DESCRIPTION_CHARS)).
    pub description: String,
    /// How the model should use it (at most [`MAX_MOUNT_INSTRUCTIONS_CHARS`](crate::config::MAX_MOUNT_INSTRUCTIONS_CHARS)).
    pub instructions: String,
}

/// Checks a set of mounts: 1 to [`MAX_MOUNTS`], names valid and distinct, one at
/// `/memories` only alone, descriptions and instructions within their limits.
pub fn check(mounts: &[Mount]) -> Result<(), MountError> {
    if mounts.is_empty() || mounts.len() > MAX_MOUNTS {
        return Err(MountError::Count(mounts.len()));
    }
    for (i, m) in mounts.iter().enumerate() {
        if m.name.is_empty() {
            if mounts.len() > 1 {
                return Err(MountError::RootBeside);
            }
        } else if !path::is_valid_name(&m.name) {
            return Err(MountError::BadName(m.name.clone()));
        }
        if mounts.iter().take(i).any(|o| o.name == m.name) {
            return Err(MountError::Twice(m.name.clone()));
        }
        for (field, text, max) in [
            ("description", &m.description, MAX_MOUNT_DESCRIPTION_CHARS),
            (
                "instructions",
                &m.instructions,
                MAX_MOUNT_INSTRUCTIONS_CHARS,
            ),
        ] {
            if text.chars().count() > max {
                return Err(MountError::TooLong {
                    name: m.name.clone(),
                    field,
                    max,
                });
            }
        }
    }
    Ok(())
}
