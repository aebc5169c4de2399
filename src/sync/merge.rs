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

use alloc::string::String;

use diffy::{ConflictStyle, IncompleteHunkStyle, MergeOptions};

/// Two edits of one text, merged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Merged {
    /// The edits touch different lines (or are the same): one text holds both.
    Clean(String),
    /// The edits overlap: the text holds both sides between conflict markers.
    Conflict(String),
}

impl Merged {
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
    let mut options = MergeOptions::new();
    options
        .set_conflict_style(ConflictStyle::Merge)
        .set_incomplete_hunk_style(IncompleteHunkStyle::Git);
    match options.merge(base, ours, theirs) {
        Ok(text) => Merged::Clean(text),
        Err(text) => Merged::Conflict(text),
    }
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

    #[test]
    fn with_no_base_two_different_texts_conflict_whole() {
        assert_eq!(
            merge("", "mine\n", "yours\n"),
            Merged::Conflict("<<<<<<< ours\nmine\n=======\nyours\n>>>>>>> theirs\n".into())
        );
    }
}
