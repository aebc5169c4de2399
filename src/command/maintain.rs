//! Maintenance of a whole memory, beside the six commands: list every entry,
//! replace the tree (`import`), sweep what was not written for a while (`expire`)
//! and delete what no kept commit reaches (`gc`).

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use crate::command::plan::fits;
use crate::config::MAX_NESTING;
use crate::error::{LimitError, Refusal, ToolError};
use crate::path::{self, ValidPath};
use crate::search::{INDEX_CHUNK_PREFIX, VECTOR_PREFIX};
use crate::storage::Engine;
use crate::storage::overlay::Overlay;
use crate::storage::publish::Attempt;
use crate::storage::tree::{BLOB, COMMIT, Child, Commit, Hash, Kind, Node, TREE};
use crate::storage::versions::{DROPPED, LOG, Op, RECORD};
use crate::store::{Store, list_all};

/// One file (with its content) or directory (`content: None`) of the tree, by path.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Entry {
    /// The path, under `/memories`.
    pub path: String,
    /// The file's content; `None` for a directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
}

impl Entry {
    /// Sorts a listing by path, the order `entries` answers in. One function for
    /// every caller (the wasm glue merges several stores' listings), so the sort is
    /// compiled once; unstable, as paths are unique (each store's under its own
    /// mount), and the stable sort's merge code is several KiB more wasm.
    pub fn sort_by_path(entries: &mut [Entry]) {
        entries.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    }
}

/// What an expiry sweep removed: entries (a directory counts once, with everything
/// beneath it) and the bytes of file content they held.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ExpireReport {
    /// Entries removed.
    pub removed: usize,
    /// Bytes of file content they held.
    pub bytes: u64,
}

/// What a garbage collection did.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct GcReport {
    /// Objects the head and the kept commits still reach.
    pub reachable: usize,
    /// Objects deleted by this pass.
    pub deleted: usize,
    /// Unreferenced now but not yet in an earlier pass: deleted by the next one.
    pub pending: usize,
}

/// Where the store's key that remembers the previous collection's candidates lives.
const GC_PENDING: &str = "gc/pending";

/// When the previous collection ran (ms, as decimal text), written before its
/// candidates: a pass cut between the two leaves a time newer than the candidates,
/// which only delays their deletion. A store without it ran at time 0.
const GC_PENDING_AT: &str = "gc/pending-at";

impl<S: Store> Engine<S> {
    /// Every directory and file under `/memories` (the root itself excluded), sorted
    /// by path; directories have `content: None`.
    pub async fn entries(&self) -> Result<Vec<Entry>, ToolError> {
        let head = self.read_head().await?;
        let none = Overlay::default();
        let mut out = Vec::new();
        let mut todo = vec![(self.top(), head.root, 0)];
        while let Some((dir, hash, depth)) = todo.pop() {
            if depth > MAX_NESTING {
                return Err(ToolError::Damaged);
            }
            let node = self.dir(&none, hash).await?;
            for (name, child) in &node.children {
                let path = dir.join(name);
                match child.kind {
                    Kind::Dir => {
                        out.push(Entry {
                            path: path.as_str().into(),
                            content: None,
                        });
                        let sub = self.subdir(&none, child).await?;
                        todo.push((path, sub, depth + 1));
                    }
                    Kind::File => {
                        let content = self.blob(child).await?;
                        out.push(Entry {
                            path: path.as_str().into(),
                            content: Some(String::from(&*content)),
                        });
                    }
                }
            }
        }
        Entry::sort_by_path(&mut out);
        Ok(out)
    }

    /// Replaces the whole tree with `entries` in one commit, all or nothing. Paths are
    /// checked by the same rules as commands; missing parent directories are made.
    pub async fn import(&self, entries: &[Entry]) -> Result<(), ToolError> {
        let mut tree = Draft::default();
        for e in entries {
            let path = path::validate(&e.path)?;
            if let Some(text) = &e.content {
                fits(&self.config().limits, &path, text)?;
            }
            tree.add(&path, e.content.as_deref())?;
        }
        let summary = format!("import {} entries", entries.len());
        let quota = self.config().limits.max_total_bytes;
        self.transact(false, async |head| {
            // A path that stays keeps its memory's id; one that goes is deleted.
            let none = Overlay::default();
            // Inserted one by one: `collect` into a map sorts first, a sort compiled
            // for this pair type alone.
            let mut old: BTreeMap<String, Child> = BTreeMap::new();
            for (p, c) in self.all_files(&none, head.root).await? {
                old.insert(p, c);
            }
            let mut overlay = Overlay::on(head, self.now());
            let mut seen = BTreeSet::new();
            let root = tree.seal(&mut overlay, "", &old, &mut seen).hash;
            for (p, c) in &old {
                if c.mem != 0 && !seen.contains(p.as_str()) {
                    overlay.version(c.mem, Op::Deleted, p, None, Some(c));
                }
            }
            let total = self.stored(&overlay, root).await?.size();
            if total > quota {
                return Err(LimitError::OverQuota {
                    path: ValidPath::root(),
                    total,
                    quota,
                }
                .into());
            }
            Ok(Attempt::Publish {
                overlay,
                root,
                summary: summary.clone(),
                value: (),
            })
        })
        .await
    }

    /// Every file of the tree at `root`, by store path, in tree order.
    pub(crate) async fn all_files(
        &self,
        overlay: &Overlay,
        root: Hash,
    ) -> Result<Vec<(String, Child)>, ToolError> {
        let size = self.stored(overlay, root).await?.size();
        let top = Child::plain(Kind::Dir, root, size, 0);
        self.files_beneath(overlay, "", &top).await
    }

    /// Removes, in one commit, every file not written in the last `older_than_ms`
    /// (by the runtime's clock), and every directory with nothing written beneath it
    /// for as long, including one the sweep empties. Only directories with something
    /// recent beneath them are read. Times are write times: a view does not count,
    /// since recording reads would make every view a write.
    pub async fn expire(&self, older_than_ms: u64) -> Result<ExpireReport, ToolError> {
        if self.config().read_only {
            return Ok(ExpireReport::default());
        }
        self.transact(false, async |head| {
            let cutoff = self.now().saturating_sub(older_than_ms);
            let none = Overlay::default();
            let mut loaded: BTreeMap<Hash, Rc<Node>> = BTreeMap::new();
            let mut todo = vec![(head.root, 0)];
            while let Some((hash, depth)) = todo.pop() {
                if depth > MAX_NESTING {
                    return Err(ToolError::Damaged);
                }
                let node = self.dir(&none, hash).await?;
                for c in node.children.values() {
                    if c.kind == Kind::Dir && c.written >= cutoff && !loaded.contains_key(&c.hash) {
                        todo.push((self.subdir(&none, c).await?, depth + 1));
                    }
                }
                loaded.insert(hash, node);
            }
            // Time 0: a directory the sweep rebuilds keeps the latest write beneath it,
            // so one it empties is old and goes too.
            let mut overlay = Overlay::on(head, 0);
            let mut report = ExpireReport::default();
            let mut gone = Vec::new();
            let Some(root) = sweep(
                &loaded,
                head.root,
                "",
                cutoff,
                &mut overlay,
                &mut report,
                &mut gone,
            ) else {
                return Ok(Attempt::Unchanged(report));
            };
            // The memories swept away are deleted versions, at the sweep's time.
            overlay.now = self.now();
            for (p, child) in &gone {
                for (file, c) in self.files_beneath(&none, p, child).await? {
                    if c.mem != 0 {
                        overlay.version(c.mem, Op::Deleted, &file, None, Some(&c));
                    }
                }
            }
            Ok(Attempt::Publish {
                overlay,
                root: root.hash,
                summary: format!("expire entries written before {cutoff}"),
                value: report,
            })
        })
        .await
    }

    /// Mark-and-sweep from the head and its last `keep_commits` ancestors. An object
    /// is deleted only if it was already unreferenced at the previous pass, so an
    /// object another writer has written but not yet published survives as long as
    /// passes are further apart than the longest command.
    pub async fn gc(&self, keep_commits: u32) -> Result<GcReport, ToolError> {
        self.gc_after(keep_commits, 0).await
    }

    /// [`Engine::gc`], deleting only what was unreferenced at a pass at least
    /// `min_age_ms` ago (by the runtime's clock): a pass sooner than that after the
    /// previous one deletes nothing and leaves its record. Servers that share a
    /// store (several instances, each collecting on its own timer) pass the longest
    /// a command may run, so no pass deletes what another's writer has yet to publish.
    pub async fn gc_after(
        &self,
        keep_commits: u32,
        min_age_ms: u64,
    ) -> Result<GcReport, ToolError> {
        if self.config().read_only {
            return Ok(GcReport::default());
        }
        let mut head = self.read_head().await?;
        let mut tries = 0;
        let marked = loop {
            match self.mark(head.commit, keep_commits).await {
                Ok(marked) => break marked,
                // A tree of a kept commit lost a leaf while it was walked: a
                // redaction erased it, and started history again at a newer head
                // (see api/erase.rs). Mark from that head; damage stays damage.
                Err(ToolError::Damaged) if tries < self.config().max_retries => {
                    let now = self.read_head().await?;
                    if now == head {
                        return Err(ToolError::Damaged);
                    }
                    head = now;
                    tries += 1;
                }
                Err(e) => return Err(e),
            }
        };
        // One listing of every key, not one per kind of object: a store directory
        // reads itself whole for each listing.
        // The search index, folded, holds no deleted or replaced text's terms
        // (as this pass may collect the texts); its values no head names were
        // left by a catch-up cut short (or a rival's lost save): collected the
        // same way as objects.
        self.fold_index().await?;
        let index = self.index_keys().await?;
        let mut unreferenced = BTreeSet::new();
        for key in list_all(self.store(), "").await? {
            let object = [COMMIT, TREE, BLOB, LOG, RECORD]
                .iter()
                .any(|p| key.starts_with(p));
            let stray = (key.starts_with(INDEX_CHUNK_PREFIX) && !index.contains(&key))
                || (key.starts_with(VECTOR_PREFIX)
                    && self.stale_vector(&key, |h| marked.contains(&h.key(BLOB))));
            if (object && !marked.contains(&key)) || stray {
                unreferenced.insert(key);
            }
        }
        let earlier: BTreeSet<String> = match self.store().get(GC_PENDING).await? {
            Some(bytes) => serde_json::from_slice(&bytes).unwrap_or_default(),
            None => BTreeSet::new(),
        };
        let at = match self.store().get(GC_PENDING_AT).await? {
            Some(bytes) => core::str::from_utf8(&bytes)
                .ok()
                .and_then(|t| t.parse::<u64>().ok())
                .unwrap_or(0),
            None => 0,
        };
        let now = self.now();
        if now < at.saturating_add(min_age_ms) {
            if at > now {
                // Written by a clock ahead of ours (or forged): restart the wait from
                // now, so a time far ahead cannot stop collection for good.
                self.store()
                    .set(GC_PENDING_AT, format!("{now}").as_bytes())
                    .await?;
            }
            return Ok(GcReport {
                reachable: marked.len(),
                deleted: 0,
                pending: earlier.len(),
            });
        }
        let mut deleted = 0;
        for key in unreferenced.intersection(&earlier) {
            self.store().delete(key).await?;
            deleted += 1;
        }
        // Ascending and without repeats already (a set's difference): a Vec writes the
        // same JSON as a set without compiling a sorting `collect` for it.
        let pending: Vec<&String> = unreferenced.difference(&earlier).collect();
        let bytes = serde_json::to_vec(&pending).unwrap_or_default();
        self.store()
            .set(GC_PENDING_AT, format!("{now}").as_bytes())
            .await?;
        self.store().set(GC_PENDING, &bytes).await?;
        let pending = pending.len();
        Ok(GcReport {
            reachable: marked.len(),
            deleted,
            pending,
        })
    }

    /// The keys of every object the commit `head` and its last `keep_commits`
    /// ancestors reach: the commits, their version logs (nodes, records and the
    /// blobs versions hold) and their trees (leaves, branches and blobs).
    async fn mark(
        &self,
        head: Option<Hash>,
        keep_commits: u32,
    ) -> Result<BTreeSet<String>, ToolError> {
        let none = Overlay::default();
        let mut marked: BTreeSet<String> = BTreeSet::new();
        let mut commit = head;
        let mut roots = Vec::new();
        let mut logs = Vec::new();
        for _ in 0..=keep_commits {
            let Some(c) = commit else { break };
            let Some(bytes) = self.store().get(&c.key(COMMIT)).await? else {
                break;
            };
            let Some(parsed) = Commit::decode(&bytes) else {
                break;
            };
            marked.insert(c.key(COMMIT));
            roots.extend(parsed.root_hash());
            logs.extend(parsed.log_hash().filter(|h| *h != DROPPED));
            commit = parsed.parent_hash();
        }
        // The version logs: their nodes, records, and the blobs versions hold.
        while let Some(h) = logs.pop() {
            if !marked.insert(h.key(LOG)) {
                continue;
            }
            for (hash, prefix) in self.log_node(&none, h).await?.refs() {
                if prefix == LOG {
                    logs.push(hash);
                } else {
                    marked.insert(hash.key(prefix));
                }
            }
        }
        // Every stored object the kept roots reach: leaves, branches and blobs.
        let mut todo: Vec<Hash> = roots;
        while let Some(h) = todo.pop() {
            if !marked.insert(h.key(TREE)) {
                continue;
            }
            for (hash, is_tree) in self.stored(&none, h).await?.refs() {
                if is_tree {
                    todo.push(hash);
                } else {
                    marked.insert(hash.key(BLOB));
                }
            }
        }
        Ok(marked)
    }
}

/// The node `hash` without its entries written before `cutoff`, or `None` if it
/// keeps them all.
/// `gone` collects what it removes whole, by store path (`path` is the node's).
fn sweep(
    loaded: &BTreeMap<Hash, Rc<Node>>,
    hash: Hash,
    path: &str,
    cutoff: u64,
    overlay: &mut Overlay,
    report: &mut ExpireReport,
    gone: &mut Vec<(String, Child)>,
) -> Option<Child> {
    let node = loaded.get(&hash)?;
    // What changes, in name order: applied in one pass at the end, since a
    // directory may be large and each removal from its entries moves the rest.
    let mut changes: Vec<(&str, Option<Child>)> = Vec::new();
    for (name, child) in &node.children {
        let here = format!("{path}/{name}");
        let keep = if child.written < cutoff {
            report.removed += 1;
            report.bytes += child.size;
            gone.push((here, *child));
            None
        } else if child.kind == Kind::Dir {
            match sweep(loaded, child.hash, &here, cutoff, overlay, report, gone) {
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
        changes.push((name, keep));
    }
    if changes.is_empty() {
        return None;
    }
    let mut rebuilt = (**node).clone();
    let mut changes = changes.into_iter().peekable();
    rebuilt.children.retain_map(|name, child| {
        match changes.next_if(|(changed, _)| *changed == &**name) {
            Some((_, keep)) => keep,
            None => Some(child),
        }
    });
    Some(overlay.add_dir(rebuilt))
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
    fn add(&mut self, path: &ValidPath, content: Option<&str>) -> Result<(), ToolError> {
        let names: Vec<&str> = path.names().collect();
        let Some((last, parents)) = names.split_last() else {
            return match content {
                None => Ok(()),
                Some(_) => Err(Refusal::CreateRoot.into()),
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
                    return Err(Refusal::CreateUnderFile {
                        path: path.clone(),
                        file: path.ancestor(depth + 1),
                    }
                    .into());
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
            (Some(_), _) => return Err(Refusal::AlreadyExists(path.clone()).into()),
        }
        Ok(())
    }

    /// The draft as tree objects; a file at a path of `old` keeps that memory's id
    /// (and, with the same content, stays as it was). `seen` collects the paths.
    fn seal(
        &self,
        overlay: &mut Overlay,
        path: &str,
        old: &BTreeMap<String, Child>,
        seen: &mut BTreeSet<String>,
    ) -> Child {
        let mut node = Node::default();
        for (name, item) in &self.children {
            let here = format!("{path}/{name}");
            let child = match item {
                DraftItem::File(text) => {
                    let was = old.get(&here).copied();
                    seen.insert(here.clone());
                    match was {
                        Some(c) if c.hash == Hash::of(text.as_bytes()) && c.mem != 0 => c,
                        Some(c) => overlay.add_memory(text, Some(&c), &here),
                        None => overlay.add_memory(text, None, &here),
                    }
                }
                DraftItem::Dir(d) => d.seal(overlay, &here, old, seen),
            };
            node.children.set(name, child);
        }
        overlay.add_dir(node)
    }
}
