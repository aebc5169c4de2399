//! Sync between this store and a store of any Memory Stores API (memdir serve, the
//! edge example, the hosted service): after a sync both hold the same memories.
//!
//! - **Per memory, three-way.** The base is what both sides held at the last sync
//!   (`state`, kept in this store outside the tree). A memory changed on one side
//!   is copied to the other; changed on both, the texts are merged ([`merge`](mod@merge)), and
//!   edits that overlap stay, both, between conflict markers. An edit beats a
//!   delete. Memories are followed by id, so a rename on one side and an edit on
//!   the other are one memory; two different renames take the remote's path.
//! - **Only the documented API** ([`wire`]): every remote update or delete carries
//!   the base's `content_sha256` precondition, and a 409 (the memory moved on, or a
//!   path is taken) makes the sync list both sides again and settle what changed,
//!   at most [`SYNC_MAX_PASSES`] times.
//! - **Crash-safe and idempotent**: a run stopped after any request and run again
//!   converges with no duplicate (memories made on both sides at one path are
//!   joined, not copied) and no new version when nothing changed; a merge about to
//!   be written is recorded first, so a run stopped between its two writes
//!   finishes it rather than merging it with itself.
//!
//! The engine makes the calls; the host only carries them ([`Remote`]). The local
//! side is this engine's own Memory Stores API.

pub(crate) mod error;
pub mod merge;
mod state;
mod summary;
pub mod wire;

pub use error::Side;
use error::SyncError;
pub use summary::Summary;

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde_json::Value;

use crate::api::Response;
use crate::config::SYNC_MAX_PASSES;
use crate::storage::Engine;
use crate::store::Store;
use merge::{Merged, merge};
use state::{Pair, Pending, State, path_sha256};
use wire::Info;

/// The remote store, as the host reaches it.
#[allow(async_fn_in_trait)] // fetch-backed remotes are !Send; callers pick their executor.
pub trait Remote {
    /// Sends `request` (built by [`wire`]; [`wire::http`] spells it in HTTP) and
    /// gives the answer's status and JSON body, or `Err` when no answer came.
    async fn call(&self, request: &Value) -> Result<Response, Unreachable>;
}

/// No answer came from the remote (the connection failed or was cut).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unreachable;

/// The key of the sync record for the remote store named `remote`.
fn state_key(remote: &str) -> String {
    format!("sync/{}", wire::sha256_hex(remote))
}

impl<S: Store> Engine<S> {
    /// Syncs this store with `remote`, named `name` (its URL and store id: the
    /// sync record is kept per name).
    ///
    /// A store mounted read-only, or archived, is refused before anything is sent
    /// or written: a sync writes to both stores (its record here, and whatever
    /// either side lacks), and stopping at the first refused write would already
    /// have pushed this store's memories out and written its record.
    pub async fn sync(&self, remote: &impl Remote, name: &str) -> Result<Summary, SyncError> {
        if self.config().read_only {
            return Err(SyncError::ReadOnly);
        }
        let head = self.read_head().await.map_err(|_| SyncError::Storage)?;
        if head.store.as_ref().is_some_and(|m| m.archived_at.is_some()) {
            return Err(SyncError::Archived);
        }
        let key = state_key(name);
        let max = self.config().limits.max_memories;
        let state = match self
            .store()
            .get(&key)
            .await
            .map_err(|_| SyncError::Storage)?
        {
            Some(bytes) => State::decode(&bytes, max)?,
            None => State::default(),
        };
        let mut run = Run {
            engine: self,
            remote,
            key,
            saved: state.clone(),
            state,
            summary: Summary::default(),
            again: None,
            taken: BTreeSet::new(),
            gone: BTreeSet::new(),
        };
        let outcome = run.passes().await;
        // Whatever was agreed is kept, even when the sync stopped midway.
        let saved = run.save().await;
        outcome.and(saved).map(|()| run.summary)
    }
}

struct Run<'a, S, R> {
    engine: &'a Engine<S>,
    remote: &'a R,
    key: String,
    state: State,
    saved: State,
    summary: Summary,
    /// A memory this pass could not settle (a 409, or it changed while read).
    again: Option<String>,
    /// Every path either side holds (as listed this pass, and made since).
    taken: BTreeSet<String>,
    /// The memories this pass deleted, by side and id: listed, but no longer there.
    gone: BTreeSet<(Side, String)>,
}

/// A write's outcome: done (the memory as it now is), its path held by another
/// memory there, or to be tried again (the memory moved on since it was listed).
enum Wrote {
    Done(Info),
    PathTaken,
    Again,
}

impl<S: Store, R: Remote> Run<'_, S, R> {
    async fn passes(&mut self) -> Result<(), SyncError> {
        let mut unsettled = String::new();
        for _ in 0..SYNC_MAX_PASSES {
            self.summary.unchanged = 0;
            self.pass().await?;
            match self.again.take() {
                None => return Ok(()),
                Some(path) => unsettled = path,
            }
            self.save().await?;
        }
        Err(SyncError::Unsettled { path: unsettled })
    }

    async fn save(&mut self) -> Result<(), SyncError> {
        if self.state == self.saved {
            return Ok(());
        }
        self.engine
            .store()
            .set(&self.key, &self.state.encode())
            .await
            .map_err(|_| SyncError::Storage)?;
        self.saved = self.state.clone();
        Ok(())
    }

    async fn call(&self, side: Side, request: &Value) -> Result<Response, SyncError> {
        match side {
            Side::Local => Ok(self.engine.api(request).await),
            Side::Remote => {
                let r = self
                    .remote
                    .call(request)
                    .await
                    .map_err(|_| SyncError::Unreachable)?;
                // A redirect is never followed (hosts ask their fetch not to), and
                // is not the API's answer either: 0 is how a browser's fetch shows
                // one it did not follow (an opaque redirect).
                if r.status == 0 || (300..400).contains(&r.status) {
                    return Err(SyncError::Redirected);
                }
                Ok(r)
            }
        }
    }

    /// Every memory of `side`, by id.
    async fn list(&self, side: Side) -> Result<BTreeMap<String, Info>, SyncError> {
        let max = self.engine.config().limits.max_memories;
        let mut out = BTreeMap::new();
        let mut page: Option<String> = None;
        loop {
            let r = self.call(side, &wire::list(page.as_deref())).await?;
            if r.status != 200 {
                return Err(self.refused(side, "", &r));
            }
            let (items, next) = wire::page(&r.body).ok_or(SyncError::BadAnswer { side })?;
            let listed = out.len();
            for m in items {
                out.insert(m.id.clone(), m);
            }
            if u64::try_from(out.len()).unwrap_or(u64::MAX) > max {
                return Err(SyncError::TooMany { side, max });
            }
            match next {
                None => return Ok(out),
                // Each page before the last lists a memory no earlier page did, so a
                // listing ends within `max + 1` pages whatever the remote answers: an
                // empty page, or the same memories, under a fresh token each time, or
                // a token handed out twice, would otherwise page forever.
                Some(t) if out.len() > listed => page = Some(t),
                Some(_) => return Err(SyncError::BadAnswer { side }),
            }
        }
    }

    fn refused(&self, side: Side, path: &str, r: &Response) -> SyncError {
        let kind = error_type(&r.body).unwrap_or("error");
        SyncError::Refused {
            side,
            path: path.into(),
            status: r.status,
            // Only a short word from the answer: the remote's text is not shown.
            kind: kind
                .chars()
                .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
                .take(64)
                .collect(),
        }
    }

    /// The content of `m`, or None if it changed since it was listed.
    async fn content(&self, side: Side, m: &Info) -> Result<Option<String>, SyncError> {
        let r = self.call(side, &wire::retrieve(&m.id)).await?;
        match r.status {
            200 => {
                let now = wire::memory(&r.body).ok_or(SyncError::BadAnswer { side })?;
                if now.sha != m.sha {
                    return Ok(None);
                }
                wire::content(&r.body, &m.sha)
                    .map(Some)
                    .ok_or(SyncError::BadAnswer { side })
            }
            404 => Ok(None),
            _ => Err(self.refused(side, &m.path, &r)),
        }
    }

    /// The base's text: the local version the pair names, if it still holds it.
    async fn base(&self, pair: &Pair) -> Result<String, SyncError> {
        let r = self.call(Side::Local, &wire::version(&pair.base)).await?;
        Ok(if r.status == 200 {
            wire::content(&r.body, &pair.sha).unwrap_or_default()
        } else {
            String::new()
        })
    }

    /// Writes `content` (when its hash differs) and `path` (when it differs) over
    /// `m`, only if `m` is still as listed.
    async fn write(
        &mut self,
        side: Side,
        m: &Info,
        content: Option<&str>,
        path: &str,
    ) -> Result<Wrote, SyncError> {
        let content = content.filter(|c| wire::sha256_hex(c) != m.sha);
        let moved = (path != m.path).then_some(path);
        if content.is_none() && moved.is_none() {
            return Ok(Wrote::Done(m.clone()));
        }
        let r = self
            .call(side, &wire::update(&m.id, content, moved, &m.sha))
            .await?;
        self.written(side, path, &r)
    }

    async fn create(&mut self, side: Side, path: &str, content: &str) -> Result<Wrote, SyncError> {
        let r = self.call(side, &wire::create(path, content)).await?;
        self.written(side, path, &r)
    }

    fn written(&mut self, side: Side, path: &str, r: &Response) -> Result<Wrote, SyncError> {
        match r.status {
            200 => wire::memory(&r.body)
                .map(Wrote::Done)
                .ok_or(SyncError::BadAnswer { side }),
            409 if error_type(&r.body) == Some("memory_path_conflict_error") => {
                Ok(Wrote::PathTaken)
            }
            404 | 409 => {
                self.again = Some(path.into());
                Ok(Wrote::Again)
            }
            _ => Err(self.refused(side, path, r)),
        }
    }

    /// A path beside `path` that no memory of either side holds: `/n-2.md`,
    /// `/n-3.md`, … . Two different memories that want one path (made on both
    /// sides, or one renamed onto the other's) both stay, the later at such a path.
    fn free_path(&mut self, path: &str) -> String {
        let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
        let (stem, ext) = match name.rsplit_once('.') {
            Some((stem, ext)) if !stem.is_empty() => (stem, format!(".{ext}")),
            _ => (name, String::new()),
        };
        let mut n = 2u64;
        loop {
            let candidate = format!("{dir}/{stem}-{n}{ext}");
            if !self.taken.contains(&candidate) {
                self.taken.insert(candidate.clone());
                return candidate;
            }
            n += 1;
        }
    }

    /// Deletes `m` if it is still as listed; true once it is gone.
    async fn delete(&mut self, side: Side, m: &Info) -> Result<bool, SyncError> {
        let r = self.call(side, &wire::delete(&m.id, &m.sha)).await?;
        match r.status {
            200 | 404 => {
                self.gone.insert((side, m.id.clone()));
                Ok(true)
            }
            409 => {
                self.again = Some(m.path.clone());
                Ok(false)
            }
            _ => Err(self.refused(side, &m.path, &r)),
        }
    }

    async fn pass(&mut self) -> Result<(), SyncError> {
        let local = self.list(Side::Local).await?;
        let remote = self.list(Side::Remote).await?;
        // Filled by inserting, here and below: collecting into a B-tree compiles a
        // stable sort for each element type, several KiB of wasm each.
        self.taken.clear();
        self.taken.extend(
            local
                .values()
                .chain(remote.values())
                .map(|m| m.path.clone()),
        );
        self.gone.clear();
        let pairs: Vec<(String, Pair)> = self.state.pairs.clone().into_iter().collect();
        for (rid, pair) in pairs {
            let l = local.get(&pair.local);
            self.settle(&rid, pair.clone(), l, remote.get(&rid)).await?;
        }
        // Memories no pair names (and this pass did not delete): made on one side,
        // or left by an edit that beat a delete. One on each side at one path is
        // joined (merged with no base).
        let mut paired_local: BTreeSet<&String> = BTreeSet::new();
        paired_local.extend(self.state.pairs.values().map(|p| &p.local));
        let unpaired = |side: Side, m: &Info, paired: bool| {
            !paired && !self.gone.contains(&(side, m.id.clone()))
        };
        let mut remote_new: BTreeMap<String, Info> = BTreeMap::new();
        remote_new.extend(
            remote
                .values()
                .filter(|r| unpaired(Side::Remote, r, self.state.pairs.contains_key(&r.id)))
                .map(|r| (r.path.clone(), r.clone())),
        );
        let local_new: Vec<Info> = local
            .values()
            .filter(|l| unpaired(Side::Local, l, paired_local.contains(&l.id)))
            .cloned()
            .collect();
        for l in local_new {
            match remote_new.remove(&l.path) {
                Some(r) => self.join(l, r).await?,
                None => self.push_new(&l).await?,
            }
        }
        for r in remote_new.into_values() {
            self.pull_new(&r).await?;
        }
        Ok(())
    }

    async fn push_new(&mut self, l: &Info) -> Result<(), SyncError> {
        self.copy_new(Side::Local, l).await
    }

    async fn pull_new(&mut self, r: &Info) -> Result<(), SyncError> {
        self.copy_new(Side::Remote, r).await
    }

    /// Copies memory `m`, which only side `from` holds, to the other side; at a
    /// free path on both when another memory holds its path there.
    async fn copy_new(&mut self, from: Side, m: &Info) -> Result<(), SyncError> {
        let to = match from {
            Side::Local => Side::Remote,
            Side::Remote => Side::Local,
        };
        let Some(text) = self.content(from, m).await? else {
            self.again = Some(m.path.clone());
            return Ok(());
        };
        let mut copy = self.create(to, &m.path, &text).await?;
        let mut source = m.clone();
        if let Wrote::PathTaken = copy {
            let path = self.free_path(&m.path);
            match self.write(from, m, None, &path).await? {
                Wrote::Done(moved) => source = moved,
                _ => {
                    self.again = Some(m.path.clone());
                    return Ok(());
                }
            }
            copy = self.create(to, &path, &text).await?;
        }
        let Wrote::Done(copy) = copy else {
            self.again = Some(m.path.clone());
            return Ok(());
        };
        let (local, remote) = match from {
            Side::Local => (&source, &copy),
            Side::Remote => (&copy, &source),
        };
        self.agree(&remote.id, local, &source.sha, &source.path);
        match from {
            Side::Local => self.summary.pushed += 1,
            Side::Remote => self.summary.pulled += 1,
        }
        Ok(())
    }

    /// A memory at one path on both sides that no pair names: the same content is
    /// one memory; different contents are merged with no base.
    async fn join(&mut self, l: Info, r: Info) -> Result<(), SyncError> {
        if l.sha == r.sha {
            self.agree(&r.id, &l, &l.sha, &l.path);
            self.summary.unchanged += 1;
            return Ok(());
        }
        // A base no side holds (the empty text, by a version that is not its
        // text), so both count as changed and nothing of either is lost.
        let pair = Pair {
            local: l.id.clone(),
            sha: wire::sha256_hex(""),
            path_sha: path_sha256(&l.path),
            base: l.version.clone(),
            pending: None,
        };
        self.state.pairs.insert(r.id.clone(), pair.clone());
        self.settle(&r.id, pair, Some(&l), Some(&r)).await
    }

    /// Records that both sides hold the memory `local` shows (remote id `rid`).
    fn agree(&mut self, rid: &str, local: &Info, sha: &str, path: &str) {
        self.state.pairs.insert(
            rid.into(),
            Pair {
                local: local.id.clone(),
                sha: sha.into(),
                path_sha: path_sha256(path),
                base: local.version.clone(),
                pending: None,
            },
        );
    }

    async fn settle(
        &mut self,
        rid: &str,
        mut pair: Pair,
        l: Option<&Info>,
        r: Option<&Info>,
    ) -> Result<(), SyncError> {
        let changed = |m: &Info, p: &Pair| m.sha != p.sha || path_sha256(&m.path) != p.path_sha;
        let (l, r) = match (l, r) {
            (None, None) => {
                self.state.pairs.remove(rid);
                return Ok(());
            }
            // Deleted here and not changed there: delete it there.
            (None, Some(r)) if !changed(r, &pair) && pair.pending.is_none() => {
                if self.delete(Side::Remote, r).await? {
                    self.state.pairs.remove(rid);
                    self.summary.pushed += 1;
                }
                return Ok(());
            }
            (Some(l), None) if !changed(l, &pair) && pair.pending.is_none() => {
                if self.delete(Side::Local, l).await? {
                    self.state.pairs.remove(rid);
                    self.summary.pulled += 1;
                }
                return Ok(());
            }
            // Deleted on one side, changed on the other: the edit wins, and the
            // survivor is copied over as a new memory.
            (None, Some(_)) | (Some(_), None) => {
                self.state.pairs.remove(rid);
                return Ok(());
            }
            (Some(l), Some(r)) => (l, r),
        };
        if let Some(p) = pair.pending.take() {
            let finished = if p.conflict {
                Outcome::Conflict
            } else {
                Outcome::Merged
            };
            let (l_done, r_done) = (l.sha == p.merged, r.sha == p.merged);
            let (l_was, r_was) = (l.sha == p.local_was, r.sha == p.remote_was);
            if l_done && r_done {
                return self
                    .finish(rid, l, r, None, &l.path.clone(), Outcome::Unchanged)
                    .await;
            }
            if l_done && r_was {
                let Some(text) = self.content(Side::Local, l).await? else {
                    self.again = Some(l.path.clone());
                    return Ok(());
                };
                return self
                    .finish(rid, l, r, Some(&text), &l.path.clone(), finished)
                    .await;
            }
            if r_done && l_was {
                let Some(text) = self.content(Side::Remote, r).await? else {
                    self.again = Some(r.path.clone());
                    return Ok(());
                };
                return self
                    .finish(rid, l, r, Some(&text), &r.path.clone(), finished)
                    .await;
            }
            if !(l_was && r_was) {
                // Edited again after a half-written merge: merge with no base, so
                // nothing either side holds is lost.
                pair.sha = wire::sha256_hex("");
            }
        }
        let (lc, rc) = (changed(l, &pair), changed(r, &pair));
        match (lc, rc) {
            (false, false) => {
                self.summary.unchanged += 1;
                Ok(())
            }
            (true, false) => {
                let text = if l.sha == r.sha {
                    None
                } else {
                    self.content(Side::Local, l).await?
                };
                if l.sha != r.sha && text.is_none() {
                    self.again = Some(l.path.clone());
                    return Ok(());
                }
                self.finish(rid, l, r, text.as_deref(), &l.path.clone(), Outcome::Pushed)
                    .await
            }
            (false, true) => {
                let text = if l.sha == r.sha {
                    None
                } else {
                    self.content(Side::Remote, r).await?
                };
                if l.sha != r.sha && text.is_none() {
                    self.again = Some(r.path.clone());
                    return Ok(());
                }
                self.finish(rid, l, r, text.as_deref(), &r.path.clone(), Outcome::Pulled)
                    .await
            }
            (true, true) => {
                // Two renames: the remote's path; one rename: that one.
                let path = if path_sha256(&r.path) != pair.path_sha {
                    r.path.clone()
                } else {
                    l.path.clone()
                };
                if l.sha == r.sha {
                    return self
                        .finish(rid, l, r, None, &path, Outcome::Unchanged)
                        .await;
                }
                let (Some(lt), Some(rt)) = (
                    self.content(Side::Local, l).await?,
                    self.content(Side::Remote, r).await?,
                ) else {
                    self.again = Some(path);
                    return Ok(());
                };
                let base = if pair.sha == wire::sha256_hex("") {
                    String::new()
                } else {
                    self.base(&pair).await?
                };
                let merged = merge(&base, &lt, &rt);
                let outcome = match merged {
                    Merged::Clean(_) => Outcome::Merged,
                    Merged::Conflict(_) => Outcome::Conflict,
                };
                // Recorded before either write, so a stop between them is finished
                // by the next run, not merged again.
                pair.pending = Some(Pending {
                    merged: wire::sha256_hex(merged.text()),
                    local_was: l.sha.clone(),
                    remote_was: r.sha.clone(),
                    conflict: matches!(outcome, Outcome::Conflict),
                });
                self.state.pairs.insert(rid.into(), pair);
                self.save().await?;
                self.finish(rid, l, r, Some(merged.text()), &path, outcome)
                    .await
            }
        }
    }

    /// Writes `text` (None: the content stays) and `path` to whichever side lacks
    /// them, then records the agreement.
    async fn finish(
        &mut self,
        rid: &str,
        l: &Info,
        r: &Info,
        text: Option<&str>,
        path: &str,
        outcome: Outcome,
    ) -> Result<(), SyncError> {
        let (mut l, mut r, mut path) = (l.clone(), r.clone(), String::from(path));
        // At most twice: at `path`, then at a free path if another memory holds it.
        for attempt in 0..2 {
            let wrote_local = self.write(Side::Local, &l, text, &path).await?;
            let wrote_remote = match &wrote_local {
                Wrote::Done(l2) => {
                    l = l2.clone();
                    self.write(Side::Remote, &r, text, &path).await?
                }
                _ => Wrote::Again,
            };
            match (wrote_local, wrote_remote) {
                (Wrote::Done(_), Wrote::Done(r2)) => {
                    r = r2;
                    break;
                }
                (Wrote::PathTaken, _) | (_, Wrote::PathTaken) if attempt == 0 => {
                    path = self.free_path(&path);
                }
                _ => {
                    self.again = Some(path);
                    return Ok(());
                }
            }
        }
        if l.sha != r.sha || l.path != r.path {
            self.again = Some(path);
            return Ok(());
        }
        self.agree(rid, &l, &l.sha.clone(), &path);
        match outcome {
            Outcome::Unchanged => self.summary.unchanged += 1,
            Outcome::Pushed => self.summary.pushed += 1,
            Outcome::Pulled => self.summary.pulled += 1,
            Outcome::Merged => self.summary.merged += 1,
            Outcome::Conflict => self.summary.conflicts += 1,
        }
        Ok(())
    }
}

#[derive(Clone, Copy)]
enum Outcome {
    Unchanged,
    Pushed,
    Pulled,
    Merged,
    Conflict,
}

/// The `type` of an API error body.
fn error_type(body: &Value) -> Option<&str> {
    body.get("error")?.get("type")?.as_str()
}
