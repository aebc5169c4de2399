//! What a redaction erases besides the version's record and content: its path,
//! from the trees of older commits.
//!
//! A memory that was renamed or deleted (or whose directory was) still has its old
//! path in the trees of the commits made while it lived there; nothing else holds
//! it (commit messages hold a command's name, log nodes hold hashes, and the
//! redacted record is deleted). So the redaction finds, before it publishes, the
//! leaves of those trees that hold the path's names the head's tree no longer has
//! (a branch holds only hashes), and right after its commit, in the same call,
//! deletes them and every tree node beneath them the head's tree does not reach.
//! Its commit names no parent: history starts again at it, so no walk of history
//! (gc's `keepCommits`) reaches a tree missing a node; it names the head it
//! followed as `cut`, which only a later redaction follows, to the older trees
//! still stored. The older commits and what only they reach hold no name: gc
//! deletes them as ever.
//!
//! Readers under way: every request reads the head first, and the redaction never
//! deletes a node the head before or after it reaches (its commit keeps the tree
//! as it was). Only a request that read a head from before the rename and is still
//! walking that old tree, a writer planning on such a head it cached, or a gc pass
//! keeping such a commit, can meet a deleted leaf. Nothing is kept in the store for
//! it; it goes on from the head as it now is: a change plans again (`transact`
//! retries a missing object once the head has moved; its compare-and-swap would
//! have failed anyway), an API read runs once more (`Engine::api`), and a gc pass
//! marks again (`gc_after`; the old commits are then unreferenced, collected as
//! ever). A writer publishing meanwhile a tree that reaches a deleted leaf (the
//! same bytes made again, which takes a clock that stands still) gets it back: the
//! redaction reads the head once more after deleting and restores each deleted
//! leaf the new tree reaches, as it does the content's blob.

use alloc::collections::BTreeSet;
use alloc::vec::Vec;

use super::rules;
use crate::config::MAX_REDACT_COMMITS;
use crate::error::ToolError;
use crate::storage::Engine;
use crate::storage::head::Head;
use crate::storage::overlay::Overlay;
use crate::storage::tree::{COMMIT, Commit, Hash, Kind, TREE};
use crate::store::Store;

/// What a redaction erases once published: the content's blob and its text (to
/// put back should another writer store the same text meanwhile), unless another
/// version or a file holds it, and the tree nodes that named the version's path.
pub(crate) struct Erase {
    pub blob: Option<(Hash, alloc::rc::Rc<str>)>,
    pub nodes: Vec<Hash>,
}

impl<S: Store> Engine<S> {
    /// The tree nodes to delete so that no stored tree names the store path `path`
    /// of version `seq`: in the trees of `head`'s commit and those before it back
    /// to the one that published the version (at most [`MAX_REDACT_COMMITS`]
    /// commits, across earlier redactions' new starts of history), each leaf that
    /// holds one of the path's names the head's tree lacks, and every tree node
    /// beneath such a leaf, less what the head's tree reaches. Beneath goes too so
    /// that no node is left reachable only through a deleted one, where a later
    /// redaction's walk could not find it. Empty when the head has something at
    /// `path`: the path is in use. A commit gone (to gc) ends the walk; a tree that
    /// cannot be read (an earlier redaction deleted its way) is passed over, since
    /// what lay beneath a deleted node was deleted with it.
    pub(crate) async fn nodes_naming(
        &self,
        head: &Head,
        path: &str,
        seq: u64,
    ) -> Result<Vec<Hash>, ToolError> {
        let vp = rules::store_path(path).map_err(|_| ToolError::Damaged)?;
        let names: Vec<&str> = vp.names().collect();
        let Some(from) = self.first_missing(head.root, &names).await? else {
            return Ok(Vec::new());
        };
        let mut found = BTreeSet::new();
        let mut roots = BTreeSet::new();
        let mut commit = head.commit;
        for _ in 0..MAX_REDACT_COMMITS {
            let Some(c) = commit else { break };
            let Some(bytes) = self.store().get(&c.key(COMMIT)).await? else {
                break;
            };
            let Some(parsed) = Some(bytes.as_slice())
                .filter(|b| Hash::of(b) == c)
                .and_then(Commit::decode)
            else {
                break;
            };
            // Older commits were made before the version: it named nothing there.
            if parsed.versions < seq {
                break;
            }
            if let Some(root) = parsed.root_hash()
                && roots.insert(root)
            {
                match self.leaves_on_path(root, &names, from).await {
                    Ok(leaves) => found.extend(leaves),
                    Err(ToolError::Damaged) => {}
                    Err(e) => return Err(e),
                }
            }
            commit = parsed.parent_hash().or_else(|| parsed.cut_hash());
        }
        if found.is_empty() {
            return Ok(Vec::new());
        }
        let none = Overlay::default();
        let live = self.tree_nodes(head.root, &[]).await?;
        let mut doomed = BTreeSet::new();
        let mut todo: Vec<Hash> = found.into_iter().collect();
        while let Some(h) = todo.pop() {
            if live.contains(&h) || doomed.contains(&h) {
                continue;
            }
            match self.stored(&none, h).await {
                Ok(node) => {
                    doomed.insert(h);
                    todo.extend(node.refs().into_iter().filter(|r| r.1).map(|r| r.0));
                }
                Err(ToolError::Damaged) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(doomed.into_iter().collect())
    }

    /// How many of `names` (a path's, outermost first) the tree `root` has in a
    /// row: `None` if it has them all (something is at the path).
    async fn first_missing(&self, root: Hash, names: &[&str]) -> Result<Option<usize>, ToolError> {
        let none = Overlay::default();
        let mut dir = root;
        for (depth, name) in names.iter().enumerate() {
            let Some(child) = self.dir_get(&none, dir, name).await? else {
                return Ok(Some(depth));
            };
            if depth + 1 == names.len() {
                break;
            }
            if child.kind != Kind::Dir {
                return Ok(Some(depth + 1));
            }
            dir = self.subdir(&none, &child).await?;
        }
        Ok(None)
    }

    /// The leaves of the tree `root` that hold the path's names from depth `from`
    /// on, each in its directory (a branch holds only hashes).
    async fn leaves_on_path(
        &self,
        root: Hash,
        names: &[&str],
        from: usize,
    ) -> Result<Vec<Hash>, ToolError> {
        let none = Overlay::default();
        let mut out = Vec::new();
        let mut dir = root;
        for (depth, name) in names.iter().enumerate() {
            let Some((leaf, child)) = self.dir_find(&none, dir, name).await? else {
                break;
            };
            if depth >= from {
                out.push(leaf);
            }
            if depth + 1 == names.len() || child.kind != Kind::Dir {
                break;
            }
            dir = self.subdir(&none, &child).await?;
        }
        Ok(out)
    }

    /// Every tree node (leaf or branch) the tree `root` reaches, each read once.
    /// A node of `restore` (deleted, with its bytes) is written back before it is
    /// read: the tree reaches it, so it must exist.
    pub(crate) async fn tree_nodes(
        &self,
        root: Hash,
        restore: &[(Hash, Vec<u8>)],
    ) -> Result<BTreeSet<Hash>, ToolError> {
        let none = Overlay::default();
        let mut seen = BTreeSet::new();
        let mut todo = alloc::vec![root];
        while let Some(h) = todo.pop() {
            if !seen.insert(h) {
                continue;
            }
            if let Some((_, bytes)) = restore.iter().find(|(r, _)| *r == h) {
                self.store().set(&h.key(TREE), bytes).await?;
            }
            for (hash, is_tree) in self.stored(&none, h).await?.refs() {
                if is_tree {
                    todo.push(hash);
                }
            }
        }
        Ok(seen)
    }

    /// Deletes the nodes [`Engine::nodes_naming`] found (the redaction has
    /// published: its head reaches none of them), answering each one's bytes, for
    /// a writer that publishes one again meanwhile.
    pub(crate) async fn delete_nodes(
        &self,
        nodes: &[Hash],
    ) -> Result<Vec<(Hash, Vec<u8>)>, ToolError> {
        let mut deleted = Vec::new();
        for node in nodes {
            let key = node.key(TREE);
            if let Some(bytes) = self.store().get(&key).await? {
                self.store().delete(&key).await?;
                deleted.push((*node, bytes));
            }
            self.forget_node(node);
        }
        Ok(deleted)
    }
}
