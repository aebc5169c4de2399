//! Compiled components kept on disk, so a CLI call costs an instantiation rather
//! than a Cranelift compilation.
//!
//! An entry is named by the SHA-256 of the component's bytes and the engine's
//! compatibility hash, written whole (temp file + rename) and loaded with
//! `Component::deserialize_file`, which refuses an artifact from another wasmtime
//! or configuration. Loading runs native code from the cache directory, so it must
//! be as private as the user's own binaries (it is created 0700).

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use wasmtime::Engine;
use wasmtime::component::Component;

/// The default cache directory: `$MEMDIR_CACHE`, else `$XDG_CACHE_HOME/memdir-host`,
/// else `$HOME/.cache/memdir-host`.
pub fn default_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("MEMDIR_CACHE") {
        return Some(d.into());
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return Some(Path::new(&d).join("memdir-host"));
    }
    std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/memdir-host"))
}

fn entry(engine: &Engine, bytes: &[u8], dir: &Path) -> PathBuf {
    let digest = Sha256::digest(bytes);
    let mut h = std::collections::hash_map::DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut h);
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    dir.join(format!("{hex}-{:016x}.cwasm", h.finish()))
}

/// The compiled component, from the cache when it holds a usable entry; a fresh
/// compilation otherwise, stored for next time (a failure to store is not an error).
pub fn load_or_compile(engine: &Engine, bytes: &[u8], dir: &Path) -> wasmtime::Result<Component> {
    let path = entry(engine, bytes, dir);
    if path.is_file() {
        // SAFETY: the entry was written by `store` below from a compilation by an
        // engine with the same compatibility hash, in a directory only this user
        // can write; deserialize_file also checks version and configuration.
        #[allow(unsafe_code, reason = "wasmtime cannot verify precompiled code")]
        let cached = unsafe { Component::deserialize_file(engine, &path) };
        if let Ok(c) = cached {
            return Ok(c);
        }
    }
    let component = Component::new(engine, bytes)?;
    let _ = store(&component, dir, &path);
    Ok(component)
}

fn store(component: &Component, dir: &Path, path: &Path) -> std::io::Result<()> {
    let serialized = component.serialize().map_err(std::io::Error::other)?;
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)?;
    let tmp = dir.join(format!(".tmp-{}", std::process::id()));
    std::fs::write(&tmp, serialized)?;
    std::fs::rename(&tmp, path)
}
