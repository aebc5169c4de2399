//! What a redaction erases besides the version's record and content: its path,
//! from the trees of older commits.
//!
//! A memory that was renamed or deleted still has its old path in the trees of the
//! commits made while it lived there; nothing else holds it (commit messages hold a
//! command's name, log nodes hold hashes, and the redacted record is deleted). So
//! the redaction finds, before it publishes, the leaves of those trees that hold the
//! path's last name in its directory (a branch holds only hashes), keeps those the
//! head's tree still reaches, and deletes the others right after its commit, in the
//! same call. Its commit names no parent: history starts again at it, so no walk of
//! history (gc's `keepCommits`) reaches a tree missing a leaf. The older commits
//! and the nodes only they reach hold no name: gc deletes them as ever.
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

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::vec::Vec;

use super::rules;
use crate::command::plan::Found;
use crate::config::MAX_REDACT_COMMITS;
use crate::error::ToolError;
use crate::storage::Engine;
use crate::storage::cache::Head;
use crate::storage::overlay::Overlay;
use crate::storage::tree::{COMMIT, Commit, Hash, Kind, TREE};
use crate::store::Store;

impl<S: Store> Engine<S> {
    /// The leaves of the trees of `head`'s commit and its ancestors back to the
    /// one that published version `seq` (at most [`MAX_REDACT_COMMITS`] commits)
    /// that hold a file at the store path `path`, less those `head`'s tree reaches.
    /// Empty when `head`'s tree has something at `path`: the path is in use.
    /// History unreadable from some commit on (gone to gc, or damaged) ends the
    /// walk there: what it holds is no longer reachable from the head.
    pub(crate) async fn leaves_naming(
        &self,
        head: &Head,
        path: &str,
        seq: u64,
    ) -> Result<Vec<Hash>, ToolError> {
        let none = Overlay::default();
        let vp = rules::store_path(path).map_err(|_| ToolError::Damaged)?;
        if let Found::Entry(_) = self.lookup(&none, head.root, &vp).await? {
            return Ok(Vec::new());
        }
        let names: Vec<&str> = vp.names().collect();
        let Some((last, parents)) = names.split_last() else {
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
            let Some(root) = parsed.root_hash() else {
                break;
            };
            if roots.insert(root) {
                match self.leaf_naming(root, parents, last).await {
                    Ok(Some(leaf)) => {
                        found.insert(leaf);
                    }
                    Ok(None) => {}
                    Err(ToolError::Damaged) => break,
                    Err(e) => return Err(e),
                }
            }
            commit = parsed.parent_hash();
        }
        if found.is_empty() {
            return Ok(Vec::new());
        }
        let live = self.tree_nodes(head.root, &BTreeMap::new()).await?;
        Ok(found.into_iter().filter(|h| !live.contains(h)).collect())
    }

    /// The leaf of the tree `root` holding the file `last` in the directory
    /// `parents`, if there is one.
    async fn leaf_naming(
        &self,
        root: Hash,
        parents: &[&str],
        last: &str,
    ) -> Result<Option<Hash>, ToolError> {
        let none = Overlay::default();
        let mut dir = root;
        for name in parents {
            match self.dir_get(&none, dir, name).await? {
                Some(c) if c.kind == Kind::Dir => dir = self.subdir(&none, &c).await?,
                _ => return Ok(None),
            }
        }
        Ok(match self.dir_find(&none, dir, last).await? {
            Some((leaf, c)) if c.kind == Kind::File => Some(leaf),
            _ => None,
        })
    }

    /// Every tree node (leaf or branch) the tree `root` reaches, each read once.
    /// A node of `restore` (deleted, with its bytes) is written back before it is
    /// read: the tree reaches it, so it must exist.
    pub(crate) async fn tree_nodes(
        &self,
        root: Hash,
        restore: &BTreeMap<Hash, Vec<u8>>,
    ) -> Result<BTreeSet<Hash>, ToolError> {
        let none = Overlay::default();
        let mut seen = BTreeSet::new();
        let mut todo = alloc::vec![root];
        while let Some(h) = todo.pop() {
            if !seen.insert(h) {
                continue;
            }
            if let Some(bytes) = restore.get(&h) {
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

    /// Deletes the leaves [`Engine::leaves_naming`] found (the redaction has
    /// published: its head reaches none of them), answering each one's bytes, for
    /// a writer that publishes one again meanwhile.
    pub(crate) async fn delete_leaves(
        &self,
        leaves: &[Hash],
    ) -> Result<BTreeMap<Hash, Vec<u8>>, ToolError> {
        let mut deleted = BTreeMap::new();
        for leaf in leaves {
            let key = leaf.key(TREE);
            if let Some(bytes) = self.store().get(&key).await? {
                self.store().delete(&key).await?;
                deleted.insert(*leaf, bytes);
            }
            self.forget_node(leaf);
        }
        Ok(deleted)
    }
}
