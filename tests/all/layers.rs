//! The engine's layers, kept: every `crate::…` path in `src/` names a module of its
//! own layer or a lower one, never a higher one. Bottom to top:
//!
//! 0. the foundation (flat files: config, error, json, number, path, secrets,
//!    store, the `store_dir/` folder, time);
//! 1. `storage/` (the stored data model, cache, overlay, publish, shard);
//! 2. `history/` (the version log read, extended and pruned);
//! 3. `command/` (the memory tool's commands);
//! 4. the faces: `api/`, `toolset/`, `mounts/`, `records/`, `sync/`.
//!
//! A file that names a higher layer fails here with the file, the line and the
//! name, so a circle between layers cannot come back unseen; and within each crate
//! of the workspace, files that import each other in a circle fail here with the
//! circle (`no_crate_has_an_import_circle`). Beside them, config's one public
//! path: no submodule re-exports `crate::config` (`config_has_one_public_path`);
//! and no item the root re-exports is also reachable through a public module
//! (`each_root_export_has_one_public_path`).
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
        "config" | "error" | "json" | "number" | "path" | "seal" | "secrets" | "store"
        | "store_dir" | "time" => 0,
        "storage" => 1,
        "search" => 2,
        "history" => 3,
        "command" => 4,
        "api" | "toolset" | "mounts" | "records" | "sync" => 5,
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

// No import circles: within each crate of the workspace, the files' `crate::` and
// `super::` paths make a graph with no circle, so every file can be read knowing
// only the files below it. A circle is broken by moving the piece both files need
// into a small module both import, not by spelling the path another way.
//
// What counts as an import: every `crate::…` and `super::…` path in a file's code
// (comments, strings and `$crate` in macros are not), resolved to the deepest
// module of the path that is a file of the crate; a name the crate root re-exports
// (`crate::MemoryStore`) to the module it comes from; an item of an inline module
// (`mod bindings { … }`) or defined in the crate root counts as its file. A module's own
// children named without `crate::` (its `mod` lines and `use child::…`) are the
// module's table of contents, not imports.

/// The crates whose sources are checked for circles, from the workspace root.
const CRATE_SOURCES: [&str; 6] = [
    "src",
    "crates/memdir-wasm/src",
    "crates/memdir-idb/src",
    "crates/memdir-component/src",
    "host/src",
    "python/src",
];

/// A Rust file's code with its comments, string and character literals blanked,
/// so that the braces and paths left are the code's own.
fn code_only(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    let mut i = 0;
    while i < c.len() {
        let next = c.get(i + 1).copied();
        if c[i] == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if c[i] == '/' && next == Some('*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if c[i] == 'r'
            && (i == 0 || !ident(c[i - 1]) || c[i - 1] == 'b')
            && matches!(next, Some('"' | '#'))
        {
            // A raw string: r"…", r#"…"#, br#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while c.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if c.get(j) != Some(&'"') {
                out.push(c[i]);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                match c.get(j) {
                    None => break,
                    Some('"') if (1..=hashes).all(|h| c.get(j + h) == Some(&'#')) => {
                        j += 1 + hashes;
                        break;
                    }
                    _ => j += 1,
                }
            }
            out.push_str("\"\"");
            i = j;
        } else if c[i] == '"' {
            i += 1;
            while i < c.len() && c[i] != '"' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if c[i] == '\'' {
            // A character literal ('x', '\n', '\u{7f}'), or a lifetime ('a).
            if next == Some('\\') {
                let mut j = i + 2;
                while j < c.len() && c[j] != '\'' {
                    j += 1;
                }
                i = j + 1;
                out.push_str("' '");
            } else if c.get(i + 2) == Some(&'\'') {
                i += 3;
                out.push_str("' '");
            } else {
                out.push('\'');
                i += 1;
            }
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// The tokens of code: identifiers, `::`, and every other character alone.
fn tokens(code: &str) -> Vec<String> {
    let c: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        if c[i].is_alphanumeric() || c[i] == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            out.push(c[start..i].iter().collect());
        } else if c[i] == ':' && c.get(i + 1) == Some(&':') {
            out.push("::".into());
            i += 2;
        } else {
            if !c[i].is_whitespace() {
                out.push(c[i].to_string());
            }
            i += 1;
        }
    }
    out
}

/// The paths of a use tree starting at `t[*at]` (after its first `::`): `a::b`,
/// `a::{b, c::d}`, `a::*`, each as its segments after the prefix.
fn use_tree(t: &[String], at: &mut usize) -> Vec<Vec<String>> {
    let mut prefix = Vec::new();
    loop {
        match t.get(*at).map(String::as_str) {
            Some("{") => {
                *at += 1;
                let mut all = Vec::new();
                while t.get(*at).is_some_and(|s| s != "}") {
                    for p in use_tree(t, at) {
                        all.push(prefix.iter().cloned().chain(p).collect());
                    }
                    if t.get(*at).is_some_and(|s| s == ",") {
                        *at += 1;
                    } else if t.get(*at).is_some_and(|s| s != "}") {
                        *at += 1; // `as` renames and the like
                    }
                }
                *at += 1;
                return all;
            }
            Some(s) if s.chars().all(|c| c.is_alphanumeric() || c == '_') || s == "*" => {
                prefix.push(s.to_string());
                *at += 1;
                if t.get(*at).is_some_and(|s| s == "::") {
                    *at += 1;
                } else {
                    return vec![prefix];
                }
            }
            _ => return vec![prefix],
        }
    }
}

/// The module path of a file under a crate's `src` (`lib.rs` → none, `a/b.rs` and
/// `a/b/mod.rs` → `a::b`).
fn module_of(rel: &str) -> Vec<String> {
    let stem = rel.strip_suffix(".rs").unwrap_or(rel);
    let mut parts: Vec<String> = stem.split('/').map(String::from).collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts
}

/// Each file's imports of other files of the crate under `src`: file → files it
/// names (paths relative to `src`). The binary's root (`main.rs`), a crate of its
/// own with no modules, is left out.
fn import_graph(
    src: &Path,
) -> std::collections::BTreeMap<String, std::collections::BTreeSet<String>> {
    use std::collections::{BTreeMap, BTreeSet};
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let rels: Vec<String> = files
        .iter()
        .map(|f| {
            f.strip_prefix(src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/")
        })
        .filter(|r| r != "main.rs")
        .collect();
    let modules: BTreeMap<Vec<String>, String> =
        rels.iter().map(|r| (module_of(r), r.clone())).collect();
    // The crate root's `use` lines (`pub use store::MemoryStore;`): a path through
    // a root re-export (`crate::MemoryStore`) imports the module it comes from, so
    // a circle cannot hide behind the root.
    let mut reexports: BTreeMap<String, Vec<String>> = BTreeMap::new();
    if let Ok(root) = fs::read_to_string(src.join("lib.rs")) {
        let t = tokens(&code_only(&root));
        for (i, tok) in t.iter().enumerate() {
            if tok != "use" {
                continue;
            }
            let mut at = i + 1;
            if t.get(at).is_some_and(|s| s == "crate") && t.get(at + 1).is_some_and(|s| s == "::") {
                at += 2;
            }
            for path in use_tree(&t, &mut at) {
                let from_a_module = path
                    .first()
                    .is_some_and(|m| modules.contains_key(&vec![m.clone()]));
                if let (true, Some(name)) = (from_a_module, path.last()) {
                    reexports.insert(name.clone(), path.clone());
                }
            }
        }
    }
    let mut graph = BTreeMap::new();
    for rel in &rels {
        let own = module_of(rel);
        let text = fs::read_to_string(src.join(rel)).unwrap();
        let t = tokens(&code_only(&text));
        let mut edges = BTreeSet::new();
        // Inline modules open here: (name, the brace depth inside them).
        let (mut depth, mut inline): (usize, Vec<(String, usize)>) = (0, Vec::new());
        let mut opening: Option<String> = None;
        let mut i = 0;
        while i < t.len() {
            match t[i].as_str() {
                "mod" if t.get(i + 2).is_some_and(|s| s == "{") => {
                    opening = t.get(i + 1).cloned();
                    i += 2;
                    continue;
                }
                "{" => {
                    depth += 1;
                    if let Some(name) = opening.take() {
                        inline.push((name, depth));
                    }
                }
                "}" => {
                    if inline.last().is_some_and(|(_, d)| *d == depth) {
                        inline.pop();
                    }
                    depth = depth.saturating_sub(1);
                }
                first @ ("crate" | "super")
                    if t.get(i + 1).is_some_and(|s| s == "::")
                        && !(i > 0 && (t[i - 1] == "$" || t[i - 1] == "::")) =>
                {
                    let mut base: Vec<String> = if first == "crate" {
                        Vec::new()
                    } else {
                        own.iter()
                            .cloned()
                            .chain(inline.iter().map(|(n, _)| n.clone()))
                            .collect()
                    };
                    let mut at = i + 2;
                    if first == "super" {
                        base.pop();
                        while t.get(at).is_some_and(|s| s == "super")
                            && t.get(at + 1).is_some_and(|s| s == "::")
                        {
                            base.pop();
                            at += 2;
                        }
                    }
                    for mut path in use_tree(&t, &mut at) {
                        if let Some(via) = path
                            .first()
                            .filter(|_| base.is_empty())
                            .filter(|n| !modules.contains_key(&vec![(*n).clone()]))
                            .and_then(|n| reexports.get(n))
                        {
                            path = via
                                .iter()
                                .cloned()
                                .chain(path.into_iter().skip(1))
                                .collect();
                        }
                        let mut full: Vec<String> = base.iter().cloned().chain(path).collect();
                        while !modules.contains_key(&full) {
                            full.pop();
                        }
                        if let Some(target) = modules.get(&full).filter(|t| *t != rel) {
                            edges.insert(target.clone());
                        }
                    }
                    i = at;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        graph.insert(rel.clone(), edges);
    }
    graph
}

/// One circle through each knot of files that import each other, the shortest
/// from the knot's first file (`a.rs → b.rs → a.rs`), and the knot's other files.
fn circles(
    graph: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
) -> Vec<(Vec<String>, Vec<String>)> {
    use std::collections::{BTreeMap, BTreeSet, VecDeque};
    let reach = |from: &String| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.clone()];
        while let Some(f) = todo.pop() {
            for g in graph.get(&f).into_iter().flatten() {
                if seen.insert(g.clone()) {
                    todo.push(g.clone());
                }
            }
        }
        seen
    };
    let mut done = BTreeSet::new();
    let mut found = Vec::new();
    for start in graph.keys() {
        if done.contains(start) || !reach(start).contains(start) {
            continue;
        }
        // The knot: every file reachable from `start` that reaches it back.
        let knot: BTreeSet<String> = reach(start)
            .into_iter()
            .filter(|f| reach(f).contains(start))
            .collect();
        done.extend(knot.iter().cloned());
        // The shortest way back to `start`, breadth first.
        let mut came: BTreeMap<String, String> = BTreeMap::new();
        let mut queue = VecDeque::from([start.clone()]);
        'search: while let Some(f) = queue.pop_front() {
            for g in graph.get(&f).into_iter().flatten() {
                if g == start {
                    // Back from `f` to `start`, then turned around and closed.
                    let mut circle = vec![f.clone()];
                    let mut at = f.clone();
                    while let Some(p) = came.get(&at) {
                        circle.push(p.clone());
                        at = p.clone();
                    }
                    circle.reverse();
                    circle.push(start.clone());
                    let rest: Vec<String> = knot
                        .iter()
                        .filter(|k| !circle.contains(k))
                        .cloned()
                        .collect();
                    found.push((circle, rest));
                    break 'search;
                }
                if knot.contains(g) && !came.contains_key(g) && g != start {
                    came.insert(g.clone(), f.clone());
                    queue.push_back(g.clone());
                }
            }
        }
    }
    found
}

#[test]
fn no_crate_has_an_import_circle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for src in CRATE_SOURCES {
        for (circle, rest) in circles(&import_graph(&root.join(src))) {
            let also = if rest.is_empty() {
                String::new()
            } else {
                format!(" (tied in the same knot: {})", rest.join(", "))
            };
            found.push(format!("  {src}: {}{also}", circle.join(" → ")));
        }
    }
    assert!(
        found.is_empty(),
        "files importing each other (crate::/super:: paths) — move the piece both need \
         into a small module both import:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_sees_an_import_circle() {
    let dir = std::env::temp_dir().join(format!("memdir-circles-{}", std::process::id()));
    fs::create_dir_all(dir.join("store_dir")).unwrap();
    // a → b → store_dir/names.rs → a, through a use tree and a root re-export,
    // `crate::` and `super::`; comments, strings, `$crate` and a test module's
    // `super::` name nothing.
    fs::write(
        dir.join("lib.rs"),
        "mod a;\nmod b;\nmod c;\nmod store_dir;\npub use b::Thing;\n",
    )
    .unwrap();
    fs::write(
        dir.join("a.rs"),
        "use crate::{c, Thing};\n// crate::store_dir in a comment is prose\n\
         const S: &str = \"crate::c in a string is text\";\n",
    )
    .unwrap();
    fs::write(
        dir.join("b.rs"),
        "pub struct Thing(crate::store_dir::names::Name);\nmacro_rules! m { () => { $crate::c::X } }\n",
    )
    .unwrap();
    fs::write(
        dir.join("c.rs"),
        "pub const X: u8 = 1;\n#[cfg(test)]\nmod tests {\n    use super::*;\n    fn f() { let _ = '{'; }\n}\n",
    )
    .unwrap();
    fs::write(
        dir.join("store_dir/mod.rs"),
        "mod names;\npub struct Other;\n",
    )
    .unwrap();
    fs::write(
        dir.join("store_dir/names.rs"),
        "pub struct Name;\nuse super::super::a::Y;\nuse super::Other;\n",
    )
    .unwrap();
    let found = circles(&import_graph(&dir));
    fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        found,
        [(
            ["a.rs", "b.rs", "store_dir/names.rs", "a.rs"]
                .map(String::from)
                .to_vec(),
            Vec::new()
        )]
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

/// Each item the crate root re-exports that is also reachable through public
/// modules, as (the root's name, the second path): `pub use path::ValidPath` beside
/// `pub mod path` gives `memdir::ValidPath` and `memdir::path::ValidPath`, and
/// callers then spell it both ways. An item's one public path is either at the root
/// (its module private, as rustls does) or in its public module (not re-exported).
/// A module is public when it is declared `pub mod` in its parent's file.
fn second_paths(src: &Path) -> Vec<(String, String)> {
    let file_of = |module: &[String]| -> Option<String> {
        if module.is_empty() {
            return fs::read_to_string(src.join("lib.rs")).ok();
        }
        let rel = module.join("/");
        fs::read_to_string(src.join(format!("{rel}.rs")))
            .or_else(|_| fs::read_to_string(src.join(format!("{rel}/mod.rs"))))
            .ok()
    };
    // Whether `parent` declares `child` with a plain `pub mod` (not `pub(crate)`).
    let declares_pub = |parent: &[String], child: &str| -> bool {
        let Some(text) = file_of(parent) else {
            return false;
        };
        let t = tokens(&code_only(&text));
        t.windows(3)
            .any(|w| w[0] == "pub" && w[1] == "mod" && w[2] == child)
    };
    let root = tokens(&code_only(&fs::read_to_string(src.join("lib.rs")).unwrap()));
    let mut found = Vec::new();
    let mut at = 0;
    while at + 1 < root.len() {
        if !(root[at] == "pub" && root[at + 1] == "use") {
            at += 1;
            continue;
        }
        at += 2;
        for mut path in use_tree(&root, &mut at) {
            if path.first().is_some_and(|s| s == "crate") {
                path.remove(0);
            }
            let Some((item, modules)) = path.split_last() else {
                continue;
            };
            let public = !modules.is_empty()
                && (0..modules.len()).all(|i| declares_pub(&modules[..i], &modules[i]));
            if public {
                found.push((
                    format!("memdir::{item}"),
                    format!("memdir::{}", path.join("::")),
                ));
            }
        }
    }
    found
}

#[test]
fn each_root_export_has_one_public_path() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = second_paths(&src);
    assert!(
        found.is_empty(),
        "items the crate root re-exports that a public module also exports (make the \
         module private, or drop the root's re-export):\n{}",
        found
            .iter()
            .map(|(root, other)| format!("  {root} is also {other}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn the_check_sees_a_second_public_path() {
    let dir = std::env::temp_dir().join(format!("memdir-root-paths-{}", std::process::id()));
    fs::create_dir_all(dir.join("faces")).unwrap();
    fs::write(
        dir.join("lib.rs"),
        "// pub mod commented;\npub mod faces;\npub(crate) mod store;\nmod path;\n\
         pub use faces::{Face, inner::Deep, hidden::Kept};\npub use path::ValidPath;\n\
         pub use crate::store::Store;\n",
    )
    .unwrap();
    fs::write(
        dir.join("faces/mod.rs"),
        "pub mod inner;\nmod hidden;\npub struct Face;\n",
    )
    .unwrap();
    fs::write(dir.join("faces/inner.rs"), "pub struct Deep;\n").unwrap();
    let found = second_paths(&dir);
    fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        found,
        [
            (
                "memdir::Face".to_string(),
                "memdir::faces::Face".to_string()
            ),
            (
                "memdir::Deep".to_string(),
                "memdir::faces::inner::Deep".to_string()
            ),
        ]
    );
}
