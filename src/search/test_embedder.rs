//! The test embedder: deterministic, needing no model, for tests, the benchmark
//! and examples only (feature `conformance`; never in a runtime build). Its twin
//! in JavaScript, `examples/embedders/test-embedder.mjs`, answers the same numbers
//! (the conformance data, made here and replayed in Node, workerd and Chromium,
//! checks it to the last bit).
//!
//! A text's vector counts, each into one of `dims` dimensions by its FNV-1a hash
//! (the sign by the hash's top bit): the character trigrams of each word (a run
//! of letters and digits, lowercased, padded with a space each side), and, four
//! times over, each concept of [`CONCEPTS`] one of whose forms the lowercased text
//! holds. The trigrams find shared spellings across languages written alike; the
//! concepts stand in for what a real model knows (that 夜间模式 is a dark mode), so
//! cross-language and paraphrase tests exercise the engine's plumbing. What the
//! numbers say about a real model's quality, only a real model's run can say.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use crate::search::embed::{EmbedFuture, EmbedKind, Embedder};

/// The concepts and their forms (lowercase), in English, German, French, Chinese
/// and Japanese. The JavaScript twin holds the same table.
pub const CONCEPTS: &[(&str, &[&str])] = &[
    (
        "dark",
        &[
            "dark",
            "night mode",
            "夜间",
            "深色",
            "暗い",
            "ダーク",
            "dunkel",
            "sombre",
        ],
    ),
    (
        "theme",
        &[
            "theme",
            " mode",
            "模式",
            "主题",
            "モード",
            "テーマ",
            "thema",
            "modus",
            "thème",
        ],
    ),
    (
        "meeting",
        &[
            "meeting",
            "call",
            "会议",
            "会議",
            "besprechung",
            "termin",
            "réunion",
        ],
    ),
    (
        "morning",
        &[
            "morning",
            "before ten",
            "before 10",
            "早上",
            "上午",
            "朝",
            "morgens",
            "vormittag",
            "matin",
        ],
    ),
    (
        "dislike",
        &[
            "hate",
            "dislike",
            "can't stand",
            "讨厌",
            "不喜欢",
            "嫌い",
            "hasst",
            "mag keine",
            "déteste",
        ],
    ),
    (
        "like",
        &[
            "like", "love", "prefer", "喜欢", "好き", "mag ", "liebt", "aime",
        ],
    ),
    (
        "coffee",
        &["coffee", "espresso", "咖啡", "コーヒー", "kaffee", "café"],
    ),
    ("tea", &["tea", "茶", "お茶", "tee", "thé"]),
    (
        "vacation",
        &[
            "vacation", "holiday", "time off", "假期", "休假", "休暇", "urlaub", "vacances",
        ],
    ),
    (
        "allergy",
        &["allerg", "过敏", "アレルギー", "unverträglich"],
    ),
    (
        "nut",
        &[
            "peanut",
            "nut",
            "花生",
            "坚果",
            "ナッツ",
            "nuss",
            "nüsse",
            "arachide",
        ],
    ),
    (
        "birthday",
        &[
            "birthday",
            "born on",
            "生日",
            "誕生日",
            "geburtstag",
            "anniversaire",
        ],
    ),
    (
        "travel",
        &[
            "flight", "travel", "trip", "航班", "旅行", "出差", "flug", "reise", "voyage", "vol ",
        ],
    ),
    (
        "money",
        &[
            "budget", "cost", "price", "money", "预算", "费用", "予算", "kosten", "geld", "prix",
        ],
    ),
    (
        "language",
        &["language", "speaks", "语言", "言語", "sprache", "langue"],
    ),
    (
        "code",
        &[
            "rust",
            "python",
            "typescript",
            "code",
            "programming",
            "编程",
            "代码",
            "プログラ",
            "programmier",
        ],
    ),
    (
        "doctor",
        &[
            "doctor", "medical", "health", "医生", "医院", "医者", "arzt", "médecin",
        ],
    ),
    (
        "email",
        &["email", "e-mail", "mail", "邮件", "メール", "courriel"],
    ),
    (
        "family",
        &[
            "wife", "husband", "daughter", "son ", "family", "家人", "女儿", "家族", "tochter",
            "familie", "famille",
        ],
    ),
    (
        "food",
        &[
            "vegetarian",
            "vegan",
            "meat",
            "素食",
            "菜食",
            "vegetarisch",
            "végétarien",
        ],
    ),
];

/// How many times a concept counts against one trigram.
const CONCEPT_WEIGHT: f32 = 4.0;

/// The test embedder: `dims` dimensions (384 unless told), id `memdir-test-ngram-v1`.
#[derive(Clone, Copy, Debug)]
pub struct TestEmbedder {
    /// Its dimensions.
    pub dims: usize,
}

impl Default for TestEmbedder {
    fn default() -> Self {
        TestEmbedder { dims: 384 }
    }
}

/// FNV-1a, 32 bits, of `bytes`.
fn fnv(bytes: &[u8]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in bytes {
        h ^= u32::from(*b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

fn add(v: &mut [f32], key: &str, w: f32) {
    let h = fnv(key.as_bytes());
    let n = v.len().max(1) as u32;
    let sign = if h >> 31 == 1 { -w } else { w };
    if let Some(x) = v.get_mut((h % n) as usize) {
        *x += sign;
    }
}

/// The test embedder's vector of `text` in `dims` dimensions.
pub fn test_vector(text: &str, dims: usize) -> Vec<f32> {
    let mut v = alloc::vec![0.0f32; dims];
    let lower = text.to_lowercase();
    let mut word: Vec<char> = Vec::new();
    let flush = |word: &mut Vec<char>, v: &mut [f32]| {
        if word.is_empty() {
            return;
        }
        let mut padded: Vec<char> = alloc::vec![' '];
        padded.append(word);
        padded.push(' ');
        for g in padded.windows(3) {
            let gram: String = g.iter().collect();
            add(v, &gram, 1.0);
        }
    };
    for c in lower.chars() {
        if c.is_alphanumeric() {
            word.push(c);
        } else {
            flush(&mut word, &mut v);
        }
    }
    flush(&mut word, &mut v);
    for (concept, forms) in CONCEPTS {
        if forms.iter().any(|f| lower.contains(f)) {
            add(&mut v, &alloc::format!("concept:{concept}"), CONCEPT_WEIGHT);
        }
    }
    if v.iter().all(|x| *x == 0.0)
        && let Some(first) = v.first_mut()
    {
        // A text of no word still has a direction (the engine refuses zeros).
        *first = 1.0;
    }
    v
}

impl Embedder for TestEmbedder {
    fn id(&self) -> &str {
        "memdir-test-ngram-v1"
    }

    fn dims(&self) -> usize {
        self.dims
    }

    fn embed<'a>(&'a self, texts: &'a [String], _kind: EmbedKind) -> EmbedFuture<'a> {
        let out: Vec<Vec<f32>> = texts.iter().map(|t| test_vector(t, self.dims)).collect();
        Box::pin(core::future::ready(Ok(out)))
    }
}
