//! The line model: lines are `content.split('\n')`, numbered from 1, so `""` has one
//! line and `"a\n"` has two. Edits here are pure string work; the engine stores them.

use alloc::string::String;
use alloc::vec::Vec;

/// Line count under the split model (never zero).
pub fn count(content: &str) -> usize {
    content.bytes().filter(|&b| b == b'\n').count() + 1
}

/// Where `needle` occurs, as byte offsets of non-overlapping matches.
pub fn occurrences(haystack: &str, needle: &str) -> Vec<usize> {
    haystack.match_indices(needle).map(|(i, _)| i).collect()
}

/// The 1-based line on which each byte offset lies (offsets ascending).
pub fn lines_of(content: &str, offsets: &[usize]) -> Vec<usize> {
    let mut out = Vec::with_capacity(offsets.len());
    let (mut line, mut scanned) = (1, 0);
    for &off in offsets {
        line += content
            .get(scanned..off)
            .map_or(0, |s| s.bytes().filter(|&b| b == b'\n').count());
        scanned = off;
        out.push(line);
    }
    out
}

/// `content` with `text` inserted as line(s) after line `after` (0 = before the
/// first). One trailing `\n` of `text` is dropped. `after` must be in `[0, count]`.
pub fn insert(content: &str, after: usize, text: &str) -> String {
    let text = text.strip_suffix('\n').unwrap_or(text);
    let mut out = String::with_capacity(content.len() + text.len() + 1);
    if after == 0 {
        out.push_str(text);
        out.push('\n');
        out.push_str(content);
        return out;
    }
    // Byte offset of the end of line `after` (where its `\n` is, or the end).
    let end = content
        .match_indices('\n')
        .nth(after - 1)
        .map_or(content.len(), |(i, _)| i);
    let (head, tail) = content.split_at(end);
    out.push_str(head);
    out.push('\n');
    out.push_str(text);
    out.push_str(tail);
    out
}
