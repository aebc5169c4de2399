//! The new objects of the command being planned: invisible to everyone until the
//! head moves, and then written in one batch with the commit.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use crate::tree::{BLOB, Child, Hash, Kind, Node, TREE};

/// Cloned only when a whole-tree import must retry after a lost race.
#[derive(Clone, Default)]
pub(crate) struct Overlay {
    /// The command's time: what it writes, and the directories above, carry it.
    pub now: u64,
    nodes: BTreeMap<Hash, (Rc<Node>, Vec<u8>)>,
    blobs: BTreeMap<Hash, Rc<str>>,
}

impl Overlay {
    pub fn at(now: u64) -> Overlay {
        Overlay {
            now,
            ..Overlay::default()
        }
    }

    pub fn node(&self, hash: &Hash) -> Option<Rc<Node>> {
        self.nodes.get(hash).map(|(n, _)| n.clone())
    }

    pub fn add_node(&mut self, node: Node) -> Child {
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

    pub fn nodes(&self) -> impl Iterator<Item = (&Hash, &Rc<Node>)> {
        self.nodes.iter().map(|(h, (n, _))| (h, n))
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
