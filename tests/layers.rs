//! The engine's layers, kept: every `crate::…` path in `src/` names a module of its
//! own layer or a lower one, never a higher one. Bottom to top:
//!
//! 0. the foundation (flat files: config, error, json, number, path, secrets,
//!    store, store_dir, time);
//! 1. `storage/` (the stored data model, cache, overlay, publish, shard);
//! 2. `history/` (the version log read, extended and pruned);
//! 3. `command/` (the memory tool's commands);
//! 4. the faces: `api/`, `toolset/`, `mounts/`, `sync/`.
//!
//! A file that names a higher layer fails here with the file, the line and the
//! name, so a circle between layers cannot come back unseen.
//!
//! Beside them, config's one public path: no submodule re-exports `crate::config`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::fs;
use std::path::{Path, PathBuf};

/// The layer of a module named right after `crate::`, or of a file by its path
/// under `src/`. `None`: not a layer's module (a root re-export such as
/// `crate::Engine`, which only the test-support files may use).
fn layer_of_module(name: &str) -> Option<u8> {
    Some(match name {
        "config" | "error" | "json" | "number" | "path" | "secrets" | "store" | "store_dir"
        | "time" => 0,
        "storage" => 1,
        "history" => 2,
        "command" => 3,
        "api" | "toolset" | "mounts" | "sync" => 4,
        _ => return None,
    })
}

fn layer_of_file(rel: &str) -> Option<u8> {
    let first = rel.split(['/', '.']).next()?;
    layer_of_module(first)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level names each `crate::` path in `line` starts with (`crate::a::b` →
/// `a`; `crate::{a, b::c}` → `a`, `b`).
fn names_after_crate(line: &str) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut names = Vec::new();
    for (at, _) in line.match_indices("crate::") {
        let rest = &line[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let group = group.split('}').next().unwrap_or("");
            names.extend(group.split(',').map(ident).filter(|n| !n.is_empty()));
        } else {
            names.push(ident(rest));
        }
    }
    names
}

/// Every upward reference in the files under `src`: (file, line number, name).
fn upward(src: &Path) -> Vec<(String, usize, String)> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut found = Vec::new();
    for file in files {
        let rel = file
            .strip_prefix(src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let Some(own) = layer_of_file(&rel) else {
            continue; // lib.rs and the test-support files (conformance, contract)
        };
        let text = fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            // Comments (and doc links in them) are prose, not imports.
            let code = line.split("//").next().unwrap_or("");
            for name in names_after_crate(code) {
                let named = layer_of_module(&name);
                if named.is_none_or(|l| l > own) {
                    found.push((rel.clone(), n + 1, name));
                }
            }
        }
    }
    found
}

#[test]
fn no_layer_names_a_higher_one() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = upward(&src);
    assert!(
        found.is_empty(),
        "modules naming a higher layer (or a root re-export) — move the item down, or \
         have the higher layer pass it in:\n{}",
        found
            .iter()
            .map(|(f, n, name)| format!("  src/{f}:{n}: crate::{name}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn the_check_sees_an_upward_import() {
    let dir = std::env::temp_dir().join(format!("memdir-layers-{}", std::process::id()));
    fs::create_dir_all(dir.join("storage")).unwrap();
    fs::write(
        dir.join("storage/tree.rs"),
        "use crate::storage::meta::StoreMeta;\n// crate::api in a comment is prose\n\
         pub store: Option<crate::api::meta::StoreMeta>,\nuse crate::{config, command::plan};\n",
    )
    .unwrap();
    fs::write(dir.join("path.rs"), "use crate::config::MAX_PATH_BYTES;\n").unwrap();
    let found = upward(&dir);
    fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        found,
        [
            ("storage/tree.rs".to_string(), 3, "api".to_string()),
            ("storage/tree.rs".to_string(), 4, "command".to_string()),
        ]
    );
}

/// Each `pub use crate::config::…` in `src/` outside the crate root, as (file, line):
/// a limit re-exported by a submodule gets a second public path
/// (`memdir::store::MAX_VALUE_BYTES` beside `memdir::config::MAX_VALUE_BYTES`), and
/// callers then spell it both ways. Submodules import config's items privately.
fn config_re_exports(src: &Path) -> Vec<(String, usize)> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let mut found = Vec::new();
    for file in files {
        let rel = file
            .strip_prefix(src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if rel == "lib.rs" {
            continue;
        }
        let text = fs::read_to_string(&file).unwrap();
        for (i, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("pub use crate::config") {
                found.push((rel.clone(), i + 1));
            }
        }
    }
    found
}

#[test]
fn config_has_one_public_path() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = config_re_exports(&src);
    assert!(
        found.is_empty(),
        "submodules re-exporting config (import it with a private `use`; callers \
         write memdir::config::…):\n{}",
        found
            .iter()
            .map(|(f, n)| format!("  src/{f}:{n}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn the_check_sees_a_config_re_export() {
    let dir = std::env::temp_dir().join(format!("memdir-config-paths-{}", std::process::id()));
    fs::create_dir_all(dir.join("api")).unwrap();
    fs::write(
        dir.join("api/page.rs"),
        "use crate::config::MAX_LIMIT;\npub use crate::config::{DEFAULT_LIMIT, MAX_LIMIT_FULL};\n",
    )
    .unwrap();
    fs::write(dir.join("lib.rs"), "pub use crate::config::Config;\n").unwrap();
    let found = config_re_exports(&dir);
    fs::remove_dir_all(&dir).unwrap();
    assert_eq!(found, [("api/page.rs".to_string(), 2)]);
}
