//! memdir: the Claude memory tool (`memory_20250818`) as one sandboxed engine.
//!
//! The engine owns everything that must be identical on every runtime: which paths
//! are legal, how a tool input parses, every output and error string, and the
//! all-or-nothing update of a content-addressed tree. It does no I/O: storage comes
//! in through the five-operation [`Store`] contract, time through a clock callback.
//!
//! Modules are named for what they decide: [`path`] (what a path may name),
//! [`input`] (how a tool call parses into a [`Command`]), [`error`] (every failure
//! and its text), `render` (the text of every successful answer), `lines` (the line
//! model), `tree` (the stored data model), [`config`] (every default and limit),
//! `engine` (running a command), `cache` (the object cache), `plan` (what a change
//! does to the tree), `overlay` (a change's new objects), `publish` (the one
//! compare-and-swap, and the retry loop around it), `maintain` (entries, import,
//! expire, gc), `retain` (which versions a retention period keeps).
//!
//! The typed entry point is [`Engine::run`]; [`Engine::execute`] and
//! [`Engine::execute_json`] are thin adapters for JSON inputs.
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod api;
mod cache;
pub mod config;
mod engine;
pub mod error;
mod history;
pub mod input;
pub mod json;
mod lines;
mod maintain;
mod meta;
pub mod mounts;
mod number;
mod overlay;
pub mod path;
mod plan;
mod publish;
mod render;
mod retain;
pub mod secrets;
mod shard;
pub mod store;
pub mod store_dir;
mod time;
pub mod toolset;
mod tree;
pub mod versions;
mod wire;

/// The language-neutral conformance data's reader, for the test runners of every
/// runtime (feature `conformance`).
#[cfg(feature = "conformance")]
pub mod conformance;
/// The store-contract suite, for adapters' tests and for users checking their own
/// store (feature `contract`).
#[cfg(feature = "contract")]
pub mod contract;

pub use api::Response;
pub use config::{Config, Defaults, Limits};
pub use engine::{Backoff, Engine, ToolResult};
pub use error::{ErrorKind, LimitError, Refusal, ToolError};
pub use input::{Command, InputError};
pub use maintain::{Entry, ExpireReport, GcReport};
pub use mounts::{Access, Mount, MountError, MountTarget, Mounted};
pub use retain::{MAX_RETAIN_SCAN, RetainReport};
pub use secrets::SecretPolicy;
pub use store::{MemoryStore, Page, Store, StoreError};
pub use toolset::ToolsetError;
pub use tree::MAX_STORED_SIZE;

/// The engine's content hash (SHA-256), exactly as every write computes it: the
/// benchmarks time it to give a write's floor (crossing + hashing its bytes once).
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    tree::Hash::of(bytes).0
}

/// Drives a future to completion without an executor.
///
/// For stores that answer synchronously (in memory, on disk, a wasm component's
/// imports): their futures are ready on first poll. A future that is not ready is
/// polled again after a yield, so this is never the way to drive a real async store.
pub fn block_on<F: core::future::Future>(fut: F) -> F::Output {
    use core::task::{Context, Poll, Waker};
    let mut fut = core::pin::pin!(fut);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(out) = fut.as_mut().poll(&mut cx) {
            return out;
        }
        #[cfg(feature = "std")]
        std::thread::yield_now();
        #[cfg(not(feature = "std"))]
        core::hint::spin_loop();
    }
}
