//! A search and a recall as the memory tool's faces ask for them (the npm
//! package's `memory.search` and `memory.recall`, the component, Python, the CLI):
//! JSON options read and checked once here, memory-tool paths (`/memories/…`) in
//! and out.

use alloc::string::String;
use alloc::vec::Vec;

use serde_json::{Value, json};

use crate::config::{
    RECALL_DEFAULT_LIMIT, RECALL_DEFAULT_MAX_CHARS, RECALL_MAX_CHARS, SEARCH_DEFAULT_LIMIT,
    SEARCH_MAX_LIMIT,
};
use crate::path::{ROOT, ValidPath, validate};
use crate::search::Hit;
use crate::search::error::{SearchError, check_query};
use crate::search::lines::{Recalled, recall_block};
use crate::storage::Engine;
use crate::store::Store;

/// A search's options, checked: `{"query", "limit"?, "path_prefix"?, "mode"?,
/// "min_score"?}`.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// What to look for.
    pub query: String,
    /// Most results.
    pub limit: usize,
    /// The store directory searched (`/notes`), `None`: all of `/memories`.
    pub under: Option<String>,
    /// How to rank (`None`: hybrid with an embedder, lexical without).
    pub mode: Option<crate::search::Mode>,
    /// Semantic candidates' least cosine (`None`: no cutoff).
    pub min_score: Option<f64>,
}

/// The option `name` of `v` as a whole number from 1 to `max`; `None` when absent.
pub(crate) fn whole(
    v: &Value,
    name: &'static str,
    max: usize,
) -> Result<Option<usize>, SearchError> {
    match v.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => match n.as_u64() {
            Some(k) if k >= 1 && k <= max as u64 => Ok(Some(k as usize)),
            _ if name == "limit" => Err(SearchError::Limit(alloc::format!("{n}"))),
            _ => Err(SearchError::Option {
                name,
                must: "a whole number from 1 to 100,000",
            }),
        },
        Some(other) if name == "limit" => Err(SearchError::Limit(alloc::format!("{other}"))),
        Some(_) => Err(SearchError::Option {
            name,
            must: "a whole number from 1 to 100,000",
        }),
    }
}

impl Request {
    /// The options in `v`, checked; `limit` defaults to `default_limit`.
    pub fn from_json(v: &Value, default_limit: usize) -> Result<Request, SearchError> {
        Request::in_store(v, default_limit, &ValidPath::root())
    }

    /// [`Request::from_json`] for a store whose top is `top` (`/memories`, or where
    /// it is mounted): `path_prefix` must lie there, and `under` is the store's own
    /// directory (`/memories/team/notes` is `/notes` in the store mounted at `team`).
    fn in_store(v: &Value, default_limit: usize, top: &ValidPath) -> Result<Request, SearchError> {
        if !v.is_object() {
            return Err(SearchError::Option {
                name: "the options",
                must: "an object",
            });
        }
        let query = match v.get("query") {
            Some(Value::String(q)) => q.clone(),
            _ => {
                return Err(SearchError::Option {
                    name: "query",
                    must: "a string",
                });
            }
        };
        check_query(&query)?;
        let limit = whole(v, "limit", SEARCH_MAX_LIMIT)?.unwrap_or(default_limit);
        let under = match v.get("path_prefix") {
            None | Some(Value::Null) => None,
            Some(Value::String(p)) => {
                let outside = || SearchError::Option {
                    name: "path_prefix",
                    must: "a directory path under /memories, such as /memories/notes",
                };
                let valid = validate(p).map_err(|_| outside())?;
                if valid.as_str() != top.as_str() && !valid.is_inside(top) {
                    return Err(outside());
                }
                // A mount's own name is not the store's (see `Engine::top`).
                let valid = valid.mounted(usize::from(top.as_str() != ROOT));
                let local = valid.local();
                (!local.is_empty()).then(|| String::from(local))
            }
            Some(_) => {
                return Err(SearchError::Option {
                    name: "path_prefix",
                    must: "a directory path under /memories, such as /memories/notes",
                });
            }
        };
        let (mode, min_score) = crate::search::mode_options(v)?;
        Ok(Request {
            query,
            limit,
            under,
            mode,
            min_score,
        })
    }
}

/// Hits as the memory tool's faces answer them:
/// `[{"path": "/memories/…", "score", "lines": [{"line", "text"}]}]`, `shown`
/// prefixing each store path (`/memories`, or a mount's `/memories/<name>`).
pub fn hits_json(hits: &[Hit], shown: &str) -> Value {
    Value::Array(
        hits.iter()
            .map(|h| {
                let lines: Vec<Value> = h
                    .lines
                    .iter()
                    .map(|l| json!({"line": l.line, "text": l.text}))
                    .collect();
                json!({"path": alloc::format!("{shown}{}", h.path), "score": h.score, "lines": lines})
            })
            .collect(),
    )
}

impl<S: Store> Engine<S> {
    /// `memory.search`: the options `input` (see [`Request`]), answered as
    /// [`hits_json`] with `/memories` paths.
    /// A store mounted at `/memories/<mount>` (`Config::mount`) takes and shows
    /// paths there.
    pub async fn search_json(&self, input: &Value) -> Result<Value, SearchError> {
        let top = self.top();
        let r = Request::in_store(input, SEARCH_DEFAULT_LIMIT, &top)?;
        let (best, _) = self
            .best_by(&r.query, r.limit, r.under.as_deref(), r.mode, r.min_score)
            .await?;
        let hits: Vec<Hit> = best.into_iter().map(|(h, _)| h).collect();
        Ok(hits_json(&hits, top.as_str()))
    }

    /// `memory.recall`: `{"query", "limit"?, "max_chars"?}`, the block of
    /// [`recall_block`] over the best `limit` memories (default
    /// [`RECALL_DEFAULT_LIMIT`]) within `max_chars` (default
    /// [`RECALL_DEFAULT_MAX_CHARS`]).
    pub async fn recall_json(&self, input: &Value) -> Result<String, SearchError> {
        let found = self.recall_found(input).await?;
        let items: Vec<Recalled<'_>> = found.items.iter().map(RecallItem::recalled).collect();
        Ok(recall_block(&items, found.max_chars))
    }

    /// What `memory.recall` found for `input`, before the block is made: a face
    /// that recalls across several stores (the wasmtime host's mounts) merges
    /// these by score and makes one block of them with [`recall_block`].
    pub async fn recall_found(&self, input: &Value) -> Result<RecallFound, SearchError> {
        let top = self.top();
        let r = Request::in_store(input, RECALL_DEFAULT_LIMIT, &top)?;
        let max_chars =
            whole(input, "max_chars", RECALL_MAX_CHARS)?.unwrap_or(RECALL_DEFAULT_MAX_CHARS);
        let (best, _) = self
            .best_by(&r.query, r.limit, r.under.as_deref(), r.mode, r.min_score)
            .await?;
        let items = best
            .into_iter()
            .map(|(hit, text)| RecallItem {
                path: alloc::format!("{}{}", top.as_str(), hit.path),
                score: hit.score,
                text: String::from(&*text),
                lines: hit.lines,
            })
            .collect();
        Ok(RecallFound { items, max_chars })
    }
}

/// One memory `memory.recall` found: its path as shown, score, text and best lines.
#[derive(Clone, Debug, PartialEq)]
pub struct RecallItem {
    /// Its path as shown (`/memories/…`, or under the store's mount).
    pub path: String,
    /// Its score (see [`Hit::score`]).
    pub score: f64,
    /// Its whole text.
    pub text: String,
    /// Its best matching lines.
    pub lines: Vec<crate::search::Line>,
}

impl RecallItem {
    /// This item as [`recall_block`] takes it.
    pub fn recalled(&self) -> Recalled<'_> {
        Recalled {
            path: &self.path,
            text: &self.text,
            lines: &self.lines,
        }
    }
}

/// What `memory.recall` found, best first, and the block's budget in characters.
#[derive(Clone, Debug, PartialEq)]
pub struct RecallFound {
    /// Best first.
    pub items: Vec<RecallItem>,
    /// The block's most characters (`max_chars`, checked; default
    /// [`RECALL_DEFAULT_MAX_CHARS`]).
    pub max_chars: usize,
}
