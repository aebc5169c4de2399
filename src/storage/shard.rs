//! Directories as stored: a small one is one leaf node, a large one is split into
//! branches by the hash of its names (see [`crate::storage::tree::LEAF_MAX`]). This module
//! reads a whole directory, finds one name, and sets one name, touching only the
//! leaf and the branches on that name's way; the rest of the engine sees a
//! directory as a map of names.

use alloc::boxed::Box;
use alloc::rc::Rc;
use alloc::vec;
use alloc::vec::Vec;

use crate::error::ToolError;
use crate::storage::Engine;
use crate::storage::entries::{Entries, Name};
use crate::storage::overlay::Overlay;
use crate::storage::tree::{
    Branch, Child, FANOUT, Hash, Kind, LEAF_MAX, Node, Part, Stored, nibble,
};
use crate::store::Store;

impl<S: Store> Engine<S> {
    /// Every entry of the directory whose top node is `hash`. A large directory is
    /// gathered from its leaves, each checked to hold only names that belong under
    /// its branch slots, and each slot's count and size checked against what it
    /// holds (so a tampered branch can neither hide nor repeat entries).
    pub(crate) async fn dir(&self, overlay: &Overlay, hash: Hash) -> Result<Rc<Node>, ToolError> {
        let top = self.stored(overlay, hash).await?;
        let branch = match &*top {
            Stored::Leaf(node) => return Ok(node.clone()),
            Stored::Branch(b) => Branch::clone(b),
        };
        if branch.depth != 0 {
            return Err(ToolError::Damaged);
        }
        let mut entries = Vec::new();
        // (slot, the nibbles on its way, the depth a branch there must have)
        let mut todo = vec![(branch, vec![])];
        while let Some((b, way)) = todo.pop() {
            for (k, slot) in b.slots.iter() {
                let mut way = way.clone();
                way.push(k);
                let sub = self.stored(overlay, slot.hash).await?;
                if sub.count() != slot.count || sub.size() != slot.size {
                    return Err(ToolError::Damaged);
                }
                match &*sub {
                    Stored::Branch(deeper) if usize::from(deeper.depth) == way.len() => {
                        todo.push((Branch::clone(deeper), way));
                    }
                    Stored::Branch(_) => return Err(ToolError::Damaged),
                    Stored::Leaf(leaf) => {
                        for (name, child) in &leaf.children {
                            if !belongs(name, &way) {
                                return Err(ToolError::Damaged);
                            }
                            entries.push((name.clone(), *child));
                        }
                    }
                }
            }
        }
        // Gathered in slot order and sorted once; a name twice is damage.
        let children = Entries::from_unsorted(entries).map_err(|_| ToolError::Damaged)?;
        Ok(Rc::new(Node { children }))
    }

    /// The entry `name` of the directory whose top node is `hash`.
    pub(crate) async fn dir_get(
        &self,
        overlay: &Overlay,
        hash: Hash,
        name: &str,
    ) -> Result<Option<Child>, ToolError> {
        Ok(self
            .dir_find(overlay, hash, name)
            .await?
            .map(|(_, child)| child))
    }

    /// The entry `name` of the directory whose top node is `hash`, with the leaf
    /// that holds it: the one stored node whose bytes hold the name (a branch
    /// holds only hashes).
    pub(crate) async fn dir_find(
        &self,
        overlay: &Overlay,
        hash: Hash,
        name: &str,
    ) -> Result<Option<(Hash, Child)>, ToolError> {
        let mut hash = hash;
        let mut depth = 0u8;
        loop {
            match &*self.stored(overlay, hash).await? {
                Stored::Leaf(leaf) => {
                    return Ok(leaf.children.get(name).map(|child| (hash, *child)));
                }
                Stored::Branch(b) if b.depth == depth => {
                    let Some(slot) = b.slots.get(nibble(name, depth) % FANOUT) else {
                        return Ok(None);
                    };
                    hash = slot.hash;
                    depth = depth.checked_add(1).ok_or(ToolError::Damaged)?;
                }
                Stored::Branch(_) => return Err(ToolError::Damaged),
            }
        }
    }

    /// The directory `hash` with each name of `sets` set to its entry (or removed,
    /// with `None`; a name twice, the last wins), as a new directory entry. Rewrites
    /// the leaves that hold those names and the branches above them, each once
    /// however many of the names it holds; a part that grows past [`LEAF_MAX`]
    /// entries splits, one that shrinks to it merges back into a leaf, so the layout
    /// depends only on the entries.
    pub(crate) async fn dir_set(
        &self,
        overlay: &mut Overlay,
        hash: Hash,
        sets: &[(&str, Option<Child>)],
    ) -> Result<Child, ToolError> {
        let slot = self.part_set(overlay, hash, 0, sets).await?;
        let slot = match slot {
            Some(s) => s,
            None => overlay.add_part(Entries::new(), 0),
        };
        Ok(Child::plain(
            Kind::Dir,
            slot.hash,
            slot.size,
            slot.written.max(overlay.now),
        ))
    }

    /// [`Engine::dir_set`] on the part `hash` at `depth`; `None` if it is left empty.
    fn part_set<'a>(
        &'a self,
        overlay: &'a mut Overlay,
        hash: Hash,
        depth: u8,
        sets: &'a [(&'a str, Option<Child>)],
    ) -> core::pin::Pin<Box<dyn core::future::Future<Output = Result<Option<Part>, ToolError>> + 'a>>
    {
        Box::pin(async move {
            let part = self.stored(overlay, hash).await?;
            let branch = match &*part {
                Stored::Leaf(leaf) => {
                    let mut entries = leaf.children.clone();
                    apply(&mut entries, sets);
                    if entries.is_empty() {
                        return Ok(None);
                    }
                    return Ok(Some(overlay.add_part(entries, depth)));
                }
                Stored::Branch(b) if b.depth == depth => Branch::clone(b),
                Stored::Branch(_) => return Err(ToolError::Damaged),
            };
            let deeper = depth.checked_add(1).ok_or(ToolError::Damaged)?;
            let mut branch = branch;
            // The slots the names fall in, each rewritten once with its names.
            let keys: Vec<u8> = sets
                .iter()
                .map(|(n, _)| nibble(n, depth) % FANOUT)
                .collect();
            let mut slots = keys.clone();
            slots.sort_unstable();
            slots.dedup();
            for k in slots {
                let here: Vec<(&str, Option<Child>)> = sets
                    .iter()
                    .zip(&keys)
                    .filter(|(_, key)| **key == k)
                    .map(|(set, _)| *set)
                    .collect();
                let below = match branch.slots.get(k) {
                    Some(slot) => self.part_set(overlay, slot.hash, deeper, &here).await?,
                    None => {
                        let mut entries = Entries::new();
                        apply(&mut entries, &here);
                        (!entries.is_empty()).then(|| overlay.add_part(entries, deeper))
                    }
                };
                match below {
                    Some(s) => branch.slots.insert(k, s),
                    None => branch.slots.remove(k),
                };
            }
            if branch.count() as usize > LEAF_MAX {
                return Ok(Some(overlay.add_branch(branch)));
            }
            // Few enough entries for one leaf again: gather them (at most
            // LEAF_MAX, from at most FANOUT parts) and lay them out afresh.
            let mut entries = Vec::new();
            for slot in branch.slots.values() {
                self.gather(overlay, slot.hash, &mut entries).await?;
            }
            if entries.is_empty() {
                return Ok(None);
            }
            let entries = Entries::from_unsorted(entries).map_err(|_| ToolError::Damaged)?;
            Ok(Some(overlay.add_part(entries, depth)))
        })
    }

    /// Adds to `out` every entry beneath a part of a directory that holds at most
    /// [`LEAF_MAX`] (with those `out` holds already).
    async fn gather(
        &self,
        overlay: &Overlay,
        hash: Hash,
        out: &mut Vec<(Name, Child)>,
    ) -> Result<(), ToolError> {
        let mut todo = vec![hash];
        while let Some(h) = todo.pop() {
            match &*self.stored(overlay, h).await? {
                Stored::Leaf(leaf) => {
                    out.extend(leaf.children.iter().map(|(n, c)| (n.clone(), *c)))
                }
                Stored::Branch(b) => todo.extend(b.slots.values().map(|s| s.hash)),
            }
            if out.len() > LEAF_MAX {
                return Err(ToolError::Damaged);
            }
        }
        Ok(())
    }
}

/// `sets` applied to `entries` in order.
fn apply(entries: &mut Entries, sets: &[(&str, Option<Child>)]) {
    for (name, entry) in sets {
        match entry {
            Some(c) => entries.set(name, *c),
            None => entries.remove(name),
        };
    }
}

/// True if `name`'s nibbles begin with `way`: it belongs in that part.
fn belongs(name: &str, way: &[u8]) -> bool {
    let h = Hash::of(name.as_bytes());
    way.iter()
        .enumerate()
        .all(|(d, k)| u8::try_from(d).is_ok_and(|d| h.nibble(d) == *k))
}
