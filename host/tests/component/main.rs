//! The component in the host: one test binary, so the component is built and
//! compiled once for all of these tests.

mod conformance;
mod cross_tool;
mod processes;
mod sandbox;
mod support;
