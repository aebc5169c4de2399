//! What a store directory on disk is: the one format shared by the Node directory
//! store (`js/stores/store-dir.js`) and the host's directory backend
//! (`host/src/store_dir.rs`). Pure rules, no I/O: what a name, a file or a listing means;
//! [`protocol`] says in which order the tools' system calls use them, opening the
//! directory included.
//!
//! Format `memdir-store`, version 1, flat in one directory:
//! - `memdir-store`: the marker, one line `memdir-store 1\n`, written at creation;
//! - `k…`: one file per key, named by [`file_name`], holding a pack ([`pack`]) of
//!   that key's value and possibly others (a commit writes one pack and hard-links
//!   it under every key it holds, so it pays one fsync). A value is packed once:
//!   a commit leaves out an object whose name already holds that value, and a
//!   delete first rewrites every other key still sharing the deleted key's pack
//!   as a pack of its own ([`mates`]), so no byte of a deleted value stays behind;
//! - `.tmp-…`: files being written, renamed into place once complete (and Node's
//!   spare lock files);
//! - `.lock-…`: lock files, made exclusively ([`protocol::DirIo::create_excl`])
//!   and holding a token ([`lock_token`]); `.lock-k…` guards a key's read-compare-rename,
//!   [`TURN_LOCK`] is a process's turn for a whole command (fairness only: of two
//!   processes streaming writes, the one that just won would otherwise start its
//!   next command ahead while the loser re-reads, and the loser can lose every
//!   retry), with [`TURN_WANT`] so that a waiter gets the next turn.
//!
//! A directory is opened ([`protocol::Open`]) only when [`classify`] and
//! [`marker_verdict`] say it is one of these; anything else is refused before a
//! byte is written.
//!
//! One file per thing decided: `names.rs` (what a name in the directory means),
//! `locks.rs` (a lock's name and token, when it is stale), `layout.rs`
//! (what a directory is before it is opened, the marker), `packs.rs` (what a store
//! file holds), `error.rs` ([`DirError`](crate::DirError), exported at the crate root); and
//! [`protocol`], the order of the system calls that use them.

pub mod protocol;

// The format's identity, here above its files: the marker (`layout.rs`) and the
// errors (`error.rs`) both name it.
/// The marker's file name and the format's name.
pub const FORMAT: &str = "memdir-store";
/// The version this build writes and reads.
pub const VERSION: u32 = 1;
/// The marker's whole contents.
pub const MARKER_TEXT: &str = "memdir-store 1\n";

pub(crate) mod error;
mod layout;
mod locks;
mod names;
mod packs;

pub use layout::{EntryKind, Layout, classify, marker_verdict};
pub use locks::{lock_is_stale, lock_name, lock_owner, lock_token};
pub use names::{
    LOCK_PREFIX, MAX_NAME, TMP_PREFIX, TURN_LOCK, TURN_WANT, file_name, key_of, list_keys,
};
pub use packs::{Locate, Mates, locate, mates, pack, pack_index, pack_value};
