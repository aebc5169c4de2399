//! The new objects of the command being planned: invisible to everyone until the
//! head moves, and then written in one batch with the commit. Directories are laid
//! out here, canonically: one leaf while they hold at most [`LEAF_MAX`] entries,
//! else branches by name hash (so the same entries always make the same objects).

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use crate::tree::{
    BLOB, Branch, Child, FANOUT, Hash, Kind, LEAF_MAX, MAX_BRANCH_DEPTH, Node, Slot, Stored, TREE,
    nibble,
};

/// Cloned only when a whole-tree import must retry after a lost race.
#[derive(Clone, Default)]
pub(crate) struct Overlay {
    /// The command's time: what it writes, and the directories above, carry it.
    pub now: u64,
    nodes: BTreeMap<Hash, (Rc<Stored>, Vec<u8>)>,
    blobs: BTreeMap<Hash, Rc<str>>,
}

impl Overlay {
    pub fn at(now: u64) -> Overlay {
        Overlay {
            now,
            ..Overlay::default()
        }
    }

    pub fn stored(&self, hash: &Hash) -> Option<Rc<Stored>> {
        self.nodes.get(hash).map(|(n, _)| n.clone())
    }

    fn add_stored(&mut self, stored: Stored) -> Hash {
        let bytes = stored.encode();
        let hash = Hash::of(&bytes);
        self.nodes.insert(hash, (Rc::new(stored), bytes));
        hash
    }

    /// A whole directory, laid out canonically; its entry carries the command's
    /// time (a directory's mtime moves when an entry comes or goes).
    pub fn add_dir(&mut self, node: Node) -> Child {
        let slot = self.add_part(node.children, 0);
        Child {
            kind: Kind::Dir,
            hash: slot.hash,
            size: slot.size,
            written: slot.written.max(self.now),
        }
    }

    /// The entries of one part of a directory (those whose names agree on the
    /// first `depth` nibbles): a leaf if they are few, else a branch at `depth`.
    pub fn add_part(&mut self, entries: BTreeMap<String, Child>, depth: u8) -> Slot {
        let count = entries.len() as u64;
        if entries.len() <= LEAF_MAX || depth > MAX_BRANCH_DEPTH {
            let node = Node { children: entries };
            let (size, written) = (node.size(), node.written());
            let hash = self.add_stored(Stored::Leaf(Rc::new(node)));
            return Slot {
                hash,
                size,
                written,
                count,
            };
        }
        let mut parts: BTreeMap<u8, BTreeMap<String, Child>> = BTreeMap::new();
        for (name, child) in entries {
            let k = nibble(&name, depth) % FANOUT;
            parts.entry(k).or_default().insert(name, child);
        }
        let slots = parts
            .into_iter()
            .map(|(k, part)| (k, self.add_part(part, depth + 1)))
            .collect();
        self.add_branch(Branch { depth, slots })
    }

    pub fn add_branch(&mut self, branch: Branch) -> Slot {
        let (size, written, count) = (branch.size(), branch.written(), branch.count());
        let hash = self.add_stored(Stored::Branch(branch));
        Slot {
            hash,
            size,
            written,
            count,
        }
    }

    pub fn add_blob(&mut self, content: &str) -> Child {
        let hash = Hash::of(content.as_bytes());
        self.blobs.insert(hash, Rc::from(content));
        Child {
            kind: Kind::File,
            hash,
            size: content.len() as u64,
            written: self.now,
        }
    }

    pub fn stored_objects(&self) -> impl Iterator<Item = (&Hash, &Rc<Stored>, usize)> {
        self.nodes.iter().map(|(h, (n, b))| (h, n, b.len()))
    }

    pub fn blobs(&self) -> impl Iterator<Item = (&Hash, &Rc<str>)> {
        self.blobs.iter()
    }

    /// The writes that publish `root`: only the new objects it reaches.
    pub fn writes(&self, root: Hash) -> Vec<(String, Vec<u8>)> {
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
                    out.push((hash.key(BLOB), b.as_bytes().to_vec()));
                }
            }
        }
        out
    }
}
