//! The line model: lines are `content.split('\n')`, numbered from 1, so `""` has one
//! line and `"a\n"` has two. Edits here are pure string work; the engine stores them.

use alloc::string::String;
use alloc::vec::Vec;

/// Line count under the split model (never zero).
pub(crate) fn count(content: &str) -> usize {
    memchr::memchr_iter(b'\n', content.as_bytes()).count() + 1
}

/// Lines `first..` of `content` (numbered from 1) to the last, as bytes (see
/// [`Index::lines_from`]): those before passed over in counted blocks, the rest
/// found as they are listed, none counted first. `None` if the text has fewer
/// than `first` lines.
pub(crate) fn from(content: &str, first: usize) -> Option<impl Iterator<Item = &[u8]>> {
    let skip = first.checked_sub(1)?;
    let (passed, at) = pass_lines(content.as_bytes(), skip);
    if passed < skip {
        return None;
    }
    content.as_bytes().get(at..).map(split)
}

/// Where the lines of a text start, without an offset kept per line: its line
/// count (one vectorised count), and the lines from a first one on, found as they
/// are listed (a view counts the lines, then numbers some).
pub(crate) struct Index<'a> {
    content: &'a str,
    /// `\n`s passed before the window's first line, and where that line starts.
    skipped: usize,
    skipped_to: usize,
    /// How many `\n`s the text has.
    newlines: usize,
}

impl<'a> Index<'a> {
    /// The index of `content` for a caller that lists lines from `first` on, or
    /// `None` if it has more than `max_lines` lines. The lines before `first` are
    /// passed over by counting blocks ([`pass_lines`]) and the rest counted, none
    /// visited one by one, so a view of a few lines of a long file, or an edit's
    /// snippet, costs little more than those lines.
    pub(crate) fn window(content: &'a str, max_lines: usize, first: usize) -> Option<Index<'a>> {
        let bytes = content.as_bytes();
        let (skipped, skipped_to) = pass_lines(bytes, first.saturating_sub(1));
        let rest = bytes.get(skipped_to..).unwrap_or_default();
        let newlines = skipped + memchr::memchr_iter(b'\n', rest).count();
        (newlines < max_lines).then_some(Index {
            content,
            skipped,
            skipped_to,
            newlines,
        })
    }

    /// The line count (never zero).
    pub(crate) fn count(&self) -> usize {
        self.newlines + 1
    }

    /// Lines `first..` (numbered from 1) to the last; none among those the window
    /// passed over (never asked for), nor past the last. As bytes: they are written
    /// into an answer checked as UTF-8 once, and slicing them as text checked both
    /// ends of every line for a character boundary.
    pub(crate) fn lines_from(&self, first: usize) -> impl Iterator<Item = &'a [u8]> + '_ {
        let content = self.content;
        let bytes = content.as_bytes();
        let rest = bytes.get(self.skipped_to..).unwrap_or_default();
        let more = first
            .checked_sub(1)
            .and_then(|before| before.checked_sub(self.skipped));
        let (start, lines) = match more {
            Some(more) if more <= self.newlines - self.skipped => {
                let (_, after) = pass_lines(rest, more);
                (self.skipped_to + after, self.count() + 1 - first)
            }
            _ => (content.len(), 0),
        };
        split(bytes.get(start..).unwrap_or_default()).take(lines)
    }
}

/// The lines of `bytes`, split at each `\n` as `str::split` would, found as they
/// are listed.
fn split(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut start = 0;
    memchr::memchr_iter(b'\n', bytes)
        .chain(core::iter::once(bytes.len()))
        .map(move |end| {
            let line = bytes.get(start..end).unwrap_or_default();
            start = end + 1;
            line
        })
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

/// Where `needle` occurs, as byte offsets of non-overlapping matches, leftmost
/// first (as `str::match_indices`). memchr's SIMD search: the standard library's
/// two-way search was 4% of an edit. An empty needle matches between characters,
/// not between bytes, so it stays with the standard library.
pub(crate) fn occurrences(haystack: &str, needle: &str) -> Vec<usize> {
    if needle.is_empty() {
        return haystack.match_indices(needle).map(|(i, _)| i).collect();
    }
    memchr::memmem::find_iter(haystack.as_bytes(), needle.as_bytes()).collect()
}

/// The 1-based line on which each byte offset lies (offsets ascending).
pub(crate) fn lines_of(content: &str, offsets: &[usize]) -> Vec<usize> {
    let mut out = Vec::with_capacity(offsets.len());
    let (mut line, mut scanned) = (1, 0);
    for &off in offsets {
        line += content
            .as_bytes()
            .get(scanned..off)
            .map_or(0, |s| memchr::memchr_iter(b'\n', s).count());
        scanned = off;
        out.push(line);
    }
    out
}

/// `content` with `text` inserted as line(s) after line `after` (0 = before the
/// first). One trailing `\n` of `text` is dropped. `after` must be in `[0, count]`.
pub(crate) fn insert(content: &str, after: usize, text: &str) -> String {
    let text = text.strip_suffix('\n').unwrap_or(text);
    let mut out = String::with_capacity(content.len() + text.len() + 1);
    if after == 0 {
        out.push_str(text);
        out.push('\n');
        out.push_str(content);
        return out;
    }
    // Byte offset of the end of line `after` (where its `\n` is, or the end): the
    // lines before it passed over in counted blocks, not visited one by one.
    let end = match pass_lines(content.as_bytes(), after) {
        (passed, next) if passed == after => next - 1,
        _ => content.len(),
    };
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

    fn as_text(line: &[u8]) -> &str {
        core::str::from_utf8(line).unwrap()
    }

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
            "é\n漢字\n\nx\ny",
        ] {
            let std: Vec<&str> = text.split('\n').collect();
            assert_eq!(count(text), std.len(), "{text:?}");
            for window in 1..=std.len() + 2 {
                let index = Index::window(text, usize::MAX, window).unwrap();
                // Counted whole, wherever the window starts (a backwards range's
                // refusal names every line).
                assert_eq!(index.count(), std.len(), "{text:?} from {window}");
                for first in window..=std.len() + 2 {
                    let ours: Vec<&str> = index.lines_from(first).map(as_text).collect();
                    let want = std.get(first - 1..).unwrap_or_default();
                    assert_eq!(ours, want, "{text:?} window {window}, from line {first}");
                }
                // Before the window: nothing among the lines it passed over (those
                // past a short text's end are still listed right), never a wrong line.
                assert_eq!(index.lines_from(0).count(), 0, "{text:?} {window}");
                for first in 1..window {
                    let ours: Vec<&str> = index.lines_from(first).map(as_text).collect();
                    let passed = first < window.min(std.len());
                    let want = if passed { &[][..] } else { &std[first - 1..] };
                    assert_eq!(ours, want, "{text:?} window {window}, from line {first}");
                }
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
                for window in [1, 2, n / 3, n / 2 + 1, n - 1, n, n + 1, n + 50] {
                    let window = window.max(1);
                    let index = Index::window(&text, usize::MAX, window).unwrap();
                    assert_eq!(index.count(), n, "{lines}x{width}{tail:?} {window}");
                    for first in [window, window + 1, window + 700] {
                        let got: Vec<&str> =
                            index.lines_from(first).take(21).map(as_text).collect();
                        let want: Vec<&str> =
                            std.iter().skip(first - 1).take(21).copied().collect();
                        assert_eq!(got, want, "{lines}x{width}{tail:?} {window} {first}");
                    }
                }
            }
        }
    }

    #[test]
    fn edits_find_what_the_standard_library_finds() {
        let long: String = (0..3000).map(|i| format!("l{i} aa\n")).collect();
        let texts = [
            "",
            "a",
            "aaa",
            "aaaa\n",
            "é\n漢字\n\nx aa\n",
            "\n\n\n",
            &long,
        ];
        for text in texts {
            for needle in [
                "",
                "a",
                "aa",
                "\n",
                "字",
                "aa\nl",
                "x",
                "l2999 aa\n",
                "missing",
            ] {
                let want: Vec<usize> = text.match_indices(needle).map(|(i, _)| i).collect();
                assert_eq!(occurrences(text, needle), want, "{needle:?} in {text:.20?}");
                let lines: Vec<usize> = want
                    .iter()
                    .map(|&i| text[..i].split('\n').count())
                    .collect();
                assert_eq!(lines_of(text, &want), lines, "{needle:?} in {text:.20?}");
            }
            let std: Vec<&str> = text.split('\n').collect();
            for after in [0, 1, 2, std.len() / 2, std.len() - 1, std.len()] {
                let after = after.min(std.len());
                let mut want = std.clone();
                want.insert(after, "new");
                assert_eq!(
                    insert(text, after, "new\n"),
                    want.join("\n"),
                    "{text:.20?} {after}"
                );
            }
        }
    }

    #[test]
    fn the_index_refuses_past_its_line_cap() {
        assert_eq!(Index::window("a\nb\nc", 3, 1).map(|i| i.count()), Some(3));
        assert!(Index::window("a\nb\nc\n", 3, 1).is_none());
        assert!(Index::window("\n\n\n\n\n", 3, 1).is_none());
        // Wherever the window starts, every line is counted against the cap.
        assert!(Index::window("a\nb\nc\n", 3, 4).is_none());
    }
}
