//! The store contract and the connection's behaviour, over real IndexedDB in
//! headless Chromium (`wasm-bindgen-test`, see scripts/test.d/40-browser.sh).
#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::rc::Rc;

use memdir::{Store, StoreError};
use memdir_idb::{Fault, IdbStore, delete_database};
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen(inline_js = r#"
export function holdOpen(name) {
  // A connection that, unlike memdir's, ignores versionchange: it blocks upgrades.
  return new Promise((resolve, reject) => {
    const r = indexedDB.open(name, 1);
    r.onupgradeneeded = () => r.result.createObjectStore('kv');
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}
export function release(db) { db.close(); }
function openRaw(name) {
  return new Promise((resolve, reject) => {
    const r = indexedDB.open(name);
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}
const hex = (u8) => Array.from(u8, (b) => b.toString(16).padStart(2, '0')).join('');
// Every record of every object store, as text: store, key, and the value's bytes
// in hex (a pack record: its keys and its pack's bytes).
export async function rawRecords(name) {
  const db = await openRaw(name);
  const out = [];
  for (const store of db.objectStoreNames) {
    const all = await new Promise((resolve, reject) => {
      const tx = db.transaction(store, 'readonly');
      const keys = tx.objectStore(store).getAllKeys();
      const values = tx.objectStore(store).getAll();
      tx.oncomplete = () => resolve([keys.result, values.result]);
      tx.onabort = () => reject(tx.error);
    });
    all[0].forEach((k, i) => {
      const v = all[1][i];
      const text = v instanceof Uint8Array ? hex(v) : `${v.keys.join(',')}:${hex(v.pack)}`;
      out.push(`${store} ${k} ${text}`);
    });
  }
  db.close();
  return out;
}
export function breakIndexedDb(how) {
  const saved = {
    open: IDBFactory.prototype.open,
    put: IDBObjectStore.prototype.put,
    // On a global object the attribute is the object's own, not its prototype's.
    idb: Object.getOwnPropertyDescriptor(globalThis, 'indexedDB'),
  };
  if (how === 'security') {
    IDBFactory.prototype.open = function () { throw new DOMException('denied in private mode', 'SecurityError'); };
  } else if (how === 'invalid-state') {
    IDBFactory.prototype.open = function () { throw new DOMException('private browsing', 'InvalidStateError'); };
  } else if (how === 'quota') {
    IDBObjectStore.prototype.put = function () { throw new DOMException('the disk is full at /home/x', 'QuotaExceededError'); };
  } else if (how === 'missing') {
    Object.defineProperty(globalThis, 'indexedDB', { value: undefined, configurable: true });
  }
  return () => {
    IDBFactory.prototype.open = saved.open;
    IDBObjectStore.prototype.put = saved.put;
    Object.defineProperty(globalThis, 'indexedDB', saved.idb);
  };
}
export function rawPack(name, id, key, pack) {
  return new Promise((resolve, reject) => {
    const r = indexedDB.open(name);
    r.onsuccess = () => {
      const tx = r.result.transaction('packs', 'readwrite');
      tx.objectStore('packs').put({ keys: [key, 'blob/mate'], pack }, id);
      tx.oncomplete = () => { r.result.close(); resolve(); };
      tx.onabort = () => reject(tx.error);
    };
    r.onerror = () => reject(r.error);
  });
}
export function rawPut(name, key, value) {
  return new Promise((resolve, reject) => {
    const r = indexedDB.open(name);
    r.onsuccess = () => {
      const tx = r.result.transaction('kv', 'readwrite');
      tx.objectStore('kv').put(value, key);
      tx.oncomplete = () => { r.result.close(); resolve(); };
      tx.onabort = () => reject(tx.error);
    };
    r.onerror = () => reject(r.error);
  });
}
"#)]
extern "C" {
    #[wasm_bindgen(catch, js_name = holdOpen)]
    async fn hold_open(name: &str) -> Result<JsValue, JsValue>;
    fn release(db: &JsValue);
    #[wasm_bindgen(js_name = breakIndexedDb)]
    fn break_indexed_db(how: &str) -> js_sys::Function;
    #[wasm_bindgen(catch, js_name = rawPut)]
    async fn raw_put(name: &str, key: &str, value: &JsValue) -> Result<(), JsValue>;
    #[wasm_bindgen(catch, js_name = rawPack)]
    async fn raw_pack(name: &str, id: u32, key: &str, pack: &JsValue) -> Result<(), JsValue>;
    #[wasm_bindgen(catch, js_name = rawRecords)]
    async fn raw_records_js(name: &str) -> Result<JsValue, JsValue>;
}

/// Every record of the memory's database, one line each: `store key value-hex`.
async fn raw_records(namespace: &str) -> Vec<String> {
    let all = raw_records_js(&memdir_idb::database_name(namespace))
        .await
        .expect("raw records");
    js_sys::Array::from(&all)
        .iter()
        .map(|l| l.as_string().expect("a line"))
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

async fn fresh(namespace: &str) -> IdbStore {
    let _ = delete_database(namespace).await;
    match IdbStore::open(namespace).await {
        Ok(s) => s,
        Err(e) => panic!("open {namespace}: {e}"),
    }
}

#[wasm_bindgen_test]
async fn the_store_contract_holds_over_indexeddb() {
    let store = fresh("contract").await;
    if let Err(e) = memdir::contract::check(&store).await {
        panic!("{e}");
    }
}

#[wasm_bindgen_test]
async fn data_survives_a_reopen_of_the_database() {
    let store = fresh("reopen").await;
    assert_eq!(
        store
            .commit(
                &[("blob/1".into(), vec![1, 2, 3].into())],
                "head",
                None,
                b"c1"
            )
            .await,
        Ok(true)
    );
    store.close();
    assert_eq!(store.get("head").await, Err(StoreError::Unavailable));
    drop(store);

    let again = IdbStore::open("reopen").await.expect("reopen");
    assert_eq!(again.get("head").await, Ok(Some(b"c1".to_vec())));
    assert_eq!(again.get("blob/1").await, Ok(Some(vec![1, 2, 3])));
    again.close();
}

#[wasm_bindgen_test]
async fn memories_are_separate_databases() {
    let a = fresh("ns-a").await;
    let b = fresh("ns-b").await;
    a.set("head", b"a").await.expect("set");
    assert_eq!(b.get("head").await, Ok(None));
    assert_eq!(memdir_idb::database_name("ns-a"), "memdir:ns-a");
}

#[wasm_bindgen_test]
async fn a_refused_commit_writes_none_of_its_objects() {
    let store = fresh("refused").await;
    store.set("head", b"theirs").await.expect("set");
    let objects: Vec<(String, Rc<[u8]>)> = vec![
        ("tree/x".to_string(), b"t".to_vec().into()),
        ("blob/y".to_string(), b"b".to_vec().into()),
    ];
    assert_eq!(
        store.commit(&objects, "head", Some(b"mine"), b"new").await,
        Ok(false)
    );
    assert_eq!(store.get("tree/x").await, Ok(None));
    assert_eq!(store.get("blob/y").await, Ok(None));
    assert_eq!(store.get("head").await, Ok(Some(b"theirs".to_vec())));
}

/// Runs one commit of three objects with `fault(k)` planned, for each k below
/// `steps`: each must fail with `Failed`, leave the head and every object as they
/// were, and have struck exactly once; then `fault(steps)` must find nothing to
/// break and the commit succeed.
async fn commit_fails_at_each_step(ns: &str, steps: usize, fault: fn(usize) -> Fault) {
    let store = fresh(ns).await;
    store.set("head", b"h0").await.expect("set");
    let objects: Vec<(String, Rc<[u8]>)> = (0..3)
        .map(|i| (format!("blob/{i}"), vec![i as u8; 10].into()))
        .collect();
    for k in 0..steps {
        let struck = store.injected_faults();
        store.inject_into_next_commit(fault(k));
        assert_eq!(
            store.commit(&objects, "head", Some(b"h0"), b"h1").await,
            Err(StoreError::Failed),
            "{:?}",
            fault(k)
        );
        assert_eq!(
            store.injected_faults(),
            struck + 1,
            "{:?} never struck",
            fault(k)
        );
        assert_eq!(
            store.get("head").await,
            Ok(Some(b"h0".to_vec())),
            "{:?}",
            fault(k)
        );
        for (key, _) in &objects {
            assert_eq!(store.get(key).await, Ok(None), "{:?}: {key}", fault(k));
        }
    }
    assert_eq!(store.injected_faults(), steps);
    // One step further there is nothing left to break: the plan must not strike.
    store.inject_into_next_commit(fault(steps));
    assert_eq!(
        store.commit(&objects, "head", Some(b"h0"), b"h1").await,
        Ok(true)
    );
    assert_eq!(store.injected_faults(), steps);
    assert_eq!(store.get("head").await, Ok(Some(b"h1".to_vec())));
    assert_eq!(store.get("blob/2").await, Ok(Some(vec![2; 10])));
}

#[wasm_bindgen_test]
async fn a_commit_aborted_at_any_step_leaves_nothing() {
    // Three requests (the head's read, the pack of the three objects, the head's
    // write): aborted with none run, then after each of the three.
    commit_fails_at_each_step("abort-steps", 4, Fault::AbortAfter).await;
}

#[wasm_bindgen_test]
async fn a_commit_whose_request_cannot_be_placed_leaves_nothing() {
    commit_fails_at_each_step("place-steps", 3, Fault::FailPlacing).await;
}

#[wasm_bindgen_test]
async fn two_connections_racing_on_one_head_never_both_win() {
    let a = fresh("race").await;
    let b = IdbStore::open("race").await.expect("open");
    for i in 0..20 {
        let (va, vb) = (format!("a{i}"), format!("b{i}"));
        let (ra, rb) = futures::future::join(
            a.compare_and_swap("head", None, va.as_bytes()),
            b.compare_and_swap("head", None, vb.as_bytes()),
        )
        .await;
        assert_eq!(
            [ra, rb].iter().filter(|r| **r == Ok(true)).count(),
            1,
            "round {i}: {ra:?} {rb:?}"
        );
        a.delete("head").await.expect("delete");
    }
}

#[wasm_bindgen_test]
async fn a_blocked_upgrade_is_unavailable_not_a_hang() {
    let _ = delete_database("blocked").await;
    let holder = hold_open(&memdir_idb::database_name("blocked"))
        .await
        .expect("hold open");
    let newer = IdbStore::new_at_version("blocked", 3);
    assert_eq!(newer.get("head").await, Err(StoreError::Unavailable));
    release(&holder);
}

#[wasm_bindgen_test]
async fn we_close_for_another_tabs_upgrade_and_reconnect_after() {
    let store = fresh("yield").await;
    store.set("k", b"v").await.expect("set");
    // Deleting the database fires versionchange at our connection; we must close
    // (or the delete would block) and then work again on a fresh database.
    assert_eq!(delete_database("yield").await, Ok(()));
    assert_eq!(store.get("k").await, Ok(None));
    store.set("k", b"w").await.expect("set after reconnect");
    assert_eq!(store.get("k").await, Ok(Some(b"w".to_vec())));
}

#[wasm_bindgen_test]
async fn private_mode_refusals_are_unavailable() {
    for how in ["security", "invalid-state", "missing"] {
        let restore = break_indexed_db(how);
        let opened = IdbStore::open(&format!("private-{how}")).await.err();
        let _ = restore.call0(&JsValue::NULL);
        assert_eq!(opened, Some(StoreError::Unavailable), "{how}");
    }
}

#[wasm_bindgen_test]
async fn a_full_disk_is_quota_exceeded_and_writes_nothing() {
    let store = fresh("quota").await;
    store.set("head", b"h0").await.expect("set");
    let restore = break_indexed_db("quota");
    let result = store
        .commit(
            &[("blob/a".into(), b"x".to_vec().into())],
            "head",
            Some(b"h0"),
            b"h1",
        )
        .await;
    let set = store.set("other", b"x").await;
    let _ = restore.call0(&JsValue::NULL);
    assert_eq!(result, Err(StoreError::QuotaExceeded));
    assert_eq!(set, Err(StoreError::QuotaExceeded));
    assert_eq!(store.get("head").await, Ok(Some(b"h0".to_vec())));
    assert_eq!(store.get("blob/a").await, Ok(None));
}

#[wasm_bindgen_test]
async fn a_value_that_is_not_ours_is_failed() {
    let store = fresh("foreign").await;
    store.set("x", b"").await.expect("set");
    raw_put(
        &memdir_idb::database_name("foreign"),
        "head",
        &JsValue::from_str("a string"),
    )
    .await
    .expect("raw put");
    assert_eq!(store.get("head").await, Err(StoreError::Failed));
    // A head we cannot read refuses the commit and writes none of its objects.
    assert_eq!(
        store
            .commit(&[("blob/z".into(), vec![1].into())], "head", None, b"h")
            .await,
        Err(StoreError::Failed)
    );
    assert_eq!(store.get("blob/z").await, Ok(None));
}

#[wasm_bindgen_test]
async fn listing_pages_by_key_range() {
    let store = fresh("pages").await;
    for i in 0..(memdir_idb::PAGE as usize + 3) {
        store.set(&format!("p/{i:04}"), b"").await.expect("set");
    }
    store.set("p0", b"").await.expect("set");
    store.set("o", b"").await.expect("set");
    let first = store.list("p/", None).await.expect("list");
    assert_eq!(first.keys.len(), memdir_idb::PAGE as usize);
    assert_eq!(first.cursor.as_deref(), Some("p/0499"));
    let second = store
        .list("p/", first.cursor.as_deref())
        .await
        .expect("list");
    assert_eq!(second.keys, ["p/0500", "p/0501", "p/0502"]);
    assert_eq!(second.cursor, None);
    // A cursor past the prefix's keys ends the listing; one before it starts over.
    assert_eq!(
        store.list("p/", Some("q")).await.expect("list").keys.len(),
        0
    );
    assert_eq!(
        store.list("p/", Some("a")).await.expect("list").keys.len(),
        memdir_idb::PAGE as usize
    );
    let all = memdir::contract::list_all(&store, "")
        .await
        .expect("list all");
    assert_eq!(all.len(), memdir_idb::PAGE as usize + 5);
}

#[wasm_bindgen_test]
async fn a_commit_puts_its_objects_as_one_pack_record() {
    let store = fresh("one-pack").await;
    let objects: Vec<(String, Rc<[u8]>)> = vec![
        ("tree/a".to_string(), b"AAAA".to_vec().into()),
        ("blob/b".to_string(), b"BBBB".to_vec().into()),
        ("commit/c".to_string(), b"CCCC".to_vec().into()),
        ("blob/b".to_string(), b"BBBB".to_vec().into()),
    ];
    assert_eq!(store.commit(&objects, "head", None, b"h1").await, Ok(true));
    let records = raw_records("one-pack").await;
    assert_eq!(records.len(), 2, "{records:?}");
    assert_eq!(records[0], format!("kv head {}", hex(b"h1")));
    assert!(
        records[1].starts_with("packs 1 tree/a,blob/b,commit/c:"),
        "{records:?}"
    );
    for (k, v) in &objects {
        assert_eq!(store.get(k).await, Ok(Some(v.to_vec())), "{k}");
    }
    assert_eq!(
        memdir::contract::list_all(&store, "").await.expect("list"),
        ["blob/b", "commit/c", "head", "tree/a"]
    );
    assert_eq!(
        memdir::contract::list_all(&store, "blob/")
            .await
            .expect("list"),
        ["blob/b"]
    );
}

#[wasm_bindgen_test]
async fn a_large_commit_is_packs_of_at_most_the_pack_bound_so_a_delete_rewrites_one() {
    let store = fresh("bounded-packs").await;
    let third = memdir_idb::PACK_MAX_BYTES / 3 + 1;
    let big = |b: u8, n: usize| -> Rc<[u8]> { vec![b; n].into() };
    let objects: Vec<(String, Rc<[u8]>)> = vec![
        ("blob/a".to_string(), big(b'a', third)),
        ("blob/b".to_string(), big(b'b', third)),
        ("blob/c".to_string(), big(b'c', third)),
        ("tree/t".to_string(), b"tree".to_vec().into()),
        (
            "blob/huge".to_string(),
            big(b'h', memdir_idb::PACK_MAX_BYTES + 1),
        ),
        ("commit/k".to_string(), b"commit".to_vec().into()),
    ];
    assert_eq!(store.commit(&objects, "head", None, b"h1").await, Ok(true));
    // Packs in the objects' order, each at most the bound but for a value over it.
    let packs: Vec<String> = raw_records("bounded-packs")
        .await
        .into_iter()
        .filter(|r| r.starts_with("packs "))
        .map(|r| r.split(':').next().unwrap_or_default().to_string())
        .collect();
    assert_eq!(
        packs,
        [
            "packs 1 blob/a,blob/b",
            "packs 2 blob/c,tree/t",
            "packs 3 blob/huge",
            "packs 4 commit/k"
        ]
    );
    for (k, v) in &objects {
        assert_eq!(store.get(k).await, Ok(Some(v.to_vec())), "{k}");
    }
    // A delete rewrites the one pack holding the key, the others untouched.
    let before = raw_records("bounded-packs").await;
    assert_eq!(store.delete("blob/a").await, Ok(()));
    let after = raw_records("bounded-packs").await;
    let changed: Vec<&String> = after.iter().filter(|r| !before.contains(r)).collect();
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert!(changed[0].starts_with("packs 1 blob/b:"), "{changed:?}");
    assert_eq!(store.get("blob/a").await, Ok(None));
    assert_eq!(store.get("blob/b").await, Ok(Some(vec![b'b'; third])));
}

#[wasm_bindgen_test]
async fn a_delete_rewrites_its_pack_and_leaves_no_byte_of_the_value() {
    let store = fresh("unpack").await;
    let secret = b"the deleted value 0123456789";
    let objects: Vec<(String, Rc<[u8]>)> = vec![
        ("blob/keep".to_string(), b"kept bytes".to_vec().into()),
        ("blob/gone".to_string(), secret.to_vec().into()),
        ("tree/t".to_string(), b"tree bytes".to_vec().into()),
    ];
    assert_eq!(store.commit(&objects, "head", None, b"h1").await, Ok(true));
    // The same object packed again by a later commit (another tab stored it first).
    let again: Vec<(String, Rc<[u8]>)> = vec![("blob/gone".to_string(), secret.to_vec().into())];
    assert_eq!(
        store.commit(&again, "head", Some(b"h1"), b"h2").await,
        Ok(true)
    );
    assert!(raw_records("unpack").await.concat().contains(&hex(secret)));
    store.delete("blob/gone").await.expect("delete");
    let records = raw_records("unpack").await;
    assert!(
        !records.concat().contains(&hex(secret)),
        "a deleted value's bytes stayed: {records:?}"
    );
    // The pack left empty is gone; its mates are kept, byte for byte.
    assert_eq!(records.len(), 2, "{records:?}");
    assert!(
        records[1].starts_with("packs 1 blob/keep,tree/t:"),
        "{records:?}"
    );
    assert_eq!(store.get("blob/gone").await, Ok(None));
    assert_eq!(
        store.get("blob/keep").await,
        Ok(Some(b"kept bytes".to_vec()))
    );
    assert_eq!(store.get("tree/t").await, Ok(Some(b"tree bytes".to_vec())));
    assert_eq!(
        memdir::contract::list_all(&store, "").await.expect("list"),
        ["blob/keep", "head", "tree/t"]
    );
    store.delete("blob/keep").await.expect("delete");
    store.delete("tree/t").await.expect("delete");
    assert_eq!(
        raw_records("unpack").await,
        [format!("kv head {}", hex(b"h2"))]
    );
}

#[wasm_bindgen_test]
async fn a_pack_that_is_not_ours_is_failed() {
    let store = fresh("foreign-pack").await;
    let objects: Vec<(String, Rc<[u8]>)> = vec![("blob/x".to_string(), b"x".to_vec().into())];
    assert_eq!(store.commit(&objects, "head", None, b"h1").await, Ok(true));
    raw_pack(
        &memdir_idb::database_name("foreign-pack"),
        1,
        "blob/x",
        &js_sys::Uint8Array::from(&b"MDP1junk"[..]),
    )
    .await
    .expect("raw pack");
    assert_eq!(store.get("blob/x").await, Err(StoreError::Failed));
    // A delete that cannot rewrite its pack's mate deletes nothing.
    assert_eq!(store.delete("blob/x").await, Err(StoreError::Failed));
    assert_eq!(raw_records("foreign-pack").await.len(), 2);
}

/// Every request, transaction and timer the store awaits shares two handlers that
/// find its future in one table (src/events.rs); each must leave that table on its
/// first event, whether it succeeded, failed or was aborted, or the table would
/// grow with every command a page runs.
#[wasm_bindgen_test]
async fn every_request_and_transaction_awaited_leaves_the_table_once_it_has_ended() {
    let store = fresh("awaited").await;
    store.set("head", b"h0").await.expect("set");
    let objects: Vec<(String, Rc<[u8]>)> = vec![("blob/a".to_string(), b"a".to_vec().into())];
    // A commit, a read from `kv` and one from a pack (two requests), a miss.
    assert_eq!(
        store.commit(&objects, "head", Some(b"h0"), b"h1").await,
        Ok(true)
    );
    assert_eq!(store.get("head").await, Ok(Some(b"h1".to_vec())));
    assert_eq!(store.get("blob/a").await, Ok(Some(b"a".to_vec())));
    assert_eq!(store.get("blob/none").await, Ok(None));
    // A refused commit (aborted by the head's check) and one aborted by a fault.
    assert_eq!(
        store.commit(&objects, "head", Some(b"h0"), b"h2").await,
        Ok(false)
    );
    store.inject_into_next_commit(Fault::AbortAfter(1));
    assert_eq!(
        store.commit(&objects, "head", Some(b"h1"), b"h2").await,
        Err(StoreError::Failed)
    );
    assert_eq!(
        store.list("blob/", None).await.map(|p| p.keys),
        Ok(vec!["blob/a".to_string()])
    );
    assert_eq!(store.delete("blob/a").await, Ok(()));
    assert_eq!(memdir_idb::awaited(), 0);
}

#[wasm_bindgen_test]
async fn a_sleep_waits_its_time_and_leaves_the_table() {
    let start = js_sys::Date::now();
    memdir_idb::timer::sleep(40.0).await;
    let waited = js_sys::Date::now() - start;
    assert!(waited >= 35.0, "slept {waited} ms of 40");
    assert_eq!(memdir_idb::awaited(), 0);
}
