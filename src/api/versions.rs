//! A store's versions through the API: list (newest first, or one memory's chain),
//! retrieve, and redact.

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::vec::Vec;

use serde_json::{Value, json};

use super::body::{Fields, Query};
use super::erase::Erase;
use super::error::ApiError;
use super::page::{self, PageRequest};
use super::rules;
use super::{Ctx, Outcome, View};
use crate::config::MAX_NESTING;
use crate::error::ToolError;
use crate::history::log::Place;
use crate::storage::Engine;
use crate::storage::head::Head;
use crate::storage::overlay::Overlay;
use crate::storage::publish::Attempt;
use crate::storage::tree::{BLOB, Child, Hash, Kind};
use crate::storage::versions::{Actor, DROPPED, LogNode, Op, RECORD, Record, Slot};
use crate::store::Store;

use crate::config::MAX_VERSION_SCAN;

/// The filters of a version list.
struct Filter<'a> {
    op: Option<Op>,
    /// Actor type and id.
    actor: Option<(&'static str, &'a str)>,
    from: Option<u64>,
    to: Option<u64>,
}

impl Filter<'_> {
    fn admits(&self, r: &Record) -> bool {
        self.op.is_none_or(|op| r.op == op)
            && self.from.is_none_or(|t| r.at >= t)
            && self.to.is_none_or(|t| r.at <= t)
            && self.actor.is_none_or(|(kind, id)| {
                r.by.as_ref()
                    .is_some_and(|a| actor_kind(a) == kind && a.id() == id)
            })
    }
}

/// The answer for a version id this store does not hold (never made, of another
/// store, or dropped by retention).
fn unknown_version(id: &str) -> ApiError {
    ApiError::no_version(id)
}

fn actor_kind(a: &Actor) -> &'static str {
    match a {
        Actor::Session { .. } => "session_id",
        Actor::Api { .. } => "api_key_id",
        Actor::User { .. } => "user_id",
        Actor::ServiceAccount { .. } => "service_account_id",
    }
}

impl<S: Store> Engine<S> {
    /// The version an id names, if the log holds it (retention may have dropped it).
    async fn version_arg(&self, ctx: &Ctx, id: Option<&str>) -> Result<u64, ApiError> {
        let id = id.unwrap_or_default();
        let unknown = || unknown_version(id);
        let seq = rules::parse_id("memver", &ctx.ids.tag, id)
            .filter(|n| *n <= ctx.head.log.versions)
            .ok_or_else(unknown)?;
        let slot = self.slot(&Overlay::default(), &ctx.head.log, seq).await?;
        if slot.is_dropped() {
            return Err(unknown());
        }
        Ok(seq)
    }

    async fn version_json(
        &self,
        ctx: &Ctx,
        seq: u64,
        slot: &Slot,
        r: &Record,
        view: View,
    ) -> Outcome {
        let content = match (view, slot.blob, r.size) {
            (View::Full, Some(blob), Some(size)) => Some(self.blob_of(blob, size).await?),
            _ => None,
        };
        Ok(ctx.ids.version(seq, r, content.as_deref()))
    }

    pub(crate) async fn version_list(&self, ctx: &Ctx, q: &Query<'_>) -> Outcome {
        let view = View::of(q, View::Basic)?;
        let op = match q.str("operation") {
            None => None,
            Some(name) => match Op::from_name(name) {
                Some(op) => Some(op),
                None => {
                    return Err(ApiError::operation_filter(name));
                }
            },
        };
        let mut actor = None;
        for kind in ["session_id", "api_key_id", "user_id", "service_account_id"] {
            if let Some(id) = q.str(kind) {
                if actor.is_some() {
                    return Err(ApiError::two_actors());
                }
                actor = Some((kind, id));
            }
        }
        let filter = Filter {
            op,
            actor,
            from: q.time("created_at[gte]")?,
            to: q.time("created_at[lte]")?,
        };
        let memory = q.str("memory_id");
        let fp = page::fingerprint(&[
            "version.list",
            &ctx.ids.tag,
            memory.unwrap_or_default(),
            op.map_or("", Op::name),
            actor.map_or("", |(k, _)| k),
            actor.map_or("", |(_, id)| id),
            q.str("created_at[gte]").unwrap_or_default(),
            q.str("created_at[lte]").unwrap_or_default(),
        ]);
        let PageRequest { limit, after } = page::read(q, &fp, view == View::Full)?;
        let resume = match after.as_deref().map(str::parse::<u64>) {
            None => None,
            Some(Ok(n)) if n >= 1 && n <= ctx.head.log.versions => Some(n),
            Some(_) => return Err(ApiError::bad_page_token()),
        };
        let none = Overlay::default();
        let log = &ctx.head.log;
        // Where the walk starts: one memory's newest version, or the newest of all.
        let mut next = match memory {
            Some(id) => {
                let mem = rules::parse_id("mem", &ctx.ids.tag, id)
                    .filter(|n| *n <= log.versions)
                    .ok_or_else(|| ApiError::no_memory(id))?;
                // Its newest version (its first slot names the one that last
                // created, moved or deleted it; its file any later one).
                let Some(latest) = self.latest_of(&none, ctx.head.root, log, mem).await? else {
                    return Err(ApiError::no_memory(id));
                };
                resume.unwrap_or(latest.head)
            }
            None => resume.unwrap_or(log.versions),
        };
        let mut data = Vec::new();
        let mut read = 0;
        // A token names where to resume, and a client can change it: a position in
        // another memory's chain is a bad token, not damage.
        let mut from_token = resume.is_some();
        while next > 0 && data.len() < limit && read < MAX_VERSION_SCAN {
            read += 1;
            let slot = match self.place(&none, log, next).await? {
                Place::Slot(slot) if !slot.is_dropped() => slot,
                // Dropped by retention: a memory's older versions are older still,
                // so its chain ends here; the whole log goes on below the run.
                place => {
                    next = match (memory, place) {
                        (Some(_), _) => 0,
                        (None, Place::Pruned { first, .. }) => first - 1,
                        (None, Place::Slot(_)) => next - 1,
                    };
                    from_token = false;
                    continue;
                }
            };
            let record = self.record(&none, slot.record, next).await?;
            if let Some(id) = memory
                && ctx.ids.memory_id(record.mem) != id
            {
                if from_token {
                    return Err(ApiError::bad_page_token());
                }
                return Err(ApiError::Damaged);
            }
            from_token = false;
            if filter.admits(&record) {
                data.push(self.version_json(ctx, next, &slot, &record, view).await?);
            }
            next = match memory {
                Some(_) => record.prev,
                None => next - 1,
            };
        }
        let next_page = (next > 0).then(|| page::token(&fp, &format!("{next}")));
        Ok(json!({"data": data, "next_page": next_page}))
    }

    pub(crate) async fn version_retrieve(
        &self,
        ctx: &Ctx,
        id: Option<&str>,
        q: &Query<'_>,
    ) -> Outcome {
        let view = View::of(q, View::Full)?;
        let seq = self.version_arg(ctx, id).await?;
        let (slot, record) = self
            .version_at(&Overlay::default(), &ctx.head.log, seq)
            .await?;
        self.version_json(ctx, seq, &slot, &record, view).await
    }

    /// Redacts a version: its record is written anew without content, hash, size
    /// and path, then the old record and (unless still held elsewhere) the blob are
    /// deleted from the store. Whether the blob is held elsewhere is decided before
    /// anything is published, so damage found on the way refuses the redaction whole.
    ///
    /// The answer is the record the redaction published (or found already redacted),
    /// made before anything is erased: the store is not read again afterwards, since
    /// by then another instance's retention pass may have dropped the version, or a
    /// reader may have left this engine's head at one that still names the record
    /// just erased; either read was a false "damaged record".
    pub(crate) async fn version_redact(
        &self,
        ctx: &Ctx,
        id: Option<&str>,
        body: &Value,
    ) -> Outcome {
        Fields::of(body, &[])?;
        let seq = self.version_arg(ctx, id).await?;
        let by = ctx.actor.clone().or_else(|| self.tool_actor());
        let outcome = self
            .transact(true, async |head| {
                let fresh = super::Ctx::of(head, None);
                let mut overlay = Overlay::on(head, self.now());
                if self.slot(&overlay, &head.log, seq).await?.is_dropped() {
                    // Dropped by retention since the request read the head.
                    return Ok(Attempt::Unchanged(Err(unknown_version(
                        id.unwrap_or_default(),
                    ))));
                }
                let (slot, record) = self.version_at(&overlay, &head.log, seq).await?;
                if record.redacted_at.is_some() {
                    let answer = fresh.ids.version(seq, &record, None);
                    return Ok(Attempt::Unchanged(Ok((None, answer))));
                }
                let latest = self
                    .latest_of(&overlay, head.root, &head.log, record.mem)
                    .await?;
                let current = latest.as_ref().is_some_and(|l| l.head == seq);
                if current && record.op != Op::Deleted {
                    return Ok(Attempt::Unchanged(Err(ApiError::current_version(
                        &fresh.ids.version_id(seq),
                        &fresh.ids.memory_id(record.mem),
                    ))));
                }
                // The content to erase, and its text (to put back should another
                // writer store the same text while it is erased): none if another
                // version or a file holds it.
                let erase = match slot.blob.zip(record.size) {
                    Some((blob, size)) if !self.holds_blob(head, blob, slot.record).await? => {
                        Some((blob, self.blob_of(blob, size).await?))
                    }
                    _ => None,
                };
                // The nodes of older trees that name the version's path (leaves,
                // and what only they reach): deleted once published, with history
                // starting again at this commit.
                let nodes = match record.path.as_deref() {
                    Some(path) => self.nodes_naming(head, path, seq).await?,
                    None => Vec::new(),
                };
                overlay.new_history = !nodes.is_empty();
                let erase = Erase { blob: erase, nodes };
                let redacted = Record {
                    path: None,
                    sha: None,
                    size: None,
                    redacted_at: Some(overlay.now),
                    redacted_by: by.clone(),
                    // The reason a delete gave is the caller's text: it goes too.
                    reason: None,
                    ..(*record).clone()
                };
                let answer = fresh.ids.version(seq, &redacted, None);
                let new_record = overlay.log.add_record(redacted);
                let mut edited = Slot {
                    record: new_record,
                    blob: None,
                    ..slot
                };
                // The path the memory's first slot finds it by goes with the
                // redaction: a live memory's first slot names its newest version
                // instead (written after this one, where the memory still is).
                if let Some(l) = latest.filter(|l| l.first.head == seq && !current) {
                    let moved = Slot {
                        head: l.head,
                        updated: l.updated,
                        ..l.first
                    };
                    if record.mem == seq {
                        edited.head = moved.head;
                        edited.updated = moved.updated;
                    } else {
                        overlay.log_edit.insert(record.mem, moved);
                    }
                }
                overlay.log_edit.insert(seq, edited);
                let root = head.root;
                Ok(Attempt::Publish {
                    overlay,
                    root,
                    summary: format!("api redact {}", fresh.ids.version_id(seq)),
                    value: Ok((Some((slot.record, erase)), answer)),
                })
            })
            .await??;
        let (erased, answer) = outcome;
        if let Some((old_record, erase)) = erased {
            // Published: a failure now must not say that nothing was changed.
            self.erase_redacted(old_record, erase)
                .await
                .map_err(|_| ApiError::Unerased)?;
            // A search index behind the head may still hold the erased text's
            // terms in a chunk: caught up now, that chunk is rewritten and
            // deleted. Its failure leaves the redaction done; the next search
            // catches up the same way.
            let _ = self.refresh_index().await;
        }
        Ok(answer)
    }

    /// Deletes a redacted version's old record and, when `erase` names it, its blob.
    /// Also the tree nodes that named its path (see `erase.rs`). Each is unreachable
    /// from the redaction's head, so the store is whole after any step.
    async fn erase_redacted(&self, record: Hash, erase: Erase) -> Result<(), ToolError> {
        self.store().delete(&record.key(RECORD)).await?;
        self.forget_record(&record);
        let Erase { blob: erase, nodes } = erase;
        if erase.is_none() && nodes.is_empty() {
            return Ok(());
        }
        let (before, _) = self.cached_head().await?;
        if let Some((blob, _)) = &erase {
            // Its vectors first: an embedding can be inverted into an
            // approximation of the text, so it goes in the same step.
            self.erase_vectors(blob).await?;
            self.store().delete(&blob.key(BLOB)).await?;
            self.forget_blob(blob);
        }
        let deleted = self.delete_nodes(&nodes).await?;
        // A writer that stored the same text again (a restore in another tab), or
        // made a deleted node's bytes again, and published meanwhile needs them
        // back: their keys are ours. Nodes first: the blob's check reads the tree.
        let now = self.read_head().await?;
        if now.commit != before.commit {
            if !deleted.is_empty() {
                self.tree_nodes(now.root, &deleted).await?;
            }
            if let Some((blob, text)) = erase
                && self.holds_blob(&now, blob, record).await?
            {
                self.store().set(&blob.key(BLOB), text.as_bytes()).await?;
            }
        }
        Ok(())
    }

    /// True if a file of `head`'s tree, or a version of its log other than the one
    /// whose record is `except`, holds the content `blob`. Each distinct stored node
    /// is read once, so the cost is bounded by the bytes the store holds, never by a
    /// count it claims: a hostile log whose inner nodes all name one child costs a
    /// node per level, not a read per claimed version.
    async fn holds_blob(&self, head: &Head, blob: Hash, except: Hash) -> Result<bool, ToolError> {
        let none = Overlay::default();
        let mut seen: BTreeSet<Hash> = BTreeSet::new();
        if let Some(root) = head.log.root {
            let mut todo = alloc::vec![(root, head.log.height())];
            while let Some((hash, h)) = todo.pop() {
                if hash == DROPPED || !seen.insert(hash) {
                    continue;
                }
                match &*self.node_of_log(&none, &head.log, hash).await? {
                    LogNode::Inner(kids) if h > 0 => todo.extend(kids.iter().map(|k| (*k, h - 1))),
                    LogNode::Leaf(slots) if h == 0 => {
                        if slots
                            .iter()
                            .any(|s| s.blob == Some(blob) && s.record != except)
                        {
                            return Ok(true);
                        }
                    }
                    _ => return Err(ToolError::Damaged),
                }
            }
        }
        let size = self.stored(&none, head.root).await?.size();
        let mut todo = alloc::vec![(Child::plain(Kind::Dir, head.root, size, 0), 0usize)];
        while let Some((c, depth)) = todo.pop() {
            if depth > MAX_NESTING {
                return Err(ToolError::Damaged);
            }
            match c.kind {
                Kind::File if c.hash == blob => return Ok(true),
                Kind::File => {}
                Kind::Dir => {
                    if !seen.insert(c.hash) {
                        continue;
                    }
                    let node = self.dir(&none, self.subdir(&none, &c).await?).await?;
                    todo.extend(node.children.values().map(|grand| (*grand, depth + 1)));
                }
            }
        }
        Ok(false)
    }
}
