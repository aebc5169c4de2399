//! The line model: lines are `content.split('\n')`, numbered from 1, so `""` has one
//! line and `"a\n"` has two. Edits here are pure string work; the engine stores them.

use alloc::string::String;
use alloc::vec::Vec;

/// Line count under the split model (never zero).
pub fn count(content: &str) -> usize {
    memchr::memchr_iter(b'\n', content.as_bytes()).count() + 1
}

/// Where the lines of a text end, found in one scan: its line count, and any run
/// of its lines without scanning again (a view counts the lines, then numbers some).
pub struct Index<'a> {
    content: &'a str,
    /// Byte offsets of the `\n`s, or of the first ones only ([`Index::keeping`]).
    ends: Vec<usize>,
    /// How many `\n`s the text has.
    newlines: usize,
}

impl<'a> Index<'a> {
    /// The index of `content`, or `None` if it has more than `max_lines` lines
    /// (found without indexing the rest: the index is at most `max_lines` long).
    pub fn new(content: &'a str, max_lines: usize) -> Option<Index<'a>> {
        Index::keeping(content, max_lines, usize::MAX)
    }

    /// [`Index::new`] for a caller that lists only lines up to `keep`: the lines
    /// after it are counted (one vectorised count), not indexed, so a view of the
    /// first lines of a long file keeps a few offsets, not one per line.
    pub fn keeping(content: &'a str, max_lines: usize, keep: usize) -> Option<Index<'a>> {
        let bytes = content.as_bytes();
        let ends: Vec<usize> = memchr::memchr_iter(b'\n', bytes)
            .take(max_lines.min(keep))
            .collect();
        let newlines = if ends.len() == keep && keep < max_lines {
            let rest = bytes.get(ends.last().map_or(0, |e| e + 1)..);
            ends.len() + memchr::memchr_iter(b'\n', rest.unwrap_or_default()).count()
        } else {
            ends.len()
        };
        (newlines < max_lines).then_some(Index {
            content,
            ends,
            newlines,
        })
    }

    /// The line count (never zero).
    pub fn count(&self) -> usize {
        self.newlines + 1
    }

    /// Lines `first..` (numbered from 1); of an index [`Index::keeping`] only some,
    /// those up to the last it keeps.
    pub fn lines_from(&self, first: usize) -> impl Iterator<Item = &'a str> + '_ {
        let from = first.saturating_sub(1);
        let mut start = match from {
            0 => 0,
            n => self
                .ends
                .get(n - 1)
                .map_or(self.content.len() + 1, |e| e + 1),
        };
        let content = self.content;
        // The last line runs to the end of the text, unless `\n`s were not kept.
        let whole = self.ends.len() == self.newlines;
        self.ends
            .iter()
            .skip(from)
            .copied()
            .chain((whole && start <= content.len()).then_some(content.len()))
            .map(move |end| {
                // `\n` is ASCII, so both ends are character boundaries.
                let line = content.get(start..end).unwrap_or_default();
                start = end + 1;
                line
            })
    }
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
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn the_index_follows_str_split() {
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
            let std: Vec<&str> = text.split('\n').collect();
            let index = Index::new(text, usize::MAX).unwrap();
            assert_eq!(index.count(), std.len(), "{text:?}");
            assert_eq!(count(text), std.len(), "{text:?}");
            for first in 1..=std.len() + 1 {
                let ours: Vec<&str> = index.lines_from(first).collect();
                assert_eq!(ours, std[first - 1..], "{text:?} from line {first}");
            }
        }
    }

    #[test]
    fn an_index_keeping_the_first_lines_lists_them_and_counts_the_rest() {
        for text in ["", "\n", "a", "a\nb", "a\nb\n", "\n\n\n", "é\n漢字\n\nx\ny"] {
            let whole = Index::new(text, usize::MAX).unwrap();
            for keep in 0..=6 {
                let some = Index::keeping(text, usize::MAX, keep).unwrap();
                assert_eq!(some.count(), whole.count(), "{text:?} keeping {keep}");
                for first in 1..=keep {
                    let want: Vec<&str> = whole.lines_from(first).take(keep + 1 - first).collect();
                    let got: Vec<&str> = some.lines_from(first).take(keep + 1 - first).collect();
                    assert_eq!(got, want, "{text:?} keeping {keep} from line {first}");
                    // Never a line past the kept ones, which it could not delimit.
                    let listed = if keep < whole.count() - 1 {
                        keep + 1 - first
                    } else {
                        (whole.count() + 1).saturating_sub(first)
                    };
                    assert_eq!(
                        some.lines_from(first).count(),
                        listed,
                        "{text:?} keeping {keep}"
                    );
                }
            }
            // The cap holds on the lines counted, not only the kept ones.
            if whole.count() > 1 {
                assert!(
                    Index::keeping(text, whole.count() - 1, 1).is_none(),
                    "{text:?}"
                );
            }
        }
    }

    #[test]
    fn the_index_refuses_past_its_line_cap() {
        assert_eq!(Index::new("a\nb\nc", 3).map(|i| i.count()), Some(3));
        assert!(Index::new("a\nb\nc\n", 3).is_none());
        assert!(Index::new("\n\n\n\n\n", 3).is_none());
    }
}
