//! The component in the host: one test binary, so the component is built and
//! compiled once for all of these tests.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod api;
mod conformance;
mod cross_tool;
mod encryption;
mod hostile_stores;
mod mounts;
mod processes;
mod sandbox;
mod search;
mod semantic;
mod support;
