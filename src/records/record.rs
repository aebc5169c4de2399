//! A record as a memory document: where it lives and its header.
//!
//! A record of category `c` is the document `/records/<c>/<name>.md` (the memory
//! tool sees `/memories/records/<c>/<name>.md`), `<name>` the first 12 hex digits of
//! its first content's SHA-256 (more when those are taken). Its directory is its
//! category. The document is a header between two `---` lines, then the content:
//!
//! ```text
//! ---
//! importance: 4
//! tags: ["python","fastapi"]
//! created: 2026-11-18T11:06:41.000Z
//! expires_at: 2026-12-31T00:00:00.000Z
//! ---
//! The user writes Python with FastAPI, async/await style.
//! ```
//!
//! `importance` is 1 to 5; `tags` a JSON array of strings; `created` when this
//! content was stored (a replacement stores it anew), RFC 3339 in UTC; `expires_at`
//! only when the record expires. Each key once, in any order, nothing else: a
//! document under `/records/` that is not so is not a record, and the records tools
//! leave it alone.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::config::{RECORDS_MAX_TAG_CHARS, RECORDS_MAX_TAGS};
use crate::time::{format_ms, parse_ms};

/// The directory every record is under (a store path).
pub(crate) const DIR: &str = "/records";

/// The six categories, in the seed's order.
pub(crate) const CATEGORIES: [&str; 6] = [
    "user_preference",
    "project_context",
    "factual_knowledge",
    "decision_log",
    "relationship",
    "task_progress",
];

/// One record's header and content.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Record {
    pub importance: u8,
    pub tags: Vec<String>,
    /// ms since the epoch.
    pub created: u64,
    pub expires_at: Option<u64>,
    pub content: String,
}

impl Record {
    /// The document's text.
    pub(crate) fn render(&self) -> String {
        let tags = serde_json::to_string(&self.tags).unwrap_or_default();
        let mut out = format!(
            "---\nimportance: {}\ntags: {tags}\ncreated: {}\n",
            self.importance,
            format_ms(self.created)
        );
        if let Some(at) = self.expires_at {
            out.push_str(&format!("expires_at: {}\n", format_ms(at)));
        }
        out.push_str("---\n");
        out.push_str(&self.content);
        out
    }

    /// The record a document's text holds, or `None` if it is not one.
    pub(crate) fn parse(text: &str) -> Option<Record> {
        let rest = text.strip_prefix("---\n")?;
        let (header, content) = rest.split_once("\n---\n").or_else(|| {
            // An empty content: the text ends at the closing line.
            rest.strip_suffix("\n---").map(|h| (h, ""))
        })?;
        let (mut importance, mut tags, mut created, mut expires_at) = (None, None, None, None);
        for line in header.split('\n') {
            let (key, value) = line.split_once(": ")?;
            let slot_taken = match key {
                "importance" => importance
                    .replace(value.parse::<u8>().ok().filter(|i| (1..=5).contains(i))?)
                    .is_some(),
                "tags" => tags.replace(parse_tags(value)?).is_some(),
                "created" => created.replace(parse_ms(value)?).is_some(),
                "expires_at" => expires_at.replace(parse_ms(value)?).is_some(),
                _ => return None,
            };
            if slot_taken {
                return None;
            }
        }
        Some(Record {
            importance: importance?,
            tags: tags?,
            created: created?,
            expires_at,
            content: String::from(content),
        })
    }

    /// Whether it has expired at `now` (an expiry at `now` has).
    pub(crate) fn expired(&self, now: u64) -> bool {
        self.expires_at.is_some_and(|at| at <= now)
    }

    /// Its importance decayed by its age at `now` with `half_life_days`: 0 once
    /// expired (so pruning takes expired records first).
    pub(crate) fn effective(&self, now: u64, half_life_days: f64) -> f64 {
        if self.expired(now) {
            return 0.0;
        }
        // A record from a clock ahead of this one is as fresh as can be.
        let age_days = now.saturating_sub(self.created) as f64 / 86_400_000.0;
        f64::from(self.importance) * libm::exp2(-age_days / half_life_days)
    }
}

fn parse_tags(value: &str) -> Option<Vec<String>> {
    let tags: Vec<String> = serde_json::from_str(value).ok()?;
    (tags.len() <= RECORDS_MAX_TAGS && tags.iter().all(|t| tag_ok(t))).then_some(tags)
}

/// A tag is 1 to [`RECORDS_MAX_TAG_CHARS`] characters, none a control character
/// (so the header stays one line a key).
pub(crate) fn tag_ok(t: &str) -> bool {
    let n = t.chars().count();
    (1..=RECORDS_MAX_TAG_CHARS).contains(&n) && !t.chars().any(char::is_control)
}

/// The category of the record at store path `path` (`/records/<category>/<name>`),
/// or `None` when the path is not a record's.
pub(crate) fn category_of(path: &str) -> Option<&'static str> {
    let rest = path.strip_prefix(DIR)?.strip_prefix('/')?;
    let (category, name) = rest.split_once('/')?;
    if name.is_empty() || name.contains('/') {
        return None;
    }
    CATEGORIES.iter().find(|c| **c == category).copied()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_as_it_was_written() {
        let r = Record {
            importance: 4,
            tags: alloc::vec!["a b".into(), "\"q\"".into()],
            created: 1_795_000_001_000,
            expires_at: Some(1_800_000_000_000),
            content: "line 1\n---\nline 3".into(),
        };
        let text = r.render();
        assert_eq!(
            text,
            "---\nimportance: 4\ntags: [\"a b\",\"\\\"q\\\"\"]\ncreated: 2026-11-18T11:06:41.000Z\nexpires_at: 2027-01-15T08:00:00.000Z\n---\nline 1\n---\nline 3"
        );
        assert_eq!(Record::parse(&text), Some(r.clone()));
        let empty = Record {
            content: String::new(),
            ..r
        };
        assert_eq!(Record::parse(&empty.render()), Some(empty));
        for bad in [
            "no header",
            "---\nimportance: 4\ntags: []\n---\nx",
            "---\nimportance: 6\ntags: []\ncreated: 2026-11-18T11:06:41.000Z\n---\nx",
            "---\nimportance: 4\nimportance: 4\ntags: []\ncreated: 2026-11-18T11:06:41.000Z\n---\nx",
            "---\nimportance: 4\ntags: []\ncreated: 2026-11-18T11:06:41.000Z\ncolour: red\n---\nx",
            "---\nimportance: 4\ntags: [1]\ncreated: 2026-11-18T11:06:41.000Z\n---\nx",
        ] {
            assert_eq!(Record::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_category_is_the_directory_right_under_records() {
        assert_eq!(
            category_of("/records/decision_log/a.md"),
            Some("decision_log")
        );
        assert_eq!(category_of("/records/decision_log/x/a.md"), None);
        assert_eq!(category_of("/records/other/a.md"), None);
        assert_eq!(category_of("/notes/decision_log/a.md"), None);
    }
}
