//! The in-memory engine's costs, each beside the same work on a plain
//! `BTreeMap<path, content>` (what a naive backend does: no hashing, no tree, no
//! compare-and-swap), measured in the same run. Run: `cargo bench --bench engine`.
//!
//! Before divan's table, it prints each scenario's store operations and the ratio
//! of engine to plain-map medians.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::Instant;

use memdir::{Config, Engine, Entry, MemoryStore, block_on};

// The tests' store wrapper, for its operation counts.
#[path = "../../tests/common/mod.rs"]
mod common;
use serde_json::{Value, json};

fn main() {
    report();
    divan::main();
}

// ---- fixtures --------------------------------------------------------------

/// xorshift64*: a repeatable workload without a dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const WORDS: [&str; 12] = [
    "memory", "agent", "note", "task", "plan", "step", "done", "user", "prefers", "context",
    "result", "retry",
];

fn body(rng: &mut Rng, bytes: usize, tag: &str) -> String {
    let mut s = String::new();
    let mut n = 0;
    while s.len() < bytes {
        s.push_str(&format!(
            "{} {} {tag}-{n} {}\n",
            WORDS[rng.below(12)],
            WORDS[rng.below(12)],
            ".".repeat(rng.below(40))
        ));
        n += 1;
    }
    s.pop();
    s
}

fn file(path: &str, content: String) -> Entry {
    Entry {
        path: path.into(),
        content: Some(content),
    }
}

fn engine_with(entries: &[Entry]) -> Engine<MemoryStore> {
    let engine = Engine::new(MemoryStore::new(), Config::default());
    block_on(engine.import(entries)).unwrap();
    engine
}

fn big_file() -> Vec<Entry> {
    vec![file(
        "/memories/big.md",
        body(&mut Rng(7), 100 * 1024 - 200, "L"),
    )]
}

fn ten_thousand() -> Vec<Entry> {
    (0..10_000)
        .map(|i| file(&format!("/memories/dir/f{i:05}.md"), format!("note {i}")))
        .collect()
}

/// 200 files of 2–20 KiB in a few folders, and 1,000 commands an agent might send:
/// mostly views and small edits, some creates, renames and deletes.
fn workload() -> (Vec<Entry>, Vec<Value>) {
    let mut rng = Rng(42);
    let dirs = [
        "projects",
        "people",
        "notes",
        "logs",
        "projects/alpha",
        "projects/beta",
    ];
    let mut files: Vec<(String, String)> = (0..200)
        .map(|i| {
            let path = format!("/memories/{}/f{i}.md", dirs[rng.below(dirs.len())]);
            let size = 2048 + rng.below(18 * 1024);
            (path, body(&mut rng, size, &format!("f{i}")))
        })
        .collect();
    let entries = files.iter().map(|(p, c)| file(p, c.clone())).collect();
    let mut commands = Vec::new();
    let mut made = 0;
    while commands.len() < 1_000 {
        let i = rng.below(files.len());
        let (path, content) = files[i].clone();
        let lines: Vec<&str> = content.split('\n').collect();
        let roll = rng.below(100);
        let cmd = match roll {
            0..30 => json!({"command": "view", "path": path}),
            30..40 => {
                let s = 1 + rng.below(lines.len());
                json!({"command": "view", "path": path, "view_range": [s, (s + 20).min(lines.len())]})
            }
            40..50 => {
                json!({"command": "view", "path": format!("/memories/{}", dirs[rng.below(dirs.len())])})
            }
            50..70 => {
                let old = lines[rng.below(lines.len())].to_string();
                let new = format!("{old} (checked)");
                files[i].1 = content.replacen(&old, &new, 1);
                json!({"command": "str_replace", "path": path, "old_str": old, "new_str": new})
            }
            70..85 => {
                let at = rng.below(lines.len() + 1);
                let text = format!("progress note {}", commands.len());
                let mut l: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
                l.insert(at, text.clone());
                files[i].1 = l.join("\n");
                json!({"command": "insert", "path": path, "insert_line": at, "insert_text": text})
            }
            85..92 => {
                made += 1;
                let p = format!("/memories/notes/new{made}.md");
                let c = body(&mut rng, 2048, "n");
                files.push((p.clone(), c.clone()));
                json!({"command": "create", "path": p, "file_text": c})
            }
            92..96 => {
                let to = format!("{path}.old");
                files[i].0 = to.clone();
                json!({"command": "rename", "old_path": path, "new_path": to})
            }
            _ => {
                files.remove(i);
                json!({"command": "delete", "path": path})
            }
        };
        commands.push(cmd);
    }
    (entries, commands)
}

// ---- the peer: a plain map doing the same commands -------------------------

/// A plain path -> content map answering the same commands with the same text
/// (enough of it to do the same work), as a naive backend would.
struct PlainMap(BTreeMap<String, String>);

impl PlainMap {
    fn new(entries: &[Entry]) -> Self {
        PlainMap(
            entries
                .iter()
                .filter_map(|e| Some((e.path.clone(), e.content.clone()?)))
                .collect(),
        )
    }

    fn run(&mut self, cmd: &Value) -> String {
        let path = cmd["path"].as_str().unwrap_or_default().to_string();
        match cmd["command"].as_str().unwrap() {
            "view" => match self.0.get(&path) {
                Some(c) => {
                    let (s, e) = match cmd["view_range"].as_array() {
                        Some(r) => (
                            r[0].as_u64().unwrap() as usize,
                            r[1].as_u64().unwrap() as usize,
                        ),
                        None => (1, usize::MAX),
                    };
                    let mut out = format!("Here's the content of {path} with line numbers:\n");
                    for (i, l) in c.split('\n').enumerate().skip(s - 1).take(e + 1 - s) {
                        out.push_str(&format!("{:>6}\t{l}\n", i + 1));
                    }
                    out
                }
                None => {
                    let prefix = format!("{path}/");
                    let mut out = String::new();
                    for (p, c) in self
                        .0
                        .range(prefix.clone()..)
                        .take_while(|(p, _)| p.starts_with(&prefix))
                    {
                        out.push_str(&format!("{}\t{p}\n", c.len()));
                    }
                    out
                }
            },
            "str_replace" => {
                let c = self.0.get_mut(&path).unwrap();
                *c = c.replacen(
                    cmd["old_str"].as_str().unwrap(),
                    cmd["new_str"].as_str().unwrap(),
                    1,
                );
                "edited".into()
            }
            "insert" => {
                let c = self.0.get_mut(&path).unwrap();
                let mut l: Vec<&str> = c.split('\n').collect();
                l.insert(
                    cmd["insert_line"].as_u64().unwrap() as usize,
                    cmd["insert_text"].as_str().unwrap(),
                );
                *c = l.join("\n");
                "edited".into()
            }
            "create" => {
                self.0
                    .insert(path, cmd["file_text"].as_str().unwrap().into());
                "created".into()
            }
            "delete" => {
                let prefix = format!("{path}/");
                self.0.retain(|p, _| *p != path && !p.starts_with(&prefix));
                "deleted".into()
            }
            _ => {
                // rename: a plain map moves every key beneath the directory.
                let (from, to) = (
                    cmd["old_path"].as_str().unwrap(),
                    cmd["new_path"].as_str().unwrap(),
                );
                let prefix = format!("{from}/");
                let moved: Vec<String> = self
                    .0
                    .keys()
                    .filter(|p| *p == from || p.starts_with(&prefix))
                    .cloned()
                    .collect();
                for p in moved {
                    let c = self.0.remove(&p).unwrap();
                    self.0.insert(format!("{to}{}", &p[from.len()..]), c);
                }
                "renamed".into()
            }
        }
    }
}

/// Median wall time of `f` over `runs` fresh setups.
fn median<T>(runs: usize, mut setup: impl FnMut() -> T, mut f: impl FnMut(&mut T)) -> f64 {
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let mut state = setup();
            let t = Instant::now();
            f(&mut state);
            t.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[runs / 2]
}

fn report() {
    let scenarios: Vec<(&str, Vec<Entry>, Vec<Value>)> = vec![
        (
            "view of a 100 KiB file",
            big_file(),
            vec![json!({"command": "view", "path": "/memories/big.md"})],
        ),
        (
            "str_replace in a 100 KiB file",
            big_file(),
            vec![
                json!({"command": "str_replace", "path": "/memories/big.md", "old_str": "L-700 ", "new_str": "L-seven-hundred "}),
            ],
        ),
        (
            "view of a directory of 10,000 files",
            ten_thousand(),
            vec![json!({"command": "view", "path": "/memories/dir"})],
        ),
        (
            "rename of a directory of 10,000 files",
            ten_thousand(),
            vec![
                json!({"command": "rename", "old_path": "/memories/dir", "new_path": "/memories/moved"}),
            ],
        ),
        (
            "1,000-command agent workload (200 files)",
            workload().0,
            workload().1,
        ),
    ];
    println!(
        "{:<42} {:>12} {:>12} {:>8} {:>10} {:>8}",
        "scenario", "memdir", "plain map", "ratio", "store ops", "writes"
    );
    for (name, entries, commands) in &scenarios {
        let runs = if commands.len() > 1 { 7 } else { 31 };
        // Warm engine (the steady state of a session: immutable objects cached).
        let ours = median(
            runs,
            || {
                let e = engine_with(entries);
                block_on(e.execute_json(r#"{"command":"view","path":"/memories"}"#));
                e
            },
            |e| {
                for c in commands {
                    let r = block_on(e.execute(c));
                    assert!(!r.is_error, "{name}: {}", r.content);
                    black_box(r);
                }
            },
        );
        let plain = median(
            runs,
            || PlainMap::new(entries),
            |m| {
                for c in commands {
                    black_box(m.run(c));
                }
            },
        );
        let counted = common::Harness::new(MemoryStore::new());
        let e = Engine::new(&counted, Config::default());
        block_on(e.import(entries)).unwrap();
        block_on(e.execute_json(r#"{"command":"view","path":"/memories"}"#));
        counted.shared.reset();
        for c in commands {
            block_on(e.execute(c));
        }
        println!(
            "{name:<42} {:>10.1}µs {:>10.1}µs {:>7.3}x {:>10} {:>8}",
            ours * 1e6,
            plain * 1e6,
            ours / plain,
            counted.shared.ops.get(),
            counted.shared.writes.get()
        );
    }
    println!();
}

// ---- divan's per-scenario statistics ----------------------------------------

#[divan::bench]
fn view_100k_file(b: divan::Bencher) {
    let e = engine_with(&big_file());
    let cmd = json!({"command": "view", "path": "/memories/big.md"});
    b.bench_local(|| block_on(e.execute(&cmd)));
}

#[divan::bench]
fn str_replace_100k_file(b: divan::Bencher) {
    let e = engine_with(&big_file());
    let mut flip = false;
    b.bench_local(|| {
        flip = !flip;
        let (o, n) = if flip { ("L-700 ", "L-seven ") } else { ("L-seven ", "L-700 ") };
        block_on(e.execute(&json!({"command": "str_replace", "path": "/memories/big.md", "old_str": o, "new_str": n})))
    });
}

#[divan::bench(sample_count = 20)]
fn view_dir_10k(b: divan::Bencher) {
    let e = engine_with(&ten_thousand());
    let cmd = json!({"command": "view", "path": "/memories/dir"});
    b.bench_local(|| block_on(e.execute(&cmd)));
}

#[divan::bench(sample_count = 20)]
fn rename_dir_10k(b: divan::Bencher) {
    let e = engine_with(&ten_thousand());
    let mut flip = false;
    b.bench_local(|| {
        flip = !flip;
        let (o, n) = if flip {
            ("/memories/dir", "/memories/moved")
        } else {
            ("/memories/moved", "/memories/dir")
        };
        block_on(e.execute(&json!({"command": "rename", "old_path": o, "new_path": n})))
    });
}
