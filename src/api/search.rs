//! Search over a store's memories: ranked by the search index (`search/`), best
//! first, each hit with its memory's id, path, score and best matching lines with
//! their numbers; paged by rank. A query with no words (only punctuation or
//! symbols) is looked for as text instead, in tree order, bounded in bytes read
//! per page.

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
use crate::search::error::SearchError;
use crate::search::{Mode, best_lines, first_lines, mode_texts, query_terms};
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

/// Where a ranked page ends: its last hit's score (as the bits of the f64, so it
/// reads back exactly) and path. The next page starts after it in the ranking's
/// order (score descending, then path), so a memory ranked on one page never
/// comes again on the next while the store is unchanged.
fn position(score: f64, path: &str) -> String {
    format!("{:016x}:{path}", score.to_bits())
}

fn after_position(pos: &str) -> Option<(f64, &str)> {
    let (bits, path) = pos.split_once(':')?;
    let bits = u64::from_str_radix(bits, 16).ok()?;
    Some((f64::from_bits(bits), path))
}

impl<S: Store> Engine<S> {
    pub(crate) async fn memory_search(&self, ctx: &Ctx, q: &Query<'_>) -> Outcome {
        let query = q.str("query").unwrap_or_default();
        let n = query.chars().count();
        if n == 0 || n > MAX_QUERY_CHARS || query.trim().is_empty() {
            return Err(ApiError::query_length(n));
        }
        let prefix_arg = q.str("path_prefix").unwrap_or("/");
        let prefix = rules::prefix(prefix_arg)?;
        let (mode, min_score) = mode_texts(q.str("mode"), q.str("min_score"))?;
        let terms = query_terms(query);
        if terms.is_empty() {
            if mode.is_some_and(|m| m != Mode::Lexical) {
                return Err(SearchError::NoWords.into());
            }
            // Only punctuation or symbols: no word to rank by, so the text itself
            // is looked for, as before the index.
            return self
                .memory_scan(ctx, q, query, prefix_arg, prefix.as_ref())
                .await;
        }
        // The mode a page token was made in is part of it: a token of one mode's
        // ranking means nothing in another's.
        let mode_name = mode.unwrap_or(self.default_mode()).as_str();
        let min_text = min_score.map(|m| format!("{m}")).unwrap_or_default();
        let fp = page::fingerprint(&[
            "memory.search.ranked",
            &ctx.ids.tag,
            query,
            prefix_arg,
            mode_name,
            &min_text,
        ]);
        let PageRequest { limit, after } = page::read(q, &fp, false)?;
        let after = match after.as_deref() {
            None => None,
            Some(pos) => Some(after_position(pos).ok_or_else(ApiError::bad_page_token)?),
        };
        let under = prefix.as_ref().map(store_path);
        let (ranking, mode) = self
            .ranked_for(query, &terms, under, mode, min_score)
            .await?;
        let mut data: Vec<Value> = Vec::new();
        let mut last: Option<(f64, &str)> = None;
        let mut more = false;
        for r in &ranking.hits {
            if let Some((score, path)) = after {
                let later = r.score < score || (r.score == score && &*r.path > path);
                if !later {
                    continue;
                }
            }
            if data.len() >= limit {
                more = true;
                break;
            }
            let Some(file) = self.live(&ranking, r).await? else {
                continue;
            };
            let text = self.blob(&file).await?;
            let mut lines = best_lines(query, &ranking.matched, &text, MAX_LINES_PER_MEMORY);
            if lines.is_empty() && mode != Mode::Lexical {
                // Found by meaning, not words: its first lines show what it is.
                lines = first_lines(&text, MAX_LINES_PER_MEMORY);
            }
            let matches: Vec<Value> = lines
                .into_iter()
                .map(|l| json!({"line_number": l.line, "text": l.text}))
                .collect();
            data.push(json!({
                "type": "memory_search_result",
                "memory_id": ctx.ids.memory_id(file.mem),
                "path": &*r.path,
                "score": r.score,
                "matches": matches,
            }));
            last = Some((r.score, &r.path));
        }
        let next_page = match (more, last) {
            (true, Some((score, path))) => Some(page::token(&fp, &position(score, path))),
            _ => None,
        };
        Ok(json!({"data": data, "next_page": next_page, "query": format!("{query}")}))
    }

    /// A search for a query with no words: the memories whose content holds it,
    /// ignoring case, in tree order, bounded in bytes read per page.
    async fn memory_scan(
        &self,
        ctx: &Ctx,
        q: &Query<'_>,
        query: &str,
        prefix_arg: &str,
        prefix: Option<&crate::path::ValidPath>,
    ) -> Outcome {
        let fp = page::fingerprint(&["memory.search", &ctx.ids.tag, query, prefix_arg]);
        let PageRequest { limit, after } = page::read(q, &fp, false)?;
        let none = Overlay::default();
        let files = match prefix {
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
                    "score": 0.0,
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
