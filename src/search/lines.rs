//! What a hit shows: its best matching lines; and `memory.recall`'s block of the
//! most relevant memories for a system prompt.

use alloc::collections::BTreeMap;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

use crate::config::MAX_LINE_CHARS;
use crate::search::Line;
use crate::search::tokens::{each_folded_term, fold};

/// The indexed terms a query matched, with their weights (a whole term 1, a part
/// less: see `index.rs`).
pub(crate) type Matched = BTreeMap<Rc<str>, f64>;

/// A score as every text answer shows it (`memory_search`, `memory_find`, the
/// CLI): three decimals, enough to tell ranks apart; JSON answers carry the
/// exact number.
pub fn score_text(score: f64) -> String {
    alloc::format!("{score:.3}")
}

fn shown(line: &str) -> String {
    let mut out: String = line.chars().take(MAX_LINE_CHARS).collect();
    if line.chars().nth(MAX_LINE_CHARS).is_some() {
        out.push('…');
    }
    out
}

/// The best `max` lines of `text` for a query: a line scores the weights of the
/// distinct matched terms it holds, and holding the whole query (folded) puts it
/// first; ties go to the earlier line. Shown in line order; none when no line
/// matches (the memory was found by its path).
pub(crate) fn best_lines(query: &str, matched: &Matched, text: &str, max: usize) -> Vec<Line> {
    let phrase = fold(query.trim());
    // Folding keeps line breaks where they are (no compatibility form holds one),
    // so the folded text's lines are the text's.
    let folded = fold(text);
    let mut scored: Vec<(f64, usize)> = Vec::new();
    for (i, line) in folded.split('\n').enumerate() {
        // Only a line holding some matched term as text can hold it as a term.
        if !matched.keys().any(|t| line.contains(&**t)) {
            continue;
        }
        let mut seen: Vec<&Rc<str>> = Vec::new();
        let mut score = 0.0;
        each_folded_term(line, &mut |t| {
            if let Some((name, w)) = matched.get_key_value(t)
                && !seen.contains(&name)
            {
                seen.push(name);
                score += *w;
            }
        });
        if score > 0.0 {
            if !phrase.is_empty() && line.contains(&phrase) {
                score += 1000.0;
            }
            scored.push((score, i));
        }
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.truncate(max);
    scored.sort_by_key(|(_, i)| *i);
    let lines: Vec<&str> = text.split('\n').collect();
    scored
        .into_iter()
        .filter_map(|(_, i)| {
            Some(Line {
                line: i + 1,
                text: shown(lines.get(i)?),
            })
        })
        .collect()
}

/// The first `max` lines of `text` holding more than spaces: what a memory found
/// by meaning (no matched word) shows.
pub(crate) fn first_lines(text: &str, max: usize) -> Vec<Line> {
    text.split('\n')
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .take(max)
        .map(|(i, l)| Line {
            line: i + 1,
            text: shown(l),
        })
        .collect()
}

/// One memory offered to [`recall_block`]: its path as shown, its text and its
/// best lines.
pub struct Recalled<'a> {
    /// Its path as the caller shows it (`/memories/…`).
    pub path: &'a str,
    /// Its whole text.
    pub text: &'a str,
    /// Its best matching lines.
    pub lines: &'a [Line],
}

/// `memory.recall`'s block: the memories in the order given (best first), each
/// whole when it fits in what is left of `max_chars`, else its best lines
/// numbered, else left out, with the rest; empty when none fits or none was
/// found. The form:
///
/// ```text
/// <memories>
/// <memory path="/memories/preferences.md">
/// …the text…
/// </memory>
/// <memory path="/memories/notes/long.md" lines="12,40">
/// 12: a matching line
/// 40: another
/// </memory>
/// </memories>
/// ```
pub fn recall_block(items: &[Recalled<'_>], max_chars: usize) -> String {
    const OPEN: &str = "<memories>\n";
    const CLOSE: &str = "</memories>";
    let mut body = String::new();
    let mut used = OPEN.chars().count() + CLOSE.chars().count();
    for m in items {
        let whole = alloc::format!(
            "<memory path=\"{}\">\n{}\n</memory>\n",
            m.path,
            m.text.trim_end_matches('\n')
        );
        let n = whole.chars().count();
        if used + n <= max_chars {
            body.push_str(&whole);
            used += n;
            continue;
        }
        if m.lines.is_empty() {
            continue;
        }
        let numbers: Vec<String> = m
            .lines
            .iter()
            .map(|l| alloc::format!("{}", l.line))
            .collect();
        let mut part = alloc::format!(
            "<memory path=\"{}\" lines=\"{}\">\n",
            m.path,
            numbers.join(",")
        );
        for l in m.lines {
            let _ = writeln!(part, "{}: {}", l.line, l.text);
        }
        part.push_str("</memory>\n");
        let n = part.chars().count();
        if used + n <= max_chars {
            body.push_str(&part);
            used += n;
        }
    }
    if body.is_empty() {
        return String::new();
    }
    alloc::format!("{OPEN}{body}{CLOSE}")
}
