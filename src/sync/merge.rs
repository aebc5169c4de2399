//! What two edits of one memory make together: a three-way merge by lines
//! (diffy's), and the form in which overlapping edits stay visible to the model.
//!
//! Edits to different lines merge. Where both sides changed the same lines, both
//! texts stay, between markers a model (or a person) can read and resolve with one
//! edit, as git writes them:
//!
//! ```text
//! <<<<<<< ours
//! this store's lines
//! =======
//! the remote store's lines
//! >>>>>>> theirs
//! ```
//!
//! `ours` is always the local store's text and `theirs` the remote's, whichever
//! side runs the sync; a marker always starts a line, even after a last line with
//! no newline.
//!
//! The line diff's work grows with the square of the lines it compares, so texts
//! of more than [`SYNC_MERGE_MAX_LINES`] lines together are not diffed: both stay
//! whole, between the same markers. The bound is on lines, not time, so the same
//! texts always merge the same way.

use alloc::string::String;

use diffy::{ConflictStyle, IncompleteHunkStyle, MergeOptions};

use crate::config::SYNC_MERGE_MAX_LINES;

/// Two edits of one text, merged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Merged {
    /// The edits touch different lines (or are the same): one text holds both.
    Clean(String),
    /// The edits overlap: the text holds both sides between conflict markers.
    Conflict(String),
}

impl Merged {
    /// The merged text, conflict markers and all.
    pub fn text(&self) -> &str {
        match self {
            Merged::Clean(t) | Merged::Conflict(t) => t,
        }
    }
}

/// Merges `ours` and `theirs`, both edited from `base`. With no base (the memory
/// was made on both sides, or its base version is gone), `base` is empty and
/// whatever the two texts do not share is a conflict.
pub fn merge(base: &str, ours: &str, theirs: &str) -> Merged {
    if ours == theirs || theirs == base {
        return Merged::Clean(ours.into());
    }
    if ours == base {
        return Merged::Clean(theirs.into());
    }
    if lines(base)
        .saturating_add(lines(ours))
        .saturating_add(lines(theirs))
        > SYNC_MERGE_MAX_LINES
    {
        return Merged::Conflict(whole(ours, theirs));
    }
    let mut options = MergeOptions::new();
    options
        .set_conflict_style(ConflictStyle::Merge)
        .set_incomplete_hunk_style(IncompleteHunkStyle::Git);
    match options.merge(base, ours, theirs) {
        Ok(text) => Merged::Clean(text),
        Err(text) => Merged::Conflict(text),
    }
}

/// The lines of `text`: its newlines, and one more for a last line without one.
fn lines(text: &str) -> usize {
    let newlines = text.bytes().filter(|&b| b == b'\n').count();
    newlines + usize::from(!text.is_empty() && !text.ends_with('\n'))
}

/// Both texts whole, between conflict markers: the form of a conflict with no
/// line in common, each marker on a line of its own.
fn whole(ours: &str, theirs: &str) -> String {
    let mut out = String::with_capacity(ours.len() + theirs.len() + 40);
    out.push_str("<<<<<<< ours\n");
    for (text, marker) in [(ours, "=======\n"), (theirs, ">>>>>>> theirs\n")] {
        out.push_str(text);
        if !text.is_empty() && !text.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(marker);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_to_different_lines_merge() {
        assert_eq!(
            merge("a\nb\nc\n", "A\nb\nc\n", "a\nb\nC\n"),
            Merged::Clean("A\nb\nC\n".into())
        );
    }

    #[test]
    fn one_side_unchanged_takes_the_other() {
        assert_eq!(merge("x", "x", "y"), Merged::Clean("y".into()));
        assert_eq!(merge("x", "y", "x"), Merged::Clean("y".into()));
        assert_eq!(merge("x", "y", "y"), Merged::Clean("y".into()));
    }

    #[test]
    fn overlapping_edits_keep_both_texts_between_markers() {
        assert_eq!(
            merge("a\nb\n", "a\nours\n", "a\ntheirs\n"),
            Merged::Conflict("a\n<<<<<<< ours\nours\n=======\ntheirs\n>>>>>>> theirs\n".into())
        );
    }

    #[test]
    fn a_last_line_without_newline_still_puts_markers_on_lines_of_their_own() {
        assert_eq!(
            merge("a", "b", "c"),
            Merged::Conflict("<<<<<<< ours\nb\n=======\nc\n>>>>>>> theirs\n".into())
        );
    }

    /// `n` numbered lines, the first and last replaced as given.
    fn numbered(n: usize, first: &str, last: &str) -> String {
        (0..n)
            .map(|i| match i {
                0 => alloc::format!("{first}\n"),
                i if i == n - 1 => alloc::format!("{last}\n"),
                i => alloc::format!("line {i}\n"),
            })
            .collect()
    }

    #[test]
    fn texts_of_more_lines_than_the_bound_are_not_diffed_but_kept_whole() {
        // At the bound, edits to the first and the last line merge.
        let n = SYNC_MERGE_MAX_LINES / 3;
        let base = numbered(n, "line 0", "end");
        let (ours, theirs) = (numbered(n, "ours", "end"), numbered(n, "line 0", "theirs"));
        assert_eq!(
            merge(&base, &ours, &theirs),
            Merged::Clean(numbered(n, "ours", "theirs"))
        );
        // One line more on each side: both texts whole, between the markers.
        let (ours, theirs) = (alloc::format!("{ours}more"), alloc::format!("{theirs}more"));
        assert_eq!(
            merge(&base, &ours, &theirs),
            Merged::Conflict(alloc::format!(
                "<<<<<<< ours\n{ours}\n=======\n{theirs}\n>>>>>>> theirs\n"
            ))
        );
    }

    #[test]
    fn a_remote_text_of_tens_of_thousands_of_short_lines_is_not_diffed() {
        // The review's case: a 300-line memory whose first line is edited here,
        // and whose lines past the tenth are replaced there by 100 KB of 2-byte lines.
        // Diffed, the edits merge, after tens of seconds.
        let base: String = (0..300).map(|i| alloc::format!("line {i}\n")).collect();
        let ours = base.replacen("line 0\n", "line zero\n", 1);
        let kept: String = base
            .lines()
            .take(10)
            .map(|l| alloc::format!("{l}\n"))
            .collect();
        let theirs = alloc::format!("{kept}{}", "x\n".repeat(49_960));
        assert_eq!(
            merge(&base, &ours, &theirs),
            Merged::Conflict(alloc::format!(
                "<<<<<<< ours\n{ours}=======\n{theirs}>>>>>>> theirs\n"
            ))
        );
    }

    #[test]
    fn the_whole_form_is_the_diffs_form_for_texts_with_no_line_in_common() {
        for (ours, theirs) in [("a\nb\n", "c\n"), ("a", "b\nc"), ("a\nb", "c\nd\n")] {
            let diffed = merge("", ours, theirs);
            assert_eq!(
                diffed,
                Merged::Conflict(whole(ours, theirs)),
                "{ours:?} {theirs:?}"
            );
        }
    }

    #[test]
    fn with_no_base_two_different_texts_conflict_whole() {
        assert_eq!(
            merge("", "mine\n", "yours\n"),
            Merged::Conflict("<<<<<<< ours\nmine\n=======\nyours\n>>>>>>> theirs\n".into())
        );
    }
}
