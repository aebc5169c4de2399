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

mod common;

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};

use memdir::sync::{Remote, Summary, Unreachable};
use memdir::{Config, Engine, MemoryStore, Response, block_on};
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

/// xorshift64*: the cases are the same on every run.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
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

/// One random change on `e`; the text it wrote, if any.
fn change(e: &Engine<MemoryStore>, rng: &mut Rng, tag: &str) -> Option<String> {
    let listed = contents(e);
    let mems = {
        let r = call(e, json!({"op": "memory.list", "query": {"limit": "100"}}));
        r.body["data"].as_array().unwrap().clone()
    };
    let pick = (!mems.is_empty())
        .then(|| mems[usize::try_from(rng.below(mems.len() as u64)).unwrap()].clone());
    match (rng.below(10), pick) {
        (0..=2, _) | (_, None) => {
            let path = PATHS[usize::try_from(rng.below(4)).unwrap()];
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
            let i = usize::try_from(rng.below(lines.len().max(1) as u64)).unwrap();
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
            let path = PATHS[usize::try_from(rng.below(4)).unwrap()];
            call(
                e,
                json!({"op": "memory.update", "id": m["id"], "body": json!({"path": path}).to_string()}),
            );
            None
        }
        (_, Some(m)) => {
            call(e, json!({"op": "memory.delete", "id": m["id"]}));
            None
        }
    }
}

fn sync(
    client: &Engine<MemoryStore>,
    remote: &Model,
    cut: Option<u64>,
) -> Result<Summary, memdir::sync::SyncError> {
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

#[test]
fn random_edits_on_two_clients_and_the_remote_converge_and_lose_nothing() {
    let cases = std::env::var("SYNC_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(150);
    let mut syncs_cut = 0;
    let mut totals = Summary::default();
    for case in 0..cases {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (case + 1));
        let (a, b) = (engine(), engine());
        let remote = model();
        let mut written = Vec::new();
        for step in 0..24 {
            match rng.below(5) {
                0 | 1 => {
                    let (who, e) = match rng.below(3) {
                        0 => ("a", &a),
                        1 => ("b", &b),
                        _ => ("r", &remote.engine),
                    };
                    written.extend(change(e, &mut rng, &format!("{who}{step}")));
                }
                n => {
                    let client = if n == 2 { &a } else { &b };
                    let cut = (rng.below(2) == 0).then(|| rng.below(12));
                    remote.before.set(rng.below(2) == 0);
                    match sync(client, &remote, cut) {
                        Ok(s) => {
                            totals.merged += s.merged;
                            totals.conflicts += s.conflicts;
                        }
                        Err(_) => syncs_cut += 1,
                    }
                }
            }
        }
        for _ in 0..3 {
            sync(&a, &remote, None).unwrap();
            sync(&b, &remote, None).unwrap();
        }
        let (ca, cb, cr) = (contents(&a), contents(&b), contents(&remote.engine));
        assert_eq!(ca, cr, "case {case}: client a and the remote differ");
        assert_eq!(cb, cr, "case {case}: client b and the remote differ");
        let mut all = versions(&a);
        all.extend(versions(&b));
        all.extend(versions(&remote.engine));
        for t in &written {
            assert!(kept(t, &[&ca], &all), "case {case}: {t:?} is lost");
        }
        // Nothing changed: a sync writes nothing on either side.
        let before = (version_count(&a), version_count(&remote.engine));
        let s = sync(&a, &remote, None).unwrap();
        assert_eq!(
            (s.pulled, s.pushed, s.merged, s.conflicts),
            (0, 0, 0, 0),
            "case {case}"
        );
        assert_eq!(
            (version_count(&a), version_count(&remote.engine)),
            before,
            "case {case}"
        );
    }
    // The cases must reach the interesting paths, not only copies.
    assert!(totals.merged > 0 && totals.conflicts > 0 && syncs_cut > 0);
    println!(
        "{cases} cases, {syncs_cut} syncs cut off midway, {} merges and {} conflicts in the syncs that finished",
        totals.merged, totals.conflicts
    );
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
