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
use crate::path::{ROOT, validate};
use crate::search::error::{SearchError, check_query};
use crate::search::lines::{Recalled, recall_block};
use crate::search::{Found, Hit};
use crate::storage::Engine;
use crate::store::Store;

/// A search's options, checked: `{"query", "limit"?, "path_prefix"?}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// What to look for.
    pub query: String,
    /// Most results.
    pub limit: usize,
    /// The store directory searched (`/notes`), `None`: all of `/memories`.
    pub under: Option<String>,
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
                let valid = validate(p).map_err(|_| SearchError::Option {
                    name: "path_prefix",
                    must: "a directory path under /memories, such as /memories/notes",
                })?;
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
        Ok(Request {
            query,
            limit,
            under,
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
    pub async fn search_json(&self, input: &Value) -> Result<Value, SearchError> {
        let r = Request::from_json(input, SEARCH_DEFAULT_LIMIT)?;
        let Found { hits, .. } = self.search(&r.query, r.limit, r.under.as_deref()).await?;
        Ok(hits_json(&hits, ROOT))
    }

    /// `memory.recall`: `{"query", "limit"?, "max_chars"?}`, the block of
    /// [`recall_block`] over the best `limit` memories (default
    /// [`RECALL_DEFAULT_LIMIT`]) within `max_chars` (default
    /// [`RECALL_DEFAULT_MAX_CHARS`]).
    pub async fn recall_json(&self, input: &Value) -> Result<String, SearchError> {
        let r = Request::from_json(input, RECALL_DEFAULT_LIMIT)?;
        let max_chars =
            whole(input, "max_chars", RECALL_MAX_CHARS)?.unwrap_or(RECALL_DEFAULT_MAX_CHARS);
        let (best, _) = self.best(&r.query, r.limit, r.under.as_deref()).await?;
        let shown: Vec<String> = best
            .iter()
            .map(|(hit, _)| alloc::format!("{ROOT}{}", hit.path))
            .collect();
        let items: Vec<Recalled<'_>> = best
            .iter()
            .zip(&shown)
            .map(|((hit, text), path)| Recalled {
                path,
                text,
                lines: &hit.lines,
            })
            .collect();
        Ok(recall_block(&items, max_chars))
    }
}
