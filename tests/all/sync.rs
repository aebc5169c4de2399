//! Sync as a property: two clients and a remote (memdir's own Memory Stores API
//! over a memory store, as the model of the API), random creates, edits, renames
//! and deletes on all three, random syncs cut off after a random request. Then a
//! few whole syncs: all three hold the same memories, every text any side wrote is
//! current, kept in a conflict, or in some store's versions, and one more sync
//! writes nothing anywhere.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use crate::common;

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};

use memdir::api::Response;
use memdir::config::Config;
use memdir::sync::{Remote, Summary, Unreachable};
use memdir::{Engine, MemoryStore, block_on};
use proptest::prelude::*;
use serde_json::{Value, json};

/// The remote: an engine's API, whose connection drops at the `cut`-th request:
/// the request is carried out and its answer lost, or (`before`) never arrives.
struct Model {
    engine: Engine<MemoryStore>,
    calls: Cell<u64>,
    cut: Cell<Option<u64>>,
    before: Cell<bool>,
    /// Another client's request, made just before the sync's request of this index.
    interfere: std::cell::RefCell<Option<(u64, Value)>>,
}

impl Remote for Model {
    async fn call(&self, request: &Value) -> Result<Response, Unreachable> {
        let n = self.calls.get();
        self.calls.set(n + 1);
        let other = self.interfere.borrow_mut().take_if(|(at, _)| *at == n);
        if let Some((_, request)) = other {
            assert_eq!(self.engine.api(&request).await.status, 200);
        }
        let cut = self.cut.get().is_some_and(|cut| n >= cut);
        if cut && self.before.get() {
            return Err(Unreachable);
        }
        let r = self.engine.api(request).await;
        if cut { Err(Unreachable) } else { Ok(r) }
    }
}

fn model() -> Model {
    Model {
        engine: engine(),
        calls: Cell::new(0),
        cut: Cell::new(None),
        before: Cell::new(false),
        interfere: std::cell::RefCell::new(None),
    }
}

fn engine() -> Engine<MemoryStore> {
    common::api_engine(Config::default()).0
}

const PATHS: [&str; 4] = ["/a.md", "/b.md", "/notes/c.md", "/notes/d.md"];

fn call(e: &Engine<MemoryStore>, request: Value) -> Response {
    block_on(e.api(&request))
}

/// The id of the first memory `e` lists (the tests below hold one).
fn id(e: &Engine<MemoryStore>) -> String {
    call(e, json!({"op": "memory.list", "query": {}})).body["data"][0]["id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Replaces the content of `e`'s one memory.
fn edit(e: &Engine<MemoryStore>, text: &str) {
    let r = call(
        e,
        json!({"op": "memory.update", "id": id(e), "body": json!({"content": text}).to_string()}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
}

/// Every memory of `e`: path -> content.
fn contents(e: &Engine<MemoryStore>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut page: Option<String> = None;
    loop {
        let mut q = json!({"limit": "20", "view": "full"});
        if let Some(p) = &page {
            q["page"] = json!(p);
        }
        let r = call(e, json!({"op": "memory.list", "query": q}));
        assert_eq!(r.status, 200, "{}", r.body);
        for m in r.body["data"].as_array().unwrap() {
            out.insert(
                m["path"].as_str().unwrap().to_string(),
                m["content"].as_str().unwrap().to_string(),
            );
        }
        match r.body["next_page"].as_str() {
            Some(p) => page = Some(p.into()),
            None => return out,
        }
    }
}

/// Every version's content `e` holds.
fn versions(e: &Engine<MemoryStore>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut page: Option<String> = None;
    loop {
        let mut q = json!({"limit": "20", "view": "full"});
        if let Some(p) = &page {
            q["page"] = json!(p);
        }
        let r = call(e, json!({"op": "version.list", "query": q}));
        assert_eq!(r.status, 200, "{}", r.body);
        for v in r.body["data"].as_array().unwrap() {
            if let Some(c) = v["content"].as_str() {
                out.insert(c.to_string());
            }
        }
        match r.body["next_page"].as_str() {
            Some(p) => page = Some(p.into()),
            None => return out,
        }
    }
}

fn version_count(e: &Engine<MemoryStore>) -> usize {
    let r = call(e, json!({"op": "version.list", "query": {"limit": "100"}}));
    assert_eq!(r.status, 200);
    r.body["data"].as_array().unwrap().len()
}

/// One change on `e`, as `c` draws it; the text it wrote, if any. A delete adds the
/// tags of what it deleted to `deleted`.
fn change(
    e: &Engine<MemoryStore>,
    c: &Change,
    tag: &str,
    deleted: &mut BTreeSet<String>,
) -> Option<String> {
    let listed = contents(e);
    let mems = {
        let r = call(e, json!({"op": "memory.list", "query": {"limit": "100"}}));
        r.body["data"].as_array().unwrap().clone()
    };
    let pick = (!mems.is_empty()).then(|| mems[c.memory.index(mems.len())].clone());
    match (c.kind, pick) {
        (0..=2, _) | (_, None) => {
            let path = PATHS[c.path];
            let text = format!("one\ntwo {tag}\nthree\n");
            let r = call(
                e,
                json!({"op": "memory.create", "body": json!({"path": path, "content": text}).to_string()}),
            );
            (r.status == 200).then_some(text)
        }
        (3..=6, Some(m)) => {
            // An edit of one of its lines, so that edits on two sides may or may
            // not overlap.
            let old = &listed[m["path"].as_str().unwrap()];
            let mut lines: Vec<String> = old.lines().map(String::from).collect();
            let i = c.line.index(lines.len().max(1));
            if lines.is_empty() {
                lines.push(String::new());
            }
            lines[i] = format!("{} {tag}", lines[i]);
            let text = lines.join("\n") + "\n";
            let r = call(
                e,
                json!({"op": "memory.update", "id": m["id"], "body": json!({"content": text}).to_string()}),
            );
            (r.status == 200).then_some(text)
        }
        (7..=8, Some(m)) => {
            let path = PATHS[c.path];
            call(
                e,
                json!({"op": "memory.update", "id": m["id"], "body": json!({"path": path}).to_string()}),
            );
            None
        }
        (_, Some(m)) => {
            let r = call(e, json!({"op": "memory.delete", "id": m["id"]}));
            if r.status == 200 {
                deleted.extend(tags(&listed[m["path"].as_str().unwrap()]));
            }
            None
        }
    }
}

/// The change tags (`a5`, `r12`: who changed it, at which step) a text holds. Edits
/// only add tags to lines, so a tag leaves the memories only with a delete.
fn tags(text: &str) -> BTreeSet<String> {
    text.split_whitespace()
        .filter(|w| {
            let mut c = w.chars();
            matches!(c.next(), Some('a' | 'b' | 'r'))
                && c.clone().next().is_some()
                && c.all(|d| d.is_ascii_digit())
        })
        .map(String::from)
        .collect()
}

/// Every tag in the current memories of `e`.
fn all_tags(e: &Engine<MemoryStore>) -> BTreeSet<String> {
    contents(e).values().flat_map(|t| tags(t)).collect()
}

fn sync(
    client: &Engine<MemoryStore>,
    remote: &Model,
    cut: Option<u64>,
) -> Result<Summary, memdir::SyncError> {
    remote.calls.set(0);
    remote.cut.set(cut);
    let r = block_on(client.sync(remote, "model memstore_remote"));
    remote.cut.set(None);
    r
}

/// A text is kept if it is a current content, inside one, or a version.
fn kept(text: &str, current: &[&BTreeMap<String, String>], versions: &BTreeSet<String>) -> bool {
    let body = text.trim_end_matches('\n');
    current.iter().any(|c| c.values().any(|v| v.contains(body))) || versions.contains(text)
}

/// What one change does: `kind` 0–2 a create, 3–6 an edit of a line, 7–8 a rename,
/// 9 a delete; of which memory, which line and to which path.
#[derive(Clone, Debug)]
struct Change {
    kind: u8,
    path: usize,
    memory: prop::sample::Index,
    line: prop::sample::Index,
}

#[derive(Clone, Debug)]
enum Step {
    /// A change on client a (0), client b (1) or the remote (2).
    Change(u8, Change),
    /// A sync of client a (false) or b (true), its connection cut at that request
    /// (the request lost before, or its answer after, it was carried out).
    Sync(bool, Option<u64>, bool),
}

fn step() -> impl Strategy<Value = Step> {
    let change = (
        0u8..10,
        0..PATHS.len(),
        any::<prop::sample::Index>(),
        any::<prop::sample::Index>(),
    )
        .prop_map(|(kind, path, memory, line)| Change {
            kind,
            path,
            memory,
            line,
        });
    prop_oneof![
        2 => (0u8..3, change).prop_map(|(side, c)| Step::Change(side, c)),
        3 => (any::<bool>(), prop::option::of(0u64..12), any::<bool>()).prop_map(|(b, cut, before)| Step::Sync(b, cut, before)),
    ]
}

#[test]
fn random_edits_on_two_clients_and_the_remote_converge_and_lose_nothing() {
    use proptest::test_runner::{Config as RunnerConfig, TestRunner};
    use std::cell::RefCell;

    let cases: u32 = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(150);
    let mut runner = TestRunner::new(RunnerConfig {
        cases,
        failure_persistence: None,
        ..RunnerConfig::default()
    });
    let syncs_cut = RefCell::new(0u32);
    let totals = RefCell::new(Summary::default());
    let run = RefCell::new(0u32);
    let result = runner.run(&prop::collection::vec(step(), 24), |steps| {
        *run.borrow_mut() += 1;
        let (a, b) = (engine(), engine());
        let remote = model();
        let mut written = Vec::new();
        let mut deleted = BTreeSet::new();
        for (i, s) in steps.iter().enumerate() {
            match s {
                Step::Change(side, c) => {
                    let (who, e) = match side {
                        0 => ("a", &a),
                        1 => ("b", &b),
                        _ => ("r", &remote.engine),
                    };
                    written.extend(change(e, c, &format!("{who}{i}"), &mut deleted));
                }
                Step::Sync(which, cut, before) => {
                    remote.before.set(*before);
                    match sync(if *which { &b } else { &a }, &remote, *cut) {
                        Ok(s) => {
                            let mut t = totals.borrow_mut();
                            t.merged += s.merged;
                            t.conflicts += s.conflicts;
                        }
                        Err(_) => *syncs_cut.borrow_mut() += 1,
                    }
                }
            }
        }
        let fail = |e: memdir::SyncError| TestCaseError::fail(format!("a whole sync failed: {e}"));
        // Every change still held somewhere, and not deleted since, must survive
        // the syncs: merged, beside a conflict, or beating a delete.
        let mut held = all_tags(&a);
        held.extend(all_tags(&b));
        held.extend(all_tags(&remote.engine));
        for _ in 0..3 {
            sync(&a, &remote, None).map_err(fail)?;
            sync(&b, &remote, None).map_err(fail)?;
        }
        let (ca, cb, cr) = (contents(&a), contents(&b), contents(&remote.engine));
        prop_assert_eq!(&ca, &cr, "client a and the remote differ");
        prop_assert_eq!(&cb, &cr, "client b and the remote differ");
        let mut all = versions(&a);
        all.extend(versions(&b));
        all.extend(versions(&remote.engine));
        for t in &written {
            prop_assert!(kept(t, &[&ca], &all), "{:?} is lost", t);
        }
        let now = all_tags(&a);
        let lost: Vec<&String> = held
            .iter()
            .filter(|t| !now.contains(*t) && !deleted.contains(*t))
            .collect();
        prop_assert!(lost.is_empty(), "changes lost: {:?}", lost);
        // Nothing changed: a sync writes nothing on either side.
        let before = (version_count(&a), version_count(&remote.engine));
        let s = sync(&a, &remote, None).map_err(fail)?;
        prop_assert_eq!((s.pulled, s.pushed, s.merged, s.conflicts), (0, 0, 0, 0));
        prop_assert_eq!((version_count(&a), version_count(&remote.engine)), before);
        Ok(())
    });
    let (run, cut, totals) = (
        run.into_inner(),
        syncs_cut.into_inner(),
        totals.into_inner(),
    );
    println!(
        "{run} sequences run ({cases} configured), {cut} syncs cut off midway, {} merges and {} conflicts in the syncs that finished",
        totals.merged, totals.conflicts
    );
    if let Err(e) = result {
        panic!("sync lost or diverged: {e}");
    }
    // The cases must reach the interesting paths, not only copies.
    assert!(run >= cases && totals.merged > 0 && totals.conflicts > 0 && cut > 0);
}

#[test]
fn edits_to_different_lines_merge_and_overlapping_ones_keep_both() {
    let (a, b) = (engine(), engine());
    let remote = model();
    call(
        &a,
        json!({"op": "memory.create", "body": json!({"path": "/n.md", "content": "1\n2\n3\n"}).to_string()}),
    );
    assert_eq!(
        sync(&a, &remote, None).unwrap().to_string(),
        "pulled 0, pushed 1, merged 0, conflicts 0, unchanged 0"
    );
    assert_eq!(
        sync(&b, &remote, None).unwrap().to_string(),
        "pulled 1, pushed 0, merged 0, conflicts 0, unchanged 0"
    );
    edit(&a, "1 a\n2\n3\n");
    edit(&b, "1\n2\n3 b\n");
    sync(&a, &remote, None).unwrap();
    assert_eq!(
        sync(&b, &remote, None).unwrap().to_string(),
        "pulled 0, pushed 0, merged 1, conflicts 0, unchanged 0"
    );
    assert_eq!(contents(&b)["/n.md"], "1 a\n2\n3 b\n");
    sync(&a, &remote, None).unwrap();
    edit(&a, "1 a\n2 from a\n3 b\n");
    edit(&b, "1 a\n2 from b\n3 b\n");
    sync(&a, &remote, None).unwrap();
    assert_eq!(
        sync(&b, &remote, None).unwrap().to_string(),
        "pulled 0, pushed 0, merged 0, conflicts 1, unchanged 0"
    );
    assert_eq!(
        contents(&remote.engine)["/n.md"],
        "1 a\n<<<<<<< ours\n2 from b\n=======\n2 from a\n>>>>>>> theirs\n3 b\n"
    );
}

#[test]
fn a_merge_cut_between_its_two_writes_is_finished_not_merged_again() {
    let (a, b) = (engine(), engine());
    let remote = model();
    call(
        &a,
        json!({"op": "memory.create", "body": json!({"path": "/n.md", "content": "1\n2\n"}).to_string()}),
    );
    sync(&a, &remote, None).unwrap();
    sync(&b, &remote, None).unwrap();
    edit(&a, "1\n2 a\n");
    sync(&a, &remote, None).unwrap();
    edit(&b, "1\n2 b\n");
    // b's sync: list (1), retrieve (2), then the remote's update (3) never arrives;
    // b already holds the merge.
    remote.before.set(true);
    assert!(sync(&b, &remote, Some(2)).is_err());
    remote.before.set(false);
    let conflict = "1\n<<<<<<< ours\n2 b\n=======\n2 a\n>>>>>>> theirs\n";
    assert_eq!(contents(&b)["/n.md"], conflict);
    assert_eq!(contents(&remote.engine)["/n.md"], "1\n2 a\n");
    assert_eq!(
        sync(&b, &remote, None).unwrap().to_string(),
        "pulled 0, pushed 0, merged 0, conflicts 1, unchanged 0"
    );
    assert_eq!(contents(&remote.engine)["/n.md"], conflict);
    assert_eq!(contents(&b)["/n.md"], conflict);
}

#[test]
fn a_remote_edit_made_during_the_sync_is_merged_not_overwritten() {
    let a = engine();
    let remote = model();
    call(
        &a,
        json!({"op": "memory.create", "body": json!({"path": "/n.md", "content": "1\n2\n3\n"}).to_string()}),
    );
    sync(&a, &remote, None).unwrap();
    call(
        &a,
        json!({"op": "memory.update", "id": id(&a), "body": json!({"content": "1 a\n2\n3\n"}).to_string()}),
    );
    // a's sync lists the remote (request 0), then another client edits the
    // remote's line 3 just before a's update (request 1) arrives.
    *remote.interfere.borrow_mut() = Some((
        1,
        json!({"op": "memory.update", "id": id(&remote.engine), "body": json!({"content": "1\n2\n3 other\n"}).to_string()}),
    ));
    let s = sync(&a, &remote, None).unwrap();
    assert_eq!(
        s.to_string(),
        "pulled 0, pushed 0, merged 1, conflicts 0, unchanged 0"
    );
    assert_eq!(contents(&remote.engine)["/n.md"], "1 a\n2\n3 other\n");
    assert_eq!(contents(&a)["/n.md"], "1 a\n2\n3 other\n");
}

#[test]
fn a_rename_on_one_side_and_an_edit_on_the_other_are_one_memory() {
    let a = engine();
    let remote = model();
    call(
        &a,
        json!({"op": "memory.create", "body": json!({"path": "/old.md", "content": "x\n"}).to_string()}),
    );
    sync(&a, &remote, None).unwrap();
    call(
        &a,
        json!({"op": "memory.update", "id": id(&a), "body": json!({"path": "/new.md"}).to_string()}),
    );
    call(
        &remote.engine,
        json!({"op": "memory.update", "id": id(&remote.engine), "body": json!({"content": "x edited\n"}).to_string()}),
    );
    assert_eq!(
        sync(&a, &remote, None).unwrap().to_string(),
        "pulled 0, pushed 0, merged 1, conflicts 0, unchanged 0"
    );
    let want: BTreeMap<String, String> = [("/new.md".to_string(), "x edited\n".to_string())].into();
    assert_eq!(contents(&a), want);
    assert_eq!(contents(&remote.engine), want);
}

#[test]
fn a_merge_past_the_size_limit_is_refused_naming_the_memory() {
    let a = engine();
    let remote = model();
    call(
        &a,
        json!({"op": "memory.create", "body": json!({"path": "/big.md", "content": "a\nb\n"}).to_string()}),
    );
    sync(&a, &remote, None).unwrap();
    // 60 KB on each side, on different lines: together past the API's 100 KB.
    let half = "x".repeat(60_000);
    call(
        &a,
        json!({"op": "memory.update", "id": id(&a), "body": json!({"content": format!("a {half}\nb\n")}).to_string()}),
    );
    call(
        &remote.engine,
        json!({"op": "memory.update", "id": id(&remote.engine), "body": json!({"content": format!("a\nb {half}\n")}).to_string()}),
    );
    let e = sync(&a, &remote, None).unwrap_err();
    assert_eq!(
        e.to_string(),
        "This memory store refused a change to /big.md (400 invalid_request_error); the other memories were synced as far as they got."
    );
    // Nothing was lost: each side still holds its own edit.
    assert_eq!(contents(&a)["/big.md"], format!("a {half}\nb\n"));
    assert_eq!(
        contents(&remote.engine)["/big.md"],
        format!("a\nb {half}\n")
    );
}

#[test]
fn deletes_and_edits_that_beat_them_settle_in_one_pass() {
    let a = engine();
    let remote = model();
    call(
        &a,
        json!({"op": "memory.create", "body": json!({"path": "/d.md", "content": "x\n"}).to_string()}),
    );
    sync(&a, &remote, None).unwrap();
    // Deleted here, unchanged there: one list, one delete, and nothing pulled back.
    call(&a, json!({"op": "memory.delete", "id": id(&a)}));
    assert_eq!(
        sync(&a, &remote, None).unwrap().to_string(),
        "pulled 0, pushed 1, merged 0, conflicts 0, unchanged 0"
    );
    assert_eq!(remote.calls.get(), 2);
    assert!(contents(&remote.engine).is_empty());
    // Deleted there, edited here: the edit goes back in the same sync.
    call(
        &a,
        json!({"op": "memory.create", "body": json!({"path": "/e.md", "content": "y\n"}).to_string()}),
    );
    sync(&a, &remote, None).unwrap();
    call(
        &remote.engine,
        json!({"op": "memory.delete", "id": id(&remote.engine)}),
    );
    edit(&a, "y edited\n");
    assert_eq!(
        sync(&a, &remote, None).unwrap().to_string(),
        "pulled 0, pushed 1, merged 0, conflicts 0, unchanged 0"
    );
    let want: BTreeMap<String, String> = [("/e.md".to_string(), "y edited\n".to_string())].into();
    assert_eq!(contents(&remote.engine), want);
}

/// A remote whose list pages are `page(n)` for its n-th list request, counting them;
/// every other request is refused.
struct Pager<F: Fn(u64) -> Value> {
    page: F,
    lists: Cell<u64>,
}

impl<F: Fn(u64) -> Value> Remote for Pager<F> {
    async fn call(&self, request: &Value) -> Result<Response, Unreachable> {
        if request["op"] != "memory.list" {
            return Ok(Response {
                status: 500,
                body: json!({"type": "error", "error": {"type": "api_error", "message": "no"}}),
            });
        }
        let n = self.lists.get();
        self.lists.set(n + 1);
        // Past any bound the sync should keep, the connection fails, so a sync that
        // kept paging fails this test instead of running it forever.
        if n >= 10_000 {
            return Err(Unreachable);
        }
        Ok(Response {
            status: 200,
            body: (self.page)(n),
        })
    }
}

#[test]
fn a_remote_that_pages_without_end_is_refused_within_its_memories_pages() {
    // A memory as the API lists it, to hand out again and again.
    let source = engine();
    let made = call(
        &source,
        json!({"op": "memory.create", "body": json!({"path": "/one.md", "content": "one"}).to_string()}),
    );
    assert_eq!(made.status, 200, "{}", made.body);
    let listed = call(&source, json!({"op": "memory.list"})).body["data"][0].clone();
    assert_eq!(listed["type"], "memory");
    let stopped = "The remote memory store answered with something that is not a Memory Stores API answer; the sync stopped there.";
    // An empty page under a fresh token each time: refused at the first.
    let empty = Pager {
        page: |n| json!({"data": [], "next_page": format!("t{n}")}),
        lists: Cell::new(0),
    };
    let e = block_on(engine().sync(&empty, "empty pages")).unwrap_err();
    assert_eq!(e.to_string(), stopped);
    assert_eq!(empty.lists.get(), 1);
    // The same memory under a fresh token each time: refused at the second page.
    let same = Pager {
        page: |n| json!({"data": [listed.clone()], "next_page": format!("t{n}")}),
        lists: Cell::new(0),
    };
    let e = block_on(engine().sync(&same, "the same page")).unwrap_err();
    assert_eq!(e.to_string(), stopped);
    assert_eq!(same.lists.get(), 2);
    // A new memory on every page is as many pages as the cap allows, and no more.
    let max = Config::default().limits.max_memories;
    let endless = Pager {
        page: |n| {
            let mut m = listed.clone();
            m["id"] = json!(format!("mem_zzzzzzzzzzzz_{}", n + 1));
            m["path"] = json!(format!("/m{n}.md"));
            json!({"data": [m], "next_page": format!("t{n}")})
        },
        lists: Cell::new(0),
    };
    let e = block_on(engine().sync(&endless, "endless")).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "The remote memory store holds more than {max} memories, more than this store may hold; nothing was synced."
        )
    );
    assert_eq!(endless.lists.get(), max + 1);
}

/// A client with one memory, `/doc.md`, and the same store opened again with
/// `config` (read-only, say): what a second face over the store would see.
fn seeded_then(config: Config) -> (Engine<MemoryStore>, MemoryStore) {
    let (seeder, store) = common::api_engine(Config::default());
    let made = call(
        &seeder,
        json!({"op": "memory.create", "body": json!({"path": "/doc.md", "content": "kept\n"}).to_string()}),
    );
    assert_eq!(made.status, 200, "{}", made.body);
    (Engine::new(store.clone(), config), store)
}

#[test]
fn a_read_only_store_is_refused_before_any_request_or_write() {
    let config = Config {
        read_only: true,
        ..Config::default()
    };
    let (client, store) = seeded_then(config);
    let remote = model();
    call(
        &remote.engine,
        json!({"op": "memory.create", "body": json!({"path": "/remote.md", "content": "there\n"}).to_string()}),
    );
    let before = common::dump(&store);
    let e = sync(&client, &remote, None).unwrap_err();
    assert_eq!(
        e.to_string(),
        "This memory store is mounted read-only, and a sync writes to both stores; nothing was synced."
    );
    // Not a byte here (no sync record), not a request there (nothing pushed).
    assert_eq!(common::dump(&store), before);
    assert_eq!(remote.calls.get(), 0);
    let there: BTreeMap<String, String> =
        [("/remote.md".to_string(), "there\n".to_string())].into();
    assert_eq!(contents(&remote.engine), there);
}

#[test]
fn an_archived_store_is_refused_before_any_request_or_write() {
    let (client, store) = seeded_then(Config::default());
    assert_eq!(call(&client, json!({"op": "store.archive"})).status, 200);
    let remote = model();
    let before = common::dump(&store);
    let e = sync(&client, &remote, None).unwrap_err();
    assert_eq!(
        e.to_string(),
        "This memory store is archived, and a sync writes to both stores; nothing was synced."
    );
    assert_eq!(common::dump(&store), before);
    assert_eq!(remote.calls.get(), 0);
    assert!(contents(&remote.engine).is_empty());
}

/// A remote that answers every request with `status` and no body, counting them.
struct Answering {
    status: u16,
    calls: Cell<u64>,
}

impl Remote for Answering {
    async fn call(&self, _: &Value) -> Result<Response, Unreachable> {
        self.calls.set(self.calls.get() + 1);
        Ok(Response {
            status: self.status,
            body: Value::Null,
        })
    }
}

#[test]
fn a_redirect_stops_the_sync_at_the_first_request() {
    // 0 is a browser's opaque redirect (fetch's `redirect: 'manual'`).
    for status in [0, 301, 302, 303, 307, 308] {
        let (client, store) = seeded_then(Config::default());
        let before = common::dump(&store);
        let remote = Answering {
            status,
            calls: Cell::new(0),
        };
        let e = block_on(client.sync(&remote, "redirecting")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "The remote memory store answered with a redirect, which sync does not follow (the key goes to the URL given and nowhere else); nothing more was synced.",
            "{status}"
        );
        assert_eq!(remote.calls.get(), 1, "{status}");
        assert_eq!(common::dump(&store), before, "{status}");
    }
}

#[test]
fn a_remote_replaced_by_tens_of_thousands_of_short_lines_is_a_conflict_not_a_long_diff() {
    // The review's case: a memory pulled, its first line edited here, its lines
    // past the tenth replaced on the remote by 100 KB of 2-byte lines. Not diffed
    // (diffed, they merge, after tens of seconds), both texts stay whole; together
    // past the size limit, the store refuses them, and each side keeps its own
    // text, as for any merge past the limit, sync after sync.
    let a = engine();
    let remote = model();
    let base: String = (0..300).map(|i| format!("line {i}\n")).collect();
    call(
        &remote.engine,
        json!({"op": "memory.create", "body": json!({"path": "/n.md", "content": base}).to_string()}),
    );
    assert_eq!(
        sync(&a, &remote, None).unwrap().to_string(),
        "pulled 1, pushed 0, merged 0, conflicts 0, unchanged 0"
    );
    let ours = base.replacen("line 0\n", "line zero\n", 1);
    edit(&a, &ours);
    let kept: String = base.lines().take(10).map(|l| format!("{l}\n")).collect();
    let theirs = format!("{kept}{}", "x\n".repeat(49_960));
    edit(&remote.engine, &theirs);
    for _ in 0..2 {
        let e = sync(&a, &remote, None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "This memory store refused a change to /n.md (400 invalid_request_error); the other memories were synced as far as they got."
        );
        assert_eq!(contents(&a)["/n.md"], ours);
        assert_eq!(contents(&remote.engine)["/n.md"], theirs);
    }
    // A shorter replacement fits beside the edit: one conflict, both texts whole.
    let theirs = "x\n".repeat(20_000);
    edit(&remote.engine, &theirs);
    assert_eq!(
        sync(&a, &remote, None).unwrap().to_string(),
        "pulled 0, pushed 0, merged 0, conflicts 1, unchanged 0"
    );
    let whole = format!("<<<<<<< ours\n{ours}=======\n{theirs}>>>>>>> theirs\n");
    assert_eq!(contents(&a)["/n.md"], whole);
    assert_eq!(contents(&remote.engine)["/n.md"], whole);
}

/// The sync record keeps what both sides agreed on per memory; a path there would
/// outlive the redaction of the version that named it.
#[test]
fn a_redacted_old_name_is_in_no_byte_of_the_sync_record() {
    let (a, store) = common::api_engine(Config::default());
    let remote = model();
    let made = call(
        &a,
        json!({"op": "memory.create", "body": json!({"path": "/secret-name.md", "content": "kept\n"}).to_string()}),
    );
    assert_eq!(made.status, 200, "{}", made.body);
    let first = made.body["memory_version_id"].as_str().unwrap().to_string();
    assert_eq!(
        sync(&a, &remote, None).unwrap().to_string(),
        "pulled 0, pushed 1, merged 0, conflicts 0, unchanged 0"
    );
    call(
        &a,
        json!({"op": "memory.update", "id": id(&a), "body": json!({"path": "/public.md"}).to_string()}),
    );
    let redacted = call(&a, json!({"op": "version.redact", "id": first}));
    assert_eq!(redacted.status, 200, "{}", redacted.body);
    let holding: Vec<String> = common::dump(&store)
        .into_iter()
        .filter(|(_, v)| v.windows(11).any(|w| w == b"secret-name"))
        .map(|(k, _)| k)
        .collect();
    assert_eq!(holding, Vec::<String>::new());
    // The record still does its work: the rename goes out as one.
    assert_eq!(
        sync(&a, &remote, None).unwrap().to_string(),
        "pulled 0, pushed 1, merged 0, conflicts 0, unchanged 0"
    );
    let want: BTreeMap<String, String> = [("/public.md".to_string(), "kept\n".to_string())].into();
    assert_eq!(contents(&remote.engine), want);
}
