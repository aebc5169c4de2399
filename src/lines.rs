//! The line model: lines are `content.split('\n')`, numbered from 1, so `""` has one
//! line and `"a\n"` has two. Edits here are pure string work; the engine stores them.

use alloc::string::String;
use alloc::vec::Vec;

/// Line count under the split model (never zero).
pub fn count(content: &str) -> usize {
    memchr::memchr_iter(b'\n', content.as_bytes()).count() + 1
}

/// The lines under the split model: `content.split('\n')`, with the line ends
/// found by memchr (a view splits a whole file).
pub fn split(content: &str) -> impl Iterator<Item = &str> {
    let mut start = 0;
    let mut ends = memchr::memchr_iter(b'\n', content.as_bytes()).chain([content.len()]);
    core::iter::from_fn(move || {
        let end = ends.next()?;
        // `\n` is ASCII, so both ends are character boundaries.
        let line = content.get(start..end).unwrap_or_default();
        start = end + 1;
        Some(line)
    })
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn split_and_count_follow_str_split() {
        for text in [
            "",
            "\n",
            "a",
            "a\n",
            "\na",
            "a\n\nb",
            "é\n漢字\n\n",
            "\r\n\n x \n",
        ] {
            let ours: Vec<&str> = split(text).collect();
            let std: Vec<&str> = text.split('\n').collect();
            assert_eq!(ours, std, "{text:?}");
            assert_eq!(count(text), std.len(), "{text:?}");
        }
    }
}
