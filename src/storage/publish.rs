//! Publishing a change: write its new objects and a commit, then move the head with
//! one compare-and-swap. Every change of the tree (the six commands' writes, import,
//! expire) goes through [`Engine::transact`], the one retry loop: on a lost race it
//! waits on the runtime's backoff, re-reads the head and plans again, a bounded
//! number of times.

use alloc::string::String;

use crate::error::{Refusal, ToolError};
use crate::storage::Engine;
use crate::storage::head::{Head, Published};
use crate::storage::overlay::Overlay;
use crate::storage::tree::{COMMIT, Commit, HEAD, Hash};
use crate::store::Store;

/// What one attempt at a change decided, against one version of the tree.
// One per attempt, moved once into `transact`: boxing the overlay would only add
// an allocation to every command.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Attempt<T> {
    /// Publish `root` (reaching the overlay's new objects), then answer `value`.
    Publish {
        overlay: Overlay,
        root: Hash,
        summary: String,
        value: T,
    },
    /// Nothing to write: answer `value`.
    Unchanged(T),
}

impl<S: Store> Engine<S> {
    /// Runs a change to completion. With `from_cache`, the first attempt plans
    /// against the head this engine last saw (an uncontended command then costs one
    /// round trip); an answer that depends on the tree (a refusal, a limit) is
    /// confirmed against a fresh read of the head before it is given.
    pub(crate) async fn transact<T>(
        &self,
        from_cache: bool,
        mut attempt: impl AsyncFnMut(&Head) -> Result<Attempt<T>, ToolError>,
    ) -> Result<T, ToolError> {
        let (mut head, mut verified) = if from_cache {
            self.cached_head().await?
        } else {
            (self.read_head().await?, true)
        };
        let mut lost = 0;
        for _ in 0..=self.config.max_retries {
            match attempt(&head).await {
                // A refusal planned on a head this engine had cached, or an object
                // of the state planned on missing (a redaction, or gc, deleted it
                // from a tree no longer the head's after the attempt read that
                // head): if the head has moved, plan on the new one.
                Err(e) if (!verified && e.depends_on_tree()) || matches!(e, ToolError::Damaged) => {
                    let now = self.read_head().await?;
                    if now == head {
                        return Err(e);
                    }
                    head = now;
                }
                Err(e) => return Err(e),
                Ok(Attempt::Unchanged(value)) => return Ok(value),
                Ok(Attempt::Publish {
                    mut overlay,
                    root,
                    summary,
                    value,
                }) => {
                    self.seal_log(&mut overlay, &head).await?;
                    if self.publish(&overlay, &head, root, summary).await? {
                        return Ok(value);
                    }
                    lost += 1;
                    if let Some(backoff) = &self.backoff {
                        backoff(lost).await;
                    }
                    head = self.read_head().await?;
                }
            }
            verified = true;
        }
        Err(ToolError::Busy)
    }

    /// Writes the new objects and a commit, then moves the head if it still is
    /// `head`. `Ok(false)`: another writer moved it first; nothing is visible.
    async fn publish(
        &self,
        overlay: &Overlay,
        head: &Head,
        root: Hash,
        summary: String,
    ) -> Result<bool, ToolError> {
        // Every commit passes here: a read-only store is never written, whichever
        // face's check was missed.
        if self.config.read_only {
            return Err(ToolError::Refused(Refusal::StoreReadOnly));
        }
        let (log, store) = (overlay.log_head, overlay.store.clone());
        let commit = Commit {
            root: root.hex(),
            parent: head
                .commit
                .filter(|_| !overlay.new_history)
                .map(|c| c.hex()),
            cut: head.commit.filter(|_| overlay.new_history).map(|c| c.hex()),
            time: (self.clock)(),
            actor: self.config.actor.clone(),
            command: summary,
            log: log.root.map(|h| h.hex()),
            versions: log.versions,
            memories: log.memories,
            log_fanout: log.commit_fanout(),
            store: store.as_deref().cloned(),
        };
        let commit_bytes = commit.encode();
        let commit_hash = Hash::of(&commit_bytes);
        let mut writes = overlay.writes(root);
        writes.extend(overlay.log_writes());
        writes.push((commit_hash.key(COMMIT), commit_bytes.into()));
        let new_head = commit_hash.hex();
        let swapped = self
            .store
            .commit(&writes, HEAD, head.raw.as_deref(), new_head.as_bytes())
            .await?;
        if swapped {
            for (hash, node, bytes) in overlay.stored_objects() {
                self.cache.remember_node(*hash, node.clone(), bytes);
            }
            for (hash, blob) in overlay.blobs() {
                self.cache.remember_blob(*hash, blob.clone());
            }
            for (hash, (node, bytes)) in &overlay.log.nodes {
                self.cache.remember_log(*hash, node.clone(), bytes.len());
            }
            for (hash, (record, bytes)) in &overlay.log.records {
                self.cache
                    .remember_record(*hash, record.clone(), bytes.len());
            }
            let published = Published {
                root,
                log,
                store: store.clone(),
            };
            self.cache
                .remember_commit(commit_hash, alloc::rc::Rc::new(published));
            self.cache.head.replace(Some(Head {
                raw: Some(new_head.into_bytes()),
                commit: Some(commit_hash),
                root,
                log,
                store,
            }));
        }
        Ok(swapped)
    }
}
