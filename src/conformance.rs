//! The conformance data of `tests/conformance/` as Rust values, so that every Rust
//! runner (the native engine, IndexedDB in Chromium, the wasmtime host) reads the
//! format one way, next to the store-contract suite in [`crate::contract`]. The
//! JavaScript runners read the same JSON files themselves.
//!
//! A runner seeds a store with [`seed`], wraps it as it likes (counting or failing
//! operations), and hands an engine over it to [`check`].

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde_json::{Value, json};

use crate::config::{Config, Limits};
use crate::store::Store;
use crate::{Engine, Entry, ToolResult};

/// Every directory and file under `/memories` (the root excluded): a file maps to its
/// content, a directory to `None`.
pub type Tree = BTreeMap<String, Option<String>>;

/// One case of `cases.json`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// The case's name, for a failing test's message.
    pub name: String,
    /// The limits the engine runs with.
    pub limits: Limits,
    /// What to import before the command.
    pub before: Vec<Entry>,
    /// The tool input as the JSON text `execute` receives.
    pub input: String,
    /// The exact `tool_result` text expected.
    pub content: String,
    /// Whether the command is expected to fail.
    pub is_error: bool,
    /// The whole tree afterwards.
    pub after: Tree,
    /// The refusal comes before any storage access: zero store operations.
    pub no_store_ops: bool,
}

impl Case {
    /// The engine configuration the case runs with: the defaults and its limits.
    pub fn config(&self) -> Config {
        Config {
            limits: self.limits,
            ..Config::default()
        }
    }
}

/// One entry of `hostile-paths.json`: a path every argument position must refuse
/// with `message` (without `Error: `), touching no storage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostilePath {
    /// The path.
    pub path: String,
    /// The rule it breaks ([`PathError::rule`](crate::PathError::rule)).
    pub rule: String,
    /// The exact message expected.
    pub message: String,
}

/// Where a hostile path is tried: each argument that holds a path.
pub const POSITIONS: [&str; 7] = [
    "view.path",
    "create.path",
    "str_replace.path",
    "insert.path",
    "delete.path",
    "rename.old_path",
    "rename.new_path",
];

/// The files a hostile-path runner seeds first, so that only the hostile path can be
/// what refuses (the valid end of a rename exists).
pub fn hostile_seed() -> Vec<Entry> {
    alloc::vec![Entry {
        path: "/memories/a.txt".into(),
        content: Some("a".into())
    }]
}

/// The tool input that puts `path` in `position`.
pub fn hostile_input(position: &str, path: &str) -> Value {
    match position {
        "view.path" => json!({"command": "view", "path": path}),
        "create.path" => json!({"command": "create", "path": path, "file_text": "x"}),
        "str_replace.path" => {
            json!({"command": "str_replace", "path": path, "old_str": "a", "new_str": "b"})
        }
        "insert.path" => {
            json!({"command": "insert", "path": path, "insert_line": 0, "insert_text": "x"})
        }
        "delete.path" => json!({"command": "delete", "path": path}),
        "rename.old_path" => {
            json!({"command": "rename", "old_path": path, "new_path": "/memories/b.txt"})
        }
        _ => json!({"command": "rename", "old_path": "/memories/a.txt", "new_path": path}),
    }
}

/// The cases of `cases.json`; `Err` names what is malformed.
pub fn cases(json_text: &str) -> Result<Vec<Case>, String> {
    let data: Value = serde_json::from_str(json_text).map_err(|e| format!("cases.json: {e}"))?;
    let list = data
        .get("cases")
        .and_then(Value::as_array)
        .ok_or("cases.json: no \"cases\" array")?;
    list.iter().map(case).collect()
}

/// The paths of `hostile-paths.json`; `Err` names what is malformed.
pub fn hostile_paths(json_text: &str) -> Result<Vec<HostilePath>, String> {
    let data: Value =
        serde_json::from_str(json_text).map_err(|e| format!("hostile-paths.json: {e}"))?;
    let list = data
        .get("paths")
        .and_then(Value::as_array)
        .ok_or("hostile-paths.json: no \"paths\" array")?;
    list.iter()
        .map(|p| {
            let field = |k: &str| {
                p.get(k)
                    .and_then(Value::as_str)
                    .map(String::from)
                    .ok_or(format!("hostile path without {k}: {p}"))
            };
            Ok(HostilePath {
                path: field("path")?,
                rule: field("rule")?,
                message: field("message")?,
            })
        })
        .collect()
}

fn case(v: &Value) -> Result<Case, String> {
    let name = v
        .get("name")
        .and_then(Value::as_str)
        .ok_or("a case without a name")?
        .to_string();
    let bad = |what: &str| format!("{name}: {what}");
    let input = match (v.get("input_text"), v.get("input")) {
        (Some(Value::String(text)), _) => text.clone(),
        (_, Some(value)) => value.to_string(),
        _ => return Err(bad("neither input nor input_text")),
    };
    let mut limits = Limits::default();
    if let Some(l) = v.get("limits") {
        let n = |k: &str| l.get(k).and_then(Value::as_u64);
        if let Some(x) = n("max_file_bytes") {
            limits.max_file_bytes = x as usize;
        }
        if let Some(x) = n("max_total_bytes") {
            limits.max_total_bytes = x;
        }
        if let Some(x) = n("read_limit_chars") {
            limits.read_limit_chars = x as usize;
        }
    }
    let before_state = v.get("before").ok_or_else(|| bad("no before"))?;
    let before = entries(before_state).map_err(|e| bad(&e))?;
    let after = match v.get("after") {
        Some(state) => expected_tree(&entries(state).map_err(|e| bad(&e))?),
        None => expected_tree(&before),
    };
    Ok(Case {
        limits,
        before,
        input,
        content: v
            .get("content")
            .and_then(Value::as_str)
            .ok_or_else(|| bad("no content"))?
            .into(),
        is_error: v
            .get("is_error")
            .and_then(Value::as_bool)
            .ok_or_else(|| bad("no is_error"))?,
        after,
        no_store_ops: v.get("no_store_ops") == Some(&Value::Bool(true)),
        name,
    })
}

/// A state's files (a string, or `{"repeat": s, "times": n}`) and its childless
/// directories, as entries to import.
fn entries(state: &Value) -> Result<Vec<Entry>, String> {
    let mut out = Vec::new();
    if let Some(files) = state.get("files").and_then(Value::as_object) {
        for (path, v) in files {
            let content = match v {
                Value::String(s) => s.clone(),
                Value::Object(o) => {
                    let unit = o
                        .get("repeat")
                        .and_then(Value::as_str)
                        .ok_or("repeat is not a string")?;
                    let times = o
                        .get("times")
                        .and_then(Value::as_u64)
                        .ok_or("times is not a count")?;
                    unit.repeat(times as usize)
                }
                other => return Err(format!("bad file value {other}")),
            };
            out.push(Entry {
                path: path.clone(),
                content: Some(content),
            });
        }
    }
    for d in state
        .get("dirs")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        out.push(Entry {
            path: d.as_str().ok_or("a dir that is not a string")?.into(),
            content: None,
        });
    }
    Ok(out)
}

/// The whole tree a list of entries implies: each entry and every directory above
/// it, `/memories` excluded.
pub fn expected_tree(entries: &[Entry]) -> Tree {
    let mut t = Tree::new();
    for e in entries {
        let mut end = e.path.len();
        while let Some(cut) = e.path.get(..end).and_then(|p| p.rfind('/')) {
            if cut <= "/memories".len() {
                break;
            }
            if let Some(dir) = e.path.get(..cut) {
                t.insert(dir.into(), None);
            }
            end = cut;
        }
        t.insert(e.path.clone(), e.content.clone());
    }
    t
}

/// The tree as `Engine::entries` lists it.
pub fn tree_of(entries: Vec<Entry>) -> Tree {
    entries.into_iter().map(|e| (e.path, e.content)).collect()
}

/// Imports the case's starting tree into `store`.
pub async fn seed<S: Store>(store: &S, case: &Case) -> Result<(), String> {
    Engine::new(store, case.config())
        .import(&case.before)
        .await
        .map_err(|e| format!("seeding: {e}"))
}

/// Runs the case's input on `engine` (over a seeded store) and compares the answer
/// and then the whole tree with the case.
pub async fn check<S: Store>(engine: &Engine<S>, case: &Case) -> Result<(), String> {
    check_answer(case, &engine.execute_json(&case.input).await)?;
    check_tree(
        case,
        engine
            .entries()
            .await
            .map_err(|e| format!("entries() failed: {e}"))?,
    )
}

/// The answer is the case's, to the byte.
pub fn check_answer(case: &Case, r: &ToolResult) -> Result<(), String> {
    if r.content != case.content || r.is_error != case.is_error {
        return Err(format!(
            "is_error {} (want {}); {}",
            r.is_error,
            case.is_error,
            diff(&case.content, &r.content)
        ));
    }
    Ok(())
}

/// The tree afterwards (as `Engine::entries` lists it) is the case's.
pub fn check_tree(case: &Case, entries: Vec<Entry>) -> Result<(), String> {
    let got = tree_of(entries);
    if got != case.after {
        let wrong: Vec<&String> = case
            .after
            .keys()
            .chain(got.keys())
            .filter(|k| case.after.get(*k) != got.get(*k))
            .collect();
        return Err(format!("the tree afterwards differs at {wrong:?}"));
    }
    Ok(())
}

/// Where two strings first differ, briefly, for a failing case's message.
pub fn diff(expected: &str, got: &str) -> String {
    let at = expected
        .chars()
        .zip(got.chars())
        .take_while(|(a, b)| a == b)
        .count();
    let clip = |s: &str| -> String { s.chars().skip(at.saturating_sub(40)).take(160).collect() };
    format!(
        "first difference at char {at}\n    expected: {:?}\n    got:      {:?}",
        clip(expected),
        clip(got)
    )
}

// ------------------------------------------------------------------ hostile stores

/// `hostile-stores.json`: the probes every runner sends, in order, and the tampered
/// stores with the exact answers over them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostileStores {
    /// Each probe as the JSON text `execute_json` receives.
    pub probes: Vec<String>,
    /// The tampered stores.
    pub cases: Vec<HostileStore>,
}

/// One tampered store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostileStore {
    /// The case's name, for a failing test's message.
    pub name: String,
    /// What was tampered with.
    pub what: String,
    /// Every key and its raw value, loaded into an empty store with `set`.
    pub store: BTreeMap<String, Vec<u8>>,
    /// The answer to each probe.
    pub answers: Vec<ToolResult>,
    /// `entries()`'s error message, or `None` when it succeeds.
    pub entries_error: Option<String>,
    /// The last probe writes; every other probe must leave the store as loaded.
    pub writes: bool,
}

/// The data of `hostile-stores.json`; `Err` names what is malformed.
pub fn hostile_stores(json_text: &str) -> Result<HostileStores, String> {
    let bad = |what: &str| format!("hostile-stores.json: {what}");
    let data: Value = serde_json::from_str(json_text).map_err(|e| bad(&e.to_string()))?;
    let probes = data
        .get("probes")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("no \"probes\" array"))?
        .iter()
        .map(Value::to_string)
        .collect();
    let cases = data
        .get("cases")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("no \"cases\" array"))?
        .iter()
        .map(hostile_store)
        .collect::<Result<_, _>>()
        .map_err(|e| bad(&e))?;
    Ok(HostileStores { probes, cases })
}

fn hostile_store(v: &Value) -> Result<HostileStore, String> {
    let text = |k: &str| v.get(k).and_then(Value::as_str).map(String::from);
    let name = text("name").ok_or("a case without a name")?;
    let bad = |what: &str| format!("{name}: {what}");
    let mut store = BTreeMap::new();
    for (k, value) in v
        .get("store")
        .and_then(Value::as_object)
        .ok_or_else(|| bad("no store"))?
    {
        let bytes = match value {
            Value::String(s) => s.as_bytes().to_vec(),
            _ => value
                .get("hex")
                .and_then(Value::as_str)
                .and_then(|s| hex::decode(s).ok())
                .ok_or_else(|| bad(&format!("{k}: neither a string nor {{\"hex\": …}}")))?,
        };
        store.insert(k.clone(), bytes);
    }
    let answers = v
        .get("answers")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("no answers"))?
        .iter()
        .map(|a| {
            Some(ToolResult {
                content: a.get("content")?.as_str()?.into(),
                is_error: a.get("is_error")?.as_bool()?,
            })
        })
        .collect::<Option<_>>()
        .ok_or_else(|| bad("an answer without content or is_error"))?;
    let entries_error = match v.get("entries_error") {
        Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        _ => return Err(bad("entries_error is neither null nor a string")),
    };
    Ok(HostileStore {
        what: text("what").ok_or_else(|| bad("no what"))?,
        store,
        answers,
        entries_error,
        writes: v
            .get("writes")
            .and_then(Value::as_bool)
            .ok_or_else(|| bad("no writes"))?,
        name,
    })
}

/// What a hostile-store runner drives: the engine itself, or a face of it (the
/// component in the host).
#[allow(async_fn_in_trait)] // test-only, never held across threads
pub trait Face {
    /// `entries()`; `Err` holds the error's message.
    async fn entries(&mut self) -> Result<(), String>;
    /// Runs one tool input given as JSON text.
    async fn execute_json(&mut self, input: &str) -> ToolResult;
}

impl<S: Store> Face for Engine<S> {
    async fn entries(&mut self) -> Result<(), String> {
        Engine::entries(self)
            .await
            .map(drop)
            .map_err(|e| e.to_string())
    }
    async fn execute_json(&mut self, input: &str) -> ToolResult {
        Engine::execute_json(self, input).await
    }
}

/// Puts the case's raw keys into `store` (meant to be empty) with `set`.
pub async fn load_hostile<S: Store>(store: &S, case: &HostileStore) -> Result<(), String> {
    for (k, v) in &case.store {
        store
            .set(k, v)
            .await
            .map_err(|e| format!("loading {k}: {e}"))?;
    }
    Ok(())
}

/// Every key and value `store` holds.
pub async fn raw_content<S: Store>(store: &S) -> Result<BTreeMap<String, Vec<u8>>, String> {
    let mut out = BTreeMap::new();
    for k in crate::store::list_all(store, "")
        .await
        .map_err(|e| format!("listing: {e}"))?
    {
        let v = store
            .get(&k)
            .await
            .map_err(|e| format!("reading {k}: {e}"))?;
        out.insert(k.clone(), v.ok_or(format!("{k} is listed but absent"))?);
    }
    Ok(out)
}

/// Runs one case on `face`, an engine over `store` loaded by [`load_hostile`]:
/// `entries()` fails with the case's message (or succeeds), each probe gets the
/// case's answer to the byte, and after each probe (but a writing last one) the
/// store holds exactly what was loaded.
pub async fn check_hostile<S: Store, F: Face>(
    store: &S,
    face: &mut F,
    probes: &[String],
    case: &HostileStore,
) -> Result<(), String> {
    match (face.entries().await, &case.entries_error) {
        (Ok(()), None) => {}
        (Err(got), Some(want)) if got == *want => {}
        (got, want) => return Err(format!("entries() gave {got:?}, want {want:?}")),
    }
    if probes.len() != case.answers.len() {
        return Err(format!(
            "{} probes, {} answers",
            probes.len(),
            case.answers.len()
        ));
    }
    for (i, (probe, want)) in probes.iter().zip(&case.answers).enumerate() {
        let got = face.execute_json(probe).await;
        if got != *want {
            return Err(format!(
                "{probe}: is_error {} (want {}); {}",
                got.is_error,
                want.is_error,
                diff(&want.content, &got.content)
            ));
        }
        if (i + 1 < probes.len() || !case.writes) && raw_content(store).await? != case.store {
            return Err(format!("the store changed after {probe}"));
        }
    }
    Ok(())
}
