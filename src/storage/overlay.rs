//! The new objects of the command being planned: invisible to everyone until the
//! head moves, and then written in one batch with the commit. Directories are laid
//! out here, canonically: one leaf while they hold at most [`LEAF_MAX`] entries,
//! else branches by name hash (so the same entries always make the same objects).

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use crate::storage::entries::Entries;
use crate::storage::head::Head;
use crate::storage::meta::StoreMeta;
use crate::storage::tree::{
    BLOB, Branch, Child, FANOUT, Hash, Kind, LEAF_MAX, MAX_BRANCH_DEPTH, Node, Part, Slots, Stored,
    TREE, nibble,
};
use crate::storage::versions::{LOG, LogHead, LogObjects, Op, Pending, RECORD};

/// Cloned only when a whole-tree import must retry after a lost race.
#[derive(Clone, Default)]
pub(crate) struct Overlay {
    /// The command's time: what it writes, and the directories above, carry it.
    pub now: u64,
    nodes: BTreeMap<Hash, (Rc<Stored>, Rc<[u8]>)>,
    blobs: BTreeMap<Hash, Rc<str>>,
    /// Versions the change records, in order; numbered from `first_version`.
    pub pending: Vec<Pending>,
    first_version: u64,
    /// The version log's new objects, and the log the change publishes (set when
    /// the change is sealed).
    pub log: LogObjects,
    pub log_head: LogHead,
    /// The store's record the change publishes, when it sets one.
    pub store: Option<Rc<StoreMeta>>,
    pub store_set: bool,
    /// Slots the change rewrites directly (a redaction), by version number.
    pub log_edit: BTreeMap<u64, crate::storage::versions::Slot>,
    /// Who the change's versions are by (`None`: the configured actor).
    pub by: Option<crate::storage::versions::Actor>,
    /// Why the change's `deleted` versions delete (recorded in them; `None`: no
    /// reason given).
    pub reason: Option<String>,
    /// The commit names no parent: history starts again at it (a redaction that
    /// deletes nodes of older trees, so no walk of history reaches what it deleted).
    pub new_history: bool,
}

impl Overlay {
    /// A change planned against `head`: its versions number on from the head's log.
    pub(crate) fn on(head: &Head, now: u64) -> Overlay {
        Overlay {
            now,
            first_version: head.log.versions.saturating_add(1),
            ..Overlay::default()
        }
    }

    /// Records a version of memory `mem` (0: a memory this version creates) that
    /// sets where it is (its first slot will name it), `was` the memory's file
    /// before, and returns its number, which is the memory's id when it creates one.
    pub(crate) fn version(
        &mut self,
        mem: u64,
        op: Op,
        path: &str,
        content: Option<&Child>,
        was: Option<&Child>,
    ) -> u64 {
        self.record_version(mem, op, path, content, was, true)
    }

    fn record_version(
        &mut self,
        mem: u64,
        op: Op,
        path: &str,
        content: Option<&Child>,
        was: Option<&Child>,
        route: bool,
    ) -> u64 {
        let seq = self.first_version + self.pending.len() as u64;
        let (mem, op) = if mem == 0 {
            (seq, Op::Created)
        } else {
            (mem, op)
        };
        self.pending.push(Pending {
            seq,
            mem,
            op,
            path: path.into(),
            content: content.map(|c| (c.hash, c.size)),
            seen: was.map_or(0, |c| c.ver),
            route: route || op == Op::Created,
        });
        seq
    }

    /// A file for `content` at `path`, recording its version: a new memory
    /// (`created`) without `was`, else a `modified` version of the memory `was` is,
    /// still at `path`. The file names its version ([`Child::ver`]), so only a new
    /// memory's first slot names it.
    pub(crate) fn add_memory(&mut self, content: &str, was: Option<&Child>, path: &str) -> Child {
        let mut child = self.add_blob(content);
        let mem = was.map_or(0, |c| c.mem);
        let seq = self.record_version(mem, Op::Modified, path, Some(&child), was, false);
        match was {
            Some(c) if c.mem != 0 => {
                child.mem = c.mem;
                child.created = c.created;
            }
            _ => {
                child.mem = seq;
                child.created = self.now;
            }
        }
        child.ver = seq;
        child
    }

    pub(crate) fn set_store(&mut self, meta: StoreMeta) {
        self.store = Some(Rc::new(meta));
        self.store_set = true;
    }

    pub(crate) fn stored(&self, hash: &Hash) -> Option<Rc<Stored>> {
        self.nodes.get(hash).map(|(n, _)| n.clone())
    }

    fn add_stored(&mut self, stored: Stored) -> Hash {
        let bytes = stored.encode();
        let hash = Hash::of(&bytes);
        self.nodes.insert(hash, (Rc::new(stored), bytes.into()));
        hash
    }

    /// A whole directory, laid out canonically; its entry carries the command's
    /// time (a directory's mtime moves when an entry comes or goes).
    pub(crate) fn add_dir(&mut self, node: Node) -> Child {
        let slot = self.add_part(node.children, 0);
        Child::plain(Kind::Dir, slot.hash, slot.size, slot.written.max(self.now))
    }

    /// The entries of one part of a directory (those whose names agree on the
    /// first `depth` nibbles): a leaf if they are few, else a branch at `depth`.
    pub(crate) fn add_part(&mut self, entries: Entries, depth: u8) -> Part {
        let count = entries.len() as u64;
        if entries.len() <= LEAF_MAX || depth > MAX_BRANCH_DEPTH {
            let node = Node { children: entries };
            let (size, written) = (node.size(), node.written());
            let hash = self.add_stored(Stored::Leaf(Rc::new(node)));
            return Part {
                hash,
                size,
                written,
                count,
            };
        }
        let parts = entries.split_by(usize::from(FANOUT), |name| nibble(name, depth) % FANOUT);
        let mut slots = Slots::default();
        for (k, part) in (0u8..).zip(parts) {
            if !part.is_empty() {
                slots.insert(k, self.add_part(part, depth + 1));
            }
        }
        self.add_branch(Branch { depth, slots })
    }

    pub(crate) fn add_branch(&mut self, branch: Branch) -> Part {
        let (size, written, count) = (branch.size(), branch.written(), branch.count());
        let hash = self.add_stored(Stored::Branch(alloc::boxed::Box::new(branch)));
        Part {
            hash,
            size,
            written,
            count,
        }
    }

    pub(crate) fn add_blob(&mut self, content: &str) -> Child {
        let hash = Hash::of(content.as_bytes());
        self.blobs.insert(hash, Rc::from(content));
        Child::plain(Kind::File, hash, content.len() as u64, self.now)
    }

    pub(crate) fn stored_objects(&self) -> impl Iterator<Item = (&Hash, &Rc<Stored>, usize)> {
        self.nodes.iter().map(|(h, (n, b))| (h, n, b.len()))
    }

    pub(crate) fn blobs(&self) -> impl Iterator<Item = (&Hash, &Rc<str>)> {
        self.blobs.iter()
    }

    /// The writes that publish the sealed log: the new nodes its top reaches, and
    /// their new records.
    pub(crate) fn log_writes(&self) -> Vec<(String, Rc<[u8]>)> {
        let mut out = Vec::new();
        let mut seen = BTreeSet::new();
        let mut todo: Vec<Hash> = self.log_head.root.into_iter().collect();
        while let Some(h) = todo.pop() {
            let Some((node, bytes)) = self.log.nodes.get(&h) else {
                continue;
            };
            if !seen.insert(h) {
                continue;
            }
            out.push((h.key(LOG), bytes.clone()));
            for (hash, prefix) in node.refs() {
                if prefix == LOG {
                    todo.push(hash);
                } else if prefix == RECORD
                    && let Some((_, bytes)) = self.log.records.get(&hash)
                    && seen.insert(hash)
                {
                    out.push((hash.key(RECORD), bytes.clone()));
                }
            }
        }
        out
    }

    /// The writes that publish `root`: only the new objects it reaches.
    pub(crate) fn writes(&self, root: Hash) -> Vec<(String, Rc<[u8]>)> {
        let mut out = Vec::new();
        let mut seen = BTreeSet::new();
        let mut todo = vec![root];
        while let Some(h) = todo.pop() {
            let Some((stored, bytes)) = self.nodes.get(&h) else {
                continue;
            };
            if !seen.insert(h) {
                continue;
            }
            out.push((h.key(TREE), bytes.clone()));
            for (hash, is_tree) in stored.refs() {
                if is_tree {
                    todo.push(hash);
                } else if let Some(b) = self.blobs.get(&hash)
                    && seen.insert(hash)
                {
                    out.push((hash.key(BLOB), Rc::<[u8]>::from(b.clone())));
                }
            }
        }
        out
    }
}
