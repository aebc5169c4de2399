//! The text of every answer the model sees: success strings, views, sizes and the
//! errors the engine itself raises (path and input errors live beside their rules).

use alloc::format;
use alloc::string::String;
use core::fmt::{self, Write};

use crate::path::ValidPath;
use crate::store::StoreError;

/// A count written with thousands separators: `102,400`.
pub struct Thousands(pub u64);

impl fmt::Display for Thousands {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let digits = format!("{}", self.0);
        for (i, d) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                f.write_char(',')?;
            }
            f.write_char(d)?;
        }
        Ok(())
    }
}

/// `{n}B` under 1 KiB; else K, M, G with one decimal below 10 and whole numbers
/// above, rounding halves up; a rounding that reaches 10 or 1024 takes the larger form.
pub fn human_size(bytes: u64) -> String {
    if bytes < 1024 {
        return format!("{bytes}B");
    }
    const UNITS: [char; 3] = ['K', 'M', 'G'];
    let mut unit = 0;
    let mut div: u128 = 1024;
    while unit + 1 < UNITS.len() && u128::from(bytes) / div >= 1024 {
        unit += 1;
        div *= 1024;
    }
    let b = u128::from(bytes);
    let round = |scale: u128| (b * scale * 2 + div) / (2 * div);
    let tenths = round(10);
    let name = |u: usize| UNITS.get(u).copied().unwrap_or('G');
    if tenths < 100 {
        return format!("{}.{}{}", tenths / 10, tenths % 10, name(unit));
    }
    let whole = round(1);
    if whole >= 1024 && unit + 1 < UNITS.len() {
        return format!("1.0{}", name(unit + 1));
    }
    format!("{whole}{}", name(unit))
}

/// One numbered line: the number right-aligned in 6 columns, a TAB, the text
/// (`format!("{n:>6}\t{line}")`, written by hand: views number thousands of lines
/// and the formatting machinery dominated their cost).
pub fn numbered(out: &mut String, n: usize, line: &str) {
    let mut digits = [b' '; 20];
    let mut start = digits.len();
    let mut rest = n;
    for slot in digits.iter_mut().rev() {
        *slot = b'0' + (rest % 10) as u8;
        start -= 1;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    let start = start.min(digits.len() - 6);
    out.push_str(core::str::from_utf8(digits.get(start..).unwrap_or_default()).unwrap_or_default());
    out.push('\t');
    out.push_str(line);
}

pub fn file_header(path: &ValidPath) -> String {
    format!("Here's the content of {path} with line numbers:\n")
}

pub fn dir_header(path: &ValidPath) -> String {
    format!(
        "Here're the files and directories up to 2 levels deep in {path}, excluding hidden items and node_modules:\n"
    )
}

pub fn file_cut_hint(limit: usize, last: usize, lines: usize, end: usize) -> String {
    format!(
        "[Output cut at the read limit of {} characters after line {last} of {lines}. To see more, view with view_range [{}, {end}].]",
        Thousands(limit as u64),
        last + 1
    )
}

pub fn dir_cut_hint(limit: usize, more: usize) -> String {
    format!(
        "[Output cut at the read limit of {} characters: {more} more entries not shown. View a subdirectory to see them.]",
        Thousands(limit as u64)
    )
}

pub fn created(path: &ValidPath) -> String {
    format!("File created successfully at: {path}")
}

pub fn inserted(path: &ValidPath) -> String {
    format!("The file {path} has been edited.")
}

pub fn deleted(path: &ValidPath) -> String {
    format!("Successfully deleted {path}")
}

pub fn renamed(from: &ValidPath, to: &ValidPath) -> String {
    format!("Successfully renamed {from} to {to}")
}

pub const SNIPPET_HEADER: &str = "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n";

// ---- errors -------------------------------------------------------------

/// For view, str_replace and insert: the path names nothing (or a directory where a
/// file is needed).
pub fn not_found_hint(path: &ValidPath) -> String {
    format!("The path {path} does not exist. Please provide a valid path.")
}

/// For delete and rename.
pub fn not_found(path: &ValidPath) -> String {
    format!("The path {path} does not exist")
}

pub fn too_many_lines(path: &ValidPath) -> String {
    format!("File {path} exceeds maximum line limit of 999,999 lines.")
}

pub fn range_on_directory() -> String {
    "The `view_range` parameter is not allowed when path points to a directory.".into()
}

pub fn range_first(s: i64, e: i64, n: usize) -> String {
    format!(
        "Invalid `view_range`: [{s}, {e}]. Its first element `{s}` should be within the range of lines of the file: [1, {n}]"
    )
}

pub fn range_order(s: i64, e: i64, n: usize) -> String {
    format!(
        "Invalid `view_range`: [{s}, {e}]. Its second element `{e}` should not be less than its first element `{s}`; the valid range is [1, {n}]"
    )
}

pub fn range_second(s: i64, e: i64, n: usize) -> String {
    format!(
        "Invalid `view_range`: [{s}, {e}]. Its second element `{e}` should be within the range of lines of the file: [1, {n}], or -1 for the last line"
    )
}

pub fn already_exists(path: &ValidPath) -> String {
    format!("File {path} already exists")
}

pub fn create_root() -> String {
    "Cannot create /memories: it is the memory directory itself".into()
}

pub fn create_under_file(path: &ValidPath, file: &ValidPath) -> String {
    format!("Cannot create {path}: {file} is a file, not a directory")
}

pub fn no_match(old: &str, path: &ValidPath) -> String {
    format!("No replacement was performed, old_str `{old}` did not appear verbatim in {path}.")
}

pub fn many_matches(old: &str, lines: &[usize]) -> String {
    let mut list = String::new();
    for (i, l) in lines.iter().enumerate() {
        if i > 0 {
            list.push_str(", ");
        }
        let _ = write!(list, "{l}");
    }
    format!(
        "No replacement was performed. Multiple occurrences of old_str `{old}` in lines: {list}. Please ensure it is unique"
    )
}

pub fn bad_insert_line(k: &serde_json::Number, n: usize) -> String {
    format!(
        "Invalid `insert_line` parameter: {k}. It should be within the range of lines of the file: [0, {n}]"
    )
}

pub fn delete_root() -> String {
    "Cannot delete the /memories directory itself".into()
}

pub fn rename_root() -> String {
    "Cannot rename the /memories directory itself".into()
}

pub fn rename_onto_root(from: &ValidPath) -> String {
    format!("Cannot rename {from} to /memories: that is the memory directory itself")
}

pub fn rename_into_itself(from: &ValidPath, to: &ValidPath) -> String {
    format!("Cannot rename {from} to {to}: a directory cannot be moved inside itself")
}

pub fn destination_exists(to: &ValidPath) -> String {
    format!("The destination {to} already exists")
}

pub fn rename_under_file(from: &ValidPath, to: &ValidPath, file: &ValidPath) -> String {
    format!("Cannot rename {from} to {to}: {file} is a file, not a directory")
}

pub fn file_too_large(path: &ValidPath, bytes: usize, max: usize) -> String {
    format!(
        "Cannot write {path}: the content would be {} bytes, over the limit of {} bytes per file. Nothing was written.",
        Thousands(bytes as u64),
        Thousands(max as u64)
    )
}

pub fn over_quota(path: &ValidPath, total: u64, quota: u64) -> String {
    format!(
        "Cannot write {path}: the memory directory would hold {} bytes, over its quota of {} bytes. Nothing was written.",
        Thousands(total),
        Thousands(quota)
    )
}

pub fn holds_secret(path: &ValidPath, kind: &str) -> String {
    format!(
        "Cannot write {path}: the text looks like it holds a credential ({kind}). Memories must not store credentials; nothing was written."
    )
}

pub fn storage(e: StoreError) -> String {
    match e {
        StoreError::QuotaExceeded => "The memory directory's storage is full; nothing was changed.",
        StoreError::Unavailable => {
            "The memory directory's storage is unavailable right now; nothing was changed."
        }
        StoreError::Failed => "The memory directory's storage failed; nothing was changed.",
    }
    .into()
}

pub fn damaged() -> String {
    "The memory directory's storage is damaged: a stored record is missing or unreadable.".into()
}

pub fn busy() -> String {
    "The memory directory is busy: other writers kept changing it while this command ran; nothing was changed. Try again."
        .into()
}

#[cfg(test)]
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
        ];
        for (b, want) in cases {
            assert_eq!(human_size(b), want, "{b}");
        }
    }

    #[test]
    fn numbered_lines_match_the_format_rule() {
        for n in [
            0,
            1,
            9,
            10,
            99_999,
            999_999,
            1_000_000,
            123_456_789,
            usize::MAX,
        ] {
            let mut out = String::new();
            numbered(&mut out, n, "text");
            assert_eq!(out, format!("{n:>6}\ttext"));
        }
    }

    #[test]
    fn thousands() {
        assert_eq!(format!("{}", Thousands(0)), "0");
        assert_eq!(format!("{}", Thousands(999)), "999");
        assert_eq!(format!("{}", Thousands(1024)), "1,024");
        assert_eq!(format!("{}", Thousands(102_400)), "102,400");
        assert_eq!(format!("{}", Thousands(104_857_600)), "104,857,600");
    }
}
