//! The text of every successful answer the model sees: views of files and
//! directories, sizes, line numbers and the success strings. (Failures are
//! [`crate::error::ToolError`], whose `Display` is their text.)

use alloc::format;
use alloc::string::String;

use crate::command::lines;
use crate::error::{Refusal, ToolError, ViewLines};
use crate::number::{Thousands, digits};
use crate::path::ValidPath;
use crate::storage::tree::{Child, Node};

/// The longest [`human_size`] (`u64::MAX` is "17179869184G").
const HUMAN_SIZE_MAX: usize = 12;

/// `{n}B` under 1 KiB; else K, M, G with one decimal below 10 and whole numbers
/// above, rounding halves up; a rounding that reaches 10 or 1024 takes the larger form.
pub(crate) fn human_size(bytes: u64) -> String {
    let mut out = String::with_capacity(HUMAN_SIZE_MAX);
    push_human_size(&mut out, bytes);
    out
}

/// [`human_size`] written onto the end of `out`. With itoa, not format!, and into
/// the answer itself: a listing sizes every row, and the formatting machinery, then
/// a string per row, were most of a directory view's cost.
fn push_human_size(out: &mut String, bytes: u64) {
    let num = |out: &mut String, n: u64| out.push_str(itoa::Buffer::new().format(n));
    if bytes < 1024 {
        num(out, bytes);
        out.push('B');
        return;
    }
    const UNITS: [char; 3] = ['K', 'M', 'G'];
    let mut unit = 0;
    let mut div: u64 = 1024;
    while unit + 1 < UNITS.len() && bytes / div >= 1024 {
        unit += 1;
        div *= 1024;
    }
    // bytes * scale / div rounded half up, from quotient and remainder so that no
    // u64 overflows (u128 arithmetic is a software division in wasm).
    let (q, r) = (bytes / div, bytes % div);
    let round = |scale: u64| q * scale + (r * scale * 2 + div) / (2 * div);
    let tenths = round(10);
    let name = |u: usize| UNITS.get(u).copied().unwrap_or('G');
    let whole = round(1);
    if tenths < 100 {
        // Two single digits: pushed as bytes, not formatted and copied.
        let digit = |d: u64| char::from(b'0' + (d % 10) as u8);
        out.push(digit(tenths / 10));
        out.push('.');
        out.push(digit(tenths));
        out.push(name(unit));
    } else if whole >= 1024 && unit + 1 < UNITS.len() {
        out.push_str("1.0");
        out.push(name(unit + 1));
    } else {
        num(out, whole);
        out.push(name(unit));
    }
}

/// Numbered lines as every answer shows them: the number right-aligned in 6
/// columns, a TAB, the text (`format!("{n:>6}\t{line}")`), after a newline unless
/// it is the first line of a run. The one writer of that format: file views, the
/// edit snippet and the toolset's search hits.
///
/// Written by hand: views number thousands of lines, and the formatting machinery,
/// then a prefix at a time checked as UTF-8, were most of a file view's cost. So the
/// number is counted up in place rather than divided out each line, and the lines
/// are written as bytes and checked as UTF-8 once, at the end.
pub(crate) struct Numbering {
    out: alloc::vec::Vec<u8>,
    /// The current number right-aligned in spaces (20 digits hold any `usize`).
    digits: [u8; 20],
    len: usize,
}

impl Numbering {
    /// Numbered lines after `out`, the first numbered `first`.
    pub(crate) fn new(out: String, first: usize) -> Numbering {
        let mut numbering = Numbering {
            out: out.into_bytes(),
            digits: [b' '; 20],
            len: 0,
        };
        numbering.jump(first);
        numbering
    }

    /// The next line is number `n`.
    pub(crate) fn jump(&mut self, n: usize) {
        let mut buffer = itoa::Buffer::new();
        let text = buffer.format(n).as_bytes();
        self.len = text.len();
        self.digits = [b' '; 20];
        if let Some(tail) = self.digits.get_mut(20 - self.len..) {
            tail.copy_from_slice(text);
        }
    }

    /// Writes the current number's line (a whole line of UTF-8 text), after a
    /// newline unless it is the `first`.
    pub(crate) fn push(&mut self, first: bool, line: &[u8]) {
        if self.len <= 6 {
            // The newline, the padded number and the TAB as one piece of fixed
            // size: plain stores, where a piece of any length was a copy call.
            let mut piece = [b'\n', b' ', b' ', b' ', b' ', b' ', b' ', b'\t'];
            if let (Some(to), Some(from)) = (piece.get_mut(1..7), self.digits.get(14..)) {
                to.copy_from_slice(from);
            }
            // Each branch a length known when compiled.
            if first {
                self.out
                    .extend_from_slice(piece.get(1..).unwrap_or_default());
            } else {
                self.out.extend_from_slice(&piece);
            }
        } else {
            if !first {
                self.out.push(b'\n');
            }
            self.out
                .extend_from_slice(self.digits.get(20 - self.len..).unwrap_or_default());
            self.out.push(b'\t');
        }
        self.out.extend_from_slice(line);
        self.step();
    }

    /// The bytes written so far.
    pub(crate) fn len(&self) -> usize {
        self.out.len()
    }

    /// Text that is not a numbered line (a search hit's path, the hint of a view
    /// cut at the read limit).
    pub(crate) fn push_text(&mut self, text: &str) {
        self.out.extend_from_slice(text.as_bytes());
    }

    /// The next number: a 9 carries, and a carry into a space adds a digit.
    fn step(&mut self) {
        for d in self.digits.iter_mut().rev() {
            match *d {
                b'9' => *d = b'0',
                b' ' => {
                    *d = b'1';
                    self.len += 1;
                    return;
                }
                _ => {
                    *d += 1;
                    return;
                }
            }
        }
    }

    pub(crate) fn finish(self) -> String {
        // Valid pieces joined: the check never fails, and a lossy copy would be no
        // worse than a panic if it ever did.
        String::from_utf8(self.out)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }
}

pub(crate) fn file_header(path: &ValidPath) -> String {
    format!("Here's the content of {path} with line numbers:\n")
}

pub(crate) fn dir_header(path: &ValidPath) -> String {
    format!(
        "Here're the files and directories up to 2 levels deep in {path}, excluding hidden items and node_modules:\n"
    )
}

/// The last line of a view cut at the read limit: the same for a file and a
/// directory's listing, which pages by `view_range` like a file.
pub(crate) fn cut_hint(limit: usize, last: usize, lines: usize, end: usize) -> String {
    format!(
        "[Output cut at the read limit of {} characters after line {last} of {lines}. To see more, view with view_range [{}, {end}].]",
        Thousands(limit as u64),
        last + 1
    )
}

pub(crate) fn created(path: &ValidPath) -> String {
    format!("File created successfully at: {path}")
}

pub(crate) fn inserted(path: &ValidPath) -> String {
    format!("The file {path} has been edited.")
}

pub(crate) fn deleted(path: &ValidPath) -> String {
    format!("Successfully deleted {path}")
}

pub(crate) fn renamed(from: &ValidPath, to: &ValidPath) -> String {
    format!("Successfully renamed {from} to {to}")
}

pub(crate) const SNIPPET_HEADER: &str = "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n";

// ---- views --------------------------------------------------------------

/// Children a directory view lists: not hidden, not `node_modules`.
pub(crate) fn visible(node: &Node) -> impl Iterator<Item = (&str, &Child)> {
    node.children
        .iter()
        .map(|(name, c)| (&**name, c))
        .filter(|(name, _)| is_visible(name))
}

/// Whether a listing shows an entry of this name (hidden names and `node_modules`
/// are left out, as the vendor's listing does).
pub(crate) fn is_visible(name: &str) -> bool {
    !name.starts_with('.') && name != "node_modules"
}

/// Numbered lines from two before the first changed line to two after the last
/// line of the inserted text, clipped to the file.
pub(crate) fn snippet(content: &str, first: usize, extra_lines: usize) -> String {
    let start = first.saturating_sub(2).max(1);
    // The lines before the snippet are passed over, the rest counted.
    let Some(index) = lines::Index::window(content, usize::MAX, start) else {
        return String::from(SNIPPET_HEADER);
    };
    let end = first
        .saturating_add(extra_lines)
        .saturating_add(2)
        .min(index.count());
    let mut out = Numbering::new(String::from(SNIPPET_HEADER), start);
    for (i, line) in index.lines_from(start).take(end + 1 - start).enumerate() {
        out.push(i == 0, line);
    }
    out.finish()
}

use crate::config::MAX_VIEW_LINES;

pub(crate) fn view_file(
    path: &ValidPath,
    content: &str,
    range: Option<(i64, i64)>,
    limit: usize,
) -> Result<String, ToolError> {
    // A file of fewer bytes than the line cap has fewer lines than it (a line but
    // the last ends in a byte). Its lines are written at once, with no count of
    // them first (a pass over the file, 4-5% of a view). An answer of at most
    // `limit` bytes has at most `limit` characters, so nothing in it would be cut.
    // A longer answer, a range the file does not hold, or a range refused is
    // written again the counted way, which has every refusal and the cut.
    let wanted = match range {
        None => Some((1, usize::MAX)),
        Some((s, -1)) if s >= 1 => usize::try_from(s).ok().map(|s| (s, usize::MAX)),
        Some((s, e)) if s >= 1 && e >= s => usize::try_from(s).ok().zip(usize::try_from(e).ok()),
        Some(_) => None,
    };
    if content.len() < MAX_VIEW_LINES
        && let Some((first, last)) = wanted
        && let Some(listed) = lines::from(content, first)
    {
        let mut out = file_header(path);
        let wanted_lines = last.saturating_sub(first).saturating_add(1);
        // Room at an average of 32 bytes a line; shorter ones grow it.
        let room = content.len() + content.len() / 4 + 8;
        out.reserve(room.min(wanted_lines.saturating_mul(40)).min(limit));
        let mut numbering = Numbering::new(out, first);
        // Two loops: the whole file's listed through `take` was 3% slower.
        let whole = if last == usize::MAX {
            for (i, line) in listed.enumerate() {
                numbering.push(i == 0, line);
            }
            true
        } else {
            let mut shown = 0;
            for line in listed.take(wanted_lines) {
                numbering.push(shown == 0, line);
                shown += 1;
            }
            shown == wanted_lines
        };
        if whole && numbering.len() <= limit {
            return Ok(numbering.finish());
        }
    }
    view_file_counted(path, content, range, limit)
}

/// [`view_file`] with the lines counted first: every refusal, and the cut at the
/// read limit.
fn view_file_counted(
    path: &ValidPath,
    content: &str,
    range: Option<(i64, i64)>,
    limit: usize,
) -> Result<String, ToolError> {
    // A range lists no line before its first: those are passed over, not visited.
    let first = match range {
        Some((s, _)) if s >= 1 => usize::try_from(s).unwrap_or(1),
        _ => 1,
    };
    let Some(index) = lines::Index::window(content, MAX_VIEW_LINES, first) else {
        return Err(Refusal::TooManyLines(path.clone()).into());
    };
    let n = index.count();
    let (start, end) = lines_in_range(range, n, ViewLines::OfFile)?;
    let mut out = file_header(path);
    let shown = end + 1 - start;
    // Each line adds at most 8 bytes (6 digits, a TAB, a newline) and a character is
    // at least a byte, so most views need no character counting at all.
    let fits = out.len() + content.len() + 8 * shown <= limit;
    // Room for the lines shown, taking them as long as the file's average line: a
    // view of a few lines of a long file does not reserve the whole file.
    out.reserve((content.len() / n * shown + 8 * shown).min(limit));
    let mut used = if fits { 0 } else { out.chars().count() };
    let mut numbering = Numbering::new(out, start);
    for (i, line) in index.lines_from(start).take(shown).enumerate() {
        let number = start + i;
        let first = i == 0;
        if !fits {
            let cost = 7.max(1 + digits(number)) + chars(line) + usize::from(!first);
            if !first && used + cost > limit {
                numbering.push_text("\n");
                numbering.push_text(&cut_hint(limit, number - 1, n, end));
                return Ok(numbering.finish());
            }
            used += cost;
        }
        numbering.push(first, line);
    }
    Ok(numbering.finish())
}

/// The characters of a line of UTF-8 text: its bytes that do not continue one.
fn chars(line: &[u8]) -> usize {
    line.iter().filter(|&&b| (b as i8) >= -0x40).count()
}

/// `view_range` as the lines `start..=end` of `n`, or the refusal naming which
/// element is wrong.
fn lines_in_range(
    range: Option<(i64, i64)>,
    n: usize,
    of: ViewLines,
) -> Result<(usize, usize), ToolError> {
    let Some((s, e)) = range else {
        return Ok((1, n));
    };
    let lines = n;
    if s < 1 || s > n as i64 {
        return Err(Refusal::RangeFirst {
            start: s,
            end: e,
            lines,
            of,
        }
        .into());
    }
    if e != -1 && e < s {
        return Err(Refusal::RangeOrder {
            start: s,
            end: e,
            lines,
        }
        .into());
    }
    if e > n as i64 {
        return Err(Refusal::RangeSecond {
            start: s,
            end: e,
            lines,
            of,
        }
        .into());
    }
    Ok((s as usize, if e == -1 { n } else { e as usize }))
}

/// A directory's listing: line 1 is the directory itself, then its entries. Like a
/// file, it is cut at the read limit with a hint naming the `view_range` of the
/// rest, so every entry of a directory of any size can be reached.
/// One row of a directory listing: a size and a path in pieces, written out as
/// they are (a listing has a row per entry; none of them is made into a string).
pub(crate) type Row<'a> = (u64, [&'a str; 6]);

pub(crate) fn view_dir(
    path: &ValidPath,
    rows: &[Row],
    range: Option<(i64, i64)>,
    limit: usize,
) -> Result<String, ToolError> {
    let n = rows.len();
    let (start, end) = lines_in_range(range, n, ViewLines::OfListing)?;
    let mut out = dir_header(path);
    let mut used = out.chars().count();
    let shown_rows = rows.get(start - 1..end).unwrap_or_default();
    // A row adds at most its path, a size, a TAB and a newline, and a character is
    // at least a byte, so most listings need no character counting at all.
    let most = out.len()
        + shown_rows
            .iter()
            .map(|(_, s)| s.iter().map(|p| p.len()).sum::<usize>() + HUMAN_SIZE_MAX + 2)
            .sum::<usize>();
    let fits = most <= limit;
    if fits {
        // The whole answer at once, instead of growing it a doubling at a time.
        out.reserve(most - out.len());
    }
    for (i, (size, shown)) in shown_rows.iter().enumerate() {
        let number = start + i;
        let first = i == 0;
        if !fits {
            // The size is ASCII: its length is its characters.
            let chars: usize = shown.iter().map(|p| p.chars().count()).sum();
            let cost = human_size(*size).len() + 1 + chars + usize::from(!first);
            if !first && used + cost > limit {
                out.push('\n');
                out.push_str(&cut_hint(limit, number - 1, n, end));
                return Ok(out);
            }
            used += cost;
        }
        if !first {
            out.push('\n');
        }
        push_human_size(&mut out, *size);
        out.push('\t');
        for part in shown {
            // Most pieces are a slash or nothing: a byte pushed, or none, where a
            // piece of any length was a copy call.
            match part.as_bytes() {
                [] => {}
                [b] => out.push(char::from(*b)),
                _ => out.push_str(part),
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_the_spec() {
        let cases = [
            (0, "0B"),
            (1023, "1023B"),
            (1024, "1.0K"),
            (1536, "1.5K"),
            (10_239, "10K"),
            (10_240, "10K"),
            (10_752, "11K"),
            (12_288, "12K"),
            (348_160, "340K"),
            (1_048_575, "1.0M"),
            (1_048_576, "1.0M"),
            (10_380_902, "9.9M"),
            (1_073_741_824, "1.0G"),
            (2_000_000_000_000, "1863G"),
            ((1 << 53) - 1, "8388608G"),
            (u64::MAX, "17179869184G"),
        ];
        for (b, want) in cases {
            assert_eq!(human_size(b), want, "{b}");
        }
        assert_eq!(human_size(u64::MAX).len(), HUMAN_SIZE_MAX);
    }

    #[test]
    fn a_lines_characters_are_counted_from_its_bytes() {
        for line in [
            "",
            "plain",
            "é",
            "漢字 and 🦀",
            "\u{7f}\u{80}\u{7ff}\u{800}\u{ffff}\u{10000}",
        ] {
            assert_eq!(chars(line.as_bytes()), line.chars().count(), "{line:?}");
        }
    }

    #[test]
    fn a_view_written_at_once_is_the_view_counted_first() {
        // A view writes its lines first and measures after; the counted way counts
        // the lines first, refuses ranges the file does not hold and cuts by
        // characters. Both must give the same answer (or refusal) whatever the text,
        // the range and the limit.
        let path = crate::path::validate("/memories/notes.md").unwrap();
        let texts = [
            String::new(),
            String::from("\n"),
            String::from("one line"),
            String::from("é\n漢字\n\n🦀 last\n"),
            (1..=300)
                .map(|i| format!("line {i} {}\n", "ü".repeat(i % 17)))
                .collect(),
            "x\n".repeat(2000),
        ];
        let mut compared = 0;
        for text in &texts {
            let n = text.split('\n').count() as i64;
            let whole = view_file_counted(&path, text, None, usize::MAX).unwrap();
            let chars = whole.chars().count();
            let mut ranges = alloc::vec![None];
            for s in [-1, 0, 1, 2, n / 2, n - 1, n, n + 1] {
                for e in [-2, -1, 0, 1, s, s + 1, s + 19, n - 1, n, n + 1] {
                    ranges.push(Some((s, e)));
                }
            }
            for range in ranges {
                for limit in [
                    0,
                    10,
                    100,
                    chars - 1,
                    chars,
                    chars + 1,
                    whole.len(),
                    usize::MAX,
                ] {
                    assert_eq!(
                        view_file(&path, text, range, limit),
                        view_file_counted(&path, text, range, limit),
                        "{text:.20?} {range:?} at {limit}"
                    );
                    compared += 1;
                }
            }
        }
        assert_eq!(compared, 6 * 81 * 8);
    }

    #[test]
    fn numbered_lines_follow_the_format_across_every_digit_carry() {
        for first in [0, 1, 7, 95, 99_990, 999_990, 9_999_990] {
            let mut counted = Numbering::new(String::from("head\n"), first);
            let mut want = String::from("head\n");
            for i in 0..20 {
                counted.push(i == 0, "line é".as_bytes());
                let n = first + i;
                want.push_str(&format!("{}{n:>6}\tline é", if i == 0 { "" } else { "\n" }));
            }
            assert_eq!(counted.finish(), want, "from {first}");
        }
    }

    #[test]
    fn numbered_lines_after_a_jump_follow_the_format() {
        let numbers = [
            0,
            1,
            9,
            10,
            99_999,
            999_999,
            1_000_000,
            123_456_789,
            usize::MAX,
            3,
            1_000_000,
            42,
        ];
        let mut out = Numbering::new(String::new(), 5);
        let mut want = String::new();
        for (i, n) in numbers.into_iter().enumerate() {
            out.jump(n);
            out.push(i == 0, b"text");
            out.push_text(" and");
            want.push_str(&format!(
                "{}{n:>6}\ttext and",
                if i == 0 { "" } else { "\n" }
            ));
        }
        assert_eq!(out.finish(), want);
    }
}
