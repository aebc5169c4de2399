//! `execute` on any text, against a small seeded tree: never panics, answers in the
//! tool_result shape, and an error never changes the tree.
#![no_main]

use libfuzzer_sys::fuzz_target;
use memdir::config::{Config, Limits};
use memdir::{Engine, Entry, MemoryStore, block_on};

fn seed() -> Vec<Entry> {
    let f = |p: &str, c: &str| Entry {
        path: p.into(),
        content: Some(c.into()),
    };
    vec![
        f("/memories/notes.md", "Line 1\nLine 2\nLine 3"),
        f("/memories/a/b.txt", "alpha\nbeta"),
        f("/memories/.hidden", "x"),
        Entry {
            path: "/memories/empty".into(),
            content: None,
        },
    ]
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let limits = Limits {
        max_file_bytes: 4096,
        max_total_bytes: 16_384,
        read_limit_chars: 2_000,
        ..Limits::default()
    };
    let engine = Engine::new(
        MemoryStore::new(),
        Config {
            limits,
            ..Config::default()
        },
    );
    block_on(engine.import(&seed())).expect("seed");
    let before = block_on(engine.entries()).expect("entries");
    // One input, or several lines of inputs run in order against the same tree.
    for line in text.split('\n').take(8) {
        let r = block_on(engine.execute_json(line));
        assert_eq!(r.is_error, r.content.starts_with("Error: "), "{r:?}");
        assert!(
            !r.content.contains("blob/") && !r.content.contains("tree/")
                || line.contains("blob/")
                || line.contains("tree/")
        );
        if r.is_error && text.split('\n').count() == 1 {
            assert_eq!(
                block_on(engine.entries()).expect("entries"),
                before,
                "{line}: error changed the tree"
            );
        }
    }
});
