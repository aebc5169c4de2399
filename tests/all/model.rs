//! Property test: random command sequences run against the engine (over `MemoryStore`)
//! and against a deliberately simple reference model written here from the spec (a
//! map of files and a set of directories). Every answer (content and is_error) and the
//! whole tree after every step must agree. Small limits make the size, quota and
//! paging rules fire often.
// Tests fail by panicking; the engine's no-panic lints are for the engine.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::{BTreeMap, BTreeSet};

use memdir::config::Config;
use memdir::{Engine, MemoryStore, block_on};
use proptest::prelude::*;
use serde_json::{Value, json};

const ROOT: &str = "/memories";
const MAX_FILE: usize = 60;
const QUOTA: u64 = 100;
const READ_LIMIT: usize = 200;

// ------------------------------------------------------------------ the model

#[derive(Clone, Debug, Default)]
struct Model {
    files: BTreeMap<String, String>,
    /// Every directory except the root, implied ones included.
    dirs: BTreeSet<String>,
}

enum Kind {
    File,
    Dir,
}

fn commas(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Human size: under 1024 "nB"; else K/M/G, one decimal below 10 (halves up), whole
/// otherwise; a rounding that reaches 10.0 shows "10", one that reaches 1024 the next unit.
fn human(n: u64) -> String {
    if n < 1024 {
        return format!("{n}B");
    }
    let units = ['K', 'M', 'G'];
    let (num, mut den, mut i) = (n as u128, 1024u128, 0usize);
    while num >= den * 1024 && i < 2 {
        den *= 1024;
        i += 1;
    }
    if num < den * 10 {
        let tenths = (num * 20 + den) / (den * 2);
        if tenths < 100 {
            return format!("{}.{}{}", tenths / 10, tenths % 10, units[i]);
        }
        return format!("10{}", units[i]);
    }
    let whole = (num * 2 + den) / (den * 2);
    if whole >= 1024 && i < 2 {
        return format!("1.0{}", units[i + 1]);
    }
    format!("{whole}{}", units[i])
}

fn numbered(n: usize, line: &str) -> String {
    format!("{n:>6}\t{line}")
}

fn not_found_v(p: &str) -> String {
    format!("The path {p} does not exist. Please provide a valid path.")
}

fn too_big(p: &str, n: usize) -> String {
    format!(
        "Cannot write {p}: the content would be {} bytes, over the limit of {} bytes per file. Nothing was written.",
        commas(n as u64),
        commas(MAX_FILE as u64)
    )
}

fn over_quota(p: &str, t: u64) -> String {
    format!(
        "Cannot write {p}: the memory directory would hold {} bytes, over its quota of {} bytes. Nothing was written.",
        commas(t),
        commas(QUOTA)
    )
}

fn ancestors(p: &str) -> Vec<String> {
    // Proper ancestors below the root, top down: /memories/a, /memories/a/b, ...
    let parts: Vec<&str> = p.split('/').collect();
    (3..parts.len()).map(|k| parts[..k].join("/")).collect()
}

fn under(p: &str, dir: &str) -> bool {
    p.len() > dir.len() && p.starts_with(dir) && p.as_bytes()[dir.len()] == b'/'
}

type Answer = Result<String, String>;

impl Model {
    fn kind(&self, p: &str) -> Option<Kind> {
        if p == ROOT || self.dirs.contains(p) {
            Some(Kind::Dir)
        } else if self.files.contains_key(p) {
            Some(Kind::File)
        } else {
            None
        }
    }

    fn total(&self) -> u64 {
        self.files.values().map(|c| c.len() as u64).sum()
    }

    fn size_of(&self, p: &str) -> u64 {
        match self.files.get(p) {
            Some(c) => c.len() as u64,
            None => self
                .files
                .iter()
                .filter(|(f, _)| p == ROOT || under(f, p))
                .map(|(_, c)| c.len() as u64)
                .sum(),
        }
    }

    fn children(&self, p: &str) -> Vec<String> {
        let mut names = BTreeSet::new();
        for x in self.files.keys().chain(self.dirs.iter()) {
            if under(x, p) {
                names.insert(
                    x[p.len() + 1..]
                        .split('/')
                        .next()
                        .unwrap_or_default()
                        .to_string(),
                );
            }
        }
        names.into_iter().collect() // String order is byte order
    }

    fn add_parents(&mut self, p: &str) {
        for a in ancestors(p) {
            self.dirs.insert(a);
        }
    }

    fn file_under_ancestor(&self, p: &str) -> Option<String> {
        ancestors(p)
            .into_iter()
            .find(|a| self.files.contains_key(a))
    }

    fn run(&mut self, input: &Value) -> Answer {
        let cmd = input["command"].as_str().unwrap_or_default();
        match cmd {
            "view" => {
                let p = canon(input["path"].as_str().unwrap_or_default())?;
                let range = input.get("view_range").and_then(Value::as_array).map(|a| {
                    (
                        a[0].as_i64().unwrap_or_default(),
                        a[1].as_i64().unwrap_or_default(),
                    )
                });
                self.view(&p, range)
            }
            "create" => {
                let p = canon(input["path"].as_str().unwrap_or_default())?;
                self.create(&p, input["file_text"].as_str().unwrap_or_default())
            }
            "str_replace" => {
                let p = canon(input["path"].as_str().unwrap_or_default())?;
                let old = input["old_str"].as_str().unwrap_or_default();
                let new = input.get("new_str").and_then(Value::as_str).unwrap_or("");
                if old.is_empty() {
                    return Err(
                        r#"Invalid str_replace input: field "old_str" must not be empty"#.into(),
                    );
                }
                self.str_replace(&p, old, new)
            }
            "insert" => {
                let p = canon(input["path"].as_str().unwrap_or_default())?;
                self.insert(
                    &p,
                    &input["insert_line"],
                    input["insert_text"].as_str().unwrap_or_default(),
                )
            }
            "delete" => {
                let p = canon(input["path"].as_str().unwrap_or_default())?;
                self.delete(&p)
            }
            "rename" => {
                let a = canon(input["old_path"].as_str().unwrap_or_default())?;
                let b = canon(input["new_path"].as_str().unwrap_or_default())?;
                self.rename(&a, &b)
            }
            _ => unreachable!("the generator makes only the six commands"),
        }
    }

    fn view(&self, p: &str, range: Option<(i64, i64)>) -> Answer {
        match self.kind(p) {
            None => Err(not_found_v(p)),
            Some(Kind::Dir) => {
                let skip = |n: &str| n.starts_with('.') || n == "node_modules";
                let mut rows = vec![format!("{}\t{p}", human(self.size_of(p)))];
                for c in self.children(p).into_iter().filter(|c| !skip(c)) {
                    let cp = format!("{p}/{c}");
                    if self.files.contains_key(&cp) {
                        rows.push(format!("{}\t{cp}", human(self.size_of(&cp))));
                        continue;
                    }
                    rows.push(format!("{}\t{cp}/", human(self.size_of(&cp))));
                    for g in self.children(&cp).into_iter().filter(|g| !skip(g)) {
                        let gp = format!("{cp}/{g}");
                        let slash = if self.files.contains_key(&gp) {
                            ""
                        } else {
                            "/"
                        };
                        rows.push(format!("{}\t{gp}{slash}", human(self.size_of(&gp))));
                    }
                }
                let head = format!(
                    "Here're the files and directories up to 2 levels deep in {p}, excluding hidden items and node_modules:\n"
                );
                page(head, &rows, range, "listing")
            }
            Some(Kind::File) => {
                let content = &self.files[p];
                let rows: Vec<String> = content
                    .split('\n')
                    .enumerate()
                    .map(|(i, l)| numbered(i + 1, l))
                    .collect();
                page(
                    format!("Here's the content of {p} with line numbers:\n"),
                    &rows,
                    range,
                    "file",
                )
            }
        }
    }

    fn create(&mut self, p: &str, text: &str) -> Answer {
        if p == ROOT {
            return Err("Cannot create /memories: it is the memory directory itself".into());
        }
        if text.len() > MAX_FILE {
            return Err(too_big(p, text.len()));
        }
        if let Some(f) = self.file_under_ancestor(p) {
            return Err(format!("Cannot create {p}: {f} is a file, not a directory"));
        }
        if self.kind(p).is_some() {
            return Err(format!("File {p} already exists"));
        }
        let t = self.total() + text.len() as u64;
        if t > QUOTA {
            return Err(over_quota(p, t));
        }
        self.add_parents(p);
        self.files.insert(p.into(), text.into());
        Ok(format!("File created successfully at: {p}"))
    }

    fn write_checked(&mut self, p: &str, new: String) -> Result<(), String> {
        if new.len() > MAX_FILE {
            return Err(too_big(p, new.len()));
        }
        let t = self.total() - self.files[p].len() as u64 + new.len() as u64;
        if t > QUOTA {
            return Err(over_quota(p, t));
        }
        self.files.insert(p.into(), new);
        Ok(())
    }

    fn str_replace(&mut self, p: &str, old: &str, new: &str) -> Answer {
        let Some(content) = self.files.get(p).cloned() else {
            return Err(not_found_v(p));
        };
        let starts: Vec<usize> = content.match_indices(old).map(|(i, _)| i).collect();
        let line_of = |i: usize| content[..i].matches('\n').count() + 1;
        match starts.len() {
            0 => Err(format!(
                "No replacement was performed, old_str `{old}` did not appear verbatim in {p}."
            )),
            1 => {
                let edited = content.replacen(old, new, 1);
                self.write_checked(p, edited.clone())?;
                let first = line_of(starts[0]);
                let last = first + new.matches('\n').count();
                let lines: Vec<&str> = edited.split('\n').collect();
                let from = first.saturating_sub(2).max(1);
                let to = (last + 2).min(lines.len());
                let body: Vec<String> = (from..=to).map(|k| numbered(k, lines[k - 1])).collect();
                Ok(format!(
                    "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n{}",
                    body.join("\n")
                ))
            }
            _ => {
                // memdir's rule: list the lines that keep the whole message within the
                // read limit, reckoning with the longest " and N more" there could be,
                // and always the first two.
                let fixed = format!(
                    "No replacement was performed. Multiple occurrences of old_str `{old}` in lines: . Please ensure it is unique and 9,999,999,999 more"
                )
                .chars()
                .count();
                let mut listed = String::new();
                let mut shown = 0;
                for (k, &i) in starts.iter().enumerate() {
                    let item = if k == 0 {
                        line_of(i).to_string()
                    } else {
                        format!(", {}", line_of(i))
                    };
                    if k >= 2 && fixed + listed.len() + item.len() > READ_LIMIT {
                        break;
                    }
                    listed.push_str(&item);
                    shown += 1;
                }
                let more = match starts.len() - shown {
                    0 => String::new(),
                    n => format!(" and {} more", commas(n as u64)),
                };
                Err(format!(
                    "No replacement was performed. Multiple occurrences of old_str `{old}` in lines: {listed}{more}. Please ensure it is unique"
                ))
            }
        }
    }

    fn insert(&mut self, p: &str, k: &Value, text: &str) -> Answer {
        let Some(content) = self.files.get(p).cloned() else {
            return Err(not_found_v(p));
        };
        let mut lines: Vec<&str> = content.split('\n').collect();
        let n = lines.len();
        let at = match k.as_i64() {
            Some(v) if k.is_i64() || k.is_u64() => usize::try_from(v).ok().filter(|&v| v <= n),
            _ => None,
        };
        let Some(at) = at else {
            return Err(format!(
                "Invalid `insert_line` parameter: {k}. It should be within the range of lines of the file: [0, {n}]"
            ));
        };
        let text = text.strip_suffix('\n').unwrap_or(text);
        lines.splice(at..at, text.split('\n'));
        self.write_checked(p, lines.join("\n"))?;
        Ok(format!("The file {p} has been edited."))
    }

    fn delete(&mut self, p: &str) -> Answer {
        if p == ROOT {
            return Err("Cannot delete the /memories directory itself".into());
        }
        match self.kind(p) {
            None => Err(format!("The path {p} does not exist")),
            Some(Kind::File) => {
                self.files.remove(p);
                Ok(format!("Successfully deleted {p}"))
            }
            Some(Kind::Dir) => {
                self.files.retain(|f, _| !under(f, p));
                self.dirs.retain(|d| d != p && !under(d, p));
                Ok(format!("Successfully deleted {p}"))
            }
        }
    }

    fn rename(&mut self, a: &str, b: &str) -> Answer {
        if a == ROOT {
            return Err("Cannot rename the /memories directory itself".into());
        }
        if b == ROOT {
            return Err(format!(
                "Cannot rename {a} to /memories: that is the memory directory itself"
            ));
        }
        if under(b, a) {
            return Err(format!("Cannot rename {a} to {b}: {b} is inside {a}"));
        }
        let Some(kind) = self.kind(a) else {
            return Err(format!("The path {a} does not exist"));
        };
        if self.kind(b).is_some() {
            return Err(format!("The destination {b} already exists"));
        }
        if let Some(f) = self.file_under_ancestor(b) {
            return Err(format!(
                "Cannot rename {a} to {b}: {f} is a file, not a directory"
            ));
        }
        let moved = |x: &str| format!("{b}{}", &x[a.len()..]);
        match kind {
            Kind::File => {
                let c = self.files.remove(a).unwrap_or_default();
                self.files.insert(b.into(), c);
            }
            Kind::Dir => {
                let files: Vec<(String, String)> = self
                    .files
                    .iter()
                    .filter(|(f, _)| under(f, a))
                    .map(|(f, c)| (f.clone(), c.clone()))
                    .collect();
                let dirs: Vec<String> = self
                    .dirs
                    .iter()
                    .filter(|d| *d == a || under(d, a))
                    .cloned()
                    .collect();
                for (f, c) in files {
                    self.files.remove(&f);
                    self.files.insert(moved(&f), c);
                }
                for d in dirs {
                    self.dirs.remove(&d);
                    self.dirs.insert(moved(&d));
                }
            }
        }
        self.add_parents(b);
        Ok(format!("Successfully renamed {a} to {b}"))
    }

    fn tree(&self) -> BTreeMap<String, Option<String>> {
        let mut t: BTreeMap<String, Option<String>> =
            self.dirs.iter().map(|d| (d.clone(), None)).collect();
        t.extend(self.files.iter().map(|(f, c)| (f.clone(), Some(c.clone()))));
        t
    }
}

/// Whole rows (at least one) while header + rows joined by `\n` fit the read limit.
/// Lines `view_range` selects of a file's or a listing's `rows`, cut at the read
/// limit with the hint naming the range of the rest.
fn page(head: String, rows: &[String], range: Option<(i64, i64)>, of: &str) -> Answer {
    let n = rows.len() as i64;
    let (s, e) = match range {
        None => (1, n),
        Some((s, e)) => {
            if s < 1 || s > n {
                return Err(format!(
                    "Invalid `view_range`: [{s}, {e}]. Its first element `{s}` should be within the range of lines of the {of}: [1, {n}]"
                ));
            }
            if e != -1 && e < s {
                return Err(format!(
                    "Invalid `view_range`: [{s}, {e}]. Its second element `{e}` should not be less than its first element `{s}`; the valid range is [1, {n}]"
                ));
            }
            if e > n {
                return Err(format!(
                    "Invalid `view_range`: [{s}, {e}]. Its second element `{e}` should be within the range of lines of the {of}: [1, {n}], or -1 for the last line"
                ));
            }
            (s, if e == -1 { n } else { e })
        }
    };
    let selected = &rows[(s - 1) as usize..e as usize];
    let (mut out, shown) = fit(head, selected);
    if shown < selected.len() {
        let b = s + shown as i64 - 1;
        out.push_str(&format!(
            "\n[Output cut at the read limit of {} characters after line {b} of {n}. To see more, view with view_range [{}, {e}].]",
            commas(READ_LIMIT as u64),
            b + 1
        ));
    }
    Ok(out)
}

fn fit(head: String, rows: &[String]) -> (String, usize) {
    let mut used = head.chars().count();
    let mut out = head;
    let mut shown = 0;
    for r in rows {
        let cost = r.chars().count() + usize::from(shown > 0);
        if shown > 0 && used + cost > READ_LIMIT {
            break;
        }
        if shown > 0 {
            out.push('\n');
        }
        out.push_str(r);
        used += cost;
        shown += 1;
    }
    (out, shown)
}

/// The generator's paths are valid apart from two known hostile forms.
fn canon(raw: &str) -> Result<String, String> {
    if raw.contains("/../") {
        return Err(format!("Path {raw} would escape /memories directory"));
    }
    if !raw.starts_with("/memories") {
        return Err(format!("Path must start with /memories, got: {raw}"));
    }
    Ok(raw.strip_suffix('/').unwrap_or(raw).to_string())
}

// ------------------------------------------------------------------ generators

fn path() -> impl Strategy<Value = String> {
    // A small pool, so commands keep meeting what earlier ones made; it has hidden
    // names, node_modules, a file/directory clash (a vs a/...), non-ASCII and spaces.
    let pool = prop::sample::select(vec![
        "a",
        "b",
        "c.txt",
        "a/c.txt",
        "a/b",
        "a/b/c.txt",
        "b/c.txt",
        ".h",
        ".h/x",
        "node_modules/x",
        "é/a b",
        "é",
    ]);
    prop_oneof![
        1 => Just(ROOT.to_string()),
        16 => (pool, prop::bool::weighted(0.1)).prop_map(|(p, slash)| {
            format!("/memories/{p}{}", if slash { "/" } else { "" })
        }),
        1 => prop::sample::select(vec!["/memories/../a", "/tmp/a"]).prop_map(String::from),
    ]
}

/// Paths that are usually files once created, for the editing commands.
fn file_path() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(vec!["/memories/c.txt", "/memories/a/c.txt", "/memories/b/c.txt", "/memories/.h/x"])
            .prop_map(String::from),
        1 => path(),
    ]
}

fn text() -> impl Strategy<Value = String> {
    let piece = prop::sample::select(vec!["a", "b", "ab", "\n", "é", "x\ny", "$&", "", "line\n"]);
    prop_oneof![
        12 => prop::collection::vec(piece, 0..10).prop_map(|v| v.concat()),
        3 => (1usize..3).prop_map(|k| "abcdefghijklmnopqrstuvwxyz-0123456789\n".repeat(k)),
        2 => (3usize..12).prop_map(|k| "l\n".repeat(k)),
    ]
}

fn command() -> impl Strategy<Value = Value> {
    let old = prop::sample::select(vec![
        "a", "b", "ab", "\n", "é", "x", "a\nb", "line", "y\n", "b", "a", "",
    ]);
    let new = prop::option::of(prop::sample::select(vec![
        "", "z", "$&", "q\nq", "ab", "\n",
    ]));
    let line = prop_oneof![
        8 => (-1i64..7).prop_map(|k| json!(k)),
        1 => Just(json!(1.5)),
        1 => Just(json!(2.0)),
    ];
    let range = prop::option::of((-1i64..6, -2i64..7));
    prop_oneof![
        3 => (prop_oneof![file_path(), path(), Just(ROOT.to_string())], range).prop_map(|(p, r)| match r {
            Some((s, e)) => json!({"command": "view", "path": p, "view_range": [s, e]}),
            None => json!({"command": "view", "path": p}),
        }),
        4 => (prop_oneof![file_path(), path()], text()).prop_map(|(p, t)| json!({"command": "create", "path": p, "file_text": t})),
        3 => (file_path(), old, new).prop_map(|(p, o, n)| match n {
            Some(n) => json!({"command": "str_replace", "path": p, "old_str": o, "new_str": n}),
            None => json!({"command": "str_replace", "path": p, "old_str": o}),
        }),
        3 => (file_path(), line, text()).prop_map(|(p, k, t)| json!({"command": "insert", "path": p, "insert_line": k, "insert_text": t})),
        1 => path().prop_map(|p| json!({"command": "delete", "path": p})),
        2 => (path(), path()).prop_map(|(a, b)| json!({"command": "rename", "old_path": a, "new_path": b})),
    ]
}

// ------------------------------------------------------------------ the property

fn engine() -> Engine<MemoryStore> {
    let mut config = Config::default();
    config.limits.max_file_bytes = MAX_FILE;
    config.limits.max_total_bytes = QUOTA;
    config.limits.read_limit_chars = READ_LIMIT;
    Engine::new(MemoryStore::new(), config)
}

/// A short label for an answer, to show what the random sequences exercised.
fn outcome(cmd: &str, content: &str) -> String {
    let kind = match content.strip_prefix("Error: ") {
        None if content.contains("[Output cut") => "ok, paged",
        None => "ok",
        Some(m) if m.starts_with("Path ") => "path refused",
        Some(m) if m.contains("does not exist") => "missing",
        Some(m) if m.contains("already exists") => "exists",
        Some(m) if m.contains("per file") => "file too big",
        Some(m) if m.contains("quota") => "quota",
        Some(m) if m.contains("is a file, not a directory") => "under a file",
        Some(m) if m.contains("Multiple occurrences") => "several matches",
        Some(m) if m.contains("did not appear") => "no match",
        Some(m) if m.contains("view_range") => "bad range",
        Some(m) if m.contains("insert_line") => "bad line",
        Some(m) if m.contains("inside itself") => "into itself",
        Some(m) if m.contains("must not be empty") => "empty old_str",
        Some(m) if m.contains("/memories") => "root",
        Some(_) => "other error",
    };
    format!("{cmd}: {kind}")
}

/// The fewest sequences a run may compare (`PROPTEST_CASES` below it is refused).
const MIN_CASES: u32 = 100;

#[test]
fn engine_agrees_with_the_reference_model() {
    use proptest::test_runner::{Config as RunnerConfig, TestRunner};
    use std::cell::RefCell;

    // A setting that would run few or no sequences fails instead of passing vacuously.
    let cases: u32 = match std::env::var("PROPTEST_CASES") {
        Err(_) => 1000,
        Ok(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("PROPTEST_CASES={v:?} is not a whole number")),
    };
    assert!(
        cases >= MIN_CASES,
        "PROPTEST_CASES={cases}: the model test needs at least {MIN_CASES} sequences to mean anything"
    );
    let mut runner = TestRunner::new(RunnerConfig {
        cases,
        failure_persistence: None,
        ..RunnerConfig::default()
    });
    let seen: RefCell<BTreeMap<String, usize>> = RefCell::default();
    let steps = RefCell::new(0usize);
    let sequences_run = RefCell::new(0u32);
    // A few creates first, so the edits that follow mostly meet existing files.
    let seed = prop::collection::vec(
        (file_path(), text())
            .prop_map(|(p, t)| json!({"command": "create", "path": p, "file_text": t})),
        0..5,
    );
    let sequences = (seed, prop::collection::vec(command(), 1..40)).prop_map(|(mut a, b)| {
        a.extend(b);
        a
    });
    let result = runner.run(&sequences, |cmds| {
        *sequences_run.borrow_mut() += 1;
        let engine = engine();
        let mut model = Model::default();
        for (step, input) in cmds.iter().enumerate() {
            let want = match model.run(input) {
                Ok(s) => (s, false),
                Err(m) => (format!("Error: {m}"), true),
            };
            let got = block_on(engine.execute(input));
            prop_assert_eq!(
                (&got.content, got.is_error),
                (&want.0, want.1),
                "step {} input {}",
                step,
                input
            );
            let tree: BTreeMap<String, Option<String>> = block_on(engine.entries())
                .map_err(|e| TestCaseError::fail(format!("entries() failed: {e}")))?
                .into_iter()
                .map(|e| (e.path, e.content))
                .collect();
            prop_assert_eq!(
                &tree,
                &model.tree(),
                "tree after step {} input {}",
                step,
                input
            );
            *seen
                .borrow_mut()
                .entry(outcome(
                    input["command"].as_str().unwrap_or_default(),
                    &got.content,
                ))
                .or_default() += 1;
            *steps.borrow_mut() += 1;
        }
        Ok(())
    });
    let run = sequences_run.into_inner();
    let seen = seen.into_inner();
    let summary: Vec<String> = seen.iter().map(|(k, n)| format!("{k} {n}")).collect();
    println!(
        "model: {run} sequences run ({cases} configured), {} commands compared (shrinking included); {}",
        steps.into_inner(),
        summary.join("; ")
    );
    if let Err(e) = result {
        panic!("engine and model disagree: {e}");
    }
    assert!(
        run >= cases,
        "only {run} of {cases} sequences ran: the runner did not run the configured cases"
    );
}

#[test]
fn human_sizes_of_the_model_match_the_spec_examples() {
    // The model's own helper must be right before it judges the engine.
    for (n, h) in [
        (1023, "1023B"),
        (1024, "1.0K"),
        (1280, "1.3K"),
        (1536, "1.5K"),
        (10239, "10K"),
        (10752, "11K"),
        (1048063, "1023K"),
        (1048064, "1.0M"),
        (1048576, "1.0M"),
    ] {
        assert_eq!(human(n), h, "{n}");
    }
    assert_eq!(commas(102_400), "102,400");
    assert_eq!(commas(400), "400");
}

/// A sequence the random runs once found: `old_str` on 22 lines, more than a
/// read limit of 200 characters can list. Engine and model must cut the list alike.
#[test]
fn a_long_list_of_matching_lines_is_cut_alike() {
    let engine = engine();
    let mut model = Model::default();
    let mut last = String::new();
    for input in [
        json!({"command": "create", "path": "/memories/b/c.txt", "file_text": "l\n".repeat(22)}),
        json!({"command": "str_replace", "path": "/memories/b/c.txt", "old_str": "\n"}),
    ] {
        let want = match model.run(&input) {
            Ok(s) => (s, false),
            Err(m) => (format!("Error: {m}"), true),
        };
        let got = block_on(engine.execute(&input));
        assert_eq!((&got.content, got.is_error), (&want.0, want.1), "{input}");
        last = got.content;
    }
    assert_eq!(
        last,
        "Error: No replacement was performed. Multiple occurrences of old_str `\n` in lines: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21 and 1 more. Please ensure it is unique"
    );
}
