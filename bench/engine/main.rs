//! The in-memory engine's costs, each beside the same work on a plain
//! `BTreeMap<path, content>` (what a naive backend does: no hashing, no tree, no
//! compare-and-swap), measured in the same run. Run: `cargo bench --bench engine`.
//!
//! It starts with the profile ([`profile`]; `-- --profile` for it alone): per kind
//! of command of the workload, the store operations and the objects and bytes it
//! writes, so hashes, by key prefix.
//!
//! Then it asserts that the plain map answers every command of every scenario with
//! the engine's text (a mismatch aborts the bench); then, before divan's table, it
//! prints each scenario's engine and plain-map medians (the two timed in turns), their
//! ratio and the engine's store operations. Then the scale table ([`scale`]): a store
//! of 10,000 files with 12,288 and with 65,536 versions, the same operations on
//! both, each with the store operations it made, which must not grow with the history.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::BTreeMap;
use std::fmt::Write;
use std::hint::black_box;
use std::time::Instant;

use memdir::config::{Config, Limits};
use memdir::{Command, Engine, Entry, MemoryStore, block_on};
use memdir::{ValidPath, validate};

// The tests' store wrapper, for its operation counts.
#[path = "../../tests/all/common/mod.rs"]
mod common;
use serde_json::{Value, json};

fn main() {
    // `cargo bench --bench engine -- --profile [N]`: the profile alone (run N times,
    // for a sampling profiler: `perf record`).
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--profile") {
        let times = args.get(i + 1).and_then(|n| n.parse().ok()).unwrap_or(1);
        for _ in 0..times {
            profile();
        }
        return;
    }
    profile();
    report();
    scale();
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

/// A plain path -> content map (a directory is a path without content) doing what
/// the spec asks of every command with no hashing, no tree and no compare-and-swap:
/// what a naive backend does. It does the same work as the engine and answers with
/// the same text, which `report` asserts for every command before any timing: it
/// parses and checks the input with memdir's public input and path rules (the
/// spec's, not the engine), makes the real edit, keeps the per-file limit, the
/// quota and the read limit, and lists a directory two levels deep, sorted by name,
/// with sizes summed.
struct PlainMap {
    entries: BTreeMap<String, Option<String>>,
    /// Bytes of all files, kept as they change (for the quota).
    total: u64,
    limits: Limits,
}

const ROOT: &str = "/memories";
const SNIPPET_HEADER: &str = "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n";

type Answer = Result<String, String>;

impl PlainMap {
    fn new(entries: &[Entry]) -> Self {
        let mut map = PlainMap {
            entries: BTreeMap::from([(ROOT.to_string(), None)]),
            total: 0,
            limits: Config::default().limits,
        };
        for e in entries {
            map.parents(&e.path);
            if let Some(c) = &e.content {
                map.total += c.len() as u64;
            }
            map.entries.insert(e.path.clone(), e.content.clone());
        }
        map
    }

    /// The answer as the engine's `ToolResult`: (is_error, content).
    fn run(&mut self, input: &Value) -> (bool, String) {
        match self.answer(input) {
            Ok(text) => (false, text),
            Err(text) => (true, format!("Error: {text}")),
        }
    }

    fn answer(&mut self, input: &Value) -> Answer {
        let valid = |raw: &str| validate(raw).map_err(|e| e.to_string());
        match Command::from_value(input).map_err(|e| e.to_string())? {
            Command::View { path, view_range } => self.view(&valid(&path)?, view_range),
            Command::Create { path, file_text } => self.create(&valid(&path)?, file_text),
            Command::StrReplace {
                path,
                old_str,
                new_str,
            } => self.str_replace(&valid(&path)?, &old_str, &new_str),
            Command::Insert {
                path,
                insert_line,
                insert_text,
            } => self.insert(&valid(&path)?, &insert_line, &insert_text),
            Command::Delete { path } => self.delete(&valid(&path)?),
            Command::Rename { old_path, new_path } => {
                self.rename(&valid(&old_path)?, &valid(&new_path)?)
            }
        }
    }

    /// Adds the missing directories above `path`.
    fn parents(&mut self, path: &str) {
        let mut end = ROOT.len();
        while let Some(i) = path[end + 1..].find('/') {
            end += 1 + i;
            self.entries.entry(path[..end].to_string()).or_insert(None);
        }
    }

    /// The nearest ancestor of `path` that is a file, if any.
    fn file_above(&self, path: &str) -> Option<String> {
        let mut end = ROOT.len();
        while let Some(i) = path[end + 1..].find('/') {
            end += 1 + i;
            if let Some(Some(_)) = self.entries.get(&path[..end]) {
                return Some(path[..end].to_string());
            }
        }
        None
    }

    fn file(&self, path: &ValidPath) -> Result<&String, String> {
        match self.entries.get(path.as_str()) {
            Some(Some(content)) => Ok(content),
            _ => Err(format!(
                "The path {path} does not exist. Please provide a valid path."
            )),
        }
    }

    /// The per-file limit and the quota for `path` becoming `content`.
    fn fits(&self, path: &ValidPath, content: &str) -> Result<u64, String> {
        let max = self.limits.max_file_bytes;
        if content.len() > max {
            return Err(format!(
                "Cannot write {path}: the content would be {} bytes, over the limit of {} bytes per file. Nothing was written.",
                thousands(content.len() as u64),
                thousands(max as u64)
            ));
        }
        let old = match self.entries.get(path.as_str()) {
            Some(Some(c)) => c.len() as u64,
            _ => 0,
        };
        let total = self.total - old + content.len() as u64;
        let quota = self.limits.max_total_bytes;
        if total > quota && total > self.total {
            return Err(format!(
                "Cannot write {path}: the memory directory would hold {} bytes, over its quota of {} bytes. Nothing was written.",
                thousands(total),
                thousands(quota)
            ));
        }
        Ok(total)
    }

    fn view(&self, path: &ValidPath, range: Option<(i64, i64)>) -> Answer {
        match self.entries.get(path.as_str()) {
            Some(Some(content)) => self.view_file(path, content, range),
            Some(None) => self.view_dir(path, range),
            None => Err(format!(
                "The path {path} does not exist. Please provide a valid path."
            )),
        }
    }

    fn view_file(&self, path: &ValidPath, content: &str, range: Option<(i64, i64)>) -> Answer {
        let n = content.split('\n').count();
        if n > 999_999 {
            return Err(format!(
                "File {path} exceeds maximum line limit of 999,999 lines."
            ));
        }
        let (start, end) = in_range(range, n, "file")?;
        let mut out = format!("Here's the content of {path} with line numbers:\n");
        let lines = content
            .split('\n')
            .enumerate()
            .skip(start - 1)
            .take(end + 1 - start)
            .map(|(i, line)| (i + 1, line));
        let limit = self.limits.read_limit_chars;
        // A line takes at most 8 bytes more than its text, and a character is at
        // least a byte: most views are short enough to need no counting.
        if out.len() + content.len() + 8 * (end + 1 - start) <= limit {
            out.reserve(content.len() + 8 * (end + 1 - start));
            for (number, line) in lines {
                if number > start {
                    out.push('\n');
                }
                numbered(&mut out, number, line);
            }
            return Ok(out);
        }
        let mut page = Page::new(&out, limit, n, end);
        for (number, line) in lines {
            let width = number.checked_ilog10().unwrap_or(0) as usize + 1;
            if !page.next(&mut out, number, width.max(6) + 1 + line.chars().count()) {
                break;
            }
            numbered(&mut out, number, line);
        }
        Ok(out)
    }

    /// The listing: the directory, then its visible children sorted by name, each
    /// directory followed by its own visible children; sizes are the files' bytes,
    /// a directory's those of every file beneath it.
    fn view_dir(&self, path: &ValidPath, range: Option<(i64, i64)>) -> Answer {
        let prefix = if path.is_root() {
            format!("{ROOT}/")
        } else {
            format!("{path}/")
        };
        struct Child<'a> {
            dir: bool,
            size: u64,
            below: BTreeMap<&'a str, (bool, u64)>,
        }
        let visible = |name: &str| !name.starts_with('.') && name != "node_modules";
        let mut total = 0;
        let mut children: BTreeMap<&str, Child> = BTreeMap::new();
        for (key, content) in self
            .entries
            .range(prefix.clone()..)
            .take_while(|(k, _)| k.starts_with(&prefix))
        {
            let size = content.as_ref().map_or(0, |c| c.len() as u64);
            total += size;
            let mut names = key[prefix.len()..].splitn(3, '/');
            let first = names.next().unwrap();
            let child = children.entry(first).or_insert(Child {
                dir: true,
                size: 0,
                below: BTreeMap::new(),
            });
            child.size += size;
            match names.next() {
                None => child.dir = content.is_none(),
                Some(second) => {
                    let deeper = names.next().is_some();
                    let grandchild = child.below.entry(second).or_insert((true, 0));
                    grandchild.1 += size;
                    if !deeper {
                        grandchild.0 = content.is_none();
                    }
                }
            }
        }
        let mut rows = vec![(total, path.to_string())];
        for (name, child) in children.iter().filter(|(n, _)| visible(n)) {
            if !child.dir {
                rows.push((child.size, format!("{prefix}{name}")));
                continue;
            }
            rows.push((child.size, format!("{prefix}{name}/")));
            for (below, (dir, size)) in child.below.iter().filter(|(n, _)| visible(n)) {
                let slash = if *dir { "/" } else { "" };
                rows.push((*size, format!("{prefix}{name}/{below}{slash}")));
            }
        }
        let (start, end) = in_range(range, rows.len(), "listing")?;
        let mut out = format!(
            "Here're the files and directories up to 2 levels deep in {path}, excluding hidden items and node_modules:\n"
        );
        let mut page = Page::new(&out, self.limits.read_limit_chars, rows.len(), end);
        for (i, (size, shown)) in rows
            .iter()
            .enumerate()
            .skip(start - 1)
            .take(end + 1 - start)
        {
            let line = format!("{}\t{shown}", human_size(*size));
            if !page.next(&mut out, i + 1, line.chars().count()) {
                break;
            }
            out.push_str(&line);
        }
        Ok(out)
    }

    fn create(&mut self, path: &ValidPath, text: String) -> Answer {
        if path.is_root() {
            return Err("Cannot create /memories: it is the memory directory itself".into());
        }
        if self.entries.contains_key(path.as_str()) {
            return Err(format!("File {path} already exists"));
        }
        if let Some(file) = self.file_above(path.as_str()) {
            return Err(format!(
                "Cannot create {path}: {file} is a file, not a directory"
            ));
        }
        self.total = self.fits(path, &text)?;
        self.parents(path.as_str());
        self.entries.insert(path.to_string(), Some(text));
        Ok(format!("File created successfully at: {path}"))
    }

    fn str_replace(&mut self, path: &ValidPath, old: &str, new: &str) -> Answer {
        let content = self.file(path)?;
        let found: Vec<usize> = content.match_indices(old).map(|(i, _)| i).collect();
        let at = match found[..] {
            [] => {
                return Err(format!(
                    "No replacement was performed, old_str `{old}` did not appear verbatim in {path}."
                ));
            }
            [at] => at,
            _ => {
                let lines: Vec<String> = found
                    .iter()
                    .map(|&i| (content[..i].matches('\n').count() + 1).to_string())
                    .collect();
                return Err(format!(
                    "No replacement was performed. Multiple occurrences of old_str `{old}` in lines: {}. Please ensure it is unique",
                    lines.join(", ")
                ));
            }
        };
        let edited = format!("{}{new}{}", &content[..at], &content[at + old.len()..]);
        let first = content[..at].matches('\n').count() + 1;
        self.total = self.fits(path, &edited)?;
        let total = edited.split('\n').count();
        let start = first.saturating_sub(2).max(1);
        let end = (first + new.matches('\n').count() + 2).min(total);
        let mut out = String::from(SNIPPET_HEADER);
        for (i, line) in edited
            .split('\n')
            .enumerate()
            .skip(start - 1)
            .take(end + 1 - start)
        {
            if i + 1 > start {
                out.push('\n');
            }
            numbered(&mut out, i + 1, line);
        }
        self.entries.insert(path.to_string(), Some(edited));
        Ok(out)
    }

    fn insert(&mut self, path: &ValidPath, line: &serde_json::Number, text: &str) -> Answer {
        let content = self.file(path)?;
        let n = content.split('\n').count();
        let after = match line.as_u64() {
            Some(k) if k <= n as u64 => k as usize,
            _ => {
                return Err(format!(
                    "Invalid `insert_line` parameter: {line}. It should be within the range of lines of the file: [0, {n}]"
                ));
            }
        };
        let text = text.strip_suffix('\n').unwrap_or(text);
        let edited = if after == 0 {
            format!("{text}\n{content}")
        } else {
            let end = content
                .match_indices('\n')
                .nth(after - 1)
                .map_or(content.len(), |(i, _)| i);
            format!("{}\n{text}{}", &content[..end], &content[end..])
        };
        self.total = self.fits(path, &edited)?;
        self.entries.insert(path.to_string(), Some(edited));
        Ok(format!("The file {path} has been edited."))
    }

    /// The keys of `path` and everything beneath it.
    fn subtree(&self, path: &str) -> Vec<String> {
        let prefix = format!("{path}/");
        let mut keys = vec![path.to_string()];
        keys.extend(
            self.entries
                .range(prefix.clone()..)
                .take_while(|(k, _)| k.starts_with(&prefix))
                .map(|(k, _)| k.clone()),
        );
        keys
    }

    fn delete(&mut self, path: &ValidPath) -> Answer {
        if path.is_root() {
            return Err("Cannot delete the /memories directory itself".into());
        }
        if !self.entries.contains_key(path.as_str()) {
            return Err(format!("The path {path} does not exist"));
        }
        for key in self.subtree(path.as_str()) {
            if let Some(Some(c)) = self.entries.remove(&key) {
                self.total -= c.len() as u64;
            }
        }
        Ok(format!("Successfully deleted {path}"))
    }

    fn rename(&mut self, from: &ValidPath, to: &ValidPath) -> Answer {
        if from.is_root() {
            return Err("Cannot rename the /memories directory itself".into());
        }
        if to.is_root() {
            return Err(format!(
                "Cannot rename {from} to /memories: that is the memory directory itself"
            ));
        }
        if to.is_inside(from) {
            return Err(format!(
                "Cannot rename {from} to {to}: {to} is inside {from}"
            ));
        }
        if !self.entries.contains_key(from.as_str()) {
            return Err(format!("The path {from} does not exist"));
        }
        if self.entries.contains_key(to.as_str()) {
            return Err(format!("The destination {to} already exists"));
        }
        if let Some(file) = self.file_above(to.as_str()) {
            return Err(format!(
                "Cannot rename {from} to {to}: {file} is a file, not a directory"
            ));
        }
        for key in self.subtree(from.as_str()) {
            let content = self.entries.remove(&key).unwrap();
            self.entries
                .insert(format!("{to}{}", &key[from.as_str().len()..]), content);
        }
        self.parents(to.as_str());
        Ok(format!("Successfully renamed {from} to {to}"))
    }
}

/// `view_range` as lines `start..=end` of `n`, or the refusal naming the wrong element.
fn in_range(range: Option<(i64, i64)>, n: usize, of: &str) -> Result<(usize, usize), String> {
    let Some((s, e)) = range else {
        return Ok((1, n));
    };
    if s < 1 || s > n as i64 {
        return Err(format!(
            "Invalid `view_range`: [{s}, {e}]. Its first element `{s}` should be within the range of lines of the {of}: [1, {n}]"
        ));
    }
    if e != -1 && e < s {
        return Err(format!(
            "Invalid `view_range`: [{s}, {e}]. Its second element `{e}` should not be less than its first element `{s}`; the valid range is [1, {n}]"
        ));
    }
    if e > n as i64 {
        return Err(format!(
            "Invalid `view_range`: [{s}, {e}]. Its second element `{e}` should be within the range of lines of the {of}: [1, {n}], or -1 for the last line"
        ));
    }
    Ok((s as usize, if e == -1 { n } else { e as usize }))
}

/// A view's lines under the read limit (in characters): a line that would take the
/// output past it ends the view with a hint naming the `view_range` of the rest
/// (the first line always shows).
struct Page {
    used: usize,
    limit: usize,
    lines: usize,
    end: usize,
    first: bool,
}

impl Page {
    fn new(header: &str, limit: usize, lines: usize, end: usize) -> Self {
        Page {
            used: header.chars().count(),
            limit,
            lines,
            end,
            first: true,
        }
    }

    /// Starts line `number`, of `chars` characters, which the caller then writes;
    /// false (and the hint written) once the view is cut.
    fn next(&mut self, out: &mut String, number: usize, chars: usize) -> bool {
        let cost = chars + usize::from(!self.first);
        if !self.first && self.used + cost > self.limit {
            write!(
                out,
                "\n[Output cut at the read limit of {} characters after line {} of {}. To see more, view with view_range [{number}, {}].]",
                thousands(self.limit as u64),
                number - 1,
                self.lines,
                self.end
            )
            .unwrap();
            return false;
        }
        if !self.first {
            out.push('\n');
        }
        self.used += cost;
        self.first = false;
        true
    }
}

/// `{n:>6}\t{line}` without the formatting machinery, which would dominate a
/// long view's cost (the engine writes its numbers by hand too).
fn numbered(out: &mut String, n: usize, line: &str) {
    let mut digits = [b' '; 20];
    let mut at = digits.len();
    let mut rest = n;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    let from = at.min(digits.len() - 6);
    out.push_str(std::str::from_utf8(&digits[from..]).unwrap());
    out.push('\t');
    out.push_str(line);
}

/// `102,400`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// The spec's sizes: `{n}B` under 1 KiB; else K, M, G, one decimal below 10, whole
/// above, halves rounding up; a rounding that reaches 10 or 1024 takes the larger form.
fn human_size(bytes: u64) -> String {
    if bytes < 1024 {
        return format!("{bytes}B");
    }
    let units = ["K", "M", "G"];
    let mut unit = 0;
    let mut div = 1024u128;
    while unit + 1 < units.len() && u128::from(bytes) / div >= 1024 {
        unit += 1;
        div *= 1024;
    }
    let round = |scale: u128| (u128::from(bytes) * scale * 2 + div) / (2 * div);
    let tenths = round(10);
    if tenths < 100 {
        return format!("{}.{}{}", tenths / 10, tenths % 10, units[unit]);
    }
    let whole = round(1);
    if whole >= 1024 && unit + 1 < units.len() {
        return format!("1.0{}", units[unit + 1]);
    }
    format!("{whole}{}", units[unit])
}

/// Before any timing: the plain map answers every command of `commands` with the
/// engine's text, or the bench stops here. Returns (commands, views cut at the read limit).
fn assert_same_text(name: &str, entries: &[Entry], commands: &[Value]) -> (usize, usize) {
    let engine = engine_with(entries);
    let mut plain = PlainMap::new(entries);
    let mut cut = 0;
    for (i, c) in commands.iter().enumerate() {
        let ours = block_on(engine.execute(c));
        assert!(!ours.is_error, "{name}, command {i}: {}", ours.content);
        let (is_error, text) = plain.run(c);
        if (is_error, text.as_str()) != (ours.is_error, ours.content.as_str()) {
            // Where they part, with some context.
            let at = text
                .bytes()
                .zip(ours.content.bytes())
                .take_while(|(a, b)| a == b)
                .count();
            let near = |s: &str| {
                let from = s.floor_char_boundary(at.saturating_sub(80));
                let to = s.ceil_char_boundary((at + 120).min(s.len()));
                format!("...{:?}... ({} bytes)", &s[from..to], s.len())
            };
            panic!(
                "{name}, command {i} {c}: the plain map's answer is not the engine's, from byte {at}\n engine: {}\n plain:  {}",
                near(&ours.content),
                near(&text)
            );
        }
        cut += usize::from(text.contains("\n[Output cut at the read limit of "));
    }
    (commands.len(), cut)
}

/// Medians of the engine's and the plain map's wall time over `runs` fresh setups
/// each, the two taking turns run by run (first one, then the other), so neither
/// always runs on a cache the other just warmed or cooled.
fn medians<A, B>(
    runs: usize,
    mut setup_a: impl FnMut() -> A,
    mut a: impl FnMut(&mut A),
    mut setup_b: impl FnMut() -> B,
    mut b: impl FnMut(&mut B),
) -> (f64, f64) {
    let (mut ta, mut tb) = (Vec::new(), Vec::new());
    for run in 0..runs {
        let mut time_a = || {
            let mut state = setup_a();
            let t = Instant::now();
            a(&mut state);
            ta.push(t.elapsed().as_secs_f64());
        };
        let mut time_b = || {
            let mut state = setup_b();
            let t = Instant::now();
            b(&mut state);
            tb.push(t.elapsed().as_secs_f64());
        };
        if run.is_multiple_of(2) {
            time_a();
            time_b();
        } else {
            time_b();
            time_a();
        }
    }
    let median = |mut xs: Vec<f64>| {
        xs.sort_by(f64::total_cmp);
        xs[xs.len() / 2]
    };
    (median(ta), median(tb))
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
    // Correct before fast: the same text from both, for every command.
    let (mut checked, mut cut) = (0, 0);
    for (name, entries, commands) in &scenarios {
        let (n, c) = assert_same_text(name, entries, commands);
        checked += n;
        cut += c;
    }
    println!(
        "plain map and engine: the same text for all {checked} commands of the {} scenarios \
         ({cut} of them views cut at the read limit), 0 errors\n",
        scenarios.len()
    );
    println!(
        "{:<42} {:>12} {:>12} {:>8} {:>10} {:>8}",
        "scenario", "memdir", "plain map", "ratio", "store ops", "writes"
    );
    for (name, entries, commands) in &scenarios {
        let runs = if commands.len() > 1 { 7 } else { 31 };
        let (ours, plain) = medians(
            runs,
            // Warm engine (the steady state of a session: immutable objects cached).
            || {
                let e = engine_with(entries);
                block_on(e.execute_json(r#"{"command":"view","path":"/memories"}"#));
                e
            },
            |e| {
                for c in commands {
                    black_box(block_on(e.execute(c)));
                }
            },
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

// ---- profile: what each kind of command writes, and so hashes --------------

/// A store over a map that counts, per key prefix, the values set and their bytes.
/// Every object a command writes is named by the SHA-256 of its bytes (asserted at
/// each `set`), so the bytes set are bytes the command hashed; counting the bytes
/// given to the engine's SHA-256 itself once (2026-11-28) found them equal, no
/// object hashed and then left unwritten. The head's swap is not a `set`.
#[derive(Default)]
struct Sizing {
    inner: MemoryStore,
    /// prefix -> (values set, bytes set)
    sets: std::cell::RefCell<BTreeMap<String, (u64, u64)>>,
    ops: std::cell::Cell<u64>,
    /// The keys set since the last check.
    keys: std::cell::RefCell<Vec<String>>,
}

impl Sizing {
    /// Asserts that each value set since the last check is named by the SHA-256 of
    /// its bytes (after the timing, so the check is not timed), and splits the log
    /// nodes' bytes: leaves holding a record the command wrote (its new slots), other
    /// leaves (a changed memory's first slot, which names its newest version), inner
    /// nodes. Answers those three as (objects, bytes) each.
    fn check_names(&self) -> [(u64, u64); 3] {
        use memdir::__hooks::LogNode;
        let mut values = Vec::new();
        for key in self.keys.borrow_mut().drain(..) {
            let value = block_on(memdir::Store::get(&self.inner, &key))
                .unwrap()
                .unwrap();
            let hash = memdir::__hooks::sha256(&value);
            let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(
                key.split_once('/').unwrap().1,
                hex,
                "{key}: not named by its bytes"
            );
            values.push((key, hash, value));
        }
        let records: Vec<[u8; 32]> = values
            .iter()
            .filter(|(k, ..)| k.starts_with("rec/"))
            .map(|(_, h, _)| *h)
            .collect();
        let mut split = [(0, 0); 3];
        for (key, _, value) in &values {
            if !key.starts_with("log/") {
                continue;
            }
            let at = match LogNode::decode(value).unwrap() {
                LogNode::Leaf(slots) if slots.iter().any(|s| records.contains(&s.record.0)) => 0,
                LogNode::Leaf(_) => 1,
                LogNode::Inner(_) => 2,
            };
            split[at].0 += 1;
            split[at].1 += value.len() as u64;
        }
        split
    }
}

impl memdir::Store for Sizing {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, memdir::StoreError> {
        self.ops.set(self.ops.get() + 1);
        self.inner.get(key).await
    }
    async fn set(&self, key: &str, value: &[u8]) -> Result<(), memdir::StoreError> {
        self.ops.set(self.ops.get() + 1);
        let prefix = key.split('/').next().unwrap_or(key).to_string();
        self.keys.borrow_mut().push(key.to_string());
        {
            let mut sets = self.sets.borrow_mut();
            let e = sets.entry(prefix).or_default();
            e.0 += 1;
            e.1 += value.len() as u64;
        }
        self.inner.set(key, value).await
    }
    async fn delete(&self, key: &str) -> Result<(), memdir::StoreError> {
        self.ops.set(self.ops.get() + 1);
        self.inner.delete(key).await
    }
    async fn list(
        &self,
        prefix: &str,
        cursor: Option<&str>,
    ) -> Result<memdir::Page, memdir::StoreError> {
        self.ops.set(self.ops.get() + 1);
        self.inner.list(prefix, cursor).await
    }
    async fn compare_and_swap(
        &self,
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, memdir::StoreError> {
        self.ops.set(self.ops.get() + 1);
        self.inner.compare_and_swap(key, expected, new).await
    }
}

/// The kind of a workload command, as `npm run bench` names them (a view's by its
/// answer: a renamed file's name ends in `.old`).
fn kind_of(c: &Value, answer: &str) -> &'static str {
    match c["command"].as_str().unwrap() {
        "view" if c.get("view_range").is_some() => "view range",
        "view" if answer.starts_with("Here's the content of ") => "view file",
        "view" => "view dir",
        "create" => "create",
        "str_replace" => "str_replace",
        "insert" => "insert",
        "delete" => "delete",
        _ => "rename",
    }
}

/// Per kind of command of the 1,000-command workload, on a warm engine: the store
/// operations and, per key prefix, the objects written and their bytes (so the bytes
/// hashed), each a mean per command; beside them the content bytes the command
/// leaves, what `npm run bench`'s write floor hashes.
fn profile() {
    let (entries, commands) = workload();
    let store = Sizing::default();
    let engine = Engine::new(&store, Config::default());
    block_on(engine.import(&entries)).unwrap();
    block_on(engine.execute_json(r#"{"command":"view","path":"/memories"}"#));
    // kind -> (commands, ops, content bytes left, prefix -> (objects, bytes))
    type Row = (
        u64,
        u64,
        u64,
        BTreeMap<String, (u64, u64)>,
        Vec<f64>,
        Option<[(u64, u64); 3]>,
    );
    let mut rows: BTreeMap<&str, Row> = BTreeMap::new();
    for c in &commands {
        store.sets.borrow_mut().clear();
        store.ops.set(0);
        let t = Instant::now();
        let r = block_on(engine.execute(c));
        let took = t.elapsed().as_secs_f64();
        assert!(!r.is_error, "{c}: {}", r.content);
        let split = store.check_names();
        let kind = kind_of(c, &r.content);
        // A create's new slot is its memory's first: it rewrites no other leaf, so
        // one counted there would be the split miscounting.
        assert!(
            kind != "create" || split[1].0 == 0,
            "create of {}: a log leaf written without its new slot",
            c["path"]
        );
        // The content it leaves is the blob it writes: what the write floor hashes.
        let left = store.sets.borrow().get("blob").map_or(0, |b| b.1);
        let row = rows.entry(kind).or_default();
        row.0 += 1;
        row.1 += store.ops.get();
        row.2 += left;
        row.4.push(took);
        for (prefix, (n, bytes)) in store.sets.borrow().iter() {
            let e = row.3.entry(prefix.clone()).or_default();
            e.0 += n;
            e.1 += bytes;
        }
        for (i, (n, bytes)) in split.into_iter().enumerate() {
            let e = row.5.get_or_insert_default();
            e[i].0 += n;
            e[i].1 += bytes;
        }
    }
    println!("profile: the 1,000-command workload on a warm engine, means per command");
    println!(
        "{:<12} {:>5} {:>9} {:>6} {:>9}  objects written (count/bytes) by prefix; all = bytes hashed",
        "kind", "n", "median", "ops", "content"
    );
    let mut logs = Vec::new();
    for (kind, (n, ops, left, sets, times, split)) in rows.iter_mut() {
        let (n, ops, left, sets) = (&*n, &*ops, &*left, &*sets);
        let mean = |x: u64| x as f64 / *n as f64;
        times.sort_by(f64::total_cmp);
        let mut line = format!(
            "{kind:<12} {n:>5} {:>7.1}µs {:>6.1} {:>9.0} ",
            times[times.len() / 2] * 1e6,
            mean(*ops),
            mean(*left)
        );
        let mut all = 0;
        for (prefix, (k, bytes)) in sets {
            all += bytes;
            let _ = write!(line, " {prefix} {:.1}/{:.0}", mean(*k), mean(*bytes));
        }
        let _ = write!(line, "  all {:.0}", mean(all));
        println!("{line}");
        if let Some([new, first, inner]) = split
            && new.0 + first.0 + inner.0 > 0
        {
            logs.push(format!(
                "{kind:<12} leaves with its new slots {:.1}/{:.0}, other leaves {:.1}/{:.0}, inner nodes {:.1}/{:.0}",
                mean(new.0),
                mean(new.1),
                mean(first.0),
                mean(first.1),
                mean(inner.0),
                mean(inner.1)
            ));
        }
    }
    println!(
        "the log's objects (count/bytes): other leaves hold the first slot of a memory it changed"
    );
    for line in logs {
        println!("{line}");
    }
    println!();
}

// ---- scale: the same operations at 12,288 and at 65,536 versions -------------

/// Files in the directory the scale table views and renames.
const SCALE_FILES: usize = 10_000;
/// Edits of `/hot.md` after its creation: the memory whose versions are listed.
const SCALE_HOT_EDITS: u64 = 39;

/// The defaults, but room for 10,000 memories (the default allows 2,000 in a store).
fn scale_config() -> Config {
    let mut config = Config::default();
    config.limits.max_memories = 20_000;
    config
}

/// A store of `SCALE_FILES` files in `/memories/dir` and `/memories/pad.md`, then
/// the API memory `/hot.md`, with exactly `n` versions: the import (one version per
/// file), `n - 10,041` edits of `pad.md`, then `/hot.md`'s creation and its 39 edits,
/// the last 40 versions. Returns the store and `/hot.md`'s memory id.
///
/// The sizes compared are multiples of 64² (a log node two levels up spans 4,096
/// versions) and under 64³, and the smaller is past the 4,096-version nodes holding
/// the import's slots: so the memory's versions, the next write's slots and the
/// renamed files' first slots sit in the same places of a log of the same height,
/// sharing no node by chance at one size and not at the other. Any difference in the
/// store operations would come from the size of the history alone.
fn scale_store(n: u64) -> (MemoryStore, String) {
    let store = MemoryStore::new();
    let engine = Engine::new(store.clone(), scale_config());
    let mut entries: Vec<Entry> = (0..SCALE_FILES)
        .map(|i| file(&format!("/memories/dir/f{i:05}.md"), format!("note {i}")))
        .collect();
    entries.push(file("/memories/pad.md", "pad v0".into()));
    block_on(engine.import(&entries)).unwrap();
    let edit = |path: &str, k: u64| {
        let r = block_on(
            engine.execute(&json!({"command": "str_replace", "path": path,
            "old_str": format!(" v{k}"), "new_str": format!(" v{}", k + 1)})),
        );
        assert!(!r.is_error, "{path}: {}", r.content);
    };
    let pads = n - (SCALE_FILES as u64 + 1) - (SCALE_HOT_EDITS + 1);
    for k in 0..pads {
        edit("/memories/pad.md", k);
    }
    let hot = block_on(engine.api(&json!({"op": "memory.create",
        "body": json!({"path": "/hot.md", "content": "hot v0"}).to_string()})));
    assert_eq!(hot.status, 200, "{}", hot.body);
    for k in 0..SCALE_HOT_EDITS {
        edit("/memories/hot.md", k);
    }
    // Exactly n versions: the newest is number n.
    let newest = block_on(engine.api(&json!({"op": "version.list", "query": {"limit": "1"}})));
    assert_eq!(
        newest.body["data"][0]["id"],
        json!(format!("memver_local_{n}"))
    );
    (store, hot.body["id"].as_str().unwrap().to_string())
}

/// A copy of `store` that shares nothing with it (a clone shares the map), made
/// through the store contract: each write is measured on its own copy, so every
/// run starts from the same history.
fn copy_store(store: &MemoryStore) -> MemoryStore {
    use memdir::Store;
    let copy = MemoryStore::new();
    let mut cursor = None;
    loop {
        let page = block_on(store.list("", cursor.as_deref())).unwrap();
        for k in &page.keys {
            let v = block_on(store.get(k)).unwrap().unwrap();
            block_on(copy.set(k, &v)).unwrap();
        }
        match page.cursor {
            Some(c) => cursor = Some(c),
            None => return copy,
        }
    }
}

/// One scale operation on a fresh engine (nothing cached): its wall time and the
/// store operations it made by kind and key prefix ("get tree", "cas head").
fn scale_op(
    store: &MemoryStore,
    op: &dyn Fn(&Engine<&common::Harness<MemoryStore>>),
) -> (f64, BTreeMap<String, u64>) {
    let counted = common::Harness::new(store.clone());
    let engine = Engine::new(&counted, scale_config());
    let t = Instant::now();
    op(&engine);
    let elapsed = t.elapsed().as_secs_f64();
    let ops = counted.shared.by_key.borrow().clone();
    (elapsed, ops)
}

fn scale() {
    // Multiples of the log's fanout squared (see scale_store): the first past the
    // import, and the longest history of the same log height.
    const SIZES: [u64; 2] = [12_288, 65_536];
    const RUNS: usize = 5;
    use memdir::__hooks::{LOG_FANOUT, height};
    assert!(SIZES.iter().all(|n| n % LOG_FANOUT.pow(2) == 0));
    assert_eq!(height(SIZES[0], LOG_FANOUT), height(SIZES[1], LOG_FANOUT));
    let t = Instant::now();
    let stores: Vec<(MemoryStore, String)> = SIZES.iter().map(|&n| scale_store(n)).collect();
    println!(
        "scale: {} files in /memories/dir, histories of {} and {} versions (built in {:.1} s; \
         a version log of height {} in both);",
        thousands(SCALE_FILES as u64),
        thousands(SIZES[0]),
        thousands(SIZES[1]),
        t.elapsed().as_secs_f64(),
        height(SIZES[1], LOG_FANOUT)
    );
    println!(
        "each operation on a fresh engine (cold: nothing cached), median of {RUNS}, with its store operations\n"
    );
    type Op = Box<dyn Fn(&Engine<&common::Harness<MemoryStore>>, &str, u64)>;
    let run = |input: Value| {
        move |e: &Engine<&common::Harness<MemoryStore>>, _: &str, _: u64| {
            let r = block_on(e.execute(&input));
            assert!(!r.is_error, "{input}: {}", r.content);
        }
    };
    // (name, whether it writes: then each run gets its own copy of the store, op)
    let ops: Vec<(&str, bool, Op)> = vec![
        (
            "view of /memories/dir (10,000 files)",
            false,
            Box::new(run(json!({"command": "view", "path": "/memories/dir"}))),
        ),
        (
            "a write (str_replace in /memories/hot.md)",
            true,
            Box::new(run(
                json!({"command": "str_replace", "path": "/memories/hot.md", "old_str": "hot v39", "new_str": "hot v40"}),
            )),
        ),
        (
            "rename of /memories/dir (10,000 files)",
            true,
            Box::new(run(
                json!({"command": "rename", "old_path": "/memories/dir", "new_path": "/memories/moved"}),
            )),
        ),
        (
            "version.list of /hot.md's versions (memory_id, a page of 20)",
            false,
            Box::new(|e, id, n| {
                let r = block_on(e.api(
                    &json!({"op": "version.list", "query": {"memory_id": id, "limit": "20"}}),
                ));
                assert_eq!(r.status, 200, "{}", r.body);
                let ids: Vec<&str> = r.body["data"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v["id"].as_str().unwrap())
                    .collect();
                // The memory's 20 newest, newest first: the history's last 20 versions.
                let want: Vec<String> = (n - 19..=n)
                    .rev()
                    .map(|v| format!("memver_local_{v}"))
                    .collect();
                assert_eq!(ids, want, "{}", r.body);
            }),
        ),
    ];
    let col = |n: u64| format!("at {} versions", thousands(n));
    for (name, writes, op) in &ops {
        let mut times = [Vec::new(), Vec::new()];
        let mut counts: [Vec<BTreeMap<String, u64>>; 2] = [Vec::new(), Vec::new()];
        for _ in 0..RUNS {
            for (s, (store, id)) in stores.iter().enumerate() {
                let copy;
                let store = if *writes {
                    copy = copy_store(store);
                    &copy
                } else {
                    store
                };
                let (secs, by_key) = scale_op(store, &|e| op(e, id, SIZES[s]));
                times[s].push(secs);
                counts[s].push(by_key);
            }
        }
        let median = |xs: &mut Vec<f64>| {
            xs.sort_by(f64::total_cmp);
            xs[RUNS / 2]
        };
        let (small, large) = (median(&mut times[0]), median(&mut times[1]));
        println!("{name:<62} {:>20} {:>20}", col(SIZES[0]), col(SIZES[1]));
        println!(
            "  {:<60} {:>17.2} ms {:>17.2} ms",
            "time",
            small * 1e3,
            large * 1e3
        );
        let keys: std::collections::BTreeSet<&String> =
            counts.iter().flat_map(|c| c[0].keys()).collect();
        for k in keys {
            let at = |s: usize| counts[s][0].get(k).copied().unwrap_or(0);
            println!("  {k:<60} {:>20} {:>20}", at(0), at(1));
        }
        // The claim, asserted: the same store operations at either size, run after run.
        for s in 0..2 {
            for c in &counts[s] {
                assert_eq!(
                    c, &counts[0][0],
                    "{name}: store operations differ between runs or history sizes"
                );
            }
        }
        println!();
    }
    println!(
        "store operations equal at both sizes for every operation (asserted): none grows with the history\n"
    );
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
