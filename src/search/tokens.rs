//! What a text's terms are: the one tokenizer the index, every query and the
//! matching lines use, so a query finds exactly what was indexed.
//!
//! 1. The text is normalised to NFKC (full-width letters, ligatures and composed or
//!    decomposed accents all become one spelling) and case-folded: lowercased, with
//!    `ß` as `ss` and final `ς` as `σ` (where full case folding differs from
//!    lowercasing in words people search for), so "STRASSE", "Straße" and
//!    "strasse" are one term.
//! 2. Words are found by Unicode word segmentation (UAX #29). A word joined by
//!    `.`, `_`, `:` or `'` (`formatting.md`, `user_id`, `don't`) is a term whole and
//!    also each of its parts, so both the identifier and its words are found.
//! 3. Han, Hiragana, Katakana and Hangul have no spaces between words: a run of
//!    them is indexed as its overlapping pairs of characters (`数据库` as `数据`,
//!    `据库`), as Lucene's CJK analyzer does; a run of one character is that
//!    character. A single character of a longer run is found as a part of its pairs
//!    (see `index.rs`). A word that mixes them with other letters or digits (UAX
//!    #29 joins Hangul to Latin: `api키`, `2024년에`) is split there: its CJK
//!    pieces are runs, the rest words (`api`, `키`).
//! 4. A term longer than [`SEARCH_MAX_TERM_CHARS`] is its first that many.
//!
//! A memory's path is tokenized the same way, segment by segment
//! (`/preferences/formatting.md` gives `preferences`, `formatting.md`,
//! `formatting`, `md`).

use alloc::string::String;
use alloc::vec::Vec;

use unicode_normalization::UnicodeNormalization;
use unicode_segmentation::UnicodeSegmentation;

use crate::config::SEARCH_MAX_TERM_CHARS;

/// The version of these rules written into a stored index: an index made under
/// other rules is rebuilt, never read with these.
pub(crate) const TOKENIZER_VERSION: u8 = 2;

/// Whether `c` is written without spaces between words: Han (the unified
/// ideographs, their extensions and compatibility forms), Hiragana, Katakana and
/// Hangul (syllables and jamo).
pub(crate) fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x11FF      // Hangul Jamo
        | 0x3040..=0x309F    // Hiragana
        | 0x30A0..=0x30FF    // Katakana
        | 0x3130..=0x318F    // Hangul Compatibility Jamo
        | 0x31F0..=0x31FF    // Katakana Phonetic Extensions
        | 0x3400..=0x4DBF    // CJK Extension A
        | 0x4E00..=0x9FFF    // CJK Unified Ideographs
        | 0xA960..=0xA97F    // Hangul Jamo Extended-A
        | 0xAC00..=0xD7AF    // Hangul Syllables
        | 0xD7B0..=0xD7FF    // Hangul Jamo Extended-B
        | 0xF900..=0xFAFF    // CJK Compatibility Ideographs
        | 0x20000..=0x3134F  // CJK Extensions B to H, compatibility supplement
    )
}

/// `text` in NFKC, case-folded (rule 1).
pub(crate) fn fold(text: &str) -> String {
    // ASCII is its own NFKC form, and lowercasing is all its folding.
    if text.is_ascii() {
        return text.to_ascii_lowercase();
    }
    let mut out = String::with_capacity(text.len());
    for c in text.nfkc() {
        match c {
            'ß' | 'ẞ' => out.push_str("ss"),
            'ς' => out.push('σ'),
            c => out.extend(c.to_lowercase()),
        }
    }
    out
}

/// The first [`SEARCH_MAX_TERM_CHARS`] characters of `term` (rule 4).
fn capped(term: &str) -> &str {
    match term.char_indices().nth(SEARCH_MAX_TERM_CHARS) {
        Some((at, _)) => term.get(..at).unwrap_or(term),
        None => term,
    }
}

/// A run of CJK characters being gathered, flushed as pairs (rule 3).
struct Run {
    chars: Vec<char>,
    /// Where the run's last character ended in the folded text: a word starting
    /// anywhere else is not adjacent and starts a new run.
    end: usize,
}

impl Run {
    fn flush(&mut self, emit: &mut impl FnMut(&str)) {
        let mut buf = [0u8; 8];
        match self.chars.as_slice() {
            [] => {}
            [one] => emit(one.encode_utf8(&mut buf)),
            many => {
                for pair in many.windows(2) {
                    if let [a, b] = pair {
                        let mut s = String::with_capacity(8);
                        s.push(*a);
                        s.push(*b);
                        emit(&s);
                    }
                }
            }
        }
        self.chars.clear();
    }
}

/// Calls `emit` with each term of `text`, in order, repeats included (rules 1-4).
pub(crate) fn each_term(text: &str, emit: &mut impl FnMut(&str)) {
    each_folded_term(&fold(text), emit);
}

/// Emits a word that holds no CJK character (rule 2).
fn each_word_term(word: &str, emit: &mut impl FnMut(&str)) {
    let joined = |c: char| matches!(c, '.' | '_' | ':' | '\'' | '’');
    if word.contains(joined) {
        emit(capped(word));
        for part in word.split(|c: char| !c.is_alphanumeric()) {
            if !part.is_empty() {
                emit(capped(part));
            }
        }
    } else {
        emit(capped(word));
    }
}

/// [`each_term`] over text already [`fold`]ed.
pub(crate) fn each_folded_term(folded: &str, emit: &mut impl FnMut(&str)) {
    let mut run = Run {
        chars: Vec::new(),
        end: usize::MAX,
    };
    for (at, word) in folded.split_word_bound_indices() {
        if !word.chars().any(char::is_alphanumeric) {
            run.flush(emit);
            continue;
        }
        if !word.chars().any(is_cjk) {
            run.flush(emit);
            each_word_term(word, emit);
            continue;
        }
        // UAX #29 joins Hangul to Latin letters and digits (all are ALetter:
        // `api키`, `2024년에`) and Katakana to `_`: the CJK pieces of such a word
        // are runs (rule 3), the rest words, as Lucene's tokenizer splits them.
        let mut rest = word;
        let mut from = at;
        while let Some(c) = rest.chars().next() {
            let cjk = is_cjk(c);
            let len = rest
                .char_indices()
                .find(|(_, d)| is_cjk(*d) != cjk)
                .map_or(rest.len(), |(i, _)| i);
            let (piece, tail) = rest.split_at(len);
            if cjk {
                if from != run.end {
                    run.flush(emit);
                }
                run.chars.extend(piece.chars());
                run.end = from + piece.len();
            } else {
                run.flush(emit);
                let piece = piece.trim_matches(|c: char| !c.is_alphanumeric());
                if !piece.is_empty() {
                    each_word_term(piece, emit);
                }
            }
            from += len;
            rest = tail;
        }
    }
    run.flush(emit);
}

/// Calls `emit` with each term of the store path `path` (`/a/b.md`), segment by
/// segment.
pub(crate) fn each_path_term(path: &str, emit: &mut impl FnMut(&str)) {
    for segment in path.split('/').filter(|s| !s.is_empty()) {
        each_term(segment, emit);
    }
}

/// The terms of `text`, in order (for tests and the matching lines).
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    each_term(text, &mut |t| out.push(String::from(t)));
    out
}

/// The terms of the store path `path`, in order.
pub fn path_terms(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    each_path_term(path, &mut |t| out.push(String::from(t)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Vec<String> {
        terms(s)
    }

    #[test]
    fn english_words_fold_and_identifiers_split() {
        assert_eq!(t("Hello, World!"), ["hello", "world"]);
        assert_eq!(
            t("see config.json and user_id"),
            [
                "see",
                "config.json",
                "config",
                "json",
                "and",
                "user_id",
                "user",
                "id"
            ]
        );
        assert_eq!(t("ＦＵＬＬ width"), ["full", "width"]);
    }

    #[test]
    fn german_sharp_s_and_umlauts() {
        assert_eq!(t("Straße STRASSE"), ["strasse", "strasse"]);
        // Decomposed ü (u + U+0308) is the composed one.
        assert_eq!(t("Mu\u{308}ller Müller"), ["müller", "müller"]);
    }

    #[test]
    fn cjk_runs_are_pairs_and_a_lone_character_is_itself() {
        assert_eq!(t("数据库"), ["数据", "据库"]);
        assert_eq!(t("猫"), ["猫"]);
        assert_eq!(t("東京タワー"), ["東京", "京タ", "タワ", "ワー"]);
        assert_eq!(t("我爱 猫"), ["我爱", "猫"]);
        assert_eq!(t("2024年的计划"), ["2024", "年的", "的计", "计划"]);
    }

    #[test]
    fn paths_give_their_segments_words() {
        assert_eq!(
            path_terms("/preferences/formatting.md"),
            ["preferences", "formatting.md", "formatting", "md"]
        );
        assert_eq!(path_terms("/to-do/c"), ["to", "do", "c"]);
    }

    #[test]
    fn long_terms_are_capped() {
        let long = "a".repeat(100);
        assert_eq!(t(&long), ["a".repeat(SEARCH_MAX_TERM_CHARS)]);
    }
}
