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

use crate::config::{MAX_NESTING, SEARCH_CHUNK_DOCS, SEARCH_DELTA_SHARE, SEARCH_FOLD_MIN};
use crate::error::ToolError;
use crate::search::index::{Index, count_terms};
use crate::search::stored::{
    CHUNK, Entries, Entry, MANIFEST, Manifest, bucket_of, decode_entries, decode_table,
    encode_entries, encode_table,
};
use crate::storage::Engine;
use crate::storage::entries::Name;
use crate::storage::overlay::Overlay;
use crate::storage::tree::{Child, FANOUT, Hash, Kind, Stored};
use crate::store::Store;

/// The index between calls: what the head of the stored index said, the index
/// it describes, and what changed in memory since it was saved.
pub(crate) struct State {
    pub index: Index,
    pub manifest: Manifest,
    /// The head's bytes as stored (`None`: no head): the next swap's `expected`.
    pub raw: Option<Vec<u8>>,
    /// The base's chunk per bucket.
    pub chunks: Vec<Option<Hash>>,
    /// The paths in each bucket.
    pub buckets: Vec<BTreeSet<Rc<str>>>,
    /// The paths each delta holds, as `manifest.deltas`.
    pub deltas: Vec<BTreeSet<Rc<str>>>,
    /// Paths changed since the last save.
    pub unsaved: BTreeSet<Rc<str>>,
    /// Values of an index this one replaces wholesale (a damaged one, or one whose
    /// tree was collected), deleted once the new one is saved.
    pub doomed: BTreeSet<Hash>,
    /// Fold the changes into the base at the next save, whatever their share.
    pub fold: bool,
}

impl State {
    fn empty(root: Hash, raw: Option<Vec<u8>>) -> State {
        State {
            index: Index::default(),
            manifest: Manifest {
                root,
                pending: None,
                table: None,
                deltas: Vec::new(),
            },
            raw,
            chunks: alloc::vec![None],
            buckets: alloc::vec![BTreeSet::new()],
            deltas: Vec::new(),
            unsaved: BTreeSet::new(),
            doomed: BTreeSet::new(),
            fold: false,
        }
    }

    /// Every stored value the head names, by hash (the table, its chunks, the
    /// deltas).
    fn named(&self) -> BTreeSet<Hash> {
        let mut out: BTreeSet<Hash> = self.chunks.iter().flatten().copied().collect();
        out.extend(self.manifest.table);
        out.extend(self.manifest.deltas.iter().copied());
        out
    }

    /// This index dropped, to be rebuilt from the empty tree `root`: its values go
    /// once the rebuilt one is saved.
    pub(crate) fn restart(&mut self, root: Hash) {
        let mut doomed = core::mem::take(&mut self.doomed);
        doomed.extend(self.named());
        let raw = self.raw.take();
        *self = State::empty(root, raw);
        self.doomed = doomed;
        self.fold = true;
    }

    /// Whether the index is behind the tree `root`.
    pub(crate) fn behind(&self, root: Hash) -> bool {
        self.manifest.pending.is_some() || self.manifest.root != root
    }

    /// Indexes `entry` (a memory, or a path gone).
    fn apply(&mut self, entry: Entry) {
        let b = bucket_of(&entry.path, self.buckets.len());
        self.index.remove(&entry.path);
        match entry.doc {
            Some((hash, counts)) => {
                if let Some(set) = self.buckets.get_mut(b) {
                    set.insert(entry.path.clone());
                }
                self.index.insert(entry.path, hash, &counts);
            }
            None => {
                if let Some(set) = self.buckets.get_mut(b) {
                    set.remove(&entry.path);
                }
            }
        }
    }
}

/// A file whose entry differs between two trees: its store path and its entry in
/// the newer one (`None`: gone).
type Change = (String, Option<Child>);

impl<S: Store> Engine<S> {
    /// The value `hash` of the stored index, checked against its hash.
    async fn index_value(&self, hash: &Hash) -> Result<Option<Vec<u8>>, ToolError> {
        let bytes = self.store().get(&hash.key(CHUNK)).await?;
        Ok(bytes.filter(|b| Hash::of(b) == *hash))
    }

    /// The index as stored, read whole and checked: the base's chunks, then the
    /// deltas in order. A missing, damaged or other-version one is an empty index
    /// at the empty tree (so the catch-up rebuilds it), keeping the stored head's
    /// bytes for the swap that replaces it.
    pub(crate) async fn load_index(&self) -> Result<State, ToolError> {
        let raw = self.store().get(MANIFEST).await?;
        let Some(manifest) = raw.as_deref().and_then(Manifest::decode) else {
            return Ok(State::empty(self.empty_root(), raw));
        };
        let mut state = State::empty(manifest.root, raw);
        state.manifest = manifest.clone();
        if self.read_index(&mut state, &manifest).await?.is_none() {
            state.restart(self.empty_root());
        }
        Ok(state)
    }

    /// Reads the values `manifest` names into `state`; `None` at the first damage.
    async fn read_index(
        &self,
        state: &mut State,
        manifest: &Manifest,
    ) -> Result<Option<()>, ToolError> {
        if let Some(table) = &manifest.table {
            let Some(chunks) = self
                .index_value(table)
                .await?
                .and_then(|b| decode_table(&b))
            else {
                return Ok(None);
            };
            let n = chunks.len();
            state.chunks = chunks.clone();
            state.buckets = (0..n).map(|_| BTreeSet::new()).collect();
            for (bucket, chunk) in chunks.iter().enumerate() {
                let Some(hash) = chunk else { continue };
                let kind = Entries::Chunk { bucket, buckets: n };
                let Some(entries) = self
                    .index_value(hash)
                    .await?
                    .and_then(|b| decode_entries(&b, kind))
                else {
                    return Ok(None);
                };
                for e in entries {
                    if state.index.doc_at(&e.path).is_some() {
                        return Ok(None);
                    }
                    state.apply(e);
                }
            }
        }
        for hash in &manifest.deltas {
            let Some(entries) = self
                .index_value(hash)
                .await?
                .and_then(|b| decode_entries(&b, Entries::Delta))
            else {
                return Ok(None);
            };
            let paths: BTreeSet<Rc<str>> = entries.iter().map(|e| e.path.clone()).collect();
            for e in entries {
                state.apply(e);
            }
            state.deltas.push(paths);
        }
        Ok(Some(()))
    }

    /// The entries of the directory node `hash` (every leaf beneath a branch).
    async fn node_entries(&self, hash: Hash) -> Result<Vec<(Name, Child)>, ToolError> {
        let none = Overlay::default();
        if let Stored::Leaf(leaf) = &*self.stored(&none, hash).await? {
            // A leaf keeps its entries in name order already.
            return Ok(leaf
                .children
                .into_iter()
                .map(|(n, c)| (n.clone(), *c))
                .collect());
        }
        let mut out = Vec::new();
        let mut todo = alloc::vec![(hash, 0usize)];
        while let Some((h, depth)) = todo.pop() {
            if depth > 64 {
                return Err(ToolError::Damaged);
            }
            match &*self.stored(&none, h).await? {
                Stored::Leaf(leaf) => {
                    for (name, child) in &leaf.children {
                        out.push((name.clone(), *child));
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
                if let (Some(x), Some(y)) = (cx, cy)
                    && x.kind == y.kind
                    && x.hash == y.hash
                {
                    continue;
                }
                let at = alloc::format!("{path}/{name}");
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
    /// (first finishing a catch-up stopped part way), at most `budget` texts.
    pub(crate) async fn catch_up(
        &self,
        state: &mut State,
        head: Hash,
        budget: &mut usize,
    ) -> Result<(), ToolError> {
        while state.behind(head) {
            let (to, after) = match &state.manifest.pending {
                Some((t, a)) => (*t, Some(a.clone())),
                None => (head, None),
            };
            let changes = self.changed_files(state.manifest.root, to).await?;
            let mut last: Option<String> = None;
            let mut done = true;
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
                    let key: Rc<str> = Rc::from(path.as_str());
                    let doc = match child {
                        Some(c) => {
                            let text = self.blob(&c).await?;
                            *budget -= 1;
                            Some((c.hash, count_terms(&path, &text)))
                        }
                        None => None,
                    };
                    state.unsaved.insert(key.clone());
                    state.apply(Entry { path: key, doc });
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
        Ok(())
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
        state.chunks = alloc::vec![None; want];
        true
    }

    /// Saves what changed in memory: a delta (merged with every older delta no
    /// more than twice its size), or, once the changes since the base are a
    /// [`SEARCH_DELTA_SHARE`] share of the index (or a fold was asked for), the
    /// chunks of the buckets they touched and a new table; then the head, with one
    /// compare-and-swap. Answers false, having written no head, if another
    /// writer's head is there now (the caller reloads). Values the old head named
    /// and the new one does not are deleted after the swap.
    pub(crate) async fn save_index(&self, state: &mut State) -> Result<bool, ToolError> {
        // What the new head no longer names, deleted once it is swapped in.
        let mut replaced: Vec<Hash> = state.doomed.iter().copied().collect();
        let since = state.unsaved.len() + state.deltas.iter().map(BTreeSet::len).sum::<usize>();
        let share = (state.index.len() / SEARCH_DELTA_SHARE).max(SEARCH_FOLD_MIN);
        let mut objects: Vec<(String, Rc<[u8]>)> = Vec::new();
        let mut written: BTreeSet<Hash> = BTreeSet::new();
        if state.fold || since > share {
            let mut touched: BTreeSet<Rc<str>> = state.unsaved.clone();
            for d in core::mem::take(&mut state.deltas) {
                touched.extend(d);
            }
            replaced.append(&mut state.manifest.deltas);
            let old_chunks = state.chunks.clone();
            let all = Self::rebucket(state);
            if all {
                replaced.extend(old_chunks.iter().flatten().copied());
            }
            let n = state.buckets.len();
            let dirty: BTreeSet<usize> = if all {
                (0..n).collect()
            } else {
                touched.iter().map(|p| bucket_of(p, n)).collect()
            };
            for b in dirty {
                let paths: Vec<Rc<str>> = state
                    .buckets
                    .get(b)
                    .map(|s| s.iter().cloned().collect())
                    .unwrap_or_default();
                let chunk = if paths.is_empty() {
                    None
                } else {
                    let kind = Entries::Chunk {
                        bucket: b,
                        buckets: n,
                    };
                    let bytes = encode_entries(&state.index, kind, &paths);
                    let hash = Hash::of(&bytes);
                    if written.insert(hash) {
                        objects.push((hash.key(CHUNK), Rc::from(bytes)));
                    }
                    Some(hash)
                };
                if let Some(slot) = state.chunks.get_mut(b)
                    && let Some(old) = core::mem::replace(slot, chunk)
                {
                    replaced.push(old);
                }
            }
            let table = encode_table(&state.chunks);
            let hash = Hash::of(&table);
            if written.insert(hash) {
                objects.push((hash.key(CHUNK), Rc::from(table)));
            }
            replaced.extend(state.manifest.table.replace(hash));
        } else if !state.unsaved.is_empty() {
            // A binary counter: the new delta takes in each older one no more
            // than twice its size, so they stay few and each change is rewritten
            // a logarithmic number of times.
            let mut paths = state.unsaved.clone();
            while let Some(last) = state.deltas.last() {
                if last.len() > 2 * paths.len() {
                    break;
                }
                if let Some(last) = state.deltas.pop() {
                    paths.extend(last);
                }
                replaced.extend(state.manifest.deltas.pop());
            }
            let list: Vec<Rc<str>> = paths.iter().cloned().collect();
            let bytes = encode_entries(&state.index, Entries::Delta, &list);
            let hash = Hash::of(&bytes);
            written.insert(hash);
            objects.push((hash.key(CHUNK), Rc::from(bytes)));
            state.manifest.deltas.push(hash);
            state.deltas.push(paths);
        }
        let bytes = state.manifest.encode();
        if objects.is_empty() && state.raw.as_deref() == Some(bytes.as_slice()) {
            return Ok(true);
        }
        let swapped = self
            .store()
            .commit(&objects, MANIFEST, state.raw.as_deref(), &bytes)
            .await?;
        if !swapped {
            // Ours are named by no head, unless the winner wrote the same bytes.
            let theirs = self.index_keys().await?;
            for h in &written {
                let key = h.key(CHUNK);
                if !theirs.contains(&key) {
                    self.store().delete(&key).await?;
                }
            }
            return Ok(false);
        }
        state.raw = Some(bytes);
        // A replaced value is still named only if it was written again or is
        // another delta or the table (a chunk holds its bucket's number, so one
        // bucket's never names another's).
        for h in replaced {
            let named = written.contains(&h)
                || state.manifest.deltas.contains(&h)
                || state.manifest.table == Some(h);
            if !named {
                self.store().delete(&h.key(CHUNK)).await?;
            }
        }
        state.unsaved.clear();
        state.doomed.clear();
        state.fold = false;
        Ok(true)
    }

    /// The keys of the stored index that its head names (the head's own
    /// included), for gc: other `index/` keys were left by a catch-up cut short.
    pub(crate) async fn index_keys(&self) -> Result<BTreeSet<String>, ToolError> {
        let mut keys = BTreeSet::new();
        let Some(raw) = self.store().get(MANIFEST).await? else {
            return Ok(keys);
        };
        keys.insert(String::from(MANIFEST));
        let Some(m) = Manifest::decode(&raw) else {
            return Ok(keys);
        };
        for d in &m.deltas {
            keys.insert(d.key(CHUNK));
        }
        if let Some(table) = &m.table {
            keys.insert(table.key(CHUNK));
            if let Some(chunks) = self
                .index_value(table)
                .await?
                .and_then(|b| decode_table(&b))
            {
                for h in chunks.iter().flatten() {
                    keys.insert(h.key(CHUNK));
                }
            }
        }
        Ok(keys)
    }
}
