//! Running a command: read the head, compute the new tree beside the old one, and
//! publish it with one compare-and-swap of the head; on a lost race, re-read and
//! retry (bounded). Objects are immutable, so they are cached in memory forever
//! (within a budget) and an uncontended command costs one store round trip to
//! publish, plus reads of whatever it has not seen before.

use alloc::boxed::Box;
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::cell::{Cell, RefCell};
use core::future::Future;
use core::pin::Pin;

use serde_json::Value;

use crate::input::{self, Checked};
use crate::lines;
use crate::path::{self, ValidPath};
use crate::render;
use crate::secrets::{self, SecretPolicy};
use crate::store::{Store, StoreError};
use crate::tree::{BLOB, COMMIT, Child, Commit, HEAD, Hash, Kind, Node, TREE};

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
        Limits {
            max_file_bytes: 102_400,
            max_total_bytes: 100 * 1024 * 1024,
            read_limit_chars: 100_000,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub limits: Limits,
    /// Recorded in each commit as who acted (an agent, a user, a tab).
    pub actor: String,
    /// Times a command re-reads and retries after losing a compare-and-swap race.
    pub max_retries: u32,
    /// What to do with text the model writes that looks like a credential.
    pub secrets: SecretPolicy,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            limits: Limits::default(),
            actor: String::new(),
            max_retries: 32,
            secrets: SecretPolicy::Allow,
        }
    }
}

/// The raw face of a command: what goes back to the model as a `tool_result`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ToolResult {
    pub content: String,
    pub is_error: bool,
}

impl ToolResult {
    fn from(outcome: Result<String, String>) -> ToolResult {
        match outcome {
            Ok(content) => ToolResult {
                content,
                is_error: false,
            },
            Err(message) => ToolResult {
                content: format!("Error: {message}"),
                is_error: true,
            },
        }
    }
}

/// One file (with its content) or directory (`content: None`) of the tree, by path.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Entry {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
}

/// What an expiry sweep removed: entries (a directory counts once, with everything
/// beneath it) and the bytes of file content they held.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ExpireReport {
    pub removed: usize,
    pub bytes: u64,
}

/// What a garbage collection did.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct GcReport {
    pub reachable: usize,
    pub deleted: usize,
    /// Unreferenced now but not yet in an earlier pass: deleted by the next one.
    pub pending: usize,
}

/// Error text for the user; every failure is already worded by `render` or `path`.
type Fallible<T> = Result<T, String>;

/// Where the store's key that remembers the previous collection's candidates lives.
const GC_PENDING: &str = "gc/pending";
/// Cache budgets: immutable objects never go stale, only memory is at stake.
const NODE_CACHE_MAX: usize = 8192;
const BLOB_CACHE_MAX_BYTES: usize = 16 << 20;

/// What the head said when it was read.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Head {
    /// The head's raw value, the `expected` of the next compare-and-swap.
    raw: Option<Vec<u8>>,
    commit: Option<Hash>,
    root: Hash,
}

/// What a path names in one version of the tree.
enum Found {
    Root,
    Entry(Child),
    Missing,
    /// An ancestor at this depth is a file, so nothing can be beneath it.
    UnderFile(usize),
}

/// New objects of the command being planned, invisible until the head moves.
#[derive(Default)]
struct Overlay {
    /// The command's time: what it writes, and the directories above, carry it.
    now: u64,
    nodes: BTreeMap<Hash, (Rc<Node>, Vec<u8>)>,
    blobs: BTreeMap<Hash, Rc<str>>,
}

impl Overlay {
    fn at(now: u64) -> Overlay {
        Overlay {
            now,
            ..Overlay::default()
        }
    }

    fn add_node(&mut self, node: Node) -> Child {
        let bytes = node.encode();
        let hash = Hash::of(&bytes);
        let size = node.size();
        let written = node.written().max(self.now);
        self.nodes.insert(hash, (Rc::new(node), bytes));
        Child {
            kind: Kind::Dir,
            hash,
            size,
            written,
        }
    }

    fn add_blob(&mut self, content: &str) -> Child {
        let hash = Hash::of(content.as_bytes());
        self.blobs.insert(hash, Rc::from(content));
        Child {
            kind: Kind::File,
            hash,
            size: content.len() as u64,
            written: self.now,
        }
    }

    /// The writes that publish `root`: only the new objects it reaches.
    fn writes(&self, root: Hash) -> Vec<(String, Vec<u8>)> {
        let mut out = Vec::new();
        let mut seen = BTreeSet::new();
        let mut todo = vec![root];
        while let Some(h) = todo.pop() {
            let Some((node, bytes)) = self.nodes.get(&h) else {
                continue;
            };
            if !seen.insert(h) {
                continue;
            }
            out.push((h.key(TREE), bytes.clone()));
            for c in node.children.values() {
                match c.kind {
                    Kind::Dir => todo.push(c.hash),
                    Kind::File => {
                        if let Some(b) = self.blobs.get(&c.hash)
                            && seen.insert(c.hash)
                        {
                            out.push((c.hash.key(BLOB), b.as_bytes().to_vec()));
                        }
                    }
                }
            }
        }
        out
    }
}

/// A planned change: the new root and the success message.
struct Plan {
    root: Hash,
    message: String,
}

/// A wait supplied by the runtime: given how many races this command has lost in a
/// row, a future that resolves when it should try again.
pub type Backoff = Box<dyn Fn(u32) -> Pin<Box<dyn Future<Output = ()>>>>;

pub struct Engine<S> {
    store: S,
    config: Config,
    clock: Box<dyn Fn() -> u64>,
    backoff: Option<Backoff>,
    empty_root: Hash,
    head: RefCell<Option<Head>>,
    nodes: RefCell<BTreeMap<Hash, Rc<Node>>>,
    blobs: RefCell<BTreeMap<Hash, Rc<str>>>,
    blob_bytes: Cell<usize>,
    commits: RefCell<BTreeMap<Hash, Hash>>,
}

impl<S: Store> Engine<S> {
    pub fn new(store: S, config: Config) -> Self {
        Engine {
            store,
            config,
            clock: Box::new(|| 0),
            backoff: None,
            empty_root: Hash::of(&Node::default().encode()),
            head: RefCell::new(None),
            nodes: RefCell::new(BTreeMap::new()),
            blobs: RefCell::new(BTreeMap::new()),
            blob_bytes: Cell::new(0),
            commits: RefCell::new(BTreeMap::new()),
        }
    }

    /// Milliseconds since the Unix epoch, for commit times. Default: always 0.
    pub fn set_clock(&mut self, clock: Box<dyn Fn() -> u64>) {
        self.clock = clock;
    }

    /// How to wait after losing a compare-and-swap race. Without one the engine
    /// retries at once, which is right for one process but lets a writer that runs
    /// commands back to back starve another (it never needs to re-read): a random,
    /// growing wait spreads the loser's retries beyond the winner's burst. The engine
    /// has no timer of its own, so the runtime supplies this.
    pub fn set_backoff(&mut self, backoff: Backoff) {
        self.backoff = Some(backoff);
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
        ToolResult::from(match input::parse_text(input) {
            Ok(cmd) => self.run(cmd).await,
            Err(e) => Err(e),
        })
    }

    /// The raw face for an already-parsed input.
    pub async fn execute_value(&self, input: &Value) -> ToolResult {
        ToolResult::from(self.handle(input).await)
    }

    /// The handler face: the success string, or the error message without `Error: `.
    pub async fn handle(&self, input: &Value) -> Result<String, String> {
        let cmd = input::parse(input)?;
        self.run(cmd).await
    }

    async fn run(&self, cmd: Checked) -> Fallible<String> {
        let cmd = screen_secrets(cmd, self.config.secrets)?;
        refuse_without_storage(&cmd, &self.config.limits)?;
        let result = match &cmd {
            Checked::View { path, view_range } => self.view(path, *view_range).await,
            _ => self.mutate(&cmd).await,
        };
        if result.is_err() {
            // A failure may have come from a store in an unknown state: trust
            // nothing cached about the head (objects stay valid: they are immutable).
            self.head.replace(None);
        }
        result
    }

    // ---- reading -----------------------------------------------------------

    async fn read_head(&self) -> Fallible<Head> {
        let raw = self.store.get(HEAD).await.map_err(render::storage)?;
        let head = match &raw {
            None => Head {
                raw: None,
                commit: None,
                root: self.empty_root,
            },
            Some(bytes) => {
                let hex = core::str::from_utf8(bytes).map_err(|_| render::damaged())?;
                let commit = Hash::from_hex(hex).ok_or_else(render::damaged)?;
                let root = self.commit_root(commit).await?;
                Head {
                    raw: raw.clone(),
                    commit: Some(commit),
                    root,
                }
            }
        };
        self.head.replace(Some(head.clone()));
        Ok(head)
    }

    async fn commit_root(&self, commit: Hash) -> Fallible<Hash> {
        if let Some(root) = self.commits.borrow().get(&commit) {
            return Ok(*root);
        }
        let bytes = self
            .store
            .get(&commit.key(COMMIT))
            .await
            .map_err(render::storage)?;
        let root = bytes
            .as_deref()
            .and_then(Commit::decode)
            .and_then(|c| c.root_hash())
            .ok_or_else(render::damaged)?;
        self.commits.borrow_mut().insert(commit, root);
        Ok(root)
    }

    async fn node(&self, overlay: &Overlay, hash: Hash) -> Fallible<Rc<Node>> {
        if let Some((n, _)) = overlay.nodes.get(&hash) {
            return Ok(n.clone());
        }
        if hash == self.empty_root {
            return Ok(Rc::new(Node::default()));
        }
        if let Some(n) = self.nodes.borrow().get(&hash) {
            return Ok(n.clone());
        }
        let bytes = self
            .store
            .get(&hash.key(TREE))
            .await
            .map_err(render::storage)?;
        let node = Rc::new(
            bytes
                .as_deref()
                .and_then(Node::decode)
                .ok_or_else(render::damaged)?,
        );
        self.remember_node(hash, node.clone());
        Ok(node)
    }

    fn remember_node(&self, hash: Hash, node: Rc<Node>) {
        let mut cache = self.nodes.borrow_mut();
        if cache.len() >= NODE_CACHE_MAX {
            cache.clear();
        }
        cache.insert(hash, node);
    }

    async fn blob(&self, hash: Hash) -> Fallible<Rc<str>> {
        if let Some(b) = self.blobs.borrow().get(&hash) {
            return Ok(b.clone());
        }
        let bytes = self
            .store
            .get(&hash.key(BLOB))
            .await
            .map_err(render::storage)?;
        let text = bytes
            .and_then(|b| String::from_utf8(b).ok())
            .ok_or_else(render::damaged)?;
        let text: Rc<str> = Rc::from(text);
        self.remember_blob(hash, text.clone());
        Ok(text)
    }

    fn remember_blob(&self, hash: Hash, text: Rc<str>) {
        let mut cache = self.blobs.borrow_mut();
        if self.blob_bytes.get() + text.len() > BLOB_CACHE_MAX_BYTES {
            cache.clear();
            self.blob_bytes.set(0);
        }
        self.blob_bytes.set(self.blob_bytes.get() + text.len());
        cache.insert(hash, text);
    }

    async fn lookup(&self, overlay: &Overlay, root: Hash, path: &ValidPath) -> Fallible<Found> {
        let names: Vec<&str> = path.names().collect();
        let mut node = self.node(overlay, root).await?;
        for (depth, name) in names.iter().enumerate() {
            let Some(child) = node.children.get(*name).copied() else {
                return Ok(Found::Missing);
            };
            if depth + 1 == names.len() {
                return Ok(Found::Entry(child));
            }
            if child.kind == Kind::File {
                return Ok(Found::UnderFile(depth + 1));
            }
            node = self.node(overlay, child.hash).await?;
        }
        Ok(Found::Root)
    }

    /// Content of the file at `path`, or `None` if it names no file.
    async fn file(
        &self,
        overlay: &Overlay,
        root: Hash,
        path: &ValidPath,
    ) -> Fallible<Option<Rc<str>>> {
        match self.lookup(overlay, root, path).await? {
            Found::Entry(c) if c.kind == Kind::File => Ok(Some(self.blob(c.hash).await?)),
            _ => Ok(None),
        }
    }

    // ---- writing -----------------------------------------------------------

    /// Sets (or, with `None`, removes) the entry at `path`, making missing parent
    /// directories; returns the new root. Callers have checked that no ancestor is
    /// a file.
    async fn put(
        &self,
        overlay: &mut Overlay,
        root: Hash,
        path: &ValidPath,
        entry: Option<Child>,
    ) -> Fallible<Hash> {
        let names: Vec<&str> = path.names().collect();
        let Some((last, parents)) = names.split_last() else {
            return Ok(root);
        };
        let mut stack: Vec<Node> = vec![(*self.node(overlay, root).await?).clone()];
        for name in parents {
            let below = match stack.last().and_then(|n| n.children.get(*name)) {
                Some(c) if c.kind == Kind::Dir => (*self.node(overlay, c.hash).await?).clone(),
                Some(_) => return Err(render::damaged()),
                None => Node::default(),
            };
            stack.push(below);
        }
        let mut node = stack.pop().ok_or_else(render::damaged)?;
        match entry {
            Some(c) => node.children.insert((*last).into(), c),
            None => node.children.remove(*last),
        };
        for name in parents.iter().rev() {
            let child = overlay.add_node(node);
            node = stack.pop().ok_or_else(render::damaged)?;
            node.children.insert((*name).into(), child);
        }
        Ok(overlay.add_node(node).hash)
    }

    /// Runs a mutating command to completion: plan against the head, publish with
    /// one compare-and-swap, and on a lost race plan again from the new head.
    async fn mutate(&self, cmd: &Checked) -> Fallible<String> {
        let cached = self.head.borrow().clone();
        let mut verified = cached.is_none();
        let mut lost = 0;
        let mut head = match cached {
            Some(h) => h,
            None => self.read_head().await?,
        };
        for _ in 0..=self.config.max_retries {
            let mut overlay = Overlay::at((self.clock)());
            match self.plan(&mut overlay, head.root, cmd).await? {
                Err(refusal) => {
                    // A refusal from a cached head may be stale: confirm it first.
                    if verified {
                        return Err(refusal);
                    }
                    let now = self.read_head().await?;
                    if now == head {
                        return Err(refusal);
                    }
                    head = now;
                }
                Ok(plan) => {
                    if self
                        .publish(&overlay, &head, plan.root, cmd.summary())
                        .await?
                    {
                        return Ok(plan.message);
                    }
                    lost += 1;
                    if let Some(backoff) = &self.backoff {
                        backoff(lost).await;
                    }
                    head = self.read_head().await?;
                }
            }
            verified = true;
        }
        Err(render::busy())
    }

    /// Writes the new objects and a commit, then moves the head if it still is
    /// `head`. `Ok(false)`: another writer moved it first; nothing is visible.
    async fn publish(
        &self,
        overlay: &Overlay,
        head: &Head,
        root: Hash,
        summary: String,
    ) -> Fallible<bool> {
        let commit = Commit {
            root: root.hex(),
            parent: head.commit.map(|c| c.hex()),
            time: (self.clock)(),
            actor: self.config.actor.clone(),
            command: summary,
        };
        let commit_bytes = commit.encode();
        let commit_hash = Hash::of(&commit_bytes);
        let mut writes = overlay.writes(root);
        writes.push((commit_hash.key(COMMIT), commit_bytes));
        let new_head = commit_hash.hex();
        let swapped = self
            .store
            .commit(&writes, HEAD, head.raw.as_deref(), new_head.as_bytes())
            .await
            .map_err(render::storage)?;
        if swapped {
            for (hash, (node, _)) in &overlay.nodes {
                self.remember_node(*hash, node.clone());
            }
            for (hash, blob) in &overlay.blobs {
                self.remember_blob(*hash, blob.clone());
            }
            self.commits.borrow_mut().insert(commit_hash, root);
            self.head.replace(Some(Head {
                raw: Some(new_head.into_bytes()),
                commit: Some(commit_hash),
                root,
            }));
        }
        Ok(swapped)
    }

    /// Decides a mutating command against one version of the tree. The outer error
    /// is a storage failure; the inner one the command's own refusal.
    async fn plan(
        &self,
        overlay: &mut Overlay,
        root: Hash,
        cmd: &Checked,
    ) -> Fallible<Result<Plan, String>> {
        let old_total = self.node(overlay, root).await?.size();
        let (path, plan) = match cmd {
            // `run` sends views to `view`; a view here changes nothing.
            Checked::View { .. } => return Ok(Ok(Plan { root, message: String::new() })),
            Checked::Create { path, file_text } => {
                match self.lookup(overlay, root, path).await? {
                    Found::Root | Found::Entry(_) => return Ok(Err(render::already_exists(path))),
                    Found::UnderFile(d) => {
                        return Ok(Err(render::create_under_file(path, &path.ancestor(d))));
                    }
                    Found::Missing => {}
                }
                let blob = overlay.add_blob(file_text);
                let root = self.put(overlay, root, path, Some(blob)).await?;
                (
                    path,
                    Plan {
                        root,
                        message: render::created(path),
                    },
                )
            }
            Checked::StrReplace {
                path,
                old_str,
                new_str,
            } => {
                let Some(content) = self.file(overlay, root, path).await? else {
                    return Ok(Err(render::not_found_hint(path)));
                };
                let found = lines::occurrences(&content, old_str);
                let at = match found.as_slice() {
                    [] => return Ok(Err(render::no_match(old_str, path))),
                    [at] => *at,
                    many => {
                        return Ok(Err(render::many_matches(
                            old_str,
                            &lines::lines_of(&content, many),
                        )));
                    }
                };
                let mut edited = String::with_capacity(content.len() + new_str.len());
                edited.push_str(content.get(..at).unwrap_or_default());
                edited.push_str(new_str);
                edited.push_str(content.get(at + old_str.len()..).unwrap_or_default());
                if let Err(e) = self.fits(path, &edited) {
                    return Ok(Err(e));
                }
                let first = lines::lines_of(&content, &[at])
                    .first()
                    .copied()
                    .unwrap_or(1);
                let message = snippet(&edited, first, lines::count(new_str) - 1);
                let blob = overlay.add_blob(&edited);
                (
                    path,
                    Plan {
                        root: self.put(overlay, root, path, Some(blob)).await?,
                        message,
                    },
                )
            }
            Checked::Insert {
                path,
                insert_line,
                insert_text,
            } => {
                let Some(content) = self.file(overlay, root, path).await? else {
                    return Ok(Err(render::not_found_hint(path)));
                };
                let n = lines::count(&content);
                let after = match insert_line.as_u64() {
                    Some(k) if k <= n as u64 => k as usize,
                    _ => return Ok(Err(render::bad_insert_line(insert_line, n))),
                };
                let edited = lines::insert(&content, after, insert_text);
                if let Err(e) = self.fits(path, &edited) {
                    return Ok(Err(e));
                }
                let blob = overlay.add_blob(&edited);
                (
                    path,
                    Plan {
                        root: self.put(overlay, root, path, Some(blob)).await?,
                        message: render::inserted(path),
                    },
                )
            }
            Checked::Delete { path } => {
                if !matches!(self.lookup(overlay, root, path).await?, Found::Entry(_)) {
                    return Ok(Err(render::not_found(path)));
                }
                (
                    path,
                    Plan {
                        root: self.put(overlay, root, path, None).await?,
                        message: render::deleted(path),
                    },
                )
            }
            Checked::Rename { old_path, new_path } => {
                let Found::Entry(moved) = self.lookup(overlay, root, old_path).await? else {
                    return Ok(Err(render::not_found(old_path)));
                };
                match self.lookup(overlay, root, new_path).await? {
                    Found::Root | Found::Entry(_) => {
                        return Ok(Err(render::destination_exists(new_path)));
                    }
                    Found::UnderFile(d) => {
                        return Ok(Err(render::rename_under_file(
                            old_path,
                            new_path,
                            &new_path.ancestor(d),
                        )));
                    }
                    Found::Missing => {}
                }
                let without = self.put(overlay, root, old_path, None).await?;
                let root = self.put(overlay, without, new_path, Some(moved)).await?;
                (
                    new_path,
                    Plan {
                        root,
                        message: render::renamed(old_path, new_path),
                    },
                )
            }
        };
        let new_total = self.node(overlay, plan.root).await?.size();
        let quota = self.config.limits.max_total_bytes;
        if new_total > quota && new_total > old_total {
            return Ok(Err(render::over_quota(path, new_total, quota)));
        }
        Ok(Ok(plan))
    }

    fn fits(&self, path: &ValidPath, content: &str) -> Result<(), String> {
        let max = self.config.limits.max_file_bytes;
        if content.len() > max {
            return Err(render::file_too_large(path, content.len(), max));
        }
        Ok(())
    }

    // ---- view --------------------------------------------------------------

    async fn view(&self, path: &ValidPath, range: Option<(i64, i64)>) -> Fallible<String> {
        // Always re-read the head: a view must show what other writers committed.
        let head = self.read_head().await?;
        let none = Overlay::default();
        let dir = match self.lookup(&none, head.root, path).await? {
            Found::Root => head.root,
            Found::Entry(c) if c.kind == Kind::Dir => c.hash,
            Found::Entry(c) => {
                let content = self.blob(c.hash).await?;
                return view_file(path, &content, range, self.config.limits.read_limit_chars);
            }
            Found::Missing | Found::UnderFile(_) => return Err(render::not_found_hint(path)),
        };
        if range.is_some() {
            return Err(render::range_on_directory());
        }
        let node = self.node(&none, dir).await?;
        let mut rows = vec![(node.size(), String::from(path.as_str()))];
        for (name, child) in visible(&node) {
            let shown = path.join(name);
            match child.kind {
                Kind::File => rows.push((child.size, String::from(shown.as_str()))),
                Kind::Dir => {
                    rows.push((child.size, format!("{shown}/")));
                    let sub = self.node(&none, child.hash).await?;
                    for (name, grandchild) in visible(&sub) {
                        let slash = if grandchild.kind == Kind::Dir {
                            "/"
                        } else {
                            ""
                        };
                        rows.push((grandchild.size, format!("{shown}/{name}{slash}")));
                    }
                }
            }
        }
        Ok(view_dir(path, &rows, self.config.limits.read_limit_chars))
    }

    // ---- whole-tree operations ---------------------------------------------

    /// Every directory and file under `/memories` (the root itself excluded), sorted
    /// by path; directories have `content: None`.
    pub async fn entries(&self) -> Result<Vec<Entry>, String> {
        let head = self.read_head().await?;
        let none = Overlay::default();
        let mut out = Vec::new();
        let mut todo = vec![(ValidPath::root(), head.root)];
        while let Some((dir, hash)) = todo.pop() {
            let node = self.node(&none, hash).await?;
            for (name, child) in &node.children {
                let path = dir.join(name);
                match child.kind {
                    Kind::Dir => {
                        out.push(Entry {
                            path: path.as_str().into(),
                            content: None,
                        });
                        todo.push((path, child.hash));
                    }
                    Kind::File => {
                        let content = self.blob(child.hash).await?;
                        out.push(Entry {
                            path: path.as_str().into(),
                            content: Some(String::from(&*content)),
                        });
                    }
                }
            }
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    /// Replaces the whole tree with `entries` in one commit, all or nothing. Paths are
    /// checked by the same rules as commands; missing parent directories are made.
    pub async fn import(&self, entries: &[Entry]) -> Result<(), String> {
        let mut tree = Draft::default();
        for e in entries {
            let path = path::validate(&e.path).map_err(|err| format!("{err}"))?;
            if let Some(text) = &e.content {
                self.fits(&path, text)?;
            }
            tree.add(&path, e.content.as_deref())?;
        }
        let mut overlay = Overlay::at((self.clock)());
        let root = tree.seal(&mut overlay).hash;
        let total = self.node(&overlay, root).await?.size();
        if total > self.config.limits.max_total_bytes {
            return Err(render::over_quota(
                &ValidPath::root(),
                total,
                self.config.limits.max_total_bytes,
            ));
        }
        for _ in 0..=self.config.max_retries {
            let head = self.read_head().await?;
            if self
                .publish(
                    &overlay,
                    &head,
                    root,
                    format!("import {} entries", entries.len()),
                )
                .await?
            {
                return Ok(());
            }
        }
        Err(render::busy())
    }

    /// Removes, in one commit, every file not written in the last `older_than_ms`
    /// (by the runtime's clock), and every directory with nothing written beneath it
    /// for as long, including one the sweep empties. Only directories with something
    /// recent beneath them are read. Times are write times: a view does not count,
    /// since recording reads would make every view a write.
    pub async fn expire(&self, older_than_ms: u64) -> Result<ExpireReport, String> {
        for _ in 0..=self.config.max_retries {
            let cutoff = (self.clock)().saturating_sub(older_than_ms);
            let head = self.read_head().await?;
            let none = Overlay::default();
            let mut loaded: BTreeMap<Hash, Rc<Node>> = BTreeMap::new();
            let mut todo = vec![head.root];
            while let Some(hash) = todo.pop() {
                let node = self.node(&none, hash).await?;
                todo.extend(
                    node.children
                        .values()
                        .filter(|c| {
                            c.kind == Kind::Dir
                                && c.written >= cutoff
                                && !loaded.contains_key(&c.hash)
                        })
                        .map(|c| c.hash),
                );
                loaded.insert(hash, node);
            }
            // Time 0: a directory the sweep rebuilds keeps the latest write beneath it,
            // so one it empties is old and goes too.
            let mut overlay = Overlay::at(0);
            let mut report = ExpireReport::default();
            let Some(root) = sweep(&loaded, head.root, cutoff, &mut overlay, &mut report) else {
                return Ok(report);
            };
            let summary = format!("expire entries written before {cutoff}");
            if self.publish(&overlay, &head, root.hash, summary).await? {
                return Ok(report);
            }
        }
        Err(render::busy())
    }

    /// Mark-and-sweep from the head and its last `keep_commits` ancestors. An object
    /// is deleted only if it was already unreferenced at the previous pass, so an
    /// object another writer has written but not yet published survives as long as
    /// passes are further apart than the longest command.
    pub async fn gc(&self, keep_commits: usize) -> Result<GcReport, String> {
        let head = self.read_head().await?;
        let none = Overlay::default();
        let mut marked: BTreeSet<String> = BTreeSet::new();
        let mut commit = head.commit;
        let mut roots = Vec::new();
        for _ in 0..=keep_commits {
            let Some(c) = commit else { break };
            let Some(bytes) = self
                .store
                .get(&c.key(COMMIT))
                .await
                .map_err(render::storage)?
            else {
                break;
            };
            let Some(parsed) = Commit::decode(&bytes) else {
                break;
            };
            marked.insert(c.key(COMMIT));
            roots.extend(parsed.root_hash());
            commit = parsed.parent_hash();
        }
        let mut todo = roots;
        while let Some(h) = todo.pop() {
            if !marked.insert(h.key(TREE)) {
                continue;
            }
            let node = self.node(&none, h).await?;
            for c in node.children.values() {
                match c.kind {
                    Kind::Dir => todo.push(c.hash),
                    Kind::File => {
                        marked.insert(c.hash.key(BLOB));
                    }
                }
            }
        }
        let mut unreferenced = BTreeSet::new();
        for prefix in [COMMIT, TREE, BLOB] {
            let keys = crate::contract::list_all(&self.store, prefix)
                .await
                .map_err(|_| render::storage(StoreError::Failed))?;
            unreferenced.extend(keys.into_iter().filter(|k| !marked.contains(k)));
        }
        let earlier: BTreeSet<String> =
            match self.store.get(GC_PENDING).await.map_err(render::storage)? {
                Some(bytes) => serde_json::from_slice(&bytes).unwrap_or_default(),
                None => BTreeSet::new(),
            };
        let mut deleted = 0;
        for key in unreferenced.intersection(&earlier) {
            self.store.delete(key).await.map_err(render::storage)?;
            deleted += 1;
        }
        let pending: BTreeSet<&String> = unreferenced.difference(&earlier).collect();
        let bytes = serde_json::to_vec(&pending).unwrap_or_default();
        self.store
            .set(GC_PENDING, &bytes)
            .await
            .map_err(render::storage)?;
        Ok(GcReport {
            reachable: marked.len(),
            deleted,
            pending: pending.len(),
        })
    }
}

/// Applies the store's secret policy to the text a command would write: refuses it,
/// or rewrites it with each credential redacted. Pure, so a refusal costs no storage.
fn screen_secrets(cmd: Checked, policy: SecretPolicy) -> Fallible<Checked> {
    if policy == SecretPolicy::Allow {
        return Ok(cmd);
    }
    let screen = |path: &ValidPath, text: String| -> Fallible<String> {
        let found = secrets::find(&text);
        match found.first() {
            None => Ok(text),
            Some(first) if policy == SecretPolicy::Refuse => {
                Err(render::holds_secret(path, first.kind))
            }
            Some(_) => Ok(secrets::redact(&text, &found)),
        }
    };
    Ok(match cmd {
        Checked::Create { path, file_text } => {
            let file_text = screen(&path, file_text)?;
            Checked::Create { path, file_text }
        }
        Checked::StrReplace {
            path,
            old_str,
            new_str,
        } => {
            let new_str = screen(&path, new_str)?;
            Checked::StrReplace {
                path,
                old_str,
                new_str,
            }
        }
        Checked::Insert {
            path,
            insert_line,
            insert_text,
        } => {
            let insert_text = screen(&path, insert_text)?;
            Checked::Insert {
                path,
                insert_line,
                insert_text,
            }
        }
        other => other,
    })
}

/// The node `hash` without its entries written before `cutoff`, or `None` if it
/// keeps them all.
fn sweep(
    loaded: &BTreeMap<Hash, Rc<Node>>,
    hash: Hash,
    cutoff: u64,
    overlay: &mut Overlay,
    report: &mut ExpireReport,
) -> Option<Child> {
    let node = loaded.get(&hash)?;
    let mut rebuilt: Option<Node> = None;
    for (name, child) in &node.children {
        let keep = if child.written < cutoff {
            report.removed += 1;
            report.bytes += child.size;
            None
        } else if child.kind == Kind::Dir {
            match sweep(loaded, child.hash, cutoff, overlay, report) {
                None => continue,
                // Emptied by the sweep (its files are counted already).
                Some(swept) if swept.written < cutoff => {
                    report.removed += 1;
                    None
                }
                Some(swept) => Some(swept),
            }
        } else {
            continue;
        };
        let n = rebuilt.get_or_insert_with(|| (**node).clone());
        match keep {
            Some(c) => n.children.insert(name.clone(), c),
            None => n.children.remove(name),
        };
    }
    rebuilt.map(|n| overlay.add_node(n))
}

/// The checks that need no storage at all, so refusing costs no store operation.
fn refuse_without_storage(cmd: &Checked, limits: &Limits) -> Fallible<()> {
    match cmd {
        Checked::Create { path, .. } if path.is_root() => Err(render::create_root()),
        Checked::Create { path, file_text } if file_text.len() > limits.max_file_bytes => Err(
            render::file_too_large(path, file_text.len(), limits.max_file_bytes),
        ),
        Checked::Delete { path } if path.is_root() => Err(render::delete_root()),
        Checked::Rename { old_path, .. } if old_path.is_root() => Err(render::rename_root()),
        Checked::Rename { old_path, new_path } if new_path.is_root() => {
            Err(render::rename_onto_root(old_path))
        }
        Checked::Rename { old_path, new_path } if new_path.is_inside(old_path) => {
            Err(render::rename_into_itself(old_path, new_path))
        }
        _ => Ok(()),
    }
}

/// Children a directory view lists: not hidden, not `node_modules`.
fn visible(node: &Node) -> impl Iterator<Item = (&String, &Child)> {
    node.children
        .iter()
        .filter(|(name, _)| !name.starts_with('.') && name.as_str() != "node_modules")
}

/// Numbered lines from two before the first changed line to two after the last
/// line of the inserted text, clipped to the file.
fn snippet(content: &str, first: usize, extra_lines: usize) -> String {
    let total = lines::count(content);
    let start = first.saturating_sub(2).max(1);
    let end = (first + extra_lines + 2).min(total);
    let mut out = String::from(render::SNIPPET_HEADER);
    for (i, line) in content
        .split('\n')
        .enumerate()
        .skip(start - 1)
        .take(end + 1 - start)
    {
        if i + 1 > start {
            out.push('\n');
        }
        render::numbered(&mut out, i + 1, line);
    }
    out
}

fn view_file(
    path: &ValidPath,
    content: &str,
    range: Option<(i64, i64)>,
    limit: usize,
) -> Fallible<String> {
    let n = lines::count(content);
    if n > 999_999 {
        return Err(render::too_many_lines(path));
    }
    let (start, end) = match range {
        None => (1, n),
        Some((s, e)) => {
            if s < 1 || s > n as i64 {
                return Err(render::range_first(s, e, n));
            }
            if e != -1 && e < s {
                return Err(render::range_order(s, e, n));
            }
            if e > n as i64 {
                return Err(render::range_second(s, e, n));
            }
            (s as usize, if e == -1 { n } else { e as usize })
        }
    };
    let mut out = render::file_header(path);
    let shown = end + 1 - start;
    // Each line adds at most 8 bytes (6 digits, a TAB, a newline) and a character is
    // at least a byte, so most views need no character counting at all.
    let fits = out.len() + content.len() + 8 * shown <= limit;
    out.reserve(if fits {
        content.len() + 8 * shown
    } else {
        limit
    });
    let mut used = out.chars().count();
    for (i, line) in content.split('\n').enumerate().skip(start - 1).take(shown) {
        let number = i + 1;
        let first = number == start;
        if !fits {
            let cost = 7.max(1 + digits(number)) + line.chars().count() + usize::from(!first);
            if !first && used + cost > limit {
                out.push('\n');
                out.push_str(&render::file_cut_hint(limit, number - 1, n, end));
                return Ok(out);
            }
            used += cost;
        }
        if !first {
            out.push('\n');
        }
        render::numbered(&mut out, number, line);
    }
    Ok(out)
}

/// Decimal digits of `n`.
fn digits(mut n: usize) -> usize {
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d
}

fn view_dir(path: &ValidPath, rows: &[(u64, String)], limit: usize) -> String {
    let mut out = render::dir_header(path);
    let mut used = out.chars().count();
    for (i, (size, shown)) in rows.iter().enumerate() {
        let line = format!("{}\t{shown}", render::human_size(*size));
        let cost = line.chars().count() + usize::from(i > 0);
        if i > 0 && used + cost > limit {
            out.push('\n');
            out.push_str(&render::dir_cut_hint(limit, rows.len() - i));
            return out;
        }
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&line);
        used += cost;
    }
    out
}

/// A tree being assembled for `import`, sealed bottom-up into nodes.
#[derive(Default)]
struct Draft {
    children: BTreeMap<String, DraftItem>,
}

enum DraftItem {
    File(String),
    Dir(Draft),
}

impl Draft {
    fn add(&mut self, path: &ValidPath, content: Option<&str>) -> Fallible<()> {
        let names: Vec<&str> = path.names().collect();
        let Some((last, parents)) = names.split_last() else {
            return match content {
                None => Ok(()),
                Some(_) => Err(render::create_root()),
            };
        };
        let mut dir = self;
        for (depth, name) in parents.iter().enumerate() {
            let item = dir
                .children
                .entry((*name).into())
                .or_insert_with(|| DraftItem::Dir(Draft::default()));
            dir = match item {
                DraftItem::Dir(d) => d,
                DraftItem::File(_) => {
                    return Err(render::create_under_file(path, &path.ancestor(depth + 1)));
                }
            };
        }
        match (dir.children.get(*last), content) {
            (None, Some(text)) => {
                dir.children
                    .insert((*last).into(), DraftItem::File(text.into()));
            }
            (None, None) => {
                dir.children
                    .insert((*last).into(), DraftItem::Dir(Draft::default()));
            }
            (Some(DraftItem::Dir(_)), None) => {}
            (Some(_), _) => return Err(render::already_exists(path)),
        }
        Ok(())
    }

    fn seal(self, overlay: &mut Overlay) -> Child {
        let mut node = Node::default();
        for (name, item) in self.children {
            let child = match item {
                DraftItem::File(text) => overlay.add_blob(&text),
                DraftItem::Dir(d) => d.seal(overlay),
            };
            node.children.insert(name, child);
        }
        overlay.add_node(node)
    }
}
