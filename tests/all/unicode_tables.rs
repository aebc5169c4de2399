//! `src/path.rs` ships two small tables instead of the full Unicode tables of
//! unicode-normalization (NFKC) and unicode-properties (general category), which
//! would more than double the wasm. This test derives both tables from those crates
//! over every code point and fails on any difference, printing the table to paste.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

fn all_chars() -> impl Iterator<Item = char> {
    (0..=0x10FFFF_u32).filter_map(char::from_u32)
}

#[test]
fn format_ranges_match_unicode_properties() {
    let mut ranges: Vec<(u32, u32)> = Vec::new();
    for c in all_chars().filter(|c| c.general_category() == GeneralCategory::Format) {
        let c = c as u32;
        match ranges.last_mut() {
            Some((_, end)) if *end + 1 == c => *end = c,
            _ => ranges.push((c, c)),
        }
    }
    let source: String = ranges
        .iter()
        .map(|(a, b)| format!("    (0x{a:04X}, 0x{b:04X}),\n"))
        .collect();
    assert_eq!(
        memdir::__hooks::FORMAT_RANGES,
        ranges.as_slice(),
        "regenerate FORMAT_RANGES:\n{source}"
    );
    for c in all_chars() {
        assert_eq!(
            memdir::__hooks::is_format(c),
            c.general_category() == GeneralCategory::Format,
            "{c:?}"
        );
    }
}

#[test]
fn nfkc_separators_match_unicode_normalization() {
    let mut table: Vec<(char, String)> = Vec::new();
    for c in all_chars() {
        let folded: String = c.to_string().nfkc().collect();
        if folded != c.to_string() && folded.contains(['.', '/', '\\']) {
            table.push((c, folded));
        }
    }
    let source: String = table
        .iter()
        .map(|(c, f)| format!("    ('\\u{{{:04X}}}', {f:?}),\n", *c as u32))
        .collect();
    let shipped: Vec<(char, String)> = memdir::__hooks::NFKC_SEPARATORS
        .iter()
        .map(|(c, f)| (*c, f.to_string()))
        .collect();
    assert_eq!(shipped, table, "regenerate NFKC_SEPARATORS:\n{source}");
}

/// The table-driven rule agrees with NFKC itself on names built from every table
/// character, dots, combining marks and ordinary letters.
#[test]
fn the_nfkc_rule_agrees_with_nfkc() {
    let mut parts: Vec<String> = memdir::__hooks::NFKC_SEPARATORS
        .iter()
        .map(|(c, _)| c.to_string())
        .collect();
    parts.extend(
        [
            ".", "..", "a", "\u{301}", "\u{307}", "\u{338}", "é", "½", "\u{FF21}", "1",
        ]
        .map(String::from),
    );
    let mut checked = 0;
    for a in &parts {
        for b in &parts {
            for name in [a.clone(), format!("{a}{b}")] {
                let folded: String = name.nfkc().collect();
                let want = folded == "." || folded == ".." || folded.contains(['/', '\\']);
                assert_eq!(
                    memdir::__hooks::nfkc_escapes(&name),
                    want,
                    "{name:?} folds to {folded:?}"
                );
                checked += 1;
            }
        }
    }
    println!("{checked} names agree with NFKC");
}

/// memdir's NFC check (canonical tables only) gives the crate's answer: on every
/// character alone, on every character followed by every mark that may compose, and
/// on random sequences of starters, marks, Hangul jamo and composites.
#[test]
fn the_nfc_check_agrees_with_unicode_normalization() {
    use unicode_normalization::char::canonical_combining_class as ccc;
    let all: Vec<char> = all_chars().collect();
    for &c in &all {
        let s = c.to_string();
        assert_eq!(
            memdir::__hooks::is_nfc(&s),
            unicode_normalization::is_nfc(&s),
            "{:04X}",
            c as u32
        );
    }
    // Marks and jamo whose NFC quick check is Maybe: they may compose with what precedes.
    let maybe: Vec<char> = all
        .iter()
        .copied()
        .filter(|&c| {
            unicode_normalization::is_nfc_quick(std::iter::once(c))
                == unicode_normalization::IsNormalized::Maybe
        })
        .collect();
    assert!(maybe.len() > 100, "{} maybe characters", maybe.len());
    let starters: Vec<char> = all
        .iter()
        .copied()
        .filter(|&c| c < '\u{3000}' || ('\u{AC00}'..='\u{D7A3}').contains(&c))
        .step_by(7)
        .collect();
    let mut pairs = 0;
    for &s in &starters {
        for &m in &maybe {
            let t: String = [s, m].iter().collect();
            assert_eq!(
                memdir::__hooks::is_nfc(&t),
                unicode_normalization::is_nfc(&t),
                "{t:?}"
            );
            pairs += 1;
        }
    }
    // Random sequences over a pool rich in composition and reordering cases.
    let mut pool: Vec<char> = maybe.clone();
    pool.extend(all.iter().copied().filter(|&c| ccc(c) != 0).step_by(5));
    pool.extend(
        "aeiouAEIOUéèÅåñçǅ\u{1100}\u{1161}\u{11A8}\u{AC00}\u{1E0C}\u{1EB9}\u{0931}\u{093C}".chars(),
    );
    let mut seed: u64 = 0x243F_6A88_85A3_08D3;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..200_000 {
        let len = 1 + (next() % 6) as usize;
        let t: String = (0..len)
            .map(|_| pool[(next() % pool.len() as u64) as usize])
            .collect();
        assert_eq!(
            memdir::__hooks::is_nfc(&t),
            unicode_normalization::is_nfc(&t),
            "{:?}",
            t.chars().map(|c| c as u32).collect::<Vec<_>>()
        );
    }
    println!(
        "NFC agrees on {} characters, {pairs} pairs and 200,000 random sequences",
        all.len()
    );
}

/// `path::validate` skips the format and NFC scans of an ASCII path, and the NFKC
/// rule does not search its table for an ASCII character: no ASCII character is a
/// format character, changes under NFC, or is in the table.
#[test]
fn ascii_needs_none_of_the_tables() {
    for c in (0u8..0x80).map(char::from) {
        assert!(!memdir::__hooks::is_format(c), "{c:?}");
        assert!(memdir::__hooks::is_nfc(&c.to_string()), "{c:?}");
        assert!(
            memdir::__hooks::NFKC_SEPARATORS
                .iter()
                .all(|(k, _)| *k != c),
            "{c:?}"
        );
    }
}
