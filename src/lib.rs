//! memdir: the Claude memory tool (`memory_20250818`) as one sandboxed engine.
//!
//! The engine owns everything that must be identical on every runtime: which paths
//! are legal, how a tool input parses, every output and error string, and the
//! all-or-nothing update of a content-addressed tree. It does no I/O: storage comes
//! in through the five-operation [`Store`] contract, time through a clock callback.
//!
//! The source is laid out in layers, bottom to top; a module names only its own
//! layer and those below it (`tests/all/layers.rs` fails on an upward `crate::` path):
//!
//! - the foundation, flat files: [`config`] (every default and limit), `error`
//!   (every failure and its text: [`ToolError`], [`InputError`]), `path` (what a
//!   path may name: [`validate`], [`ValidPath`]), `store` (the five-operation
//!   contract, [`Store`], and [`MemoryStore`]), [`seal`] (encryption at rest: a
//!   store that seals every name and value below the engine),
//!   [`store_dir`] (the directory store's layout), `secrets` (what looks like a
//!   credential), `number`, `time` and `json` (how numbers, times and JSON text are
//!   read and written);
//! - `storage/`: the stored data model (`tree`, its JSON in `node_json`, a store's
//!   record in `meta`, the version log's stored form in `versions`), the object
//!   `cache`, a change's new objects (`overlay`), split directories (`shard`) and
//!   the one compare-and-swap (`publish`); it defines [`Engine`], the state every
//!   layer adds its methods to;
//! - [`search`]: the ranked index kept beside the tree (its tokenizer, BM25, its
//!   stored form and how it catches up with the head), and searching it;
//! - `history/`: the version log read and extended (`log`) and pruned (`retain`);
//! - `command/`: the memory tool's commands: `input` (a tool call into a
//!   [`Command`]), `plan` (what a change does to the tree), `engine` (running one),
//!   `render` (the text of every successful answer), `lines` (the line model),
//!   `maintain` (entries, import, expire, gc);
//! - the faces: [`api`] (the Memory Stores API), [`toolset`] (its tools for the
//!   model), [`mounts`] (several stores under one `/memories`) and [`sync`] (this
//!   store and a Memory Stores API store kept the same).
//!
//! The typed entry point is [`Engine::run`]; [`Engine::execute`] and
//! [`Engine::execute_json`] are thin adapters for JSON inputs.
//!
//! Each public item has one path: at the root, from a private module (as every
//! error type is: [`ToolError`], [`ApiError`], [`SyncError`], [`MountError`],
//! [`ToolsetError`], …), or in its public module and not at the root (every limit
//! and default, and [`Config`](config::Config), in [`config`]; the API's
//! [`Response`](api::Response) in [`api`]; a [`Mount`](mounts::Mount) in
//! [`mounts`]), as `tests/all/layers.rs` checks; and what this workspace's own
//! crates, tests and benchmarks need beyond the public API is in one hidden
//! module, `__hooks`.
#![no_std]
#![forbid(unsafe_code)]
// Every public item says what it is for, and nothing is `pub` that the crate
// root does not export (what is not reachable from here is `pub(crate)`), so a
// reader sees the public API in its signatures. CI's `clippy -D warnings` makes
// both errors.
#![warn(missing_docs, unreachable_pub)]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

// The foundation: every limit, time and number spelling, the path rules, the
// store contract and every failure's text. Names nothing above it.
pub mod config;
mod error;
mod json;
mod number;
mod path;
pub mod seal;
mod secrets;
mod store;
pub mod store_dir;
mod time;

// The layers (rustfmt sorts them; bottom to top: storage, history, command).
// Each names only the layers below it and the foundation.
mod command;
mod history;
pub mod search;
mod storage;

// The faces: the Memory Stores API, the toolset, mounts, sync.
pub mod api;
pub mod mounts;
pub mod records;
pub mod sync;
pub mod toolset;

/// The language-neutral conformance data's reader, for the test runners of every
/// runtime (feature `conformance`).
#[cfg(feature = "conformance")]
pub mod conformance;
/// The store-contract suite, for adapters' tests and for users checking their own
/// store (feature `contract`).
#[cfg(feature = "contract")]
pub mod contract;

pub use api::error::ApiError;
pub use command::engine::ToolResult;
pub use command::input::{Command, parse_text};
pub use command::maintain::{Entry, ExpireReport, GcReport};
pub use command::tool::{MEMORY_TOOL, MemoryTool, READ_ONLY_COMMANDS};
pub use error::{
    COMMANDS, Echo, ErrorKind, FaceError, InputError, LimitError, Refusal, ToolError, ViewLines,
};
pub use history::retain::RetainReport;
pub use mounts::error::MountError;
pub use path::{PathError, ROOT, ValidPath, validate};
pub use records::error::RecordsError;
pub use search::error::SearchError;
pub use secrets::SecretPolicy;
pub use storage::versions::Actor;
pub use storage::{Backoff, Engine, STRUCTURE_PREFIXES};
pub use store::{MemoryStore, Page, Store, StoreError, list_all};
pub use store_dir::error::DirError;
pub use sync::error::SyncError;
pub use toolset::error::ToolsetError;

/// Not part of the public API, and may change in any release: the one module of
/// hooks this workspace's own crates, tests and benchmarks use, so that nothing
/// else at the root or in a public module exists for them. The version log's
/// stored form (for the tests that build and measure logs), tree nodes in their
/// JSON form (for the tests that edit stored nodes by hand), the path rules'
/// Unicode tables (for the test that derives them again from the full tables), the
/// content hash (for the benchmarks), and the one JSON text reader the wasm crate
/// shares so serde_json's parser is compiled once.
#[doc(hidden)]
pub mod __hooks {
    pub use crate::json::from_text;
    pub use crate::storage::versions::{LOG_FANOUT, LogNode, Slot, height};

    /// The code points of Unicode category Cf, which a name may not hold, as
    /// inclusive ranges: the table tests/unicode_tables.rs derives again.
    pub const FORMAT_RANGES: &[(u32, u32)] = crate::path::FORMAT_RANGES;
    /// Every character whose NFKC form differs from it and holds `.`, `/` or `\`,
    /// with that form: the table tests/unicode_tables.rs derives again.
    pub const NFKC_SEPARATORS: &[(char, &str)] = crate::path::NFKC_SEPARATORS;

    /// Whether `c` is in [`FORMAT_RANGES`], as the path rules decide it.
    pub fn is_format(c: char) -> bool {
        crate::path::is_format(c)
    }

    /// Whether the name's NFKC form is `.` or `..` or holds `/` or `\`, as the
    /// path rules decide it.
    pub fn nfkc_escapes(name: &str) -> bool {
        crate::path::nfkc_escapes(name)
    }

    /// Whether `s` is in NFC, as the path rules decide it.
    pub fn is_nfc(s: &str) -> bool {
        crate::path::is_nfc(s)
    }

    /// A stored tree object in the JSON form earlier builds wrote (which they, and
    /// this build, read): what tests parse, edit by hand and store again.
    pub fn tree_json(bytes: &[u8]) -> Option<alloc::vec::Vec<u8>> {
        crate::storage::tree::Stored::decode(bytes).map(|s| s.encode_json())
    }

    /// A stored tree object (either form) in the form this build writes: what
    /// tests store again after editing its JSON by hand.
    pub fn tree_encoded(bytes: &[u8]) -> Option<alloc::vec::Vec<u8>> {
        crate::storage::tree::Stored::decode(bytes).map(|s| s.encode())
    }

    /// The engine's content hash (SHA-256), exactly as every write computes it: the
    /// benchmarks time it to give a write's floor (crossing + hashing its bytes
    /// once).
    pub fn sha256(bytes: &[u8]) -> [u8; 32] {
        crate::storage::tree::Hash::of(bytes).0
    }
}

/// The output of a future that is ready at its first poll, or `None`.
///
/// Every engine future over a synchronous store (in memory, a wasm component's
/// imports) is ready at once, so a runtime without an executor runs commands with
/// this, and treats `None` as a store that failed to answer: with nothing that could
/// wake it, polling again would only spin.
pub fn now_or_never<F: core::future::Future>(fut: F) -> Option<F::Output> {
    use core::task::{Context, Poll, Waker};
    match core::pin::pin!(fut).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(out) => Some(out),
        Poll::Pending => None,
    }
}

/// Runs a future to its end on this thread, parking the thread while it waits
/// until its waker is called: for native hosts and tests whose stores answer
/// synchronously, or whose async stores wake from another thread. Not for a store
/// that needs an event loop on this same thread (drive that with its executor).
#[cfg(feature = "std")]
pub fn block_on<F: core::future::Future>(fut: F) -> F::Output {
    use alloc::sync::Arc;
    use core::task::{Context, Poll};

    /// Wakes the parked thread (an `unpark` before the `park` is not lost).
    struct Unpark(std::thread::Thread);
    impl alloc::task::Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
        fn wake_by_ref(self: &Arc<Self>) {
            self.0.unpark();
        }
    }

    let waker = Arc::new(Unpark(std::thread::current())).into();
    let mut cx = Context::from_waker(&waker);
    let mut fut = core::pin::pin!(fut);
    loop {
        if let Poll::Ready(out) = fut.as_mut().poll(&mut cx) {
            return out;
        }
        std::thread::park();
    }
}
