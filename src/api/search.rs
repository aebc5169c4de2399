//! Full-text search over a store's memories: case-insensitive, in tree order,
//! each hit with its memory's id and path and the matching lines with their
//! numbers; paged by path, and bounded in lines per memory and bytes read per page.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde_json::{Value, json};

use super::body::Query;
use super::error::ApiError;
use super::page::{self, PageRequest};
use super::rules;
use super::{Ctx, Outcome};
use crate::command::plan::{Found, store_path};
use crate::storage::Engine;
use crate::storage::overlay::Overlay;
use crate::storage::tree::{Child, Kind};
use crate::store::Store;

use crate::config::{MAX_LINE_CHARS, MAX_LINES_PER_MEMORY, MAX_QUERY_CHARS, MAX_SEARCH_BYTES};

fn lower(s: &str) -> String {
    s.chars().flat_map(char::to_lowercase).collect()
}

fn shown(line: &str) -> String {
    let mut out: String = line.chars().take(MAX_LINE_CHARS).collect();
    if line.chars().nth(MAX_LINE_CHARS).is_some() {
        out.push('…');
    }
    out
}

impl<S: Store> Engine<S> {
    pub(crate) async fn memory_search(&self, ctx: &Ctx, q: &Query<'_>) -> Outcome {
        let query = q.str("query").unwrap_or_default();
        let n = query.chars().count();
        if n == 0 || n > MAX_QUERY_CHARS {
            return Err(ApiError::query_length(n));
        }
        let prefix_arg = q.str("path_prefix").unwrap_or("/");
        let prefix = rules::prefix(prefix_arg)?;
        let fp = page::fingerprint(&["memory.search", &ctx.ids.tag, query, prefix_arg]);
        let PageRequest { limit, after } = page::read(q, &fp, false)?;
        let none = Overlay::default();
        let files = match &prefix {
            None => {
                let size = self.stored(&none, ctx.head.root).await?.size();
                let root = Child::plain(Kind::Dir, ctx.head.root, size, 0);
                self.files_beneath(&none, "", &root).await?
            }
            Some(dir) => match self.lookup(&none, ctx.head.root, dir).await? {
                Found::Entry(c) if c.kind == Kind::Dir => {
                    self.files_beneath(&none, store_path(dir), &c).await?
                }
                _ => Vec::new(),
            },
        };
        let needle = lower(query);
        let mut data: Vec<Value> = Vec::new();
        let mut read = 0u64;
        let mut last: Option<String> = None;
        let mut more = false;
        for (path, file) in files {
            // Tree order is the order of paths segment by segment.
            if after
                .as_deref()
                .is_some_and(|a| path.split('/').cmp(a.split('/')) != core::cmp::Ordering::Greater)
            {
                continue;
            }
            if file.mem == 0 {
                continue;
            }
            if data.len() >= limit || read >= MAX_SEARCH_BYTES {
                more = true;
                break;
            }
            read += file.size;
            let text = self.blob(&file).await?;
            let matches: Vec<Value> = text
                .split('\n')
                .enumerate()
                .filter(|(_, line)| lower(line).contains(&needle))
                .take(MAX_LINES_PER_MEMORY)
                .map(|(i, line)| json!({"line_number": i + 1, "text": shown(line)}))
                .collect();
            if !matches.is_empty() {
                data.push(json!({
                    "type": "memory_search_result",
                    "memory_id": ctx.ids.memory_id(file.mem),
                    "path": path,
                    "matches": matches,
                }));
            }
            last = Some(path);
        }
        let next_page = match (more, last) {
            (true, Some(p)) => Some(page::token(&fp, &p)),
            _ => None,
        };
        Ok(json!({"data": data, "next_page": next_page, "query": format!("{query}")}))
    }
}
