//! A view renders from the cache while its head read is in flight (`Engine::view`):
//! the head read still decides. A guess made from a head another writer has since
//! moved is thrown away, a failed head read fails the view, and rendering from the
//! cache reads nothing from the store.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use crate::common;

use common::Harness;
use memdir::config::Config;
use memdir::{Engine, MemoryStore, block_on};
use serde_json::json;

const FILE: &str = "/memories/notes.md";

fn view(engine: &Engine<&Harness<MemoryStore>>) -> memdir::ToolResult {
    block_on(engine.execute(&json!({"command": "view", "path": FILE})))
}

/// A store with `notes.md` in it, and a view of it whose every operation waits one
/// poll (so a head read is in flight while the engine renders).
fn setup() -> (MemoryStore, Harness<MemoryStore>) {
    let backing = MemoryStore::new();
    let writer = Engine::new(backing.clone(), Config::default());
    let made = block_on(
        writer.execute(&json!({"command": "create", "path": FILE, "file_text": "first\nsecond"})),
    );
    assert!(!made.is_error, "{}", made.content);
    let view = Harness {
        yielding: true,
        ..Harness::new(backing.clone())
    };
    (backing, view)
}

#[test]
fn a_guess_from_a_head_another_writer_moved_is_thrown_away() {
    let (backing, store) = setup();
    let reader = Engine::new(&store, Config::default());
    assert_eq!(
        view(&reader).content,
        "Here's the content of /memories/notes.md with line numbers:\n     1\tfirst\n     2\tsecond"
    );
    // Another engine changes the file: the reader's cached head is now stale, and
    // everything its guess needs is still in its cache.
    let other = Engine::new(backing.clone(), Config::default());
    let edit = block_on(other.execute(
        &json!({"command": "str_replace", "path": FILE, "old_str": "second", "new_str": "third"}),
    ));
    assert!(!edit.is_error, "{}", edit.content);
    assert_eq!(
        view(&reader).content,
        "Here's the content of /memories/notes.md with line numbers:\n     1\tfirst\n     2\tthird"
    );
}

#[test]
fn a_failed_head_read_fails_the_view_whatever_the_cache_holds() {
    let (_, store) = setup();
    let reader = Engine::new(&store, Config::default());
    assert!(!view(&reader).is_error);
    store.shared.reset();
    store.shared.fail_at.set(Some(0));
    let failed = view(&reader);
    assert!(failed.is_error);
    assert_eq!(
        failed.content,
        "Error: The memory directory's storage failed; nothing was changed."
    );
}

#[test]
fn a_warm_view_reads_only_the_head() {
    let (_, store) = setup();
    let reader = Engine::new(&store, Config::default());
    view(&reader);
    store.shared.reset();
    for _ in 0..3 {
        assert!(!view(&reader).is_error);
    }
    assert_eq!(
        store
            .shared
            .by_key
            .borrow()
            .clone()
            .into_iter()
            .collect::<Vec<_>>(),
        [(String::from("get head"), 3)]
    );
}
