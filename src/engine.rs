//! Running a command: read the head, compute the new tree, publish it with one
//! compare-and-swap, retry on conflict. (Bodies are being written; the API is final.)

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use crate::store::Store;

/// Size and read limits, configurable per store. Defaults are the spec's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest file content in UTF-8 bytes (default 102,400: the hosted store's limit).
    pub max_file_bytes: usize,
    /// Largest total of all file contents in bytes (default 100 MiB).
    pub max_total_bytes: u64,
    /// Longest `view` output in characters before it is cut with a paging hint.
    pub read_limit_chars: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_file_bytes: 102_400, max_total_bytes: 100 * 1024 * 1024, read_limit_chars: 100_000 }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub limits: Limits,
    /// Recorded in each commit as who acted (an agent, a user, a tab).
    pub actor: String,
    /// Times a command re-reads and retries after losing a compare-and-swap race.
    pub max_retries: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config { limits: Limits::default(), actor: String::new(), max_retries: 32 }
    }
}

/// The raw face of a command: what goes back to the model as a `tool_result`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ToolResult {
    pub content: String,
    pub is_error: bool,
}

/// One file (with its content) or directory (`content: None`) of the tree, by path.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Entry {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
}

/// What a garbage collection did.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct GcReport {
    pub reachable: usize,
    pub deleted: usize,
    /// Unreferenced now but not yet in an earlier pass: deleted by the next one.
    pub pending: usize,
}

pub struct Engine<S> {
    store: S,
    config: Config,
    clock: Box<dyn Fn() -> u64>,
}

impl<S: Store> Engine<S> {
    pub fn new(store: S, config: Config) -> Self {
        Engine { store, config, clock: Box::new(|| 0) }
    }

    /// Milliseconds since the Unix epoch, for commit times. Default: always 0.
    pub fn set_clock(&mut self, clock: Box<dyn Fn() -> u64>) {
        self.clock = clock;
    }

    pub fn store(&self) -> &S {
        &self.store
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The raw face: a tool input as JSON text in, `{content, is_error}` out, with
    /// `Error: ` before the message on failure.
    pub async fn execute(&self, input: &str) -> ToolResult {
        let _ = input;
        ToolResult { content: "Error: not implemented yet".into(), is_error: true }
    }

    /// The raw face for an already-parsed input.
    pub async fn execute_value(&self, input: &serde_json::Value) -> ToolResult {
        let _ = input;
        ToolResult { content: "Error: not implemented yet".into(), is_error: true }
    }

    /// The handler face: the success string, or the error message without `Error: `.
    pub async fn handle(&self, input: &serde_json::Value) -> Result<String, String> {
        let _ = input;
        Err("not implemented yet".into())
    }

    /// Every directory and file under `/memories` (the root itself excluded), sorted
    /// by path; directories have `content: None`.
    pub async fn entries(&self) -> Result<Vec<Entry>, String> {
        Err("not implemented yet".into())
    }

    /// Replaces the whole tree with `entries` in one commit, all or nothing. Paths are
    /// checked by the same rules as commands; missing parent directories are made.
    pub async fn import(&self, entries: &[Entry]) -> Result<(), String> {
        let _ = entries;
        Err("not implemented yet".into())
    }

    /// Mark-and-sweep from the head and its last `keep_commits` ancestors. An object
    /// is deleted only if it was already unreferenced at the previous pass, so an
    /// object another writer has written but not yet published survives.
    pub async fn gc(&self, keep_commits: usize) -> Result<GcReport, String> {
        let _ = keep_commits;
        Err("not implemented yet".into())
    }
}
