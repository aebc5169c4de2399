//! Reading and extending the version log (its format is `versions`): a slot by
//! number, a memory's newest version, the files beneath a directory (whose
//! versions a directory rename or delete records), and sealing a change's pending
//! versions into new records and a new log top, just before it is published.

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::future::Future;
use core::pin::Pin;

use crate::config::MAX_NESTING;
use crate::error::ToolError;
use crate::storage::Engine;
use crate::storage::head::Head;
use crate::storage::overlay::Overlay;
use crate::storage::tree::{Child, Hash, Kind};
use crate::storage::versions::{
    Actor, DROPPED, LogHead, LogNode, MAX_VERSIONS, Op, Record, Slot, child_span, height,
};
use crate::store::Store;

/// Where a version is in the log: a slot, or a pruned run of versions
/// `first..=last`, all dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    Slot(Slot),
    Pruned { first: u64, last: u64 },
}

type Boxed<'a, T> = Pin<Box<dyn Future<Output = Result<T, ToolError>> + 'a>>;

/// A memory's newest version, from its first slot (the newest version that
/// created, moved or deleted it; every version, in a log an earlier build wrote)
/// and the version its file names ([`Child::ver`], 0 if none): versions number up,
/// and each version is named in one of the two, so the later is the newest.
pub(crate) fn newest(first: &Slot, ver: u64) -> u64 {
    first.head.max(ver)
}

/// A memory's newest version and that version's time, given its first slot and,
/// while it lives, its file (whose entry's time is when its content was written,
/// by the version it names).
pub(crate) fn latest(first: &Slot, file: Option<&Child>) -> (u64, u64) {
    match file {
        Some(c) if c.ver > first.head => (c.ver, c.written),
        _ => (first.head, first.updated),
    }
}

/// Where a memory is and what it holds, as its versions name it.
#[derive(Clone, Debug)]
pub(crate) struct Latest {
    /// Its first slot.
    pub first: Slot,
    /// Its newest version, and that version's time.
    pub head: u64,
    pub updated: u64,
    /// Its store path and file, while it lives (`None`: deleted).
    pub file: Option<(String, Child)>,
}

impl<S: Store> Engine<S> {
    /// Slot `seq` of `log` (1-based); a number past the log is damage, so callers
    /// check numbers that come from a request first. A slot in a pruned part of the
    /// log is [`Slot::EMPTY`].
    pub(crate) async fn slot(
        &self,
        overlay: &Overlay,
        log: &LogHead,
        seq: u64,
    ) -> Result<Slot, ToolError> {
        Ok(match self.place(overlay, log, seq).await? {
            Place::Slot(slot) => slot,
            Place::Pruned { .. } => Slot::EMPTY,
        })
    }

    /// Where version `seq` is in `log`: its slot, or the pruned run that holds it
    /// (so walks skip a dropped part whole instead of slot by slot).
    pub(crate) async fn place(
        &self,
        overlay: &Overlay,
        log: &LogHead,
        seq: u64,
    ) -> Result<Place, ToolError> {
        if seq == 0 || seq > log.versions {
            return Err(ToolError::Damaged);
        }
        let mut index = seq - 1;
        let mut h = log.height();
        let mut node = log.root.ok_or(ToolError::Damaged)?;
        loop {
            if node == DROPPED {
                // `node` covers `child_span(h + 1)` slots, `index` being one of them.
                let span = child_span(h + 1, log.fanout);
                let first = seq - index % span;
                return Ok(Place::Pruned {
                    first,
                    last: first.saturating_add(span - 1).min(log.versions),
                });
            }
            match &*self.node_of_log(overlay, log, node).await? {
                LogNode::Inner(kids) if h > 0 => {
                    let span = child_span(h, log.fanout);
                    node = *kids
                        .get(usize::try_from(index / span).map_err(|_| ToolError::Damaged)?)
                        .ok_or(ToolError::Damaged)?;
                    index %= span;
                    h -= 1;
                }
                LogNode::Leaf(slots) if h == 0 => {
                    return slots
                        .get(usize::try_from(index).map_err(|_| ToolError::Damaged)?)
                        .copied()
                        .map(Place::Slot)
                        .ok_or(ToolError::Damaged);
                }
                _ => return Err(ToolError::Damaged),
            }
        }
    }

    /// Version `seq`'s slot and record; a dropped version is damage here, so
    /// callers that may meet one check the slot first.
    pub(crate) async fn version_at(
        &self,
        overlay: &Overlay,
        log: &LogHead,
        seq: u64,
    ) -> Result<(Slot, alloc::rc::Rc<Record>), ToolError> {
        let slot = self.slot(overlay, log, seq).await?;
        if slot.is_dropped() {
            return Err(ToolError::Damaged);
        }
        let record = self.record(overlay, slot.record, seq).await?;
        Ok((slot, record))
    }

    /// Memory `mem`'s newest version in the state of `root` and `log`, and its file
    /// while it lives; `None` if no memory is numbered `mem` (never made, or its
    /// index dropped). Its first slot names the version that last created, moved
    /// or deleted it, whose record says where it is; its file there names any
    /// later version. Reads the first slot, that version's slot and record, and
    /// the tree on the way to the file.
    pub(crate) async fn latest_of(
        &self,
        overlay: &Overlay,
        root: Hash,
        log: &LogHead,
        mem: u64,
    ) -> Result<Option<Latest>, ToolError> {
        if mem == 0 || mem > log.versions {
            return Ok(None);
        }
        let first = self.slot(overlay, log, mem).await?;
        if first.head == 0 {
            return Ok(None);
        }
        let (_, moved) = self.version_at(overlay, log, first.head).await?;
        if moved.mem != mem {
            return Ok(None);
        }
        let file = match moved.op {
            Op::Deleted => None,
            _ => {
                let path = moved.path.as_deref().ok_or(ToolError::Damaged)?;
                let file = self.file_by_path(overlay, root, path).await?;
                match file {
                    Some(c) if c.mem == mem && c.ver <= log.versions => {
                        Some((String::from(path), c))
                    }
                    _ => return Err(ToolError::Damaged),
                }
            }
        };
        let (head, updated) = latest(&first, file.as_ref().map(|(_, c)| c));
        Ok(Some(Latest {
            first,
            head,
            updated,
            file,
        }))
    }

    /// The file at store path `path` (`/a/b.md`) under `root`, if a file is there.
    async fn file_by_path(
        &self,
        overlay: &Overlay,
        root: Hash,
        path: &str,
    ) -> Result<Option<Child>, ToolError> {
        let mut dir = root;
        let mut names = path.strip_prefix('/').unwrap_or(path).split('/').peekable();
        while let Some(name) = names.next() {
            let Some(child) = self.dir_get(overlay, dir, name).await? else {
                return Ok(None);
            };
            if names.peek().is_none() {
                return Ok((child.kind == Kind::File).then_some(child));
            }
            if child.kind != Kind::Dir {
                return Ok(None);
            }
            // As every walk down the tree does: a size its parent misstates is damage.
            dir = self.subdir(overlay, &child).await?;
        }
        Ok(None)
    }

    /// Every file at or beneath `child` (at store path `path`), in tree order.
    pub(crate) async fn files_beneath(
        &self,
        overlay: &Overlay,
        path: &str,
        child: &Child,
    ) -> Result<Vec<(String, Child)>, ToolError> {
        let mut out = Vec::new();
        self.walk_files(overlay, path, child, |p, c| {
            out.push((p, *c));
            true
        })
        .await?;
        Ok(out)
    }

    /// Visits every file at or beneath `child` (at store path `path`) in tree
    /// order, until `visit` answers false; answers whether it went to the end.
    /// Reads only the directories it walks through.
    pub(crate) async fn walk_files(
        &self,
        overlay: &Overlay,
        path: &str,
        child: &Child,
        mut visit: impl FnMut(String, &Child) -> bool,
    ) -> Result<bool, ToolError> {
        let mut todo = vec![(String::from(path), *child, 0usize)];
        while let Some((p, c, depth)) = todo.pop() {
            if depth > MAX_NESTING {
                return Err(ToolError::Damaged);
            }
            match c.kind {
                Kind::File => {
                    if !visit(p, &c) {
                        return Ok(false);
                    }
                }
                Kind::Dir => {
                    let node = self.dir(overlay, self.subdir(overlay, &c).await?).await?;
                    // Reversed onto a stack, so they come off in order.
                    for (name, grand) in node.children.iter().rev() {
                        todo.push((format!("{p}/{name}"), *grand, depth + 1));
                    }
                }
            }
        }
        Ok(true)
    }

    /// Who a memory-tool change is by: the configured actor, as a session.
    pub(crate) fn tool_actor(&self) -> Option<Actor> {
        let id = &self.config().actor;
        let actor = Actor::Session {
            session_id: id.clone(),
        };
        actor.is_valid().then_some(actor)
    }

    /// Turns the change's pending versions into records and slots, and rewrites the
    /// log: the leaf the new versions land in, the first slot of each memory a
    /// version moves, creates or deletes (a version that only writes content is
    /// named by the memory's file instead), and the nodes above those.
    pub(crate) async fn seal_log(
        &self,
        overlay: &mut Overlay,
        head: &Head,
    ) -> Result<(), ToolError> {
        if !overlay.store_set {
            overlay.store = head.store.clone();
        }
        let mut edit = core::mem::take(&mut overlay.log_edit);
        if overlay.pending.is_empty() && edit.is_empty() {
            overlay.log_head = head.log;
            return Ok(());
        }
        let by = overlay.by.clone().or_else(|| self.tool_actor());
        let now = overlay.now;
        let mut memories = head.log.memories;
        let pending = core::mem::take(&mut overlay.pending);
        // The version each memory got last in this change, for one changed twice
        // (as slots naming it: the map type `edit` already is, so the wasm builds
        // carry no second copy of the map's code).
        let mut latest: BTreeMap<u64, Slot> = BTreeMap::new();
        for p in &pending {
            let created = p.op == Op::Created;
            let prev = if created {
                0
            } else {
                let first = self.slot_edited(overlay, &head.log, &edit, p.mem).await?;
                let here = latest.get(&p.mem).map_or(0, |s| s.head);
                newest(&first, p.seen).max(here)
            };
            let record = Record {
                mem: p.mem,
                op: p.op,
                at: now,
                by: by.clone(),
                path: Some(p.path.clone()),
                sha: p.content.map(|(h, _)| h.hex()),
                size: p.content.map(|(_, s)| s),
                prev,
                redacted_at: None,
                redacted_by: None,
                reason: if p.op == Op::Deleted {
                    overlay.reason.clone()
                } else {
                    None
                },
            };
            let rh = overlay.log.add_record(record);
            edit.insert(
                p.seq,
                Slot {
                    record: rh,
                    blob: p.content.map(|(h, _)| h),
                    head: if created { p.seq } else { 0 },
                    updated: if created { now } else { 0 },
                },
            );
            if !created && p.route {
                let mut first = self.slot_edited(overlay, &head.log, &edit, p.mem).await?;
                first.head = p.seq;
                first.updated = now;
                edit.insert(p.mem, first);
            }
            latest.insert(
                p.mem,
                Slot {
                    head: p.seq,
                    ..Slot::EMPTY
                },
            );
            match p.op {
                Op::Created => memories += 1,
                Op::Deleted => memories = memories.saturating_sub(1),
                Op::Modified => {}
            }
        }
        let versions = u64::try_from(pending.len())
            .ok()
            .and_then(|n| head.log.versions.checked_add(n))
            .filter(|v| *v <= MAX_VERSIONS)
            .ok_or(ToolError::Damaged)?;
        let root = self.rebuild_log(overlay, &head.log, versions, edit).await?;
        overlay.pending = pending;
        overlay.log_head = LogHead {
            root: Some(root),
            versions,
            memories,
            fanout: head.log.fanout,
        };
        Ok(())
    }

    /// Slot `seq` as the change has it so far.
    async fn slot_edited(
        &self,
        overlay: &Overlay,
        log: &LogHead,
        edit: &BTreeMap<u64, Slot>,
        seq: u64,
    ) -> Result<Slot, ToolError> {
        match edit.get(&seq) {
            Some(s) => Ok(*s),
            None => self.slot(overlay, log, seq).await,
        }
    }

    async fn rebuild_log(
        &self,
        overlay: &mut Overlay,
        old: &LogHead,
        versions: u64,
        edit: BTreeMap<u64, Slot>,
    ) -> Result<Hash, ToolError> {
        let mut root = old.root;
        let new_height = height(versions, old.fanout);
        let mut h = old.height();
        // A log that outgrew its top gets a new one above it, the old top its first
        // child (a pruned top stays pruned: the new top reads it as one).
        while h < new_height {
            if let Some(r) = root.filter(|r| *r != DROPPED) {
                root = Some(overlay.log.add_node(LogNode::Inner(vec![r])));
            }
            h += 1;
        }
        let changes: Vec<(u64, Slot)> = edit
            .into_iter()
            .map(|(seq, s)| (seq.saturating_sub(1), s))
            .collect();
        self.rewrite_log(overlay, old, root, new_height, 0, &changes)
            .await
    }

    /// The node `node` at `h` (covering slots from `base` of the `old` log) with
    /// `changes` applied; a node left with nothing is [`DROPPED`].
    fn rewrite_log<'a>(
        &'a self,
        overlay: &'a mut Overlay,
        old: &'a LogHead,
        node: Option<Hash>,
        h: u32,
        base: u64,
        changes: &'a [(u64, Slot)],
    ) -> Boxed<'a, Hash> {
        Box::pin(async move {
            let loaded = match node {
                Some(n) if n != DROPPED => Some(self.node_of_log(overlay, old, n).await?),
                _ => None,
            };
            // A pruned node held as many empty slots (or pruned children) as the
            // old log had beneath it; a node past the old log held none.
            let below = old
                .versions
                .saturating_sub(base)
                .min(child_span(h + 1, old.fanout));
            if h == 0 {
                let mut slots = match loaded.as_deref() {
                    Some(LogNode::Leaf(s)) => s.clone(),
                    None => vec![Slot::EMPTY; usize::try_from(below).unwrap_or(0)],
                    Some(_) => return Err(ToolError::Damaged),
                };
                for (index, slot) in changes {
                    let at = usize::try_from(index - base).map_err(|_| ToolError::Damaged)?;
                    match at.cmp(&slots.len()) {
                        core::cmp::Ordering::Less => {
                            if let Some(s) = slots.get_mut(at) {
                                *s = *slot;
                            }
                        }
                        core::cmp::Ordering::Equal => slots.push(*slot),
                        core::cmp::Ordering::Greater => return Err(ToolError::Damaged),
                    }
                }
                if slots.iter().all(|s| *s == Slot::EMPTY) {
                    return Ok(DROPPED);
                }
                return Ok(overlay.log.add_node(LogNode::Leaf(slots)));
            }
            let mut kids = match loaded.as_deref() {
                Some(LogNode::Inner(k)) => k.clone(),
                None => vec![
                    DROPPED;
                    usize::try_from(below.div_ceil(child_span(h, old.fanout))).unwrap_or(0)
                ],
                Some(_) => return Err(ToolError::Damaged),
            };
            let span = child_span(h, old.fanout);
            let mut start = 0;
            while let Some(&(first, _)) = changes.get(start) {
                let k = (first - base) / span;
                let end = changes
                    .iter()
                    .skip(start)
                    .position(|(i, _)| (i - base) / span != k)
                    .map_or(changes.len(), |n| start + n);
                let at = usize::try_from(k).map_err(|_| ToolError::Damaged)?;
                let child = kids.get(at).copied();
                let part = changes.get(start..end).unwrap_or_default();
                let rebuilt = self
                    .rewrite_log(overlay, old, child, h - 1, base + k * span, part)
                    .await?;
                match at.cmp(&kids.len()) {
                    core::cmp::Ordering::Less => {
                        if let Some(slot) = kids.get_mut(at) {
                            *slot = rebuilt;
                        }
                    }
                    core::cmp::Ordering::Equal => kids.push(rebuilt),
                    core::cmp::Ordering::Greater => return Err(ToolError::Damaged),
                }
                start = end;
            }
            if kids.iter().all(|k| *k == DROPPED) {
                return Ok(DROPPED);
            }
            Ok(overlay.log.add_node(LogNode::Inner(kids)))
        })
    }
}
