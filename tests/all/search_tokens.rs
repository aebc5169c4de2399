//! The search tokenizer's terms, script by script, as exact lists (the rules are
//! `src/search/tokens.rs`'s module doc): NFKC and case folding (`ß`, `ẞ` as `ss`),
//! Unicode words, identifiers whole and in parts, Han/Kana/Hangul runs as
//! overlapping pairs (one character alone as itself), paths segment by segment.
//! Each row is written from those rules, not from the engine's output; and each
//! script's rows are also searched, so the tokens are the ones a query meets.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use memdir::config::Config;
use memdir::search::{path_terms, terms};
use memdir::{Engine, MemoryStore, block_on};
use serde_json::json;

fn check(table: &[(&str, &[&str])]) {
    let mut wrong = Vec::new();
    for (text, want) in table {
        let got = terms(text);
        if got != *want {
            wrong.push(format!("{text:?}: got {got:?}, want {want:?}"));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

#[test]
fn chinese() {
    check(&[
        ("数据库", &["数据", "据库"]),
        ("猫", &["猫"]),
        ("我喜欢猫", &["我喜", "喜欢", "欢猫"]),
        // Punctuation (full-width too) ends a run.
        ("你好，世界。", &["你好", "世界"]),
        ("你好 世界", &["你好", "世界"]),
        // Latin and digits between Han end a run and are words of their own.
        ("我用Rust写代码", &["我用", "rust", "写代", "代码"]),
        ("2024年的计划", &["2024", "年的", "的计", "计划"]),
        // Traditional characters are not mapped to simplified.
        ("資料庫", &["資料", "料庫"]),
        // A compatibility ideograph is its unified one after NFKC (U+F90A 金).
        ("\u{F90A}", &["金"]),
        // A character of Extension B is one character, not two halves.
        ("𠀀𠀁", &["𠀀𠀁"]),
    ]);
}

#[test]
fn japanese() {
    check(&[
        // Kanji and kana written together are one run.
        (
            "私はコーヒーが好きです",
            &[
                "私は", "はコ", "コー", "ーヒ", "ヒー", "ーが", "が好", "好き", "きで", "です",
            ],
        ),
        ("東京タワー", &["東京", "京タ", "タワ", "ワー"]),
        // A katakana run alone.
        ("カタカナ", &["カタ", "タカ", "カナ"]),
        // Half-width katakana is the full-width after NFKC, voiced marks composed.
        ("ｶﾀｶﾅ", &["カタ", "タカ", "カナ"]),
        ("ｶﾞｲﾄﾞ", &["ガイ", "イド"]),
        // Hiragana alone, and the ideographic comma ending a run.
        ("ひらがな、かな", &["ひら", "らが", "がな", "かな"]),
        ("の", &["の"]),
        // UAX #29 joins Katakana to `_`: the run and the word still part.
        ("カタカナ_id", &["カタ", "タカ", "カナ", "id"]),
        // Latin inside Japanese is its own word; full-width Latin is folded.
        ("ＧＰＵを使う", &["gpu", "を使", "使う"]),
    ]);
}

#[test]
fn korean() {
    check(&[
        ("한국어", &["한국", "국어"]),
        ("안녕하세요 세계", &["안녕", "녕하", "하세", "세요", "세계"]),
        ("한", &["한"]),
        // Conjoining jamo compose to the syllable under NFKC.
        (
            "\u{1112}\u{1161}\u{11AB}\u{1100}\u{116E}\u{11A8}",
            &["한국"],
        ),
        // UAX #29 joins Hangul to Latin letters and digits (all ALetter); the
        // Hangul is still a run of its own, the rest a word.
        ("API키", &["api", "키"]),
        ("API키를 2024년에", &["api", "키를", "2024", "년에"]),
        ("abc한국어def", &["abc", "한국", "국어", "def"]),
    ]);
}

#[test]
fn german() {
    check(&[
        ("Straße", &["strasse"]),
        ("STRASSE", &["strasse"]),
        ("GROẞE", &["grosse"]),
        ("Größe", &["grösse"]),
        // Composed and decomposed umlauts are one spelling.
        ("Müller", &["müller"]),
        ("Mu\u{308}ller", &["müller"]),
        ("A\u{308}rger ÄRGER", &["ärger", "ärger"]),
        // A compound is one term (its parts are found by part matching).
        ("Sicherheitsrichtlinie", &["sicherheitsrichtlinie"]),
        ("Donaudampfschifffahrt", &["donaudampfschifffahrt"]),
        // Hyphenated words split; the Fugen-s stays in its word.
        ("E-Mail-Adresse", &["e", "mail", "adresse"]),
        ("z.B. Übung", &["z.b", "z", "b", "übung"]),
    ]);
}

#[test]
fn english() {
    check(&[
        ("Hello, World!", &["hello", "world"]),
        // Identifiers: whole and in parts.
        (
            "user_id config.json",
            &["user_id", "user", "id", "config.json", "config", "json"],
        ),
        (
            "snake_case_name",
            &["snake_case_name", "snake", "case", "name"],
        ),
        ("camelCase", &["camelcase"]),
        ("v1.2.3", &["v1.2.3", "v1", "2", "3"]),
        ("3.14", &["3.14", "3", "14"]),
        // Apostrophes, straight and curly.
        ("don't", &["don't", "don", "t"]),
        ("it\u{2019}s", &["it\u{2019}s", "it", "s"]),
        // Full-width letters and digits, ligatures.
        ("ＦＵＬＬ width ＡＢＣ１２３", &["full", "width", "abc123"]),
        ("ﬁle", &["file"]),
        // Symbols and emoji are no words.
        ("C++ & 🙂 ok", &["c", "ok"]),
        (
            "https://example.com/path",
            &["https", "example.com", "example", "com", "path"],
        ),
        // A word longer than the cap is its first 64 characters.
        (&"x".repeat(70), &[&*"x".repeat(64)]),
    ]);
}

#[test]
fn paths_segment_by_segment() {
    let rows: &[(&str, &[&str])] = &[
        (
            "/preferences/formatting.md",
            &["preferences", "formatting.md", "formatting", "md"],
        ),
        ("/数据/库.md", &["数据", "库", "md"]),
        // A run does not continue across a `/`.
        ("/数/据", &["数", "据"]),
        // UAX #29 joins `.` between letters or between digits only: `2024.txt` splits.
        (
            "/Straße/Notes_2024.TXT",
            &["strasse", "notes_2024", "notes", "2024", "txt"],
        ),
    ];
    for (path, want) in rows {
        assert_eq!(path_terms(path), *want, "{path}");
    }
}

/// Every script's words are found by a query in another spelling of them (the
/// index and the query share the tokenizer), and a lone CJK character finds the
/// run that holds it.
#[test]
fn each_script_is_found_in_another_spelling() {
    let engine = Engine::new(MemoryStore::new(), Config::default());
    for (path, text) in [
        ("/memories/zh.md", "用户喜欢使用数据库管理系统"),
        ("/memories/ja.md", "ｶﾀｶﾅのメモ"),
        ("/memories/ko.md", "한국어 공부"),
        ("/memories/de.md", "Die GROẞE Straße in Mu\u{308}nchen"),
        ("/memories/en.md", "set user_id in config.json"),
    ] {
        let r = block_on(
            engine.execute(&json!({"command": "create", "path": path, "file_text": text})),
        );
        assert!(!r.is_error, "{}", r.content);
    }
    let hits = |q: &str| -> Vec<String> {
        block_on(engine.search(q, 10, None))
            .unwrap()
            .hits
            .into_iter()
            .map(|h| h.path)
            .collect()
    };
    for (q, want) in [
        ("数据库", "/zh.md"),
        ("库", "/zh.md"),
        ("カタカナ", "/ja.md"),
        ("メモ", "/ja.md"),
        ("韓国", ""),
        ("국어", "/ko.md"),
        ("grosse strasse", "/de.md"),
        ("MÜNCHEN", "/de.md"),
        ("user", "/en.md"),
        ("ＣＯＮＦＩＧ", "/en.md"),
    ] {
        let want: Vec<String> = if want.is_empty() {
            vec![]
        } else {
            vec![want.to_string()]
        };
        assert_eq!(hits(q), want, "{q}");
    }
}
