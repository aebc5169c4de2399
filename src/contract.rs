//! The store-contract suite: one async function every adapter's tests call, the way
//! automerge-repo runs one storage-adapter suite against every adapter.
//!
//! It needs an empty store (or an empty namespace of one) and reports the first
//! broken promise as an error naming the operation, so a failing adapter test says
//! what to fix.

use alloc::format;
use alloc::rc::Rc;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::store::Store;

macro_rules! ensure {
    ($cond:expr, $($msg:tt)+) => {
        if !$cond {
            return Err(format!($($msg)+));
        }
    };
}

/// Runs every check of the contract against `store`, which must start empty.
pub async fn check<S: Store>(store: &S) -> Result<(), String> {
    round_trips(store).await?;
    absent_keys(store).await?;
    listing(store).await?;
    compare_and_swap(store).await?;
    batched_commit(store).await?;
    Ok(())
}

async fn round_trips<S: Store>(s: &S) -> Result<(), String> {
    fn e(op: &'static str) -> impl Fn(crate::StoreError) -> String {
        move |err| format!("{op} failed: {err}")
    }
    // The large value is made at run time: as a constant it sat in every wasm build
    // as 70,000 bytes of data.
    let large = alloc::vec![7u8; 70_000];
    let values: [&[u8]; 4] = [b"", b"v", &[0, 255, 10, 13, 0], &large];
    for (i, v) in values.iter().enumerate() {
        let key = format!("rt/{i}");
        s.set(&key, v).await.map_err(e("set"))?;
        let got = s.get(&key).await.map_err(e("get"))?;
        ensure!(
            got.as_deref() == Some(*v),
            "get({key}) did not return what set wrote ({} bytes)",
            v.len()
        );
    }
    s.set("rt/0", b"overwritten").await.map_err(e("set"))?;
    let got = s.get("rt/0").await.map_err(e("get"))?;
    ensure!(
        got.as_deref() == Some(&b"overwritten"[..]),
        "set did not overwrite an existing key"
    );
    for i in 0..values.len() {
        s.delete(&format!("rt/{i}")).await.map_err(e("delete"))?;
    }
    ensure!(
        s.get("rt/1").await.map_err(e("get"))?.is_none(),
        "get returned a deleted key"
    );
    Ok(())
}

async fn absent_keys<S: Store>(s: &S) -> Result<(), String> {
    let got = s
        .get("absent/key")
        .await
        .map_err(|e| format!("get of an absent key failed: {e}"))?;
    ensure!(got.is_none(), "get of an absent key returned a value");
    s.delete("absent/key")
        .await
        .map_err(|e| format!("delete of an absent key failed: {e}"))?;
    let page = s
        .list("absent/", None)
        .await
        .map_err(|e| format!("list failed: {e}"))?;
    ensure!(
        page.keys.is_empty() && page.cursor.is_none(),
        "list of an empty prefix returned keys"
    );
    Ok(())
}

/// Lists every key under `prefix`, following cursors; fails on a cursor loop.
pub async fn list_all<S: Store>(s: &S, prefix: &str) -> Result<Vec<String>, String> {
    crate::store::list_all(s, prefix)
        .await
        .map_err(|e| format!("listing every page failed: {e}"))
}

async fn listing<S: Store>(s: &S) -> Result<(), String> {
    // Enough keys to force paging in any adapter with a page of up to 1,000 keys.
    let n = 1_100;
    let mut want: Vec<String> = (0..n).map(|i| format!("ls/a/{i:05}")).collect();
    for k in &want {
        s.set(k, b"x")
            .await
            .map_err(|e| format!("set failed: {e}"))?;
    }
    // Neighbours that a prefix listing must not return.
    for k in ["ls/", "ls/a", "ls/b/0", "lt/a/0", "ls/A/0"] {
        s.set(k, b"y")
            .await
            .map_err(|e| format!("set failed: {e}"))?;
    }
    let got = list_all(s, "ls/a/").await?;
    // Unstable is the same order for strings, and the sort store_dir already uses.
    want.sort_unstable();
    ensure!(
        got.len() == want.len(),
        "list(\"ls/a/\") returned {} keys, expected {}",
        got.len(),
        want.len()
    );
    ensure!(
        got == want,
        "list(\"ls/a/\") returned the wrong keys or order"
    );
    let one = list_all(s, "ls/a/00042").await?;
    ensure!(
        one == ["ls/a/00042"],
        "list of an exact key as prefix returned {one:?}"
    );
    for k in want
        .iter()
        .map(String::as_str)
        .chain(["ls/", "ls/a", "ls/b/0", "lt/a/0", "ls/A/0"])
    {
        s.delete(k)
            .await
            .map_err(|e| format!("delete failed: {e}"))?;
    }
    ensure!(
        list_all(s, "ls").await?.is_empty(),
        "list returned deleted keys"
    );
    Ok(())
}

async fn compare_and_swap<S: Store>(s: &S) -> Result<(), String> {
    let cas = |e| format!("compare_and_swap failed: {e}");
    ensure!(
        s.compare_and_swap("cas/k", None, b"1").await.map_err(cas)?,
        "CAS on an absent key expecting absent did not write"
    );
    ensure!(
        s.get("cas/k").await.map_err(cas)?.as_deref() == Some(&b"1"[..]),
        "CAS wrote the wrong value"
    );
    ensure!(
        !s.compare_and_swap("cas/k", None, b"2").await.map_err(cas)?,
        "CAS expecting absent overwrote a present key"
    );
    ensure!(
        !s.compare_and_swap("cas/k", Some(b"0"), b"2")
            .await
            .map_err(cas)?,
        "CAS with a stale expected value wrote"
    );
    ensure!(
        s.get("cas/k").await.map_err(cas)?.as_deref() == Some(&b"1"[..]),
        "a failed CAS changed the value"
    );
    ensure!(
        s.compare_and_swap("cas/k", Some(b"1"), b"2")
            .await
            .map_err(cas)?,
        "CAS with the current value did not write"
    );
    ensure!(
        s.get("cas/k").await.map_err(cas)?.as_deref() == Some(&b"2"[..]),
        "CAS wrote the wrong value"
    );
    ensure!(
        !s.compare_and_swap("cas/absent", Some(b"2"), b"3")
            .await
            .map_err(cas)?,
        "CAS expecting a value wrote an absent key"
    );
    ensure!(
        s.get("cas/absent").await.map_err(cas)?.is_none(),
        "a failed CAS created a key"
    );
    // A prefix of the current value is not the current value.
    ensure!(
        !s.compare_and_swap("cas/k", Some(b""), b"4")
            .await
            .map_err(cas)?,
        "CAS matched an empty expected value against a non-empty one"
    );
    s.delete("cas/k").await.map_err(cas)?;
    Ok(())
}

async fn batched_commit<S: Store>(s: &S) -> Result<(), String> {
    let c = |e| format!("commit failed: {e}");
    let objs: [(String, Rc<[u8]>); 2] = [
        ("bc/obj/1".to_string(), Rc::from(&b"one"[..])),
        ("bc/obj/2".to_string(), Rc::from(&b"two"[..])),
    ];
    ensure!(
        s.commit(&objs, "bc/head", None, b"h1").await.map_err(c)?,
        "commit on a fresh head did not swap"
    );
    ensure!(
        s.get("bc/obj/2").await.map_err(c)?.as_deref() == Some(&b"two"[..]),
        "commit did not write its objects"
    );
    ensure!(
        !s.commit(&objs, "bc/head", None, b"h2").await.map_err(c)?,
        "commit swapped a head it should not have"
    );
    ensure!(
        s.get("bc/head").await.map_err(c)?.as_deref() == Some(&b"h1"[..]),
        "a refused commit moved the head"
    );
    for k in ["bc/obj/1", "bc/obj/2", "bc/head"] {
        s.delete(k).await.map_err(c)?;
    }
    Ok(())
}
