//! No lost updates: several engines over one store, their commands interleaved at
//! every store operation, keep every edit that reported success.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use common::{Harness, run_interleaved};
use memdir::config::Config;
use memdir::{Engine, MemoryStore, block_on};
use serde_json::json;

const WRITERS: usize = 4;
const EDITS_EACH: usize = 250;

#[test]
fn interleaved_writers_lose_no_edit() {
    let backing = MemoryStore::new();
    let setup = Engine::new(backing.clone(), Config::default());
    for f in ["a", "b"] {
        let r = block_on(setup.execute(
            &json!({"command":"create","path":format!("/memories/{f}.md"),"file_text":"top"}),
        ));
        assert!(!r.is_error);
    }
    // Every operation yields once, so the round-robin driver interleaves the
    // writers between each read and the compare-and-swap that follows it.
    let stores: Vec<Harness<MemoryStore>> = (0..WRITERS)
        .map(|_| Harness {
            yielding: true,
            ..Harness::new(backing.clone())
        })
        .collect();
    let engines: Vec<Engine<&Harness<MemoryStore>>> = stores
        .iter()
        .map(|s| {
            Engine::new(
                s,
                Config {
                    max_retries: 64,
                    ..Config::default()
                },
            )
        })
        .collect();
    let runs = engines.iter().enumerate().map(|(w, engine)| async move {
        let mut kept = Vec::new();
        let mut busy = 0;
        for i in 0..EDITS_EACH {
            let made_previous = kept.last().is_some_and(|(k, _): &(usize, String)| *k + 1 == i);
            if i % 5 == 4 && !made_previous {
                continue; // its file was never created: nothing of this writer's to rename
            }
            let file = if i % 2 == 0 { "a" } else { "b" };
            let line = format!("w{w}-e{i}");
            let input = match i % 5 {
                // Mostly inserts at the top; sometimes a new file, sometimes a rename of
                // a file this writer made, so the tree's shape changes under the others.
                3 => json!({"command":"create","path":format!("/memories/w{w}/n{i}.md"),"file_text":line}),
                4 => json!({"command":"rename","old_path":format!("/memories/w{w}/n{}.md", i - 1),"new_path":format!("/memories/w{w}/m{i}.md")}),
                _ => json!({"command":"insert","path":format!("/memories/{file}.md"),"insert_line":1,"insert_text":line}),
            };
            let r = engine.execute(&input).await;
            if r.is_error {
                assert!(r.content.starts_with("Error: The memory directory is busy"), "{}", r.content);
                busy += 1;
            } else {
                kept.push((i, line));
            }
        }
        (kept, busy)
    });
    let results = run_interleaved(runs.collect());

    let reader = Engine::new(backing.clone(), Config::default());
    let entries = block_on(reader.entries()).unwrap();
    let text = |p: &str| {
        entries
            .iter()
            .find(|e| e.path == p)
            .and_then(|e| e.content.clone())
            .unwrap()
    };
    // Counted, not collected into a set: an edit applied twice (a retry that
    // re-applies a change that had landed) must show as a line seen twice.
    let mut lines: BTreeMap<String, usize> = BTreeMap::new();
    for t in [text("/memories/a.md"), text("/memories/b.md")] {
        for line in t.split('\n') {
            *lines.entry(line.to_owned()).or_default() += 1;
        }
    }
    let paths: BTreeSet<&str> = entries.iter().map(|e| e.path.as_str()).collect();
    let (mut ok, mut busy) = (0, 0);
    for (w, (kept, b)) in results.iter().enumerate() {
        busy += b;
        for (i, line) in kept {
            ok += 1;
            match i % 5 {
                3 => assert!(
                    paths.contains(format!("/memories/w{w}/n{i}.md").as_str())
                        || paths.contains(format!("/memories/w{w}/m{}.md", i + 1).as_str()),
                    "create {line} lost"
                ),
                4 => assert!(
                    paths.contains(format!("/memories/w{w}/m{i}.md").as_str()),
                    "rename {line} lost"
                ),
                _ => assert_eq!(lines.get(line), Some(&1), "insert {line} lost or doubled"),
            }
        }
    }
    // Inserts that succeeded are exactly the lines beyond the two "top" lines.
    let inserted: usize = results
        .iter()
        .map(|(k, _)| k.iter().filter(|(i, _)| i % 5 < 3).count())
        .sum();
    assert_eq!(
        lines.remove("top"),
        Some(2),
        "each file keeps its one first line"
    );
    assert_eq!(
        lines.values().sum::<usize>(),
        inserted,
        "the files hold lines no successful insert wrote"
    );
    let swaps: u64 = stores
        .iter()
        .map(|s| s.shared.by_kind.borrow().get("cas").copied().unwrap_or(0))
        .sum();
    println!(
        "{} edits by {WRITERS} interleaved writers: {ok} succeeded and are all present, {busy} gave up busy; {swaps} compare-and-swaps, {} of them lost a race",
        WRITERS * EDITS_EACH,
        swaps - ok as u64
    );
    // The interleaving must really make writers race, or this test proves nothing.
    assert!(
        swaps > ok as u64 + 100,
        "only {swaps} compare-and-swaps for {ok} edits: no contention"
    );
    assert!(
        ok >= WRITERS * EDITS_EACH * 9 / 10,
        "too many edits gave up: {busy}"
    );
}

#[test]
fn a_lost_race_waits_on_the_runtimes_backoff_before_retrying() {
    use std::cell::RefCell;
    use std::rc::Rc;
    let backing = MemoryStore::new();
    let waits: Rc<RefCell<Vec<u32>>> = Rc::default();
    let stores: Vec<Harness<MemoryStore>> = (0..3)
        .map(|_| Harness {
            yielding: true,
            ..Harness::new(backing.clone())
        })
        .collect();
    let engines: Vec<Engine<&Harness<MemoryStore>>> = stores
        .iter()
        .map(|s| {
            let mut e = Engine::new(
                s,
                Config {
                    max_retries: 64,
                    ..Config::default()
                },
            );
            let waits = waits.clone();
            e.set_backoff(Box::new(move |lost| {
                waits.borrow_mut().push(lost);
                Box::pin(async {})
            }));
            e
        })
        .collect();
    let runs = engines.iter().enumerate().map(|(w, e)| async move {
        for i in 0..40 {
            let r = e.execute(&json!({"command":"create","path":format!("/memories/{w}-{i}.md"),"file_text":"x"})).await;
            assert!(!r.is_error, "{}", r.content);
        }
    });
    run_interleaved(runs.collect());
    let swaps: u64 = stores
        .iter()
        .map(|s| s.shared.by_kind.borrow().get("cas").copied().unwrap_or(0))
        .sum();
    let waits = waits.borrow();
    // One wait per lost race, counting the losses of the command in a row from 1.
    assert_eq!(
        waits.len() as u64,
        swaps - 120,
        "{swaps} compare-and-swaps for 120 commands"
    );
    assert!(waits.contains(&1) && waits.iter().all(|&n| n >= 1));
    println!(
        "{} lost races, each followed by one backoff; longest losing streak {}",
        waits.len(),
        waits.iter().max().unwrap_or(&0)
    );
}
