//! Bringing the stored index up to the tree: the files that differ between the
//! root the index reflects and the head's root (a walk that skips every subtree
//! whose hash is the same on both sides, so it costs what changed), read into the
//! index, and the chunks of their buckets and the table written with one
//! compare-and-swap on the table.
//!
//! Every write path (the memory tool, the API, the toolsets, sync, import, expire,
//! retain, redaction, gc) moves the head and nothing else, so the index follows
//! all of them the same way and a write pays nothing for it. A catch-up reads at
//! most [`SEARCH_INDEX_WORK`] texts a call; a longer one stores how far it got
//! (the table's `pending`) and the next call resumes there. A crash between its
//! steps leaves the table as it was, or chunks no table names (which gc deletes):
//! never an index that says more than the tree.

use alloc::collections::BTreeSet;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;

use crate::config::{MAX_NESTING, SEARCH_CHUNK_DOCS};
use crate::error::ToolError;
use crate::search::index::{Index, count_terms};
use crate::search::stored::{CHUNK, MANIFEST, Manifest, bucket_of, decode_chunk, encode_chunk};
use crate::storage::Engine;
use crate::storage::overlay::Overlay;
use crate::storage::tree::{Child, FANOUT, Hash, Kind, Stored};
use crate::store::Store;

/// The index between calls: what the table said, and the index it describes.
pub(crate) struct State {
    pub index: Index,
    pub manifest: Manifest,
    /// The table's bytes as stored (`None`: no table): the next swap's `expected`.
    pub raw: Option<Vec<u8>>,
    /// The paths in each bucket.
    pub buckets: Vec<BTreeSet<Rc<str>>>,
    /// Chunks of a stored table this index replaces whole (it was damaged, or
    /// named a tree the store lost): deleted once its own table is swapped in,
    /// so a redacted or deleted text's terms do not wait for gc.
    pub retired: BTreeSet<Hash>,
}

impl State {
    /// An empty index at the tree `root`, `raw` the stored table's bytes,
    /// replacing the chunks `retired` (those that table named).
    pub(crate) fn empty(root: Hash, raw: Option<Vec<u8>>, retired: BTreeSet<Hash>) -> State {
        State {
            index: Index::default(),
            manifest: State::empty_at(root),
            raw,
            buckets: alloc::vec![BTreeSet::new()],
            retired,
        }
    }

    /// The chunks this index's table names, and those it replaces.
    pub(crate) fn chunks(&self) -> BTreeSet<Hash> {
        let mut all = self.retired.clone();
        all.extend(self.manifest.chunks.iter().flatten().copied());
        all
    }

    /// The table of an empty index at the tree `root`.
    pub(crate) fn empty_at(root: Hash) -> Manifest {
        Manifest {
            root,
            pending: None,
            chunks: alloc::vec![None],
        }
    }

    /// Memories still to be read in before the index reflects `root`: 0 when it
    /// does, else at least 1 (the exact count is known only by walking).
    pub(crate) fn behind(&self, root: Hash) -> bool {
        self.manifest.pending.is_some() || self.manifest.root != root
    }
}

/// A file whose entry differs between two trees: its store path and its entry in
/// the newer one (`None`: gone).
type Change = (String, Option<Child>);

impl<S: Store> Engine<S> {
    /// The index as stored, read whole and checked; a missing, damaged or
    /// other-version one is an empty index at the empty tree (so the catch-up
    /// rebuilds it), keeping the stored table's bytes for the swap that replaces it.
    pub(crate) async fn load_index(&self) -> Result<State, ToolError> {
        let raw = self.store().get(MANIFEST).await?;
        let Some(manifest) = raw.as_deref().and_then(Manifest::decode) else {
            return Ok(State::empty(self.empty_root(), raw, BTreeSet::new()));
        };
        let named: BTreeSet<Hash> = manifest.chunks.iter().flatten().copied().collect();
        let n = manifest.chunks.len();
        let mut state = State {
            index: Index::default(),
            manifest: manifest.clone(),
            raw: raw.clone(),
            buckets: (0..n).map(|_| BTreeSet::new()).collect(),
            retired: BTreeSet::new(),
        };
        for (bucket, chunk) in manifest.chunks.iter().enumerate() {
            let Some(hash) = chunk else { continue };
            let bytes = self.store().get(&hash.key(CHUNK)).await?;
            let docs = bytes
                .filter(|b| Hash::of(b) == *hash)
                .and_then(|b| decode_chunk(&b, bucket, n));
            let Some(docs) = docs else {
                return Ok(State::empty(self.empty_root(), raw, named));
            };
            for d in docs {
                if state.index.doc_at(&d.path).is_some() {
                    return Ok(State::empty(self.empty_root(), raw, named));
                }
                if let Some(set) = state.buckets.get_mut(bucket) {
                    set.insert(d.path.clone());
                }
                state.index.insert(d.path, d.hash, &d.counts);
            }
        }
        Ok(state)
    }

    /// The entries of the directory node `hash` (every leaf beneath a branch).
    async fn node_entries(&self, hash: Hash) -> Result<Vec<(String, Child)>, ToolError> {
        let none = Overlay::default();
        let mut out = Vec::new();
        let mut todo = alloc::vec![(hash, 0usize)];
        while let Some((h, depth)) = todo.pop() {
            if depth > 64 {
                return Err(ToolError::Damaged);
            }
            match &*self.stored(&none, h).await? {
                Stored::Leaf(leaf) => {
                    for (name, child) in &leaf.children {
                        out.push((String::from(&**name), *child));
                    }
                }
                Stored::Branch(b) => {
                    for part in b.slots.values() {
                        todo.push((part.hash, depth + 1));
                    }
                }
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }

    /// Every file whose entry differs between the trees `from` and `to` (root
    /// nodes), sorted by path. Subtrees (and parts of large directories) with the
    /// same hash on both sides are skipped unread.
    pub(crate) async fn changed_files(
        &self,
        from: Hash,
        to: Hash,
    ) -> Result<Vec<Change>, ToolError> {
        let none = Overlay::default();
        let mut out: Vec<Change> = Vec::new();
        // (store path of the directory, its node on each side, nesting)
        let mut todo: Vec<(String, Option<Hash>, Option<Hash>, usize)> =
            alloc::vec![(String::new(), Some(from), Some(to), 0)];
        while let Some((path, a, b, depth)) = todo.pop() {
            if a == b {
                continue;
            }
            if depth > MAX_NESTING + 64 {
                return Err(ToolError::Damaged);
            }
            // Two parts of one large directory split the same way: compare slot by slot.
            if let (Some(x), Some(y)) = (a, b) {
                let (sx, sy) = (self.stored(&none, x).await?, self.stored(&none, y).await?);
                if let (Stored::Branch(bx), Stored::Branch(by)) = (&*sx, &*sy)
                    && bx.depth == by.depth
                {
                    for k in 0..FANOUT {
                        let (px, py) = (bx.slots.get(k), by.slots.get(k));
                        todo.push((
                            path.clone(),
                            px.map(|p| p.hash),
                            py.map(|p| p.hash),
                            depth + 1,
                        ));
                    }
                    continue;
                }
            }
            let xs = match a {
                Some(h) => self.node_entries(h).await?,
                None => Vec::new(),
            };
            let ys = match b {
                Some(h) => self.node_entries(h).await?,
                None => Vec::new(),
            };
            let (mut i, mut j) = (0, 0);
            loop {
                let (x, y) = (xs.get(i), ys.get(j));
                let (name, cx, cy) = match (x, y) {
                    (None, None) => break,
                    (Some((n, c)), None) => {
                        i += 1;
                        (n, Some(*c), None)
                    }
                    (None, Some((n, c))) => {
                        j += 1;
                        (n, None, Some(*c))
                    }
                    (Some((nx, x)), Some((ny, y))) => match nx.cmp(ny) {
                        core::cmp::Ordering::Less => {
                            i += 1;
                            (nx, Some(*x), None)
                        }
                        core::cmp::Ordering::Greater => {
                            j += 1;
                            (ny, None, Some(*y))
                        }
                        core::cmp::Ordering::Equal => {
                            i += 1;
                            j += 1;
                            (nx, Some(*x), Some(*y))
                        }
                    },
                };
                let at = alloc::format!("{path}/{name}");
                if let (Some(x), Some(y)) = (cx, cy)
                    && x.kind == y.kind
                    && x.hash == y.hash
                {
                    continue;
                }
                let dir = |c: Option<Child>| c.filter(|c| c.kind == Kind::Dir).map(|c| c.hash);
                let file = |c: Option<Child>| c.filter(|c| c.kind == Kind::File);
                if dir(cx).is_some() || dir(cy).is_some() {
                    todo.push((at.clone(), dir(cx), dir(cy), depth + 1));
                }
                match (file(cx), file(cy)) {
                    (None, None) => {}
                    (_, Some(y)) => out.push((at, Some(y))),
                    (Some(_), None) => out.push((at, None)),
                }
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }

    /// Reads into `state` the changes from the root it reflects towards `head`
    /// (first finishing a catch-up stopped part way), at most `budget` texts; the
    /// buckets it changed.
    pub(crate) async fn catch_up(
        &self,
        state: &mut State,
        head: Hash,
        budget: &mut usize,
    ) -> Result<BTreeSet<usize>, ToolError> {
        let mut dirty = BTreeSet::new();
        while state.behind(head) {
            let (to, after) = match &state.manifest.pending {
                Some((t, a)) => (*t, Some(a.clone())),
                None => (head, None),
            };
            let changes = self.changed_files(state.manifest.root, to).await?;
            let mut last: Option<String> = None;
            let mut done = true;
            let n = state.buckets.len();
            for (path, child) in changes
                .into_iter()
                .filter(|(p, _)| after.as_deref().is_none_or(|a| p.as_str() > a))
            {
                let unchanged = match (&child, state.index.doc_at(&path)) {
                    (Some(c), Some(d)) => d.hash == c.hash,
                    (None, None) => true,
                    _ => false,
                };
                if !unchanged {
                    if child.is_some() && *budget == 0 {
                        done = false;
                        break;
                    }
                    let b = bucket_of(&path, n);
                    let key: Rc<str> = Rc::from(path.as_str());
                    match child {
                        Some(c) => {
                            let text = self.blob(&c).await?;
                            let counts = count_terms(&path, &text);
                            state.index.insert(key.clone(), c.hash, &counts);
                            if let Some(set) = state.buckets.get_mut(b) {
                                set.insert(key);
                            }
                            *budget -= 1;
                        }
                        None => {
                            state.index.remove(&path);
                            if let Some(set) = state.buckets.get_mut(b) {
                                set.remove(&key);
                            }
                        }
                    }
                    dirty.insert(b);
                }
                last = Some(path);
            }
            if done {
                state.manifest.root = to;
                state.manifest.pending = None;
            } else {
                let after = last.or(after).unwrap_or_default();
                state.manifest.pending = Some((to, after));
                break;
            }
        }
        Ok(dirty)
    }

    /// Rebuckets `state` when its memories outgrew or shrank from its bucket count
    /// (so a chunk holds about [`SEARCH_CHUNK_DOCS`]); answers whether it did, in
    /// which case every bucket is rewritten.
    fn rebucket(state: &mut State) -> bool {
        let n = state.buckets.len();
        let docs = state.index.len();
        let want = (docs / SEARCH_CHUNK_DOCS).max(1).next_power_of_two();
        if want <= n * 2 && want * 4 >= n {
            return false;
        }
        let mut buckets: Vec<BTreeSet<Rc<str>>> = (0..want).map(|_| BTreeSet::new()).collect();
        for d in state.index.docs() {
            if let Some(set) = buckets.get_mut(bucket_of(&d.path, want)) {
                set.insert(d.path.clone());
            }
        }
        state.buckets = buckets;
        state.manifest.chunks = alloc::vec![None; want];
        true
    }

    /// Writes the chunks of the `dirty` buckets and the table, with one
    /// compare-and-swap on the table; answers false, having written no table, if
    /// another writer's table is there now (the caller reloads). Chunks the old
    /// table named and the new one does not are deleted after the swap.
    pub(crate) async fn save_index(
        &self,
        state: &mut State,
        dirty: &BTreeSet<usize>,
    ) -> Result<bool, ToolError> {
        let old: BTreeSet<Hash> = state.chunks();
        let all = Self::rebucket(state);
        let mut objects: Vec<(String, Rc<[u8]>)> = Vec::new();
        let n = state.buckets.len();
        for b in 0..n {
            if !all && !dirty.contains(&b) {
                continue;
            }
            let paths: Vec<Rc<str>> = state
                .buckets
                .get(b)
                .map(|s| s.iter().cloned().collect())
                .unwrap_or_default();
            let chunk = if paths.is_empty() {
                None
            } else {
                let bytes = encode_chunk(&state.index, b, &paths);
                let hash = Hash::of(&bytes);
                objects.push((hash.key(CHUNK), Rc::from(bytes)));
                Some(hash)
            };
            if let Some(slot) = state.manifest.chunks.get_mut(b) {
                *slot = chunk;
            }
        }
        let bytes = state.manifest.encode();
        if state.raw.as_deref() == Some(bytes.as_slice()) {
            return Ok(true);
        }
        let swapped = self
            .store()
            .commit(&objects, MANIFEST, state.raw.as_deref(), &bytes)
            .await?;
        let now: BTreeSet<Hash> = state.manifest.chunks.iter().flatten().copied().collect();
        if !swapped {
            // Ours are named by no table, unless the winner wrote the same bytes.
            let theirs = self.store().get(MANIFEST).await?;
            let named: BTreeSet<Hash> = theirs
                .as_deref()
                .and_then(Manifest::decode)
                .map(|m| m.chunks.into_iter().flatten().collect())
                .unwrap_or_default();
            for h in now.difference(&old) {
                if !named.contains(h) {
                    self.store().delete(&h.key(CHUNK)).await?;
                }
            }
            return Ok(false);
        }
        state.raw = Some(bytes);
        for h in old.difference(&now) {
            self.store().delete(&h.key(CHUNK)).await?;
        }
        state.retired.clear();
        Ok(true)
    }

    /// The keys of the stored index that its table names (the table's own
    /// included), for gc: other `index/` keys were left by a catch-up cut short.
    pub(crate) async fn index_keys(&self) -> Result<BTreeSet<String>, ToolError> {
        let mut keys = BTreeSet::new();
        if let Some(raw) = self.store().get(MANIFEST).await? {
            keys.insert(String::from(MANIFEST));
            if let Some(m) = Manifest::decode(&raw) {
                for h in m.chunks.iter().flatten() {
                    keys.insert(h.key(CHUNK));
                }
            }
        }
        Ok(keys)
    }
}
