//! The instance's memory cap, as wasmtime asks it: here, below both the sandbox
//! that sets it and the key-value state that carries it, so neither names the other
//! for it.

use wasmtime::ResourceLimiter;

/// Refused memory growth; the trap it raises is recognised by its type.
#[derive(Debug)]
pub(crate) struct OverMemory;

impl std::fmt::Display for OverMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("instance memory limit reached")
    }
}

impl std::error::Error for OverMemory {}

pub(crate) struct Limiter {
    memory_bytes: usize,
}

impl Limiter {
    pub(crate) fn new(memory_bytes: usize) -> Self {
        Limiter { memory_bytes }
    }
}

impl ResourceLimiter for Limiter {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _max: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.memory_bytes {
            return Err(wasmtime::Error::new(OverMemory));
        }
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _max: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= 100_000)
    }
}
