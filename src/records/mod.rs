//! Seed 002's toolset (chapter 25): `memory_store`, `memory_retrieve` and
//! `memory_delete`, as the model calls them, over the Memory Stores API's own
//! operations, so a record is a memory document every other face sees, and every
//! write is one of the API's atomic writes with a precondition.
//!
//! - `record`: where a record lives (`/records/<category>/<name>.md`) and its
//!   header (importance, tags, created, expires_at);
//! - `tools`: the three definitions, as the seed gives them;
//! - `error`: every failure's text.
//!
//! **Retrieval** ranks the records matching the query by the search index's BM25
//! score times their effective importance, `importance × 2^(−age / half-life)`
//! (age in days since the header's `created`; [`RECORDS_HALF_LIFE_DAYS`] unless
//! [`Settings`] say otherwise). Expired records, those below `min_importance` and
//! those of other categories are never returned; equal scores are ordered by path.
//! The answer is `{"memories": [{"id", "content", "category", "tags", "importance",
//! "score", "created_at"}]}`, best first.
//!
//! **Storing** compares the new content with the records of its category the index
//! ranks best for it ([`RECORDS_DEDUP_CANDIDATES`]); one whose content's set of
//! tokenizer terms has a Jaccard similarity of at least [`RECORDS_SIMILARITY`] with
//! the new one's is replaced: the same memory gets a new version (precondition:
//! the content just compared). Otherwise a new document is created (a create never
//! replaces what is there). Then, past the capacity ([`RECORDS_CAPACITY`]), the
//! records of lowest effective importance (expired ones at 0; then the oldest; then
//! by path) are deleted, each with its own precondition, the reason `capacity
//! pruning`. The answer is `{"success": true, "memory_id": …}`, with `"replaced":
//! true` when it replaced a record and `"pruned": [ids]` when it deleted some.
//!
//! **Deleting** deletes the record with the API's delete (precondition: the content
//! just read), its `deleted` version recording the reason; a redaction of that
//! version clears it.

pub(crate) mod error;
mod record;
mod tools;

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde_json::{Map, Value, json};

use crate::api::Ctx;
use crate::api::body::Query;
use crate::api::error::ApiError;
use crate::search::error::check_query;
use crate::search::terms;
use crate::storage::Engine;
use crate::storage::head::Head;
use crate::storage::overlay::Overlay;
use crate::storage::tree::{Child, Hash, Kind};
use crate::storage::versions::Actor;
use crate::store::Store;
use crate::time::{format_ms, parse_ms};

use error::RecordsError;
pub use tools::TOOLS;

use crate::config::{
    RECORDS_ATTEMPTS, RECORDS_CAPACITY, RECORDS_DEDUP_CANDIDATES, RECORDS_DEFAULT_LIMIT,
    RECORDS_HALF_LIFE_DAYS, RECORDS_MAX_CAPACITY, RECORDS_MAX_HALF_LIFE_DAYS, RECORDS_MAX_LIMIT,
    RECORDS_MAX_REASON_CHARS, RECORDS_MAX_SCAN, RECORDS_MAX_TAG_CHARS, RECORDS_MAX_TAGS,
    RECORDS_SIMILARITY,
};
use record::{CATEGORIES, DIR, Record, category_of, tag_ok};

type Answer = Result<Value, RecordsError>;

/// The reason a record deleted past the capacity records.
pub const PRUNE_REASON: &str = "capacity pruning";

/// What a caller may change of the toolset's rules, within their bounds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// Days after which importance counts half ([`RECORDS_HALF_LIFE_DAYS`]).
    pub half_life_days: f64,
    /// Records kept ([`RECORDS_CAPACITY`]).
    pub capacity: u64,
    /// The Jaccard similarity at which a new record replaces one ([`RECORDS_SIMILARITY`]).
    pub similarity: f64,
    /// With an embedder, the cosine at which a new record replaces one instead
    /// ([`RECORDS_DUPLICATE_COSINE`](crate::config::RECORDS_DUPLICATE_COSINE)).
    pub duplicate_cosine: f64,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            half_life_days: RECORDS_HALF_LIFE_DAYS,
            capacity: RECORDS_CAPACITY,
            similarity: RECORDS_SIMILARITY,
            duplicate_cosine: crate::config::RECORDS_DUPLICATE_COSINE,
        }
    }
}

impl Settings {
    /// The settings a face gives as numbers (`None`: the default), or the words of
    /// the first out of its bounds (a capacity must be a whole number).
    pub fn of(
        half_life_days: Option<f64>,
        capacity: Option<f64>,
        similarity: Option<f64>,
    ) -> Result<Settings, RecordsError> {
        let d = Settings::default();
        let capacity = match capacity {
            None => d.capacity,
            Some(c) if libm::trunc(c) == c && (1.0..=RECORDS_MAX_CAPACITY as f64).contains(&c) => {
                c as u64
            }
            Some(c) => {
                return Err(RecordsError::Settings(format!(
                    "capacity must be a whole number from 1 to {RECORDS_MAX_CAPACITY}, not {c}."
                )));
            }
        };
        Settings {
            half_life_days: half_life_days.unwrap_or(d.half_life_days),
            capacity,
            similarity: similarity.unwrap_or(d.similarity),
            duplicate_cosine: d.duplicate_cosine,
        }
        .check()
    }

    /// The settings, or the words of the first out of its bounds.
    pub fn check(self) -> Result<Settings, RecordsError> {
        let bad = |m: String| Err(RecordsError::Settings(m));
        if !(self.half_life_days > 0.0 && self.half_life_days <= RECORDS_MAX_HALF_LIFE_DAYS) {
            return bad(format!(
                "halfLifeDays must be a number of days above 0 and at most {RECORDS_MAX_HALF_LIFE_DAYS}, not {}.",
                self.half_life_days
            ));
        }
        if !(1..=RECORDS_MAX_CAPACITY).contains(&self.capacity) {
            return bad(format!(
                "capacity must be a whole number from 1 to {RECORDS_MAX_CAPACITY}, not {}.",
                self.capacity
            ));
        }
        if !(self.similarity > 0.0 && self.similarity <= 1.0) {
            return bad(format!(
                "similarity must be a number above 0 and at most 1, not {}.",
                self.similarity
            ));
        }
        Ok(self)
    }
}

/// A tool input in JSON text, or the refusal of text that is not JSON.
pub fn parse_input(name: &str, input: &str) -> Result<Value, RecordsError> {
    crate::json::from_text::<Value>(input).map_err(|_| match tools::tool(name) {
        None => RecordsError::UnknownTool(name.into()),
        Some(t) => RecordsError::input(t.name, "the input is not valid JSON".into()),
    })
}

/// A field given (`null` reads as absent: models send it for an optional field).
fn field<'a>(input: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    input.get(name).filter(|v| !v.is_null())
}

fn required<'a>(
    tool: &'static str,
    input: &'a Map<String, Value>,
    name: &str,
) -> Result<&'a Value, RecordsError> {
    field(input, name).ok_or_else(|| RecordsError::input(tool, format!("{name} is required")))
}

fn string<'a>(tool: &'static str, name: &str, v: &'a Value) -> Result<&'a str, RecordsError> {
    v.as_str()
        .ok_or_else(|| RecordsError::wrong_type(tool, name, "a string", v))
}

/// A whole number in `lo..=hi`.
fn whole(tool: &'static str, name: &str, v: &Value, lo: u64, hi: u64) -> Result<u64, RecordsError> {
    v.as_u64()
        .filter(|n| (lo..=hi).contains(n))
        .ok_or_else(|| RecordsError::range(tool, name, lo, hi, v))
}

fn strings<'a>(tool: &'static str, name: &str, v: &'a Value) -> Result<Vec<&'a str>, RecordsError> {
    let items = v
        .as_array()
        .ok_or_else(|| RecordsError::wrong_type(tool, name, "an array of strings", v))?;
    items
        .iter()
        .map(|i| {
            i.as_str().ok_or_else(|| {
                RecordsError::input(
                    tool,
                    format!(
                        "{name} must be an array of strings, but holds {}",
                        crate::api::error::json_kind(i)
                    ),
                )
            })
        })
        .collect()
}

fn category(tool: &'static str, name: &str, c: &str) -> Result<&'static str, RecordsError> {
    CATEGORIES.iter().find(|k| **k == c).copied().ok_or_else(|| {
        RecordsError::input(
            tool,
            format!(
                "{name} must be one of user_preference, project_context, factual_knowledge, decision_log, relationship and task_progress, not {}",
                crate::error::Echo(c)
            ),
        )
    })
}

/// The input as an object.
fn object<'a>(
    tool: &'static str,
    input: &'a Value,
) -> Result<&'a Map<String, Value>, RecordsError> {
    input.as_object().ok_or_else(|| {
        RecordsError::input(
            tool,
            format!(
                "the input must be a JSON object, got {}",
                crate::api::error::json_kind(input)
            ),
        )
    })
}

/// The set of the search tokenizer's terms of `text`: what near duplicates share.
fn term_set(text: &str) -> BTreeSet<String> {
    terms(text).into_iter().collect()
}

/// Jaccard similarity of two term sets (two empty sets are the same text).
fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    let both = a.intersection(b).count();
    let either = a.len() + b.len() - both;
    if either == 0 {
        return 1.0;
    }
    both as f64 / either as f64
}

/// A live record: its path, its entry in the tree, and what it holds.
struct Live {
    path: String,
    file: Child,
    record: Record,
}

/// An API refusal of a records write, in the toolset's words.
fn write_error(e: ApiError) -> RecordsError {
    match e {
        ApiError::Invalid(text) | ApiError::TooLarge(text) => RecordsError::Refused(text),
        other => RecordsError::Failed(other),
    }
}

impl<S: Store> Engine<S> {
    /// The records toolset: tool `name` on `input` (a JSON value) over this store,
    /// by `settings` (already checked), on behalf of `by` (`None`: the configured
    /// actor). Answers the JSON value the model reads as text.
    pub async fn records(
        &self,
        name: &str,
        input: &Value,
        settings: &Settings,
        by: Option<&Actor>,
    ) -> Answer {
        let answer = self.records_answer(name, input, settings, by).await;
        if answer.is_err() {
            self.forget_head();
        }
        answer
    }

    /// [`Engine::records`] for an input in JSON text, answering JSON text.
    pub async fn records_json(
        &self,
        name: &str,
        input: &str,
        settings: &Settings,
        by: Option<&Actor>,
    ) -> Result<String, RecordsError> {
        let v = self
            .records(name, &parse_input(name, input)?, settings, by)
            .await?;
        Ok(serde_json::to_string(&v).unwrap_or_default())
    }

    async fn records_answer(
        &self,
        name: &str,
        input: &Value,
        settings: &Settings,
        by: Option<&Actor>,
    ) -> Answer {
        let settings = settings.check()?;
        let tool = tools::tool(name).ok_or_else(|| RecordsError::UnknownTool(name.into()))?;
        let input = object(tool.name, input)?;
        match tool.name {
            "memory_store" => self.record_store(input, &settings, by).await,
            "memory_retrieve" => self.record_retrieve(input, &settings).await,
            "memory_delete" => self.record_delete(input, by).await,
            _ => Err(RecordsError::UnknownTool(name.into())),
        }
    }

    /// The record the file `file` at store path `path` holds, if it is one.
    async fn live_record(&self, path: &str, file: Child) -> Result<Option<Live>, RecordsError> {
        if file.kind != Kind::File || file.mem == 0 || category_of(path).is_none() {
            return Ok(None);
        }
        let text = self.blob(&file).await?;
        Ok(Record::parse(&text).map(|record| Live {
            path: path.into(),
            file,
            record,
        }))
    }

    async fn record_retrieve(&self, input: &Map<String, Value>, s: &Settings) -> Answer {
        const T: &str = "memory_retrieve";
        let query = string(T, "query", required(T, input, "query")?)?;
        let wanted: Option<BTreeSet<&str>> = match field(input, "categories") {
            None => None,
            Some(v) => {
                let list = strings(T, "categories", v)?;
                let mut set = BTreeSet::new();
                for c in list {
                    set.insert(category(T, "each of categories", c)?);
                }
                // The seed's "empty: every category".
                (!set.is_empty()).then_some(set)
            }
        };
        let limit = match field(input, "limit") {
            None => RECORDS_DEFAULT_LIMIT,
            Some(v) => whole(T, "limit", v, 1, RECORDS_MAX_LIMIT as u64)? as usize,
        };
        let min_importance = match field(input, "min_importance") {
            None => 1,
            Some(v) => whole(T, "min_importance", v, 1, 5)? as u8,
        };
        // `mode` beside the seed's fields (the application's, as memory.search's):
        // hybrid with an embedder, lexical without.
        let (mode, _) = crate::search::mode_options(&Value::Object(input.clone()))?;
        let terms = check_query(query)?;
        let head = self.read_head().await?;
        let ids = Ctx::of(&head, None).ids;
        let ranking = self.ranked_in(query, &terms, Some(DIR), mode).await?;
        let now = self.now();
        // (score, path, answer), best first, at most `limit`.
        let mut best: Vec<(f64, String, Value)> = Vec::new();
        let mut read = 0usize;
        for r in &ranking.hits {
            let Some(cat) = category_of(&r.path) else {
                continue;
            };
            if wanted.as_ref().is_some_and(|w| !w.contains(cat)) {
                continue;
            }
            // Effective importance is at most 5: a record ranked this low can no
            // longer beat the last one kept.
            if best.len() >= limit
                && best
                    .last()
                    .is_some_and(|(worst, _, _)| r.score * 5.0 < *worst)
            {
                break;
            }
            if read >= RECORDS_MAX_SCAN {
                break;
            }
            let Some(file) = self.live(&ranking, r).await? else {
                continue;
            };
            read += 1;
            let Some(live) = self.live_record(&r.path, file).await? else {
                continue;
            };
            let rec = &live.record;
            if rec.importance < min_importance || rec.expired(now) {
                continue;
            }
            let score = r.score * rec.effective(now, s.half_life_days);
            let answer = json!({
                "id": ids.memory_id(live.file.mem),
                "content": rec.content,
                "category": cat,
                "tags": rec.tags,
                "importance": rec.importance,
                "score": score,
                "created_at": format_ms(rec.created),
            });
            let at = best.partition_point(|(sc, p, _)| {
                *sc > score || (*sc == score && p.as_str() < &*r.path)
            });
            best.insert(at, (score, String::from(&*r.path), answer));
            best.truncate(limit);
        }
        let memories: Vec<Value> = best.into_iter().map(|(_, _, v)| v).collect();
        Ok(json!({ "memories": memories }))
    }

    /// The record of `category` whose content is most like `content` among those
    /// ranked best for it: with an embedder by cosine (at least
    /// `duplicate_cosine`), else by Jaccard (at least `similarity`).
    async fn near_duplicate(
        &self,
        category: &str,
        content: &str,
        s: &Settings,
    ) -> Result<Option<Live>, RecordsError> {
        if self.embedder().is_some() {
            return self
                .near_duplicate_by_meaning(category, content, s.duplicate_cosine)
                .await;
        }
        let similarity = s.similarity;
        let query = crate::search::terms(content);
        let mut distinct: Vec<String> = Vec::new();
        for t in query {
            if distinct.len() >= crate::config::SEARCH_MAX_QUERY_TERMS {
                break;
            }
            if !distinct.contains(&t) {
                distinct.push(t);
            }
        }
        if distinct.is_empty() {
            return Ok(None);
        }
        let new = term_set(content);
        let under = format!("{DIR}/{category}");
        let ranking = self.ranked(&distinct, Some(&under)).await?;
        let mut found: Option<(f64, Live)> = None;
        let mut seen = 0;
        for r in &ranking.hits {
            if seen >= RECORDS_DEDUP_CANDIDATES {
                break;
            }
            let Some(file) = self.live(&ranking, r).await? else {
                continue;
            };
            let Some(live) = self.live_record(&r.path, file).await? else {
                continue;
            };
            seen += 1;
            let j = jaccard(&new, &term_set(&live.record.content));
            if j >= similarity && found.as_ref().is_none_or(|(best, _)| j > *best) {
                found = Some((j, live));
            }
        }
        Ok(found.map(|(_, live)| live))
    }

    /// [`Engine::near_duplicate`] by the embedder: the records of `category`
    /// nearest `content` by meaning ([`RECORDS_DEDUP_CANDIDATES`] of them), and
    /// of those the one whose content's cosine with it is highest, if at least
    /// `threshold`. The contents are embedded afresh, beside the new one, so the
    /// headers never count.
    async fn near_duplicate_by_meaning(
        &self,
        category: &str,
        content: &str,
        threshold: f64,
    ) -> Result<Option<Live>, RecordsError> {
        let under = format!("{DIR}/{category}");
        let query = crate::search::document_text(content);
        let mode = crate::search::Mode::Semantic;
        let ranking = self
            .ranked_by_meaning(&query, &[], Some(&under), mode, None)
            .await?;
        let mut candidates: Vec<Live> = Vec::new();
        for r in &ranking.hits {
            if candidates.len() >= RECORDS_DEDUP_CANDIDATES {
                break;
            }
            let Some(file) = self.live(&ranking, r).await? else {
                continue;
            };
            if let Some(live) = self.live_record(&r.path, file).await? {
                candidates.push(live);
            }
        }
        if candidates.is_empty() {
            return Ok(None);
        }
        let mut texts = alloc::vec![String::from(content)];
        texts.extend(candidates.iter().map(|l| l.record.content.clone()));
        let cosines = self.document_cosines(&texts).await?;
        let mut found: Option<(f64, Live)> = None;
        for (c, live) in cosines.into_iter().zip(candidates) {
            if c >= threshold && found.as_ref().is_none_or(|(best, _)| c > *best) {
                found = Some((c, live));
            }
        }
        Ok(found.map(|(_, live)| live))
    }

    async fn record_store(
        &self,
        input: &Map<String, Value>,
        s: &Settings,
        by: Option<&Actor>,
    ) -> Answer {
        const T: &str = "memory_store";
        let content = string(T, "content", required(T, input, "content")?)?;
        if content.trim().is_empty() {
            return Err(RecordsError::input(T, "content must not be empty".into()));
        }
        let category = category(
            T,
            "category",
            string(T, "category", required(T, input, "category")?)?,
        )?;
        let importance = whole(T, "importance", required(T, input, "importance")?, 1, 5)? as u8;
        let tags: Vec<String> = match field(input, "tags") {
            None => Vec::new(),
            Some(v) => strings(T, "tags", v)?
                .into_iter()
                .map(String::from)
                .collect(),
        };
        if tags.len() > RECORDS_MAX_TAGS {
            return Err(RecordsError::input(
                T,
                format!(
                    "tags holds {} tags; the most is {RECORDS_MAX_TAGS}",
                    tags.len()
                ),
            ));
        }
        if let Some(bad) = tags.iter().find(|t| !tag_ok(t)) {
            return Err(RecordsError::input(
                T,
                format!(
                    "each tag must be 1 to {RECORDS_MAX_TAG_CHARS} characters without control characters, not {}",
                    crate::error::Echo(bad)
                ),
            ));
        }
        let now = self.now();
        let expires_at = match field(input, "expires_at") {
            None => None,
            Some(v) => {
                let text = string(T, "expires_at", v)?;
                let at = parse_ms(text).ok_or_else(|| {
                    RecordsError::input(
                        T,
                        format!(
                            "expires_at must be an ISO 8601 date-time such as 2026-12-31T00:00:00Z, not {}",
                            crate::error::Echo(text)
                        ),
                    )
                })?;
                if at <= now {
                    return Err(RecordsError::input(
                        T,
                        format!(
                            "expires_at {} has already passed (it is now {}); nothing was stored",
                            format_ms(at),
                            format_ms(now)
                        ),
                    ));
                }
                Some(at)
            }
        };
        let rec = Record {
            importance,
            tags,
            created: now,
            expires_at,
            content: String::from(content),
        };
        let text = rec.render();
        let max = self.config().limits.max_file_bytes;
        if text.len() > max {
            return Err(RecordsError::input(
                T,
                format!(
                    "content is too long: with its header the record would be {} bytes, and a document may be at most {}",
                    crate::number::Thousands(text.len() as u64),
                    crate::number::Thousands(max as u64)
                ),
            ));
        }
        let (memory_id, replaced) = self.write_record(category, &rec, &text, s, by).await?;
        let pruned =
            self.prune(s, &memory_id, by)
                .await
                .map_err(|cause| RecordsError::Pruning {
                    memory_id: memory_id.clone(),
                    cause,
                })?;
        let mut answer = json!({"success": true, "memory_id": memory_id});
        if let Some(map) = answer.as_object_mut() {
            if replaced {
                map.insert("replaced".into(), Value::Bool(true));
            }
            if !pruned.is_empty() {
                map.insert("pruned".into(), json!(pruned));
            }
        }
        Ok(answer)
    }

    /// Writes `text` as a new version of a near duplicate in `category`, or as a
    /// new document: its memory id, and whether it replaced one.
    async fn write_record(
        &self,
        category: &str,
        rec: &Record,
        text: &str,
        s: &Settings,
        by: Option<&Actor>,
    ) -> Result<(String, bool), RecordsError> {
        let none = alloc::collections::BTreeMap::new();
        let hex = Hash::of(rec.content.as_bytes()).hex();
        // A new document is named by its content's hash: 12 hex digits, more once
        // a name is taken (by another text with the same first digits).
        let mut names = [12, 16, 24, 32, 64].into_iter();
        let mut digits = names.next().unwrap_or(64);
        for _ in 0..RECORDS_ATTEMPTS {
            let head = self.read_head().await?;
            // Refused before the comparison, whose search would save the index
            // into a store that takes no writes.
            if head.store.as_ref().and_then(|m| m.archived_at).is_some() {
                return Err(write_error(ApiError::archived()));
            }
            let ctx = Ctx::of(&head, by.cloned());
            if let Some(old) = self.near_duplicate(category, &rec.content, s).await? {
                let id = ctx.ids.memory_id(old.file.mem);
                let body = json!({
                    "content": text,
                    "precondition": {"type": "content_sha256", "content_sha256": old.file.hash.hex()},
                });
                match self
                    .memory_update(&ctx, Some(&id), &body, &Query(&none))
                    .await
                {
                    Ok(_) => return Ok((id, true)),
                    // Changed or deleted since it was compared: compare again.
                    Err(ApiError::Precondition(_) | ApiError::NotFound(_)) => continue,
                    Err(e) => return Err(write_error(e)),
                }
            }
            let path = format!("{DIR}/{category}/{}.md", hex.get(..digits).unwrap_or(&hex));
            // A create never replaces what is there; without a `not_exists`
            // precondition its refusal names what holds the path (the API turns
            // every refusal into "taken" under one).
            let body = json!({ "path": path, "content": text });
            match self.memory_create(&ctx, &body, &Query(&none)).await {
                Ok(v) => {
                    let id = v.get("id").and_then(Value::as_str).unwrap_or_default();
                    return Ok((String::from(id), false));
                }
                // A file where the records' directory must be: no name helps.
                Err(e @ ApiError::PathConflict { .. }) if matches!(&e, ApiError::PathConflict { path: at, .. } if *at != path) =>
                {
                    return Err(RecordsError::Refused(format!("{e}")));
                }
                // Taken: perhaps by another writer storing this same text just now,
                // which the next comparison finds; else the next name is longer.
                Err(ApiError::PathConflict { .. }) => {
                    digits = names.next().unwrap_or(64);
                }
                Err(e) => return Err(write_error(e)),
            }
        }
        Err(RecordsError::Failed(ApiError::Busy))
    }

    /// Every record of the store, or `None` when the files where records live are
    /// no more than `capacity` (then the records are no more either, and none is
    /// read: a store below its capacity reads only the directories).
    async fn records_over(
        &self,
        head: &Head,
        capacity: u64,
    ) -> Result<Option<Vec<Live>>, ApiError> {
        let none = Overlay::default();
        let dir = crate::api::rules::store_path(DIR).map_err(|_| ApiError::Damaged)?;
        let top = match self.lookup(&none, head.root, &dir).await? {
            crate::command::plan::Found::Entry(c) if c.kind == Kind::Dir => c,
            _ => return Ok(None),
        };
        let mut files = self.files_beneath(&none, DIR, &top).await?;
        files.retain(|(path, file)| file.mem != 0 && category_of(path).is_some());
        if files.len() as u64 <= capacity {
            return Ok(None);
        }
        let mut out = Vec::new();
        for (path, file) in files {
            if let Some(live) = self.live_record(&path, file).await.map_err(|e| match e {
                RecordsError::Failed(e) => e,
                _ => ApiError::Damaged,
            })? {
                out.push(live);
            }
        }
        Ok(Some(out))
    }

    /// Deletes the records past the capacity, lowest effective importance first
    /// (never `kept`, the one just stored): their ids.
    async fn prune(
        &self,
        s: &Settings,
        kept: &str,
        by: Option<&Actor>,
    ) -> Result<Vec<String>, ApiError> {
        let mut pruned = Vec::new();
        for _ in 0..RECORDS_ATTEMPTS {
            let head = self.read_head().await?;
            let ctx = Ctx::of(&head, by.cloned());
            let Some(records) = self.records_over(&head, s.capacity).await? else {
                return Ok(pruned);
            };
            let over = (records.len() as u64).saturating_sub(s.capacity);
            if over == 0 {
                return Ok(pruned);
            }
            let now = self.now();
            let mut order: Vec<(f64, &Live)> = records
                .iter()
                .filter(|l| ctx.ids.memory_id(l.file.mem) != kept)
                .map(|l| (l.record.effective(now, s.half_life_days), l))
                .collect();
            order.sort_by(|(a, x), (b, y)| {
                a.total_cmp(b)
                    .then(x.record.created.cmp(&y.record.created))
                    .then(x.path.cmp(&y.path))
            });
            let mut raced = false;
            for (_, l) in order.iter().take(over as usize) {
                let id = ctx.ids.memory_id(l.file.mem);
                let mut q = alloc::collections::BTreeMap::new();
                q.insert("expected_content_sha256".into(), l.file.hash.hex());
                match self
                    .memory_delete_because(&ctx, Some(&id), &Query(&q), Some(PRUNE_REASON))
                    .await
                {
                    Ok(_) => pruned.push(id),
                    // Changed or deleted since it was read: count again.
                    Err(ApiError::Precondition(_) | ApiError::NotFound(_)) => raced = true,
                    Err(e) => return Err(e),
                }
            }
            if !raced {
                return Ok(pruned);
            }
        }
        Err(ApiError::Busy)
    }

    async fn record_delete(&self, input: &Map<String, Value>, by: Option<&Actor>) -> Answer {
        const T: &str = "memory_delete";
        let id = string(T, "memory_id", required(T, input, "memory_id")?)?;
        let reason = string(T, "reason", required(T, input, "reason")?)?;
        if reason.trim().is_empty() {
            return Err(RecordsError::input(T, "reason must not be empty".into()));
        }
        let n = reason.chars().count();
        if n > RECORDS_MAX_REASON_CHARS {
            return Err(RecordsError::input(
                T,
                format!(
                    "reason is {} characters long; the most is {}",
                    crate::number::Thousands(n as u64),
                    crate::number::Thousands(RECORDS_MAX_REASON_CHARS as u64)
                ),
            ));
        }
        for _ in 0..RECORDS_ATTEMPTS {
            let head = self.read_head().await?;
            let ctx = Ctx::of(&head, by.cloned());
            let mem = crate::api::rules::parse_id("mem", &ctx.ids.tag, id)
                .ok_or_else(|| RecordsError::NotFound(id.into()))?;
            let Some((path, file, _)) = self.find_memory(&head, mem).await? else {
                return Err(RecordsError::NotFound(id.into()));
            };
            let path = crate::command::plan::store_path(&path);
            // Only a record: the other documents are the other tools' to delete.
            if self.live_record(path, file).await?.is_none() {
                return Err(RecordsError::NotFound(id.into()));
            }
            let mut q = alloc::collections::BTreeMap::new();
            q.insert("expected_content_sha256".into(), file.hash.hex());
            match self
                .memory_delete_because(&ctx, Some(id), &Query(&q), Some(reason))
                .await
            {
                Ok(_) => return Ok(json!({"success": true})),
                Err(ApiError::Precondition(_)) => continue,
                Err(ApiError::NotFound(_)) => return Err(RecordsError::NotFound(id.into())),
                Err(e) => return Err(write_error(e)),
            }
        }
        Err(RecordsError::Failed(ApiError::Busy))
    }
}

/// The records toolset over every mounted store. One store takes every call as
/// is. With several, a record's id is `<mount>/<memory id>` (`team/mem_…_3`: the
/// stores' own ids may be alike), `memory_store` writes into the first read-write
/// store, `memory_retrieve` asks every store and merges their answers by score
/// (then id), and `memory_delete` goes to the store its id names.
impl<S: Store> crate::mounts::Mounted<Engine<S>> {
    /// [`Engine::records_json`] over the mounted stores.
    pub async fn records_json(
        &self,
        name: &str,
        input: &str,
        settings: &Settings,
        by: Option<&Actor>,
    ) -> Result<String, RecordsError> {
        let input = parse_input(name, input)?;
        let v = self.records(name, &input, settings, by).await?;
        Ok(serde_json::to_string(&v).unwrap_or_default())
    }

    /// [`Engine::records`] over the mounted stores.
    pub async fn records(
        &self,
        name: &str,
        input: &Value,
        settings: &Settings,
        by: Option<&Actor>,
    ) -> Answer {
        let engines: Vec<(&crate::mounts::Mount, &Engine<S>)> = self.engines().collect();
        if let [(_, engine)] = engines.as_slice() {
            return engine.records(name, input, settings, by).await;
        }
        let tool = tools::tool(name).ok_or_else(|| RecordsError::UnknownTool(name.into()))?;
        // `id` as the model sees it, in the store mounted at `m`.
        let shown = |m: &crate::mounts::Mount, id: &Value| {
            Value::from(format!("{}/{}", m.name, id.as_str().unwrap_or_default()))
        };
        match tool.name {
            "memory_store" => {
                let writable = engines
                    .iter()
                    .find(|(m, _)| m.access == crate::mounts::Access::ReadWrite);
                let Some((m, engine)) = writable else {
                    let mount = engines.first().map(|(m, _)| format!("/{}", m.name));
                    return Err(RecordsError::ReadOnly {
                        tool: tool.name,
                        mount: mount.unwrap_or_default(),
                    });
                };
                let mut v =
                    engine
                        .records(name, input, settings, by)
                        .await
                        .map_err(|e| match e {
                            RecordsError::Pruning { memory_id, cause } => RecordsError::Pruning {
                                memory_id: format!("{}/{memory_id}", m.name),
                                cause,
                            },
                            other => other,
                        })?;
                if let Some(id) = v.get_mut("memory_id") {
                    *id = shown(m, id);
                }
                if let Some(Value::Array(ids)) = v.get_mut("pruned") {
                    for id in ids.iter_mut() {
                        *id = shown(m, id);
                    }
                }
                Ok(v)
            }
            "memory_retrieve" => {
                let mut all: Vec<Value> = Vec::new();
                for (m, engine) in &engines {
                    let mut v = engine.records(name, input, settings, by).await?;
                    if let Some(Value::Array(list)) = v.get_mut("memories") {
                        for mut r in list.drain(..) {
                            if let Some(id) = r.get_mut("id") {
                                *id = shown(m, id);
                            }
                            all.push(r);
                        }
                    }
                }
                let score = |v: &Value| v.get("score").and_then(Value::as_f64).unwrap_or(0.0);
                let id =
                    |v: &Value| String::from(v.get("id").and_then(Value::as_str).unwrap_or(""));
                all.sort_by(|a, b| score(b).total_cmp(&score(a)).then(id(a).cmp(&id(b))));
                // Each store checked `limit`; the merged answer keeps as many.
                let limit = input
                    .get("limit")
                    .and_then(Value::as_u64)
                    .map_or(RECORDS_DEFAULT_LIMIT, |n| n as usize);
                all.truncate(limit);
                Ok(json!({ "memories": all }))
            }
            _ => {
                let given = input.get("memory_id").and_then(Value::as_str);
                let routed = given.and_then(|id| {
                    let (mount, local) = id.split_once('/')?;
                    let (m, engine) = engines.iter().find(|(m, _)| m.name == mount)?;
                    Some((m, engine, local))
                });
                match (given, routed) {
                    (Some(_), Some((m, _, _))) if m.access == crate::mounts::Access::ReadOnly => {
                        Err(RecordsError::ReadOnly {
                            tool: tool.name,
                            mount: format!("/{}", m.name),
                        })
                    }
                    (Some(_), Some((_, engine, local))) => {
                        let mut local_input = input.clone();
                        if let Some(map) = local_input.as_object_mut() {
                            map.insert("memory_id".into(), Value::from(local));
                        }
                        engine
                            .records(name, &local_input, settings, by)
                            .await
                            .map_err(|e| match e {
                                RecordsError::NotFound(_) => {
                                    RecordsError::NotFound(String::from(given.unwrap_or_default()))
                                }
                                other => other,
                            })
                    }
                    (Some(id), None) => {
                        // Judged as a store judges it (a missing reason first), then
                        // no store is named by it.
                        let (_, first) = engines.first().ok_or(RecordsError::Internal)?;
                        let mut probe = input.clone();
                        if let Some(map) = probe.as_object_mut() {
                            map.insert("memory_id".into(), Value::from(""));
                        }
                        match first.records(name, &probe, settings, by).await {
                            Err(RecordsError::NotFound(_)) => {
                                Err(RecordsError::NotFound(id.into()))
                            }
                            Err(other) => Err(other),
                            Ok(_) => Err(RecordsError::Internal),
                        }
                    }
                    // Not a string, or missing: the store's own words.
                    (None, _) => match engines.first() {
                        Some((_, engine)) => engine.records(name, input, settings, by).await,
                        None => Err(RecordsError::Internal),
                    },
                }
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn jaccard_is_shared_over_either() {
        let a = term_set("the quick brown fox");
        let b = term_set("the quick brown dog");
        assert_eq!(jaccard(&a, &b), 3.0 / 5.0);
        assert_eq!(jaccard(&a, &a), 1.0);
    }
}
