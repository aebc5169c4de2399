//! The memory-store toolset: `memory_list`, `memory_search`,
//! `memory_read`, `memory_write`, `memory_edit` and `memory_delete`, as the model
//! calls them, over the Memory Stores API's own operations (`src/api/memories.rs`,
//! `search.rs`), so a toolset write records the same versions an API write does.
//!
//! Inputs name store paths (`/notes/a.md`); `prefix` is where the store is
//! mounted for the model (`/team`, or `""`), and every path an answer shows,
//! error or not, carries it. Answers are short plain text, the same for the same
//! state; a paged answer says how to ask for the next page. [`tools::TOOLS`] holds
//! the names, descriptions and schemas, [`error`] every failure's text.

mod answer;
pub(crate) mod error;
pub(crate) mod tools;

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde_json::{Value, json};

use crate::api::Ctx;
use crate::api::body::Query;
use crate::api::error::ApiError;
use crate::api::rules;
use crate::command::lines;
use crate::command::plan::Found;
use crate::command::render::Numbering;
use crate::error::ToolError;
use crate::path::ValidPath;
use crate::search::error::SearchError;
use crate::storage::Engine;
use crate::storage::head::Head;
use crate::storage::overlay::Overlay;
use crate::storage::tree::{Child, Hash, Kind};
use crate::storage::versions::Actor;
use crate::store::Store;

use error::ToolsetError;
pub use tools::{TOOLS, Tool, definitions_json};

use crate::config::TOOLSET_ATTEMPTS as ATTEMPTS;
use crate::config::{LIST_PAGE, SEARCH_PAGE};

type Answer = Result<String, ToolsetError>;

impl From<ToolError> for ToolsetError {
    fn from(e: ToolError) -> ToolsetError {
        ToolsetError::Failed(ApiError::from(e))
    }
}

static NULL: Value = Value::Null;

/// `v[k]`, or `null`.
fn at<'a>(v: &'a Value, k: &str) -> &'a Value {
    v.get(k).unwrap_or(&NULL)
}

/// A string field of an input the schema has passed (`null` reads as absent).
fn text<'a>(input: &'a Value, name: &str) -> Option<&'a str> {
    input.get(name).and_then(Value::as_str)
}

/// A tool input in JSON text, or the refusal of text that is not JSON, worded for
/// the tool it was for.
pub fn parse_input(name: &str, input: &str) -> Result<Value, ToolsetError> {
    crate::json::from_text::<Value>(input).map_err(|_| match tools::tool(name) {
        None => ToolsetError::UnknownTool(name.into()),
        Some(t) => ToolsetError::input_not_json(t.name),
    })
}

/// Where the store is mounted for the model (every path shown starts with it),
/// and on whose behalf the call writes (`None`: the configured actor).
struct Mount<'a>(&'a str, Option<&'a Actor>);

impl Mount<'_> {
    fn show(&self, store_path: &str) -> String {
        format!("{}{store_path}", self.0)
    }

    /// The request context of a write planned on `head`, naming this call's actor.
    fn ctx(&self, head: &Head) -> Ctx {
        Ctx::of(head, self.1.cloned())
    }

    /// The document path `input.path`: the memory tool's path and the path shown.
    fn path(&self, input: &Value) -> Result<(ValidPath, String), ToolsetError> {
        let p = text(input, "path").unwrap_or_default();
        let shown = self.show(p);
        let vp = rules::store_path_as(p, &shown).map_err(|e| ToolsetError::Path(format!("{e}")))?;
        Ok((vp, shown))
    }

    /// `input.path_prefix` as the API's `path_prefix` (`/` or `/dir/`), and as
    /// shown. The trailing `/` may be left out: a prefix names a directory.
    fn prefix(&self, input: &Value) -> Result<(String, String), ToolsetError> {
        let p = text(input, "path_prefix").unwrap_or("/");
        if p == "/" {
            return Ok((p.into(), self.show(p)));
        }
        let dir = p.strip_suffix('/').unwrap_or(p);
        rules::store_path_as(dir, &self.show(p)).map_err(|e| ToolsetError::Path(format!("{e}")))?;
        let arg = format!("{dir}/");
        let shown = self.show(&arg);
        Ok((arg, shown))
    }
}

/// A `content_sha256` input as a hash, or the input error naming it.
/// `memory_search`'s answer: `hits` (each path as shown), best first, numbered
/// lines under each; `next`, the token of the page after.
pub(crate) fn found_text(hits: &[Value], next: Option<&str>, shown: &str, query: &str) -> String {
    let mut found = Numbering::new(answer::found(hits.len(), next.is_some(), shown, query), 1);
    for hit in hits {
        found.push_text("\n");
        let score = at(hit, "score").as_f64().unwrap_or_default();
        found.push_text(&answer::found_document(
            at(hit, "path").as_str().unwrap_or_default(),
            score,
        ));
        for line in at(hit, "matches")
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
        {
            let n = at(line, "line_number").as_u64().unwrap_or_default();
            found.jump(usize::try_from(n).unwrap_or_default());
            found.push(
                false,
                at(line, "text").as_str().unwrap_or_default().as_bytes(),
            );
        }
    }
    let mut out = found.finish();
    if let Some(next) = next {
        answer::more_found(&mut out, next);
    }
    out
}

pub(crate) use answer::more_in_stores;

fn sha_arg(tool: &'static str, input: &Value) -> Result<Option<Hash>, ToolsetError> {
    match text(input, "content_sha256") {
        None => Ok(None),
        Some(h) => rules::sha256_arg("content_sha256", h)
            .map(Some)
            .map_err(|e| ToolsetError::input(tool, "content_sha256", format!("{e}"))),
    }
}

/// The inputs of memory_list and memory_search the API judges by name.
const QUERY_FIELDS: [&str; 6] = ["query", "path_prefix", "page", "depth", "mode", "min_score"];

/// An API refusal of a list or search request: its input is at fault (the API's
/// words begin with the field they judge: `query`, `page`), or a semantic
/// search's refusal that names no field (a store too big for the exact scan), or
/// the embedder failing: told in the engine's words.
fn query_error(tool: &'static str, e: ApiError) -> ToolsetError {
    match e {
        ApiError::Invalid(m) => {
            let field = m.split(' ').next().unwrap_or_default();
            if QUERY_FIELDS.contains(&field) {
                // A search's sentence ends in a stop; the toolset's frame adds one.
                let problem = m.strip_suffix('.').unwrap_or(&m);
                ToolsetError::input(tool, field, problem.into())
            } else {
                ToolsetError::Refused(m)
            }
        }
        ApiError::Embedder(m) => ToolsetError::Refused(m),
        other => ToolsetError::Failed(other),
    }
}

/// A search option refused by [`crate::search::mode_options`], as the input
/// error naming it (its sentence without the closing stop: the toolset adds one).
fn search_input(e: SearchError) -> ToolsetError {
    let field = match e {
        SearchError::Mode => "mode",
        _ => "min_score",
    };
    let text = format!("{e}");
    let problem = text.strip_suffix('.').unwrap_or(&text);
    ToolsetError::input("memory_search", field, problem.into())
}

/// An API refusal of a write to `shown`, in the toolset's words.
fn write_error(m: &Mount<'_>, shown: &str, e: ApiError) -> ToolsetError {
    match e {
        ApiError::Invalid(text) => ToolsetError::Refused(text),
        ApiError::NotFound(_) => ToolsetError::NotFound(shown.into()),
        ApiError::PathConflict {
            path, memory_id, ..
        } => {
            let blocker = m.show(&path);
            if blocker
                .strip_prefix(shown)
                .is_some_and(|rest| rest.starts_with('/'))
            {
                return ToolsetError::Holds {
                    path: shown.into(),
                    inside: blocker,
                    what: if memory_id.is_empty() {
                        "the file"
                    } else {
                        "the document"
                    },
                };
            }
            let what = if !memory_id.is_empty() {
                "a document"
            } else if blocker == shown {
                "a directory"
            } else {
                "a file"
            };
            ToolsetError::Conflict {
                path: shown.into(),
                blocker,
                what,
            }
        }
        other => ToolsetError::Failed(other),
    }
}

fn archived(head: &Head) -> Result<(), ToolsetError> {
    match head.store.as_ref().and_then(|s| s.archived_at) {
        Some(_) => Err(ToolsetError::Archived),
        None => Ok(()),
    }
}

impl<S: Store> Engine<S> {
    /// The toolset face: runs tool `name` on `input` (a JSON value) over this
    /// store mounted at `prefix` (`""` for a single store; no trailing `/`).
    /// Answers the text the model reads, or the error whose `Display` is it.
    pub async fn toolset(&self, prefix: &str, name: &str, input: &Value) -> Answer {
        self.toolset_by(prefix, name, input, None).await
    }

    /// [`Engine::toolset`] on behalf of `by` (`None`: the configured actor, as a
    /// session): the versions its writes make name it (see [`Engine::run_by`]).
    pub async fn toolset_by(
        &self,
        prefix: &str,
        name: &str,
        input: &Value,
        by: Option<&Actor>,
    ) -> Answer {
        let answer = self.toolset_answer(prefix, name, input, by).await;
        if answer.is_err() {
            self.forget_head();
        }
        answer
    }

    /// [`Engine::toolset`] for an input still in JSON text.
    pub async fn toolset_json(&self, prefix: &str, name: &str, input: &str) -> Answer {
        self.toolset(prefix, name, &parse_input(name, input)?).await
    }

    async fn toolset_answer(
        &self,
        prefix: &str,
        name: &str,
        input: &Value,
        by: Option<&Actor>,
    ) -> Answer {
        let tool = tools::tool(name).ok_or_else(|| ToolsetError::UnknownTool(name.into()))?;
        tools::check(tool, input)?;
        let m = Mount(prefix.strip_suffix('/').unwrap_or(prefix), by);
        match tool.name {
            "memory_list" => self.tool_list(&m, input).await,
            "memory_search" => self.tool_search(&m, input).await,
            "memory_read" => self.tool_read(&m, input).await,
            "memory_write" => self.tool_write(&m, input).await,
            "memory_edit" => self.tool_edit(&m, input).await,
            "memory_delete" => self.tool_delete(&m, input).await,
            _ => Err(ToolsetError::UnknownTool(name.into())),
        }
    }

    /// Why there is no document at `path`: nothing, or a directory.
    async fn missing(&self, head: &Head, path: &ValidPath, shown: String) -> ToolsetError {
        match self.lookup(&Overlay::default(), head.root, path).await {
            Ok(Found::Entry(c)) if c.kind == Kind::Dir => ToolsetError::Directory(shown),
            Ok(_) => ToolsetError::NotFound(shown),
            Err(e) => e.into(),
        }
    }

    /// The fresh state and the live document at `path` in it.
    async fn document(
        &self,
        m: &Mount<'_>,
        path: &ValidPath,
        shown: &str,
    ) -> Result<(Head, Ctx, Child), ToolsetError> {
        let head = self.read_head().await?;
        match self.memory_at(&head, path).await? {
            Some(file) => {
                let ctx = m.ctx(&head);
                Ok((head, ctx, file))
            }
            None => Err(self.missing(&head, path, shown.into()).await),
        }
    }

    async fn tool_list(&self, m: &Mount<'_>, input: &Value) -> Answer {
        let (prefix, shown) = m.prefix(input)?;
        let mut q = BTreeMap::new();
        q.insert("path_prefix".into(), prefix);
        q.insert("limit".into(), format!("{LIST_PAGE}"));
        if let Some(d) = input.get("depth").and_then(Value::as_u64) {
            q.insert("depth".into(), format!("{d}"));
        }
        if let Some(p) = text(input, "page") {
            q.insert("page".into(), p.into());
        }
        let head = self.read_head().await?;
        let page = self
            .memory_list(&Ctx::of(&head, None), &Query(&q))
            .await
            .map_err(|e| query_error("memory_list", e))?;
        let items = at(&page, "data")
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default();
        if items.is_empty() && at(&page, "next_page").is_null() {
            return Ok(answer::no_documents(&shown));
        }
        let mut out = answer::documents(&shown);
        for item in items {
            let path = m.show(at(item, "path").as_str().unwrap_or_default());
            if item["type"] == "memory_prefix" {
                answer::directory_row(&mut out, &path);
            } else {
                let size = at(item, "content_size_bytes").as_u64().unwrap_or_default();
                answer::document_row(&mut out, &path, size);
            }
        }
        if let Some(next) = at(&page, "next_page").as_str() {
            answer::more_documents(&mut out, next);
        }
        Ok(out)
    }

    async fn tool_search(&self, m: &Mount<'_>, input: &Value) -> Answer {
        let query = text(input, "query").unwrap_or_default();
        let (_, shown) = m.prefix(input)?;
        let (hits, next) = self.search_page(m.0, input).await?;
        Ok(found_text(&hits, next.as_deref(), &shown, query))
    }

    /// One page of `memory_search` as its hits, each path shown under `prefix`
    /// (a mount's `/<name>`), best first, and the next page's token.
    pub async fn search_page(
        &self,
        prefix: &str,
        input: &Value,
    ) -> Result<(Vec<Value>, Option<String>), ToolsetError> {
        let m = Mount(prefix, None);
        let query = text(input, "query").unwrap_or_default();
        let (path_prefix, _) = m.prefix(input)?;
        let mut q = BTreeMap::new();
        q.insert("query".into(), query.into());
        q.insert("path_prefix".into(), path_prefix);
        q.insert("limit".into(), format!("{SEARCH_PAGE}"));
        if let Some(p) = text(input, "page") {
            q.insert("page".into(), p.into());
        }
        let (mode, min_score) = crate::search::mode_options(input).map_err(search_input)?;
        if let Some(mode) = mode {
            q.insert("mode".into(), mode.as_str().into());
        }
        if let Some(min) = min_score {
            q.insert("min_score".into(), format!("{min}"));
        }
        let head = self.read_head().await?;
        let page = self
            .memory_search(&Ctx::of(&head, None), &Query(&q))
            .await
            .map_err(|e| query_error("memory_search", e))?;
        let mut hits = at(&page, "data").as_array().cloned().unwrap_or_default();
        for hit in &mut hits {
            let shown = m.show(at(hit, "path").as_str().unwrap_or_default());
            if let Some(map) = hit.as_object_mut() {
                map.insert("path".into(), Value::from(shown));
            }
        }
        let next = at(&page, "next_page").as_str().map(String::from);
        Ok((hits, next))
    }

    async fn tool_read(&self, m: &Mount<'_>, input: &Value) -> Answer {
        let (path, shown) = m.path(input)?;
        let (_, _, file) = self.document(m, &path, &shown).await?;
        let content = self.blob(&file).await?;
        Ok(answer::document(&shown, file.size, &file.hash, &content))
    }

    async fn tool_write(&self, m: &Mount<'_>, input: &Value) -> Answer {
        let (path, shown) = m.path(input)?;
        let store_path = text(input, "path").unwrap_or_default();
        let content = text(input, "content").unwrap_or_default();
        let create_only = input.get("create_only").and_then(Value::as_bool) == Some(true);
        let none = BTreeMap::new();
        for _ in 0..ATTEMPTS {
            let head = self.read_head().await?;
            archived(&head)?;
            let ctx = m.ctx(&head);
            match self.memory_at(&head, &path).await? {
                Some(_) if create_only => return Err(ToolsetError::Exists(shown)),
                Some(file) => {
                    let id = ctx.ids.memory_id(file.mem);
                    let body = json!({ "content": content });
                    match self
                        .memory_update(&ctx, Some(&id), &body, &Query(&none))
                        .await
                    {
                        Ok(v) => {
                            return Ok(answer::written(
                                "Overwrote",
                                &shown,
                                content,
                                Some(file.hash),
                                &v,
                            ));
                        }
                        // Deleted since it was looked up: write it anew.
                        Err(ApiError::NotFound(_)) => {}
                        Err(e) => return Err(write_error(m, &shown, e)),
                    }
                }
                None => {
                    let precondition = create_only.then(|| json!({ "type": "not_exists" }));
                    let body = json!({ "path": store_path, "content": content, "precondition": precondition });
                    match self.memory_create(&ctx, &body, &Query(&none)).await {
                        Ok(v) => return Ok(answer::written("Created", &shown, content, None, &v)),
                        Err(ApiError::Precondition(_)) => return Err(ToolsetError::Exists(shown)),
                        // Made since it was looked up: overwrite it.
                        Err(ApiError::PathConflict {
                            path: at,
                            memory_id,
                            ..
                        }) if at == store_path && !memory_id.is_empty() => {}
                        Err(e) => return Err(write_error(m, &shown, e)),
                    }
                }
            }
        }
        Err(ToolsetError::Failed(ApiError::Busy))
    }

    async fn tool_edit(&self, m: &Mount<'_>, input: &Value) -> Answer {
        let (path, shown) = m.path(input)?;
        let old = text(input, "old_str").unwrap_or_default();
        let new = text(input, "new_str").unwrap_or_default();
        let expected = sha_arg("memory_edit", input)?;
        let none = BTreeMap::new();
        for _ in 0..ATTEMPTS {
            let (head, ctx, file) = self.document(m, &path, &shown).await?;
            archived(&head)?;
            if expected.is_some_and(|want| want != file.hash) {
                return Err(ToolsetError::Changed {
                    path: shown,
                    now: file.hash.hex(),
                });
            }
            let content = self.blob(&file).await?;
            let found = lines::occurrences(&content, old);
            let at = match found.as_slice() {
                [] => return Err(ToolsetError::NoMatch(shown)),
                [at] => *at,
                many => {
                    let mut on = lines::lines_of(&content, many);
                    on.dedup();
                    return Err(ToolsetError::ManyMatches {
                        path: shown,
                        count: many.len(),
                        lines: on,
                    });
                }
            };
            let mut edited = String::with_capacity(content.len() + new.len());
            edited.push_str(content.get(..at).unwrap_or_default());
            edited.push_str(new);
            edited.push_str(content.get(at + old.len()..).unwrap_or_default());
            // The hash just read guards the write: a change made in between starts
            // the edit over (and then fails a given content_sha256).
            let body = json!({
                "content": edited,
                "precondition": {"type": "content_sha256", "content_sha256": file.hash.hex()},
            });
            let id = ctx.ids.memory_id(file.mem);
            match self
                .memory_update(&ctx, Some(&id), &body, &Query(&none))
                .await
            {
                Ok(v) => {
                    return Ok(answer::written(
                        "Edited",
                        &shown,
                        &edited,
                        Some(file.hash),
                        &v,
                    ));
                }
                Err(ApiError::Precondition(_) | ApiError::NotFound(_)) => {}
                Err(e) => return Err(write_error(m, &shown, e)),
            }
        }
        Err(ToolsetError::Failed(ApiError::Busy))
    }

    async fn tool_delete(&self, m: &Mount<'_>, input: &Value) -> Answer {
        let (path, shown) = m.path(input)?;
        let expected = sha_arg("memory_delete", input)?;
        for _ in 0..ATTEMPTS {
            let (_, ctx, file) = self.document(m, &path, &shown).await?;
            if expected.is_some_and(|want| want != file.hash) {
                return Err(ToolsetError::Changed {
                    path: shown,
                    now: file.hash.hex(),
                });
            }
            // Deletes what was just looked at, or starts over.
            let mut q = BTreeMap::new();
            q.insert("expected_content_sha256".into(), file.hash.hex());
            let id = ctx.ids.memory_id(file.mem);
            match self.memory_delete(&ctx, Some(&id), &Query(&q)).await {
                Ok(_) => return Ok(answer::deleted(&shown)),
                Err(ApiError::Precondition(_) | ApiError::NotFound(_)) => {}
                Err(e) => return Err(write_error(m, &shown, e)),
            }
        }
        Err(ToolsetError::Failed(ApiError::Busy))
    }
}
