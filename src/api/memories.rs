//! The memories of a store through the API: create, retrieve, update, delete and
//! list, each planned against one version of the tree like a memory-tool command
//! and published with its versions in one commit.

use alloc::boxed::Box;
use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::cmp::Ordering;

use serde_json::{Value, json};

use super::body::{Fields, Query};
use super::error::ApiError;
use super::objects::StoreIds;
use super::page::{self, PageRequest};
use super::rules;
use super::{Ctx, Outcome, View};
use crate::command::plan::{Found, store_path};
use crate::config::MAX_NESTING;
use crate::error::{LimitError, ToolError};
use crate::path::ValidPath;
use crate::secrets::{self, SecretPolicy};
use crate::storage::Engine;
use crate::storage::head::Head;
use crate::storage::overlay::Overlay;
use crate::storage::publish::Attempt;
use crate::storage::tree::{Child, Hash, Kind};
use crate::storage::versions::{Op, Slot};
use crate::store::Store;

/// A precondition of a write.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Precondition {
    ContentSha256(Hash),
    NotExists,
}

fn precondition(f: &Fields<'_>) -> Result<Option<Precondition>, ApiError> {
    let Some(p) = f.value("precondition") else {
        return Ok(None);
    };
    if p.is_null() {
        return Ok(None);
    }
    let pf =
        Fields::of(p, &["type", "content_sha256"]).map_err(|_| ApiError::precondition_shape())?;
    match pf.string("type")? {
        Some("content_sha256") => match pf.string("content_sha256")? {
            Some(h) => Ok(Some(Precondition::ContentSha256(rules::sha256_arg(
                "precondition.content_sha256",
                h,
            )?))),
            None => Err(ApiError::required("precondition.content_sha256")),
        },
        Some("not_exists") => Ok(Some(Precondition::NotExists)),
        Some(t) => Err(ApiError::precondition_type(t)),
        None => Err(ApiError::required("precondition.type")),
    }
}

/// Content from a body field: a string (`null` or absent: `None`), within the
/// store's per-file limit, screened by its secret policy.
fn content_arg(
    f: &Fields<'_>,
    max: usize,
    policy: SecretPolicy,
) -> Result<Option<String>, ApiError> {
    let Some(text) = f.nullable_string("content")? else {
        return Ok(None);
    };
    if text.len() > max {
        return Err(ApiError::content_too_large(max, text.len()));
    }
    if policy == SecretPolicy::Allow {
        return Ok(Some(text.into()));
    }
    let found = secrets::find(text);
    match found.first() {
        None => Ok(Some(text.into())),
        Some(first) if policy == SecretPolicy::Refuse => Err(ApiError::credential(first.kind)),
        Some(_) => Ok(Some(secrets::redact(text, &found))),
    }
}

/// The memory-tool path of a store path argument.
fn path_arg(f: &Fields<'_>) -> Result<Option<(String, ValidPath)>, ApiError> {
    match f.nullable_string("path")? {
        None => Ok(None),
        Some(p) => Ok(Some((p.into(), rules::store_path(p)?))),
    }
}

fn archived(ctx: &Ctx) -> Result<(), ApiError> {
    match ctx.head.store.as_ref().and_then(|m| m.archived_at) {
        Some(_) => Err(ApiError::archived()),
        None => Ok(()),
    }
}

/// What blocks a new memory at `path`, as the conflict error.
fn conflict(ids: &StoreIds, path: &str, blocker_path: &str, blocker: &Child) -> ApiError {
    let is_file = blocker.kind == Kind::File;
    let memory_id = if is_file && blocker.mem != 0 {
        ids.memory_id(blocker.mem)
    } else {
        String::new()
    };
    ApiError::conflict(path, blocker_path, memory_id, is_file)
}

impl<S: Store> Engine<S> {
    /// Why nothing can be made at `path` in the tree at `root`, if something is there.
    /// `moving`: the memory's own path when it moves to `path`; it leaves that path
    /// in the same commit, so it never blocks itself (onto `/d` from `/d/a.md`, the
    /// directory `/d` may be there only because of it, and from `/d` to `/d/a.md`
    /// the file above is the memory itself).
    async fn blocker(
        &self,
        overlay: &Overlay,
        root: Hash,
        ids: &StoreIds,
        path: &ValidPath,
        moving: Option<&ValidPath>,
    ) -> Result<Option<ApiError>, ToolError> {
        let sp = store_path(path);
        let own = moving.map(store_path);
        match self.lookup(overlay, root, path).await? {
            Found::Missing => Ok(None),
            Found::Root => Ok(Some(conflict(
                ids,
                sp,
                "/",
                &Child::plain(Kind::Dir, root, 0, 0),
            ))),
            // Paths conflict only with memories: a directory with no file beneath
            // it gives way (the new memory replaces it); one holding files names
            // the first of them, so a client is told which memory blocks.
            Found::Entry(c) if c.kind == Kind::Dir => {
                match self.first_file_beneath(overlay, sp, &c, own).await? {
                    None => Ok(None),
                    Some((at, file)) => Ok(Some(conflict(ids, sp, &at, &file))),
                }
            }
            Found::Entry(c) => Ok(Some(conflict(ids, sp, sp, &c))),
            Found::UnderFile(depth) => {
                let above = path.ancestor(depth);
                if moving == Some(&above) {
                    return Ok(None);
                }
                match self.lookup(overlay, root, &above).await? {
                    Found::Entry(c) => Ok(Some(conflict(ids, sp, store_path(&above), &c))),
                    _ => Err(ToolError::Damaged),
                }
            }
        }
    }

    /// The first file at or beneath the directory `dir` (at store path `path`), in
    /// tree order, other than the one at store path `except`. Each directory node is
    /// read once however often a tree names it, so a stored tree that repeats one
    /// empty directory costs one read, not one per place it is named.
    async fn first_file_beneath(
        &self,
        overlay: &Overlay,
        path: &str,
        dir: &Child,
        except: Option<&str>,
    ) -> Result<Option<(String, Child)>, ToolError> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![(String::from(path), *dir, 0usize)];
        while let Some((p, c, depth)) = todo.pop() {
            if depth > MAX_NESTING {
                return Err(ToolError::Damaged);
            }
            if c.kind == Kind::File {
                if except == Some(p.as_str()) {
                    continue;
                }
                return Ok(Some((p, c)));
            }
            let hash = self.subdir(overlay, &c).await?;
            if !seen.insert(hash) {
                continue;
            }
            let node = self.dir(overlay, hash).await?;
            // Reversed onto a stack, so they come off in order.
            for (name, grand) in node.children.iter().rev() {
                todo.push((format!("{p}/{name}"), *grand, depth + 1));
            }
        }
        Ok(None)
    }

    /// The quota of the whole store, as the memory tool has it.
    async fn within_quota(&self, overlay: &Overlay, old: Hash, new: Hash) -> Result<(), ApiError> {
        let old_total = self.stored(overlay, old).await?.size();
        let total = self.stored(overlay, new).await?.size();
        let quota = self.config().limits.max_total_bytes;
        if total > quota && total > old_total {
            return Err(ToolError::from(LimitError::OverQuota {
                path: ValidPath::root(),
                total,
                quota,
            })
            .into());
        }
        Ok(())
    }

    /// The live memory `mem` in the state `head`: its path (the memory tool's and
    /// the store's), its file and its first slot. `None`: no such memory (never
    /// made, deleted, or a number that is not a memory's).
    pub(crate) async fn find_memory(
        &self,
        head: &Head,
        mem: u64,
    ) -> Result<Option<(ValidPath, Child, Slot)>, ToolError> {
        let none = Overlay::default();
        let Some(latest) = self.latest_of(&none, head.root, &head.log, mem).await? else {
            return Ok(None);
        };
        let Some((path, file)) = latest.file else {
            return Ok(None);
        };
        let vp = rules::store_path(&path).map_err(|_| ToolError::Damaged)?;
        let first = Slot {
            head: latest.head,
            updated: latest.updated,
            ..latest.first
        };
        Ok(Some((vp, file, first)))
    }

    /// The live memory at `path` in the state `head`, by a tree lookup: the file
    /// there when it is a memory's (a directory or nothing: `None`).
    pub(crate) async fn memory_at(
        &self,
        head: &Head,
        path: &ValidPath,
    ) -> Result<Option<Child>, ToolError> {
        match self.lookup(&Overlay::default(), head.root, path).await? {
            Found::Entry(c) if c.kind == Kind::File && c.mem != 0 => Ok(Some(c)),
            _ => Ok(None),
        }
    }

    fn memory_arg(&self, ctx: &Ctx, id: Option<&str>) -> Result<u64, ApiError> {
        let id = id.unwrap_or_default();
        rules::parse_id("mem", &ctx.ids.tag, id).ok_or_else(|| ApiError::no_memory(id))
    }

    /// A memory as the API shows it in the state `head`, or `None` if it is not live.
    async fn describe_at(
        &self,
        head: &Head,
        mem: u64,
        view: View,
    ) -> Result<Option<Value>, ApiError> {
        let Some((vp, file, first)) = self.find_memory(head, mem).await? else {
            return Ok(None);
        };
        let content = match view {
            View::Full => Some(self.blob(&file).await?),
            View::Basic => None,
        };
        let ctx = Ctx::of(head, None);
        Ok(Some(ctx.ids.memory(
            store_path(&vp),
            &file,
            &first,
            content.as_deref(),
        )))
    }

    /// A memory just written, from the state published last.
    async fn describe(&self, mem: u64, view: View) -> Outcome {
        let (head, _) = self.cached_head().await?;
        self.describe_at(&head, mem, view)
            .await?
            .ok_or(ApiError::Damaged)
    }

    pub(crate) async fn memory_create(&self, ctx: &Ctx, body: &Value, q: &Query<'_>) -> Outcome {
        let view = View::of(q, View::Basic)?;
        let f = Fields::of(body, &["path", "content", "precondition"])?;
        let Some((_, vp)) = path_arg(&f)? else {
            return Err(ApiError::required("path"));
        };
        let content = content_arg(
            &f,
            self.config().limits.max_file_bytes,
            self.config().secrets,
        )?
        .unwrap_or_default();
        let pre = precondition(&f)?;
        if matches!(pre, Some(Precondition::ContentSha256(_))) {
            return Err(ApiError::create_precondition());
        }
        archived(ctx)?;
        let by = ctx.actor.clone();
        let cap = self.config().limits.max_memories;
        let made = self
            .transact(true, async |head| {
                let fresh = Ctx::of(head, None);
                if head.log.memories >= cap {
                    return Ok(Attempt::Unchanged(Err(ApiError::store_full(cap))));
                }
                let mut overlay = Overlay::on(head, self.now());
                overlay.by = by.clone();
                if let Some(blocked) = self
                    .blocker(&overlay, head.root, &fresh.ids, &vp, None)
                    .await?
                {
                    let e = match pre {
                        Some(Precondition::NotExists) => ApiError::taken(store_path(&vp)),
                        _ => blocked,
                    };
                    return Ok(Attempt::Unchanged(Err(e)));
                }
                let file = overlay.add_memory(&content, None, store_path(&vp));
                let root = self.put(&mut overlay, head.root, &vp, Some(file)).await?;
                if let Err(e) = self.within_quota(&overlay, head.root, root).await {
                    return Ok(Attempt::Unchanged(Err(e)));
                }
                Ok(Attempt::Publish {
                    overlay,
                    root,
                    summary: "api create".into(),
                    value: Ok(file.mem),
                })
            })
            .await??;
        self.describe(made, view).await
    }

    pub(crate) async fn memory_retrieve(
        &self,
        ctx: &Ctx,
        id: Option<&str>,
        q: &Query<'_>,
    ) -> Outcome {
        let view = View::of(q, View::Full)?;
        let mem = self.memory_arg(ctx, id)?;
        self.describe_at(&ctx.head, mem, view)
            .await?
            .ok_or_else(|| not_found(id))
    }

    pub(crate) async fn memory_update(
        &self,
        ctx: &Ctx,
        id: Option<&str>,
        body: &Value,
        q: &Query<'_>,
    ) -> Outcome {
        let view = View::of(q, View::Basic)?;
        let mem = self.memory_arg(ctx, id)?;
        let f = Fields::of(body, &["path", "content", "precondition"])?;
        let content = content_arg(
            &f,
            self.config().limits.max_file_bytes,
            self.config().secrets,
        )?;
        let to = path_arg(&f)?;
        let pre = precondition(&f)?;
        archived(ctx)?;
        let by = ctx.actor.clone();
        let done = self
            .transact(true, async |head| {
                let fresh = Ctx::of(head, None);
                let Some((from, file, _)) = self.find_memory(head, mem).await? else {
                    return Ok(Attempt::Unchanged(Err(not_found(id))));
                };
                let target = to.as_ref().map_or(&from, |(_, vp)| vp);
                if pre == Some(Precondition::NotExists) && *target == from {
                    return Ok(Attempt::Unchanged(Err(ApiError::exists(
                        &fresh.ids.memory_id(mem),
                    ))));
                }
                let new_hash = content.as_deref().map(|c| Hash::of(c.as_bytes()));
                let same = new_hash.is_none_or(|h| h == file.hash) && *target == from;
                if same {
                    // Nothing changes: no version, whatever the precondition says.
                    return Ok(Attempt::Unchanged(Ok(())));
                }
                if let Some(Precondition::ContentSha256(want)) = pre
                    && want != file.hash
                {
                    return Ok(Attempt::Unchanged(Err(ApiError::changed(
                        &fresh.ids.memory_id(mem),
                    ))));
                }
                let mut overlay = Overlay::on(head, self.now());
                overlay.by = by.clone();
                if *target != from
                    && let Some(blocked) = self
                        .blocker(&overlay, head.root, &fresh.ids, target, Some(&from))
                        .await?
                {
                    return Ok(Attempt::Unchanged(match pre {
                        Some(Precondition::NotExists) => Ok(()),
                        _ => Err(blocked),
                    }));
                }
                let mut next = match &content {
                    Some(text) => {
                        let mut c = overlay.add_blob(text);
                        c.mem = file.mem;
                        c.created = file.created;
                        c
                    }
                    None => file,
                };
                next.written = overlay.now;
                overlay.version(
                    mem,
                    Op::Modified,
                    store_path(target),
                    Some(&next),
                    Some(&file),
                );
                let root = self
                    .put_all(
                        &mut overlay,
                        head.root,
                        &[(&from, None), (target, Some(next))],
                    )
                    .await?;
                if let Err(e) = self.within_quota(&overlay, head.root, root).await {
                    return Ok(Attempt::Unchanged(Err(e)));
                }
                Ok(Attempt::Publish {
                    overlay,
                    root,
                    summary: "api update".into(),
                    value: Ok(()),
                })
            })
            .await?;
        done?;
        self.describe(mem, view).await
    }

    pub(crate) async fn memory_delete(
        &self,
        ctx: &Ctx,
        id: Option<&str>,
        q: &Query<'_>,
    ) -> Outcome {
        self.memory_delete_because(ctx, id, q, None).await
    }

    /// [`Engine::memory_delete`] recording `reason` in the `deleted` version (the
    /// records toolset's `memory_delete`; the API's own request takes none).
    pub(crate) async fn memory_delete_because(
        &self,
        ctx: &Ctx,
        id: Option<&str>,
        q: &Query<'_>,
        reason: Option<&str>,
    ) -> Outcome {
        let mem = self.memory_arg(ctx, id)?;
        let expected = match q.str("expected_content_sha256") {
            Some(h) => Some(rules::sha256_arg("expected_content_sha256", h)?),
            None => None,
        };
        let by = ctx.actor.clone();
        let done = self
            .transact(true, async |head| {
                let fresh = Ctx::of(head, None);
                let Some((path, file, _)) = self.find_memory(head, mem).await? else {
                    return Ok(Attempt::Unchanged(Err(not_found(id))));
                };
                if expected.is_some_and(|want| want != file.hash) {
                    return Ok(Attempt::Unchanged(Err(ApiError::changed_before_delete(
                        &fresh.ids.memory_id(mem),
                    ))));
                }
                let mut overlay = Overlay::on(head, self.now());
                overlay.by = by.clone();
                overlay.reason = reason.map(String::from);
                overlay.version(mem, Op::Deleted, store_path(&path), None, Some(&file));
                let root = self.put(&mut overlay, head.root, &path, None).await?;
                Ok(Attempt::Publish {
                    overlay,
                    root,
                    summary: "api delete".into(),
                    value: Ok(()),
                })
            })
            .await?;
        done?;
        Ok(json!({"id": ctx.ids.memory_id(mem), "type": "memory_deleted"}))
    }

    pub(crate) async fn memory_list(&self, ctx: &Ctx, q: &Query<'_>) -> Outcome {
        let view = View::of(q, View::Basic)?;
        let prefix_arg = q.str("path_prefix").unwrap_or("/");
        let prefix = rules::prefix(prefix_arg)?;
        let depth = q.int("depth", 0, u64::MAX)?.unwrap_or(0);
        let depth = if depth == 0 {
            usize::MAX
        } else {
            usize::try_from(depth).unwrap_or(usize::MAX)
        };
        let fp = page::fingerprint(&["memory.list", &ctx.ids.tag, prefix_arg, &format!("{depth}")]);
        let PageRequest { limit, after } = page::read(q, &fp, view == View::Full)?;
        let none = Overlay::default();
        let start = match &prefix {
            None => Some(ctx.head.root),
            Some(dir) => match self.lookup(&none, ctx.head.root, dir).await? {
                Found::Entry(c) if c.kind == Kind::Dir => Some(self.subdir(&none, &c).await?),
                _ => None,
            },
        };
        let base = prefix.as_ref().map_or("", |p| store_path(p));
        let after_names: Option<Vec<&str>> = after.as_deref().map(|a| {
            a.strip_prefix(base)
                .unwrap_or(a)
                .split('/')
                .skip(1)
                .collect()
        });
        let mut items = Vec::new();
        if let Some(dir) = start {
            let walk = Walk {
                depth,
                want: limit + 1,
            };
            self.walk(
                &none,
                dir,
                base,
                1,
                after_names.as_deref(),
                &walk,
                &mut items,
            )
            .await?;
        }
        let more = items.len() > limit;
        items.truncate(limit);
        let next = match (more, items.last()) {
            (true, Some(Item::Memory(p, _) | Item::Prefix(p))) => Some(page::token(&fp, p)),
            _ => None,
        };
        let mut data = Vec::with_capacity(items.len());
        for item in items {
            data.push(match item {
                Item::Prefix(p) => StoreIds::prefix(&format!("{p}/")),
                Item::Memory(p, file) => {
                    // Its newest version: its first slot's, or a later one its file names.
                    let first = self.slot(&none, &ctx.head.log, file.mem).await?;
                    let (head, updated) = crate::history::log::latest(&first, Some(&file));
                    if head > ctx.head.log.versions {
                        return Err(ApiError::Damaged);
                    }
                    let first = Slot {
                        head,
                        updated,
                        ..first
                    };
                    let content = match view {
                        View::Full => Some(self.blob(&file).await?),
                        View::Basic => None,
                    };
                    ctx.ids.memory(&p, &file, &first, content.as_deref())
                }
            });
        }
        Ok(json!({"data": data, "next_page": next}))
    }

    /// Collects, in tree order, the memories beneath `dir` (at store path `path`,
    /// `level` below the listed prefix), rolling directories at `walk.depth` into
    /// prefixes and skipping everything up to and including `after` (the names of
    /// the previous page's last item below the prefix).
    #[allow(clippy::too_many_arguments)]
    fn walk<'a>(
        &'a self,
        overlay: &'a Overlay,
        dir: Hash,
        path: &'a str,
        level: usize,
        after: Option<&'a [&'a str]>,
        walk: &'a Walk,
        out: &'a mut Vec<Item>,
    ) -> core::pin::Pin<Box<dyn core::future::Future<Output = Result<(), ApiError>> + 'a>> {
        Box::pin(async move {
            if level > MAX_NESTING {
                return Err(ApiError::Damaged);
            }
            let node = self.dir(overlay, dir).await?;
            let (first, rest) = match after {
                Some([first, rest @ ..]) => (Some(*first), rest),
                _ => (None, &[][..]),
            };
            for (name, child) in &node.children {
                if out.len() >= walk.want {
                    return Ok(());
                }
                let resume = match first.map(|f| name.as_bytes().cmp(f.as_bytes())) {
                    Some(Ordering::Less) => continue,
                    Some(Ordering::Equal) if rest.is_empty() => continue,
                    Some(Ordering::Equal) => Some(rest),
                    _ => None,
                };
                let p = format!("{path}/{name}");
                match child.kind {
                    Kind::File if child.mem != 0 && resume.is_none() => {
                        out.push(Item::Memory(p, *child));
                    }
                    Kind::File => {}
                    Kind::Dir if level >= walk.depth => {
                        if resume.is_none() && self.holds_memory(overlay, child).await? {
                            out.push(Item::Prefix(p));
                        }
                    }
                    Kind::Dir => {
                        let sub = self.subdir(overlay, child).await?;
                        self.walk(overlay, sub, &p, level + 1, resume, walk, out)
                            .await?;
                    }
                }
            }
            Ok(())
        })
    }

    /// True if a memory lives at or beneath `child`: a walk that stops at the
    /// first one (a directory's first file usually is).
    async fn holds_memory(&self, overlay: &Overlay, child: &Child) -> Result<bool, ApiError> {
        let all_plain = self
            .walk_files(overlay, "", child, |_, c| c.mem == 0)
            .await?;
        Ok(!all_plain)
    }
}

fn not_found(id: Option<&str>) -> ApiError {
    ApiError::no_memory(id.unwrap_or_default())
}

pub(crate) struct Walk {
    depth: usize,
    want: usize,
}

pub(crate) enum Item {
    Memory(String, Child),
    Prefix(String),
}
