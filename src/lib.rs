//! memdir: the Claude memory tool (`memory_20250818`) as one sandboxed engine.
//!
//! The engine owns everything that must be identical on every runtime: which paths
//! are legal, how a tool input parses, every output and error string, and the
//! all-or-nothing update of a content-addressed tree. It does no I/O: storage comes
//! in through the five-operation [`Store`] contract, time through a clock callback.
//!
//! Modules are named for what they decide: [`path`] (what a path may name),
//! `input` (how a tool call parses), `render` (the text of every answer), `lines`
//! (the line model), `tree` (the stored data model), `engine` (running a command).
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod conformance;
pub mod contract;
mod engine;
mod input;
mod lines;
pub mod path;
mod render;
pub mod secrets;
pub mod store;
pub mod store_dir;
mod tree;

pub use engine::{Backoff, Config, Engine, Entry, ExpireReport, GcReport, Limits, ToolResult};
pub use secrets::SecretPolicy;
pub use store::{MemoryStore, Page, Store, StoreError};

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
