//! The engine's integration tests, as one test binary (as wasmtime keeps its own in
//! `tests/all/main.rs`): each former `tests/<name>.rs` is a module here, so the engine
//! and the dev-dependencies are linked once rather than once per file, which is most
//! of a clean test build's time and of its disk. A module's tests are named
//! `<module>::<test>`: `cargo test -p memdir --test all sync::` runs one module's.
//! Each module keeps its own lint allowances; `common` is the store wrapper they
//! share (and `cargo bench --bench engine` includes by path).

mod access;
mod api;
mod atomicity;
mod block_on;
mod common;
mod concurrency;
mod conformance;
mod cost;
mod expiry;
mod gc;
mod hostile_store;
mod layers;
mod model;
mod mounts;
mod old_stores;
mod redaction;
mod retention;
mod shard;
mod sync;
mod texts;
mod tool_definition;
mod toolset;
mod typed;
mod unicode_tables;
mod version_cost;
mod view_overlap;
