//! memdir-host: runs the memdir component (`wasm32-wasip2`, world
//! `memdir:memory/memdir`) in wasmtime, lending it storage through
//! `wasi:keyvalue@0.2.0-draft2` and nothing else.
//!
//! - [`backend`]: the storage a host lends, in memory ([`MemoryBackend`]);
//! - [`store_dir`]: in a store directory on disk, safe across processes ([`DirBackend`]);
//! - `keyvalue`: the world's imports over a backend (the handles it serves in
//!   `resources`, the memory cap it carries in `limiter`);
//! - [`sandbox`]: compiling and running the component within limits ([`Runtime`], [`Host`]),
//!   and a key for encryption at rest ([`Encryption`], `ToolConfig::encryption`);
//! - [`cache`]: compiled components kept on disk for fast starts;
//! - [`embedder`]: the application's embedder lent to the component ([`HostEmbedder`]);
//! - [`messages`]: the host's own answers (oversized or non-UTF-8 input, traps);
//! - [`mounted`]: several stores as one memory, an instance per mount ([`MountedHost`]).
//!
//! ```no_run
//! use std::sync::Arc;
//! use memdir_host::{DirBackend, Host, HostLimits};
//! let store = Arc::new(DirBackend::open("memory")?);
//! let mut host = Host::new(memdir_host::locate_component()?, store, HostLimits::default())?;
//! let r = host.execute_json(r#"{"command":"view","path":"/memories"}"#);
//! println!("{}", r.content);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod backend;
pub mod cache;
pub mod embedder;
mod keyvalue;
mod limiter;
pub mod messages;
pub mod mounted;
mod resources;
pub mod sandbox;
pub mod store_dir;

pub use backend::{Backend, MemoryBackend};
pub use embedder::{HostEmbedder, TestHostEmbedder};
pub use messages::Fault;
pub use mounted::{Instance, MountedHost};
pub use sandbox::{
    CallError, CallErrorKind, ComponentDefaults, Encryption, Host, HostLimits, IndexStatus,
    Runtime, ToolConfig, ToolsetFailure,
};
pub use store_dir::DirBackend;

mod bindings {
    wasmtime::component::bindgen!({
        path: "../wit",
        world: "memdir",
        imports: { default: trappable },
        with: {
            "wasi:keyvalue/store.bucket": crate::resources::BucketHandle,
            "wasi:keyvalue/atomics.cas": crate::resources::CasHandle,
        },
    });
}

/// Where `cargo build -p memdir-component --target wasm32-wasip2 --profile
/// release-wasm` puts the component, relative to a target directory.
pub const COMPONENT_IN_TARGET: &str = "wasm32-wasip2/release-wasm/memdir_component.wasm";

/// Finds the component: `$MEMDIR_COMPONENT` if set, else the build's output in the
/// target directory that holds the running executable (the CLI in
/// `target/<profile>/`, a test in `target/<profile>/deps/`).
pub fn locate_component() -> std::io::Result<std::path::PathBuf> {
    if let Some(p) = std::env::var_os("MEMDIR_COMPONENT") {
        return Ok(p.into());
    }
    let exe = std::env::current_exe()?;
    for dir in exe.ancestors().skip(1).take(3) {
        let candidate = dir.join(COMPONENT_IN_TARGET);
        if candidate.is_file() {
            return Ok(candidate);
        }
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::NotFound,
        "the memdir component is not built: run `cargo build -p memdir-component --target wasm32-wasip2 \
         --profile release-wasm`, or set MEMDIR_COMPONENT to its path",
    ))
}
