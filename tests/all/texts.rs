//! Where the faces' words are: every refusal a face gives is worded in its
//! `error.rs` (and what a sync did in `sync/summary.rs`), so the rule behind a text
//! is found by file name. A face's other files name a refusal by its constructor
//! (`ApiError::required("path")`), never spell one.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::fs;
use std::path::Path;

/// The faces, and the files in each allowed to hold texts.
const FACES: [(&str, &[&str]); 4] = [
    ("api", &["error.rs"]),
    ("toolset", &["error.rs", "answer.rs"]),
    ("sync", &["error.rs", "summary.rs"]),
    ("mounts", &["error.rs", "instructions.rs"]),
];

/// What spells a refusal: a `Display` impl, or an error variant built from text.
const SPELLING: [&str; 8] = [
    "impl fmt::Display",
    "impl core::fmt::Display",
    "ApiError::Invalid(",
    "ApiError::NotFound(",
    "ApiError::Precondition(",
    "ApiError::TooLarge(",
    "ApiError::PathConflict {",
    "ToolsetError::Input {",
];

/// A line that builds (not matches) an error from text: the variant is followed by
/// a string, a `format!` or a `String`, not by a pattern.
fn spells(line: &str) -> bool {
    SPELLING.iter().any(|s| {
        line.match_indices(s).any(|(at, _)| {
            let after = line[at + s.len()..].trim_start();
            s.starts_with("impl")
                || after.starts_with('"')
                || after.starts_with("format!")
                || after.starts_with("alloc::format!")
                || after.starts_with("String::from")
                || after.starts_with("message:")
                || after.starts_with("tool,")
                || after.starts_with("tool:")
        })
    })
}

fn offenders(src: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for (face, allowed) in FACES {
        let dir = src.join(face);
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if !name.ends_with(".rs") || allowed.contains(&name.as_str()) {
                continue;
            }
            let text = fs::read_to_string(&path).unwrap();
            for (n, line) in text.lines().enumerate() {
                if spells(line) {
                    found.push(format!("src/{face}/{name}:{}: {}", n + 1, line.trim()));
                }
            }
        }
    }
    found
}

#[test]
fn every_face_words_its_refusals_in_its_error_module() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    assert_eq!(offenders(&src), Vec::<String>::new());
}

#[test]
fn a_refusal_spelled_elsewhere_is_found() {
    assert!(spells(
        r#"            _ => Err(ApiError::Invalid(format!("{name} is required"))),"#
    ));
    assert!(spells(
        r#"        ApiError::Invalid("the body is not valid JSON".into())"#
    ));
    assert!(spells("impl fmt::Display for Thing {"));
    assert!(!spells(
        "        ApiError::Invalid(m) => ToolsetError::Refused(m),"
    ));
    assert!(!spells("        Err(ApiError::NotFound(_)) => {}"));
}
