//! Large directories: a write into a directory of N entries writes a bounded
//! number of bytes however large N is, the layout depends only on the entries
//! (growing past a leaf and shrinking back gives the same objects as importing the
//! same entries), and every entry stays reachable.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use crate::common;

use std::cell::Cell;
use std::collections::BTreeMap;

use common::file;
use memdir::config::Config;
use memdir::{Engine, Entry, MemoryStore, Page, Store, StoreError, block_on};
use serde_json::{Value, json};

/// Counts the bytes of every value written.
struct Bytes {
    inner: MemoryStore,
    written: Cell<usize>,
}

impl Store for Bytes {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.inner.get(key).await
    }
    async fn set(&self, key: &str, value: &[u8]) -> Result<(), StoreError> {
        self.written.set(self.written.get() + value.len());
        self.inner.set(key, value).await
    }
    async fn delete(&self, key: &str) -> Result<(), StoreError> {
        self.inner.delete(key).await
    }
    async fn list(&self, prefix: &str, cursor: Option<&str>) -> Result<Page, StoreError> {
        self.inner.list(prefix, cursor).await
    }
    async fn compare_and_swap(
        &self,
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError> {
        self.written.set(self.written.get() + new.len());
        self.inner.compare_and_swap(key, expected, new).await
    }
}

fn flat(n: usize) -> Vec<Entry> {
    (0..n)
        .map(|i| file(&format!("/memories/flat/f{i:05}.md"), "x"))
        .collect()
}

/// The stored root node's key: what the head's commit names.
fn root_key(store: &MemoryStore) -> String {
    let head = block_on(store.get("head")).unwrap().unwrap();
    let commit = block_on(store.get(&format!("commit/{}", String::from_utf8(head).unwrap())))
        .unwrap()
        .unwrap();
    let commit: serde_json::Value = serde_json::from_slice(&commit).unwrap();
    format!("tree/{}", commit["root"].as_str().unwrap())
}

#[test]
fn a_write_into_a_directory_of_50000_files_writes_a_bounded_number_of_bytes() {
    let store = Bytes {
        inner: MemoryStore::new(),
        written: Cell::new(0),
    };
    let engine = Engine::new(&store, Config::default());
    block_on(engine.import(&flat(50_000))).unwrap();
    let whole = store.written.get();
    for (i, input) in [
        json!({"command": "create", "path": "/memories/flat/new.md", "file_text": "n"}),
        json!({"command": "str_replace", "path": "/memories/flat/f12345.md", "old_str": "x", "new_str": "y"}),
        json!({"command": "delete", "path": "/memories/flat/f00001.md"}),
        json!({"command": "rename", "old_path": "/memories/flat/f00002.md", "new_path": "/memories/flat/g.md"}),
    ]
    .iter()
    .enumerate()
    {
        store.written.set(0);
        let r = block_on(engine.execute(input));
        assert!(!r.is_error, "{}", r.content);
        let bytes = store.written.get();
        println!("command {i} into 50,000 entries: {bytes} bytes written (the import: {whole})");
        // One leaf of at most 128 entries (~13 KiB here) and one branch per level
        // (16 slots each), twice for a rename; the whole directory is ~5 MiB.
        assert!(bytes < 64 * 1024, "command {i} wrote {bytes} bytes");
    }
    let names: Vec<String> = block_on(engine.entries())
        .unwrap()
        .into_iter()
        .map(|e| e.path)
        .collect();
    // The directory itself, 50,000 files, one created and one deleted.
    assert_eq!(names.len(), 1 + 50_000 + 1 - 1);
    assert!(names.contains(&"/memories/flat/new.md".to_string()));
    assert!(names.contains(&"/memories/flat/g.md".to_string()));
    assert!(!names.contains(&"/memories/flat/f00001.md".to_string()));
}

#[test]
fn growing_past_a_leaf_and_shrinking_back_gives_the_layout_an_import_gives() {
    let grown = MemoryStore::new();
    let engine = Engine::new(grown.clone(), Config::default());
    let mut model: BTreeMap<String, Option<String>> = BTreeMap::new();
    // Up to 600 entries (several leaves, two levels of branches at the top), then
    // down to 3, checking the layout against a fresh import at each size.
    let sizes = [1usize, 128, 129, 300, 600, 257, 128, 127, 3];
    let mut have = 0usize;
    for &want in &sizes {
        while have < want {
            let path = format!("/memories/d/n{have:04}");
            let r = block_on(engine.execute(
                &json!({"command": "create", "path": path, "file_text": format!("{have}")}),
            ));
            assert!(!r.is_error, "{}", r.content);
            model.insert(path, Some(format!("{have}")));
            have += 1;
        }
        while have > want {
            have -= 1;
            let path = format!("/memories/d/n{have:04}");
            let r = block_on(engine.execute(&json!({"command": "delete", "path": path})));
            assert!(!r.is_error, "{}", r.content);
            model.remove(&path);
        }
        let mut entries: Vec<Entry> = vec![Entry {
            path: "/memories/d".into(),
            content: None,
        }];
        entries.extend(model.iter().map(|(p, c)| Entry {
            path: p.clone(),
            content: c.clone(),
        }));
        assert_eq!(block_on(engine.entries()).unwrap(), entries, "at {want}");
        let fresh = MemoryStore::new();
        block_on(Engine::new(fresh.clone(), Config::default()).import(&entries)).unwrap();
        assert_eq!(
            root_key(&grown),
            root_key(&fresh),
            "layout at {want} entries"
        );
        let view = block_on(engine.execute(&json!({"command": "view", "path": "/memories/d"})));
        assert_eq!(view.content.lines().count(), 2 + want, "view at {want}");
    }
}

#[test]
fn moves_within_and_across_large_directories_give_the_layout_an_import_gives() {
    // A move rewrites each directory on its ways once (both of its names in one
    // leaf, in one branch's slots or in two directories): the result must still be
    // the layout a fresh import of the same entries makes, as it grows past a leaf
    // and shrinks back (every directory's shape, leaves and branches).
    let store = MemoryStore::new();
    let engine = Engine::new(store.clone(), Config::default());
    let mut model: BTreeMap<String, Option<String>> = BTreeMap::new();
    let mut entries: Vec<Entry> = ["/memories/d", "/memories/e"]
        .iter()
        .map(|d| Entry {
            path: (*d).into(),
            content: None,
        })
        .collect();
    for (dir, n) in [("d", 130), ("e", 126)] {
        for i in 0..n {
            let path = format!("/memories/{dir}/n{i:04}");
            entries.push(file(&path, &format!("{dir}{i}")));
            model.insert(path, Some(format!("{dir}{i}")));
        }
    }
    block_on(engine.import(&entries)).unwrap();
    let moves = (0..12)
        .map(|i| {
            (
                format!("/memories/d/n{i:04}"),
                format!("/memories/d/m{i:04}"),
            )
        })
        .chain((12..16).map(|i| {
            (
                format!("/memories/d/n{i:04}"),
                format!("/memories/e/k{i:04}"),
            )
        }))
        .chain((0..6).map(|i| {
            (
                format!("/memories/e/n{i:04}"),
                format!("/memories/f/g/n{i:04}"),
            )
        }))
        .chain((16..20).map(|i| {
            (
                format!("/memories/e/n{i:04}"),
                format!("/memories/d/k{i:04}"),
            )
        }));
    for (from, to) in moves {
        let r = block_on(
            engine.execute(&json!({"command": "rename", "old_path": from, "new_path": to})),
        );
        assert!(!r.is_error, "{from} -> {to}: {}", r.content);
        let content = model.remove(&from).unwrap();
        model.insert(to.clone(), content);
        let mut want: Vec<Entry> = Vec::new();
        let mut dirs: Vec<String> = model
            .keys()
            .flat_map(|p| {
                let parts: Vec<&str> = p.split('/').collect();
                (3..parts.len()).map(move |k| parts[..k].join("/"))
            })
            .chain(["/memories/d".into(), "/memories/e".into()])
            .collect();
        dirs.sort();
        dirs.dedup();
        want.extend(dirs.into_iter().map(|d| Entry {
            path: d,
            content: None,
        }));
        want.extend(model.iter().map(|(p, c)| Entry {
            path: p.clone(),
            content: c.clone(),
        }));
        want.sort_by(|a, b| a.path.cmp(&b.path));
        assert_eq!(
            block_on(engine.entries()).unwrap(),
            want,
            "after {from} -> {to}"
        );
        assert_laid_out_as_imported(&store, &want, &format!("after {from} -> {to}"));
    }
}

#[test]
fn every_entry_of_a_directory_of_50000_files_is_reached_by_paging_its_view() {
    let engine = Engine::new(MemoryStore::new(), Config::default());
    block_on(engine.import(&flat(50_000))).unwrap();
    let header = "Here're the files and directories up to 2 levels deep in /memories/flat, excluding hidden items and node_modules:\n";
    let mut rows: Vec<String> = Vec::new();
    let mut range: Option<(i64, i64)> = None;
    let mut pages = 0;
    loop {
        pages += 1;
        assert!(pages < 100, "paging does not end");
        let mut input = json!({"command": "view", "path": "/memories/flat"});
        if let Some((s, e)) = range {
            input["view_range"] = json!([s, e]);
        }
        let r = block_on(engine.execute(&input));
        assert!(!r.is_error, "{}", r.content);
        let body = r
            .content
            .strip_prefix(header)
            .expect("the listing's header");
        let mut lines: Vec<&str> = body.split('\n').collect();
        let hint = lines
            .last()
            .and_then(|l| {
                l.strip_prefix("[Output cut at the read limit of 100,000 characters after line ")
            })
            .map(str::to_string);
        match hint {
            None => {
                rows.extend(lines.iter().map(|l| l.to_string()));
                break;
            }
            Some(h) => {
                lines.pop();
                rows.extend(lines.iter().map(|l| l.to_string()));
                let (_, next) = h.split_once("view with view_range [").unwrap();
                let (s, e) = next.trim_end_matches("].]").split_once(", ").unwrap();
                let s: i64 = s.parse().unwrap();
                assert_eq!(
                    s as usize,
                    rows.len() + 1,
                    "the hint continues where the page ended"
                );
                range = Some((s, e.parse().unwrap()));
            }
        }
    }
    println!("50,000 entries in {pages} pages");
    assert!(pages > 10);
    assert_eq!(rows.len(), 50_001);
    assert_eq!(rows[0], "49K\t/memories/flat");
    for (i, row) in rows.iter().skip(1).enumerate() {
        assert_eq!(*row, format!("1B\t/memories/flat/f{i:05}.md"));
    }
}

/// A store written before directories were split (one node of 300 entries) reads
/// as it is, and its first write lays the directory out as an import would.
#[test]
fn an_old_single_node_directory_reads_and_is_laid_out_again_on_its_first_write() {
    use sha2::{Digest, Sha256};
    let hex = |b: &[u8]| -> String {
        Sha256::digest(b)
            .iter()
            .map(|x| format!("{x:02x}"))
            .collect()
    };
    let store = MemoryStore::new();
    let put = |bytes: Vec<u8>, prefix: &str| -> String {
        let h = hex(&bytes);
        block_on(store.set(&format!("{prefix}{h}"), &bytes)).unwrap();
        h
    };
    let blob = put(b"x".to_vec(), "blob/");
    let entries: Vec<Value> = (0..300)
        .map(|i| json!([format!("f{i:03}"), "f", blob, 1, 0]))
        .collect();
    let old_dir = put(
        serde_json::to_vec(&json!({ "e": entries })).unwrap(),
        "tree/",
    );
    let root = put(
        serde_json::to_vec(&json!({"e": [["old", "d", old_dir, 300, 0]]})).unwrap(),
        "tree/",
    );
    let commit = put(
        serde_json::to_vec(
            &json!({"root": root, "parent": null, "time": 0, "actor": "", "command": "old"}),
        )
        .unwrap(),
        "commit/",
    );
    block_on(store.set("head", commit.as_bytes())).unwrap();

    let engine = Engine::new(store.clone(), Config::default());
    let view = block_on(
        engine.execute(&json!({"command": "view", "path": "/memories/old", "view_range": [1, 3]})),
    );
    assert_eq!(
        view.content,
        "Here're the files and directories up to 2 levels deep in /memories/old, excluding hidden items and node_modules:\n300B\t/memories/old\n1B\t/memories/old/f000\n1B\t/memories/old/f001"
    );
    let r = block_on(engine.execute(&json!({"command": "delete", "path": "/memories/old/f299"})));
    assert_eq!(r.content, "Successfully deleted /memories/old/f299");
    let mut want = vec![Entry {
        path: "/memories/old".into(),
        content: None,
    }];
    want.extend((0..299).map(|i| file(&format!("/memories/old/f{i:03}"), "x")));
    assert_eq!(block_on(engine.entries()).unwrap(), want);
    assert_laid_out_as_imported(&store, &want, "after the first write");
}

/// `store`'s tree laid out as a fresh import of `entries` lays it out. Shapes, not
/// hashes: an import numbers memory ids afresh (a moved file keeps its own), so the
/// hashes differ; which node holds which names, split how, must not.
fn assert_laid_out_as_imported(store: &MemoryStore, entries: &[Entry], when: &str) {
    let fresh = MemoryStore::new();
    block_on(Engine::new(fresh.clone(), Config::default()).import(entries)).unwrap();
    assert_eq!(
        layout(store, &root_key(store)),
        layout(&fresh, &root_key(&fresh)),
        "laid out as an import would, {when}"
    );
}

/// The shape of the stored tree under `key`: each leaf's names and kinds, each
/// branch's depth and slots, without hashes, sizes, times or memory ids.
fn layout(store: &MemoryStore, key: &str) -> Value {
    let bytes = block_on(store.get(key)).unwrap().unwrap();
    let json = memdir::__hooks::tree_json(&bytes).unwrap();
    let node: Value = serde_json::from_slice(&json).unwrap();
    if let Some(e) = node["e"].as_array() {
        let entries: Vec<Value> = e
            .iter()
            .map(|x| match x[1].as_str() {
                Some("d") => json!([
                    x[0],
                    layout(store, &format!("tree/{}", x[2].as_str().unwrap()))
                ]),
                _ => json!([x[0], "f"]),
            })
            .collect();
        json!({ "e": entries })
    } else {
        let slots: Vec<Value> = node["s"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| {
                json!([
                    x[0],
                    layout(store, &format!("tree/{}", x[1].as_str().unwrap()))
                ])
            })
            .collect();
        json!({ "b": node["b"], "s": slots })
    }
}
