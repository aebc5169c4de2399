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
    /// Byte offsets of the `\n`s from the `skipped`-th on, or of some of them only
    /// ([`Index::window`]).
    ends: Vec<usize>,
    /// `\n`s before the first in `ends`, and where the line after them starts.
    skipped: usize,
    skipped_to: usize,
    /// How many `\n`s the text has.
    newlines: usize,
}

impl<'a> Index<'a> {
    /// The whole index: the tests check every window against it.
    #[cfg(test)]
    pub fn new(content: &'a str, max_lines: usize) -> Option<Index<'a>> {
        Index::window(content, max_lines, 1, usize::MAX)
    }

    /// The index of `content` for a caller that lists only lines `first..=keep`, or
    /// `None` if it has more than `max_lines` lines (found without indexing the
    /// rest). The lines before `first` are passed over and those after `keep`
    /// counted (one vectorised count), none indexed, so a view of a few lines of a
    /// long file, or an edit's snippet, keeps a few offsets, not one per line.
    pub fn window(
        content: &'a str,
        max_lines: usize,
        first: usize,
        keep: usize,
    ) -> Option<Index<'a>> {
        let bytes = content.as_bytes();
        let cap = max_lines.min(keep);
        let (skipped, skipped_to) = pass_lines(bytes, first.saturating_sub(1).min(cap));
        let ends: Vec<usize> =
            memchr::memchr_iter(b'\n', bytes.get(skipped_to..).unwrap_or_default())
                .take(cap - skipped)
                .map(|e| e + skipped_to)
                .collect();
        let kept = skipped + ends.len();
        let newlines = if kept == keep && keep < max_lines {
            let rest = bytes.get(ends.last().map_or(skipped_to, |e| e + 1)..);
            kept + memchr::memchr_iter(b'\n', rest.unwrap_or_default()).count()
        } else {
            kept
        };
        (newlines < max_lines).then_some(Index {
            content,
            ends,
            skipped,
            skipped_to,
            newlines,
        })
    }

    /// The line count (never zero).
    pub fn count(&self) -> usize {
        self.newlines + 1
    }

    /// Lines `first..` (numbered from 1); of an [`Index::window`] only those it keeps
    /// (none before its first, none past its last).
    pub fn lines_from(&self, first: usize) -> impl Iterator<Item = &'a str> + '_ {
        let content = self.content;
        // Lines before the window (never asked for) list nothing.
        let from = first.saturating_sub(1).checked_sub(self.skipped);
        let mut start = match from {
            None => content.len() + 1,
            Some(0) => self.skipped_to,
            Some(n) => self.ends.get(n - 1).map_or(content.len() + 1, |e| e + 1),
        };
        // The last line runs to the end of the text, unless `\n`s were not kept.
        let whole = self.skipped + self.ends.len() == self.newlines;
        self.ends
            .iter()
            .skip(from.unwrap_or(usize::MAX))
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

/// Passes over the first `n` `\n`s of `bytes` (all of them if it has fewer): how
/// many it passed, and the offset just after the last. Blocks are counted
/// (vectorised) while they hold fewer than are left to pass, instead of visiting
/// each line; they start small and double, so passing a few lines costs little more
/// than visiting them.
fn pass_lines(bytes: &[u8], n: usize) -> (usize, usize) {
    if n == 0 {
        return (0, 0);
    }
    let (mut at, mut passed, mut block) = (0, 0, 256);
    while let Some(chunk) = bytes.get(at..at + block) {
        let found = memchr::memchr_iter(b'\n', chunk).count();
        if passed + found >= n {
            break;
        }
        passed += found;
        at += block;
        block = (block * 2).min(8192);
    }
    let mut after = 0;
    for end in memchr::memchr_iter(b'\n', bytes.get(at..).unwrap_or_default()).take(n - passed) {
        passed += 1;
        after = at + end + 1;
    }
    if passed < n {
        // The text ran out: every `\n` was passed, the last of them perhaps in a block.
        after = memchr::memrchr(b'\n', bytes).map_or(0, |e| e + 1);
    }
    (passed, after)
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
    use alloc::format;

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
                let some = Index::window(text, usize::MAX, 1, keep).unwrap();
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
                    Index::window(text, whole.count() - 1, 1, 1).is_none(),
                    "{text:?}"
                );
            }
        }
    }

    #[test]
    fn a_window_lists_its_lines_as_the_whole_index_does() {
        for text in ["", "\n", "a", "a\nb", "a\nb\n", "\n\n\n", "é\n漢字\n\nx\ny"] {
            let whole = Index::new(text, usize::MAX).unwrap();
            for keep in [0, 1, 2, 3, 4, 6, usize::MAX] {
                for first in 1..=keep.min(8) {
                    let window = Index::window(text, usize::MAX, first, keep).unwrap();
                    let kept = Index::window(text, usize::MAX, 1, keep).unwrap();
                    assert_eq!(window.count(), whole.count(), "{text:?} {first}..={keep}");
                    let want: Vec<&str> = kept.lines_from(first).collect();
                    let got: Vec<&str> = window.lines_from(first).collect();
                    assert_eq!(got, want, "{text:?} {first}..={keep}");
                    // Before a window the text reaches: nothing, never a wrong line.
                    if first > 1 && first <= whole.count() {
                        assert_eq!(window.lines_from(first - 1).count(), 0, "{text:?} {first}");
                    }
                }
                // A window that starts past its end (a range given backwards) still
                // counts every line, for the refusal that names them.
                if keep < 8 {
                    for first in keep + 1..keep + 4 {
                        let window = Index::window(text, usize::MAX, first, keep).unwrap();
                        assert_eq!(window.count(), whole.count(), "{text:?} {first}..={keep}");
                    }
                }
            }
            if whole.count() > 1 {
                let last = whole.count();
                assert!(
                    Index::window(text, last - 1, last, usize::MAX).is_none(),
                    "{text:?}"
                );
            }
        }
    }

    #[test]
    fn a_window_of_a_long_text_lists_the_lines_split_gives() {
        // Texts over several of pass_lines' blocks, with lines short and long.
        for (lines, width) in [(3000, 3), (400, 41), (9, 2000), (2, 9000)] {
            for tail in ["", "\n"] {
                let text: String = (0..lines)
                    .map(|i| format!("{i:0width$}"))
                    .collect::<Vec<_>>()
                    .join("\n")
                    + tail;
                let std: Vec<&str> = text.split('\n').collect();
                let n = std.len();
                for first in [1, 2, n / 3, n / 2 + 1, n - 1, n, n + 1, n + 50] {
                    let first = first.max(1);
                    for keep in [first, first + 20, usize::MAX] {
                        let index = Index::window(&text, usize::MAX, first, keep).unwrap();
                        assert_eq!(index.count(), n, "{lines}x{width}{tail:?} {first}..={keep}");
                        let got: Vec<&str> = index.lines_from(first).take(21).collect();
                        let want: Vec<&str> =
                            std.iter().skip(first - 1).take(21).copied().collect();
                        // Lines past `keep` only when it is all but the last (as whole).
                        let listed = if keep < n - 1 {
                            keep + 1 - first
                        } else {
                            usize::MAX
                        };
                        let want = &want[..want.len().min(listed)];
                        assert_eq!(got, want, "{lines}x{width}{tail:?} {first}..={keep}");
                    }
                }
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
