//! Searching a memory of one store or several: the memory tool's users' faces
//! (`memory.search`, `memory.recall`, the `memory_find` client tool, `memdir
//! search`) over every store mounted, with memory-tool paths (`/memories/…`,
//! `/memories/<mount>/…` beside others).
//!
//! Each store ranks its own memories (its own index, `search/`); the hits of
//! several are merged here by score, equal scores by path, so the order is the
//! same whichever store answers first. A `path_prefix` under one mount asks that
//! store alone; one under no mount finds nothing, as a directory that does not
//! exist in one store does.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

use serde_json::Value;

use super::Mounted;
use crate::command::tool::MemoryTool;
use crate::config::RECALL_MAX_CHARS;
use crate::config::{RECALL_DEFAULT_LIMIT, RECALL_DEFAULT_MAX_CHARS, SEARCH_DEFAULT_LIMIT};
use crate::error::{Echo, ToolError};
use crate::number::Thousands;
use crate::path::ROOT;
use crate::search::error::SearchError;
use crate::search::{
    Hit, IndexStatus, Recalled, Request, VectorStatus, hits_json, recall_block, whole,
};
use crate::search::{rank_order, score_text};
use crate::storage::Engine;
use crate::store::Store;

/// The client tool that searches the memory tool's directory, beside the memory
/// tool (`betaMemoryTool`) in the SDK's tool runner and the Vercel AI SDK. Named
/// `memory_find`, not `memory_search`: the memory-store toolset has a
/// `memory_search` of its own (store paths, a substring scan's pages), and an
/// application may give a model both; this one answers `/memories/…` paths and
/// line numbers that the memory tool's `view` takes.
pub const FIND_TOOL: MemoryTool = MemoryTool {
    name: "memory_find",
    title: "Find memories",
    description: "Find the memories in /memories most relevant to some words, best first: each with its path, its score and its best matching lines, numbered, so that the memory tool's view can read the file or a range of it. Words match in any language and letter case; a memory's path counts too.",
    input_schema: r#"{"type":"object","properties":{"query":{"type":"string","description":"The words to look for."},"limit":{"type":"integer","minimum":1,"description":"Most memories to show (default: 10)."},"path_prefix":{"type":"string","description":"Only memories under this directory, e.g. /memories/notes (default: all of /memories)."}},"required":["query"],"additionalProperties":false}"#,
};

/// A hit with its text, for the merge (and the recall's block).
struct Scored {
    score: f64,
    /// As shown: `/memories/…`.
    path: String,
    text: String,
    hit: Hit,
}

/// A store to search: how its paths are shown, its engine, the directory in it.
struct Target<'a, S: Store> {
    shown: String,
    engine: &'a Engine<S>,
    under: Option<String>,
}

impl<S: Store> Mounted<Engine<S>> {
    /// The stores a search under `under` (a path below `/memories`, as
    /// [`Request::under`] has it: `/team/notes`) asks.
    fn targets(&self, under: Option<&str>) -> Vec<Target<'_, S>> {
        let mounts: Vec<_> = self.engines().collect();
        if let [(m, engine)] = mounts.as_slice()
            && m.name.is_empty()
        {
            return alloc::vec![Target {
                shown: String::from(ROOT),
                engine,
                under: under.map(String::from),
            }];
        }
        let Some(under) = under else {
            return mounts
                .into_iter()
                .map(|(m, engine)| Target {
                    shown: format!("{ROOT}/{}", m.name),
                    engine,
                    under: None,
                })
                .collect();
        };
        let rest = under.strip_prefix('/').unwrap_or(under);
        let (first, below) = rest.split_once('/').unwrap_or((rest, ""));
        mounts
            .into_iter()
            .filter(|(m, _)| m.name == first)
            .map(|(m, engine)| Target {
                shown: format!("{ROOT}/{}", m.name),
                engine,
                under: (!below.is_empty()).then(|| format!("/{below}")),
            })
            .collect()
    }

    /// The best `limit` memories for `query` across the stores `under` names,
    /// merged by score, equal scores by path; and whether some store's index had
    /// memories left to read (see [`Found::pending`](crate::search::Found::pending)).
    async fn gather(&self, r: &Request) -> Result<(Vec<Scored>, bool), SearchError> {
        let (query, limit) = (r.query.as_str(), r.limit);
        let mut all = Vec::new();
        let mut pending = false;
        for t in self.targets(r.under.as_deref()) {
            let (best, waiting) = t
                .engine
                .best_by(query, limit, t.under.as_deref(), r.mode, r.min_score)
                .await?;
            pending |= waiting;
            for (mut hit, text) in best {
                hit.path = format!("{}{}", t.shown, hit.path);
                all.push(Scored {
                    score: hit.score,
                    path: hit.path.clone(),
                    hit,
                    text: String::from(&*text),
                });
            }
        }
        all.sort_by(|a, b| rank_order((a.score, &a.path), (b.score, &b.path)));
        all.truncate(limit);
        Ok((all, pending))
    }

    /// `memory.search` over every store: `{"query", "limit"?, "path_prefix"?}`
    /// (see [`Request`]), answered as [`hits_json`] with `/memories/…` paths.
    pub async fn search_json(&self, input: &Value) -> Result<Value, SearchError> {
        let r = Request::from_json(input, SEARCH_DEFAULT_LIMIT)?;
        let (found, _) = self.gather(&r).await?;
        let hits: Vec<Hit> = found.into_iter().map(|s| s.hit).collect();
        Ok(hits_json(&hits, ""))
    }

    /// `memory.recall` over every store: `{"query", "limit"?, "max_chars"?,
    /// "path_prefix"?}`, the block of [`recall_block`] over the best `limit`
    /// memories (default [`RECALL_DEFAULT_LIMIT`]) within `max_chars` (default
    /// [`RECALL_DEFAULT_MAX_CHARS`]).
    pub async fn recall_json(&self, input: &Value) -> Result<String, SearchError> {
        let r = Request::from_json(input, RECALL_DEFAULT_LIMIT)?;
        let max_chars =
            whole(input, "max_chars", RECALL_MAX_CHARS)?.unwrap_or(RECALL_DEFAULT_MAX_CHARS);
        let (found, _) = self.gather(&r).await?;
        let items: Vec<Recalled<'_>> = found
            .iter()
            .map(|s| Recalled {
                path: &s.path,
                text: &s.text,
                lines: &s.hit.lines,
            })
            .collect();
        Ok(recall_block(&items, max_chars))
    }

    /// [`FIND_TOOL`]'s answer to `input` (`{"query", "limit"?, "path_prefix"?}`):
    /// the hits as text for the model, each path with its score and its best
    /// lines numbered as `view` numbers them.
    pub async fn find_text(&self, input: &Value) -> Result<String, SearchError> {
        let r = Request::from_json(input, SEARCH_DEFAULT_LIMIT)?;
        let (found, pending) = self.gather(&r).await?;
        let hits: Vec<Hit> = found.into_iter().map(|s| s.hit).collect();
        Ok(find_answer(&r.query, &hits, pending))
    }

    /// Brings every store's index up to its head, `rounds` budgets of
    /// [`SEARCH_INDEX_WORK`](crate::config::SEARCH_INDEX_WORK) memories at most
    /// each; how far they are, together (read-only stores are searched, so
    /// indexed, too: the index is derived data).
    pub async fn reindex(&self, rounds: u32) -> Result<IndexStatus, ToolError> {
        let mut total = IndexStatus {
            indexed: 0,
            pending: false,
        };
        for (_, engine) in self.engines() {
            let s = engine.reindex(rounds).await?;
            total.indexed = total.indexed.saturating_add(s.indexed);
            total.pending |= s.pending;
        }
        Ok(total)
    }

    /// Brings every store's vectors up to its live texts, `rounds` rounds of
    /// [`EMBED_WORK`](crate::config::EMBED_WORK) texts at most each; how far they
    /// are, together (`None`: no store has an embedder).
    pub async fn reindex_vectors(&self, rounds: u32) -> Result<Option<VectorStatus>, SearchError> {
        let mut total: Option<VectorStatus> = None;
        for (_, engine) in self.engines() {
            let s = engine.reindex_vectors(rounds).await?;
            total = add_status(total, s);
        }
        Ok(total)
    }

    /// How far every store's vectors are, together, embedding nothing.
    pub async fn vector_status(&self) -> Result<Option<VectorStatus>, SearchError> {
        let mut total: Option<VectorStatus> = None;
        for (_, engine) in self.engines() {
            let s = engine.vector_status().await?;
            total = add_status(total, s);
        }
        Ok(total)
    }

    /// How far every store's index is, together, without bringing it up to date.
    pub async fn search_status(&self) -> Result<IndexStatus, ToolError> {
        let mut total = IndexStatus {
            indexed: 0,
            pending: false,
        };
        for (_, engine) in self.engines() {
            let s = engine.search_status().await?;
            total.indexed = total.indexed.saturating_add(s.indexed);
            total.pending |= s.pending;
        }
        Ok(total)
    }
}

/// Two stores' vector status together (the first's fingerprint: every store of
/// one memory has the same embedder).
fn add_status(a: Option<VectorStatus>, b: Option<VectorStatus>) -> Option<VectorStatus> {
    match (a, b) {
        (Some(mut a), Some(b)) => {
            a.indexed = a.indexed.saturating_add(b.indexed);
            a.pending = a.pending.saturating_add(b.pending);
            Some(a)
        }
        (a, b) => a.or(b),
    }
}

/// [`FIND_TOOL`]'s text for `query`'s `hits` (paths as shown, best first): each
/// path with its score and its best lines numbered as `view` numbers them; and,
/// when `pending`, that memories written lately wait to be indexed. Every face of
/// the tool answers with it (the wasmtime host and Python over their merged hits).
pub fn find_answer(query: &str, hits: &[Hit], pending: bool) -> String {
    let shown = Echo(query);
    let mut out = match hits.len() {
        0 => format!("No memory matches {shown}."),
        1 => format!("1 memory matches {shown}:"),
        n => format!(
            "{} memories match {shown}, best first:",
            Thousands(n as u64)
        ),
    };
    for h in hits {
        let _ = write!(out, "\n{} (score {})", h.path, score_text(h.score));
        for l in &h.lines {
            let _ = write!(out, "\n{:>6}\t{}", l.line, l.text);
        }
    }
    if pending {
        out.push_str(
            "\nSome memories written lately are not indexed yet: search again to include them.",
        );
    }
    out
}
