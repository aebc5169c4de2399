//! The exported `Memory`: the engines of one memory (one store at `/memories`, or
//! several mounted beside each other: `MountSet`), driven from JS by promises.
//!
//! The engine's methods take `&self`, so each call clones the `Rc` into its own
//! future: several commands may be in flight at once (the engine's compare-and-swap
//! sorts them out) and freeing the JS object never cuts a pending command short.

use alloc::boxed::Box;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;

use js_sys::{Function, Object, Promise, Reflect};
use memdir::config::{Config, Limits};
use memdir::mounts::{Access, Mount, Mounted};
use memdir::{Actor, Engine, SecretPolicy, ToolError, ToolResult};
#[cfg(not(feature = "tool"))]
use memdir::{Entry, InputError};
use wasm_bindgen::prelude::*;

use crate::any_store::AnyStore;
use crate::embedder::EmbedderHandle;
#[cfg(not(feature = "tool"))]
use crate::to_js::{cannot_convert, to_js};
use crate::{StoreHandle, promise};

#[wasm_bindgen]
pub struct Memory {
    mounted: Rc<Mounted<Engine<AnyStore>>>,
}

/// An engine over `store` with the runtime's clock, backoff and random cache key.
fn engine_for(
    store: AnyStore,
    config: Config,
    clock: Option<Function>,
    embedder: Option<&EmbedderHandle>,
) -> Engine<AnyStore> {
    let mut engine = Engine::new(store, config);
    // The lean build (feature `tool`) has no search, and no way to make an embedder.
    #[cfg(not(feature = "tool"))]
    engine.set_embedder(embedder.map(EmbedderHandle::embedder));
    #[cfg(feature = "tool")]
    let _ = embedder;
    engine.set_clock(match clock {
        Some(f) => {
            Box::new(move || millis(f.call0(&JsValue::UNDEFINED).ok().and_then(|v| v.as_f64())))
        }
        // The number as it is: boxing it as a JsValue first took a slot of the
        // externref table, and every write reads the clock.
        None => Box::new(|| millis(Some(js_sys::Date::now()))),
    });
    engine.set_backoff(Box::new(memdir_idb::timer::backoff));
    engine.set_cache_key(random_key());
    engine
}

/// Eight bytes of `crypto.getRandomValues`, which every runtime memdir runs in has;
/// `Math.random` should one lack it.
fn random_key() -> u64 {
    let from_crypto = || -> Option<u64> {
        let crypto = Reflect::get(&js_sys::global(), &JsValue::from_str("crypto")).ok()?;
        let fill = Reflect::get(&crypto, &JsValue::from_str("getRandomValues"))
            .ok()?
            .dyn_into::<Function>()
            .ok()?;
        let bytes = js_sys::Uint8Array::new_with_length(8);
        fill.call1(&crypto, &bytes).ok()?;
        let mut key = [0u8; 8];
        bytes.copy_to(&mut key);
        Some(u64::from_le_bytes(key))
    };
    // 2^53: the bits a random double carries.
    from_crypto().unwrap_or_else(|| (js_sys::Math::random() * 9_007_199_254_740_992.0) as u64)
}

/// Several stores for one memory, gathered before it opens (`openMemory({mounts})`).
#[wasm_bindgen]
pub struct MountSet {
    config: Config,
    clock: Option<Function>,
    embedder: Option<EmbedderHandle>,
    mounts: Vec<(Mount, Engine<AnyStore>)>,
}

#[wasm_bindgen]
impl MountSet {
    /// `config` as for `Memory`; every store shares it, but for its mount.
    #[wasm_bindgen(constructor)]
    pub fn new(
        config: String,
        clock: Option<Function>,
        embedder: Option<EmbedderHandle>,
    ) -> Result<MountSet, JsValue> {
        let config =
            parse_config(&config).map_err(|m| JsValue::from(js_sys::RangeError::new(m)))?;
        Ok(MountSet {
            config,
            clock,
            embedder,
            mounts: Vec::new(),
        })
    }

    /// Adds `store` at `/memories/<name>`; `access` is `read_write` or `read_only`.
    pub fn add(
        &mut self,
        name: String,
        store: &StoreHandle,
        access: &str,
        description: String,
        instructions: String,
    ) -> Result<(), JsValue> {
        let access = Access::from_name(access).ok_or_else(|| {
            JsValue::from(js_sys::TypeError::new(
                "openMemory: a mount's access must be 'read_write' or 'read_only'",
            ))
        })?;
        let config = Config {
            mount: name.clone(),
            read_only: access == Access::ReadOnly,
            ..self.config.clone()
        };
        let engine = engine_for(
            store.store().clone(),
            config,
            self.clock.clone(),
            self.embedder.as_ref(),
        );
        self.mounts.push((
            Mount {
                name,
                access,
                description,
                instructions,
            },
            engine,
        ));
        Ok(())
    }

    /// The memory over every store added; a set the rules refuse (more than 8,
    /// a name twice, …) is a `RangeError` saying which rule.
    pub fn open(self) -> Result<Memory, JsValue> {
        let mounted = Mounted::new(self.mounts).map_err(|e| {
            JsValue::from(js_sys::RangeError::new(&alloc::format!("openMemory: {e}")))
        })?;
        Ok(Memory {
            mounted: Rc::new(mounted),
        })
    }
}

#[wasm_bindgen]
impl Memory {
    /// `config` is the JSON text of `{maxFileBytes, maxTotalBytes, readLimitChars,
    /// actor, maxRetries, secrets}` (checked for type by `js/core.js`; a value out
    /// of range is refused here with a `RangeError`); `clock` returns milliseconds
    /// since the epoch, `Date.now` when absent.
    #[wasm_bindgen(constructor)]
    pub fn new(
        store: &StoreHandle,
        config: String,
        clock: Option<Function>,
        embedder: Option<EmbedderHandle>,
    ) -> Result<Memory, JsValue> {
        let config =
            parse_config(&config).map_err(|m| JsValue::from(js_sys::RangeError::new(m)))?;
        let engine = engine_for(store.store().clone(), config, clock, embedder.as_ref());
        let root = Mount {
            name: String::new(),
            access: Access::ReadWrite,
            description: String::new(),
            instructions: String::new(),
        };
        let mounted = Mounted::new(alloc::vec![(root, engine)])
            .map_err(|e| JsValue::from(js_sys::RangeError::new(&alloc::format!("{e}"))))?;
        Ok(Memory {
            mounted: Rc::new(mounted),
        })
    }

    /// The text an application puts in its system prompt: where each store is
    /// mounted, whether it is read-only, its description and instructions.
    pub fn instructions(&self) -> String {
        self.mounted.instructions()
    }

    /// The raw face: one tool input as JSON text; resolves `{content, is_error}`
    /// with `Error: ` before the message on failure, and on failure a
    /// non-enumerable `kind` (so it never travels with a spread `tool_result`).
    /// Never rejects.
    /// `actor`: see [`actor_of`]; a bad one is a `TypeError`, thrown at once.
    #[wasm_bindgen(js_name = executeJson)]
    pub fn execute_json(&self, input: String, actor: Option<String>) -> Result<Promise, JsValue> {
        let by = actor_of(actor)?;
        let mounted = Rc::clone(&self.mounted);
        Ok(promise(async move {
            let outcome = run_json(&mounted, &input, by.as_ref()).await;
            let js = result_to_js(&ToolResult::of(&outcome));
            if let Err(e) = &outcome {
                mark_kind(&js, e);
            }
            Ok(js)
        }))
    }

    /// The handler face: one tool input as JSON text; resolves the tool's text or
    /// rejects with an `Error` whose message is the protocol's and whose `kind` is
    /// the error's kind (`refused`, `storage_full`, …).
    /// `actor`: see [`actor_of`]; a bad one is a `TypeError`, thrown at once.
    #[wasm_bindgen(js_name = handleJson)]
    pub fn handle_json(&self, input: String, actor: Option<String>) -> Result<Promise, JsValue> {
        let by = actor_of(actor)?;
        let mounted = Rc::clone(&self.mounted);
        Ok(promise(async move {
            let outcome = run_json(&mounted, &input, by.as_ref()).await;
            outcome
                .map(|text| JsValue::from_str(&text))
                .map_err(|e| error(&e))
        }))
    }
}

// Listing every entry, import and expiry: not in the lean build (feature `tool`),
// which runs the memory tool's commands (a view lists a directory); a page that
// lists, imports or expires memories as a whole loads the full build.
#[cfg(not(feature = "tool"))]
#[wasm_bindgen]
impl Memory {
    /// Every directory and file, sorted: `[{path, content?}]` (no `content`: a directory).
    pub fn entries(&self) -> Promise {
        let mounted = Rc::clone(&self.mounted);
        promise(async move {
            let mut all = Vec::new();
            for (mount, engine) in mounted.engines() {
                if !mount.name.is_empty() {
                    all.push(Entry {
                        path: alloc::format!("{}/{}", memdir::ROOT, mount.name),
                        content: None,
                    });
                }
                all.extend(engine.entries().await.map_err(|e| error(&e))?);
            }
            Entry::sort_by_path(&mut all);
            to_js(&all)
        })
    }

    /// Replaces the whole tree with the entries given as JSON text, in one commit.
    #[wasm_bindgen(js_name = import)]
    pub fn import_entries(&self, entries_json: String) -> Promise {
        let mounted = Rc::clone(&self.mounted);
        promise(async move {
            let entries: Vec<Entry> = memdir::__hooks::from_text(&entries_json)
                .map_err(|_| error(&ToolError::Input(InputError::NotEntries)))?;
            let engine = mounted.engine("").ok_or_else(|| {
                JsValue::from(js_sys::Error::new(
                    "import replaces one store's tree: open that store alone (without mounts) to import into it",
                ))
            })?;
            engine.import(&entries).await.map_err(|e| error(&e))?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Removes every file not written in the last `older_than_ms` (and directories
    /// with nothing recent beneath); resolves `{removed, bytes}`.
    /// Read-only stores are left alone.
    pub fn expire(&self, older_than_ms: f64) -> Promise {
        let mounted = Rc::clone(&self.mounted);
        promise(async move {
            let mut total = memdir::ExpireReport::default();
            for (_, engine) in mounted.engines() {
                let report = engine
                    .expire(older_than_ms as u64)
                    .await
                    .map_err(|e| error(&e))?;
                total.removed += report.removed;
                total.bytes += report.bytes;
            }
            // A JS number is exact to the engine's largest stored size only; a sum
            // past it (several stores together) is refused, as serde-wasm-bindgen
            // refused it.
            if total.bytes > memdir::config::MAX_STORED_SIZE {
                return Err(cannot_convert());
            }
            to_js(&total)
        })
    }
}

// Retention and garbage collection: not in the lean build (feature `tool`), since
// collecting garbage folds the search index (to keep its live chunks), which
// would bring the whole search layer back in.
#[cfg(not(feature = "tool"))]
#[wasm_bindgen]
impl Memory {
    /// Drops the versions older than `older_than_ms` that hold no live memory's
    /// current content, in every store (read-only ones are left alone); resolves
    /// `{dropped, more}` (`more`: a store's pass was cut short, run another).
    pub fn retain(&self, older_than_ms: f64) -> Promise {
        let mounted = Rc::clone(&self.mounted);
        promise(async move {
            let mut total = memdir::RetainReport::default();
            for (_, engine) in mounted.engines() {
                let report = engine
                    .retain(older_than_ms as u64)
                    .await
                    .map_err(|e| error(&e))?;
                total.dropped += report.dropped;
                total.more |= report.more;
            }
            to_js(&total)
        })
    }
}

// The faces beyond the memory tool (the Memory Stores API, sync, the toolsets,
// search, re-keying): the lean build (feature `tool`, `memdir/tool`) leaves them
// out, and with them every engine layer only they reach.
#[cfg(not(feature = "tool"))]
#[wasm_bindgen]
impl Memory {
    /// The Memory Stores API (docs/memory-stores.md): one request as JSON text in,
    /// the JSON text of `{status, body}` out. Never rejects: every failure is an
    /// answer with an error status and the API's error object.
    /// `mount`: which store (`""`: the one at `/memories`).
    pub fn api(&self, mount: String, request: String) -> Promise {
        let mounted = Rc::clone(&self.mounted);
        promise(async move {
            let answer = match mounted.engine(&mount) {
                Some(engine) => engine.api_json(&request).await,
                None => memdir::api::Response::no_mount(&mount).to_json(),
            };
            Ok(JsValue::from_str(&answer))
        })
    }

    /// Syncs this memory's store mounted at `mount` (`""`: the store opened
    /// alone) with a Memory Stores API store named `name` (see `memdir::sync`):
    /// `call` takes one request as JSON text and resolves the JSON text of
    /// `{status, body}`. Resolves `{pulled, pushed, merged, conflicts,
    /// unchanged}` (and `text`, not enumerable: the summary line), or rejects with
    /// an `Error` named `SyncError` saying why it stopped (what was synced so far
    /// stays). A store mounted read-only is refused by the engine, as any write.
    pub fn sync(&self, call: Function, name: String, mount: String) -> Promise {
        let mounted = Rc::clone(&self.mounted);
        promise(async move {
            let engine = mounted.engine(&mount).ok_or_else(|| {
                JsValue::from(js_sys::Error::new(&if mount.is_empty() {
                    String::from(
                        "sync works on one store: name its mount (mount: 'name') or open that store alone",
                    )
                } else {
                    alloc::format!("sync: no memory store is mounted at {}", memdir::Echo(&mount))
                }))
            })?;
            let s = engine
                .sync(&crate::sync::JsRemote(call), &name)
                .await
                .map_err(|e| {
                    let err = js_sys::Error::new(&alloc::string::ToString::to_string(&e));
                    err.set_name("SyncError");
                    JsValue::from(err)
                })?;
            let out = Object::new();
            for (k, v) in [
                ("pulled", s.pulled),
                ("pushed", s.pushed),
                ("merged", s.merged),
                ("conflicts", s.conflicts),
                ("unchanged", s.unchanged),
            ] {
                Reflect::set(&out, &JsValue::from_str(k), &JsValue::from_f64(v as f64))?;
            }
            // The one-line summary the CLI prints, as the engine words it; not
            // enumerable, so the object compares as its five counts.
            let text = Object::new();
            Reflect::set(
                &text,
                &JsValue::from_str("value"),
                &JsValue::from_str(&alloc::string::ToString::to_string(&s)),
            )?;
            Object::define_property(&out, &JsValue::from_str("text"), &text);
            Ok(out.into())
        })
    }

    /// The memory-store toolset (`memdir::toolset`): tool `name` on `input` (JSON
    /// text), over every store of this memory (`/<mount>/…` paths when several are
    /// mounted). Resolves the text, or rejects with an `Error` whose message is the
    /// text and whose `kind` names the failure (`input`, `not_found`, …).
    /// `actor`: see [`actor_of`]; a bad one is a `TypeError`, thrown at once.
    pub fn toolset(
        &self,
        name: String,
        input: String,
        actor: Option<String>,
    ) -> Result<Promise, JsValue> {
        let by = actor_of(actor)?;
        let mounted = Rc::clone(&self.mounted);
        Ok(promise(async move {
            let answer = mounted.toolset_json_by(&name, &input, by.as_ref()).await;
            answer.map(|text| JsValue::from_str(&text)).map_err(|e| {
                let err = js_sys::Error::new(&alloc::format!("{e}"));
                let _ = Reflect::set(&err, &"kind".into(), &e.kind().into());
                err.into()
            })
        }))
    }

    /// `memory.search(query, options)`: `input` is the JSON text of `{query,
    /// options}` as js/core.js sends them (see [`search_input`]); resolves the
    /// JSON text of `[{path, score, lines: [{line, text}]}]`, best first, across
    /// every store; rejects as [`search_error`] says.
    pub fn search(&self, input: String) -> Promise {
        let mounted = Rc::clone(&self.mounted);
        promise(async move {
            let answer = mounted.search_json(&search_input(&input)).await;
            answer
                .map(|v| JsValue::from_str(&v.to_string()))
                .map_err(|e| search_error(&e))
        })
    }

    /// `memory.recall(query, options)`: as [`Memory::search`]; resolves the block
    /// of the most relevant memories for a system prompt (`""`: none found or fits).
    pub fn recall(&self, input: String) -> Promise {
        let mounted = Rc::clone(&self.mounted);
        promise(async move {
            let answer = mounted.recall_json(&search_input(&input)).await;
            answer
                .map(|text| JsValue::from_str(&text))
                .map_err(|e| search_error(&e))
        })
    }

    /// The `memory_find` client tool (`memdir::mounts::FIND_TOOL`) on the model's
    /// input, JSON text as the model wrote it (snake_case); resolves the text for
    /// the model, or rejects as [`search_error`] says.
    pub fn find(&self, input: String) -> Promise {
        let mounted = Rc::clone(&self.mounted);
        promise(async move {
            let input: serde_json::Value =
                memdir::__hooks::from_text(&input).unwrap_or(serde_json::Value::Null);
            let answer = mounted.find_text(&input).await;
            answer
                .map(|text| JsValue::from_str(&text))
                .map_err(|e| search_error(&e))
        })
    }

    /// Brings every store's search index up to its head, at most `rounds` budgets
    /// of `SEARCH_INDEX_WORK` memories, and with an embedder its vectors, at most
    /// `rounds` rounds of `EMBED_WORK` texts; resolves as [`status_to_js`] says.
    pub fn reindex(&self, rounds: u32) -> Promise {
        let mounted = Rc::clone(&self.mounted);
        promise(async move {
            let s = mounted.reindex(rounds).await.map_err(|e| error(&e))?;
            let v = mounted
                .reindex_vectors(rounds)
                .await
                .map_err(|e| search_error(&e))?;
            status_to_js(s, v)
        })
    }

    /// How far every store's search index is: `{indexed, pending}`, without
    /// bringing it up to date.
    #[wasm_bindgen(js_name = searchStatus)]
    pub fn search_status(&self) -> Promise {
        let mounted = Rc::clone(&self.mounted);
        promise(async move {
            let s = mounted.search_status().await.map_err(|e| error(&e))?;
            let v = mounted
                .vector_status()
                .await
                .map_err(|e| search_error(&e))?;
            status_to_js(s, v)
        })
    }

    /// Seed 002's records toolset (`memdir::records`): tool `name` on `input` (JSON
    /// text) by the settings given (`undefined`: the default), over this memory's
    /// stores. Resolves the answer's JSON text, or rejects with an `Error` whose
    /// message is the text and whose `kind` names the failure.
    pub fn records(
        &self,
        name: String,
        input: String,
        half_life_days: Option<f64>,
        capacity: Option<f64>,
        similarity: Option<f64>,
        actor: Option<String>,
    ) -> Result<Promise, JsValue> {
        let by = actor_of(actor)?;
        let mounted = Rc::clone(&self.mounted);
        Ok(promise(async move {
            let answer = match memdir::records::Settings::of(half_life_days, capacity, similarity) {
                Ok(settings) => {
                    mounted
                        .records_json(&name, &input, &settings, by.as_ref())
                        .await
                }
                Err(e) => Err(e),
            };
            answer.map(|text| JsValue::from_str(&text)).map_err(|e| {
                let err = js_sys::Error::new(&alloc::format!("{e}"));
                let _ = Reflect::set(&err, &"kind".into(), &e.kind().into());
                err.into()
            })
        }))
    }

    /// Re-encrypts the store mounted at `mount` (`""`: the store opened alone)
    /// under a new key (its 32 bytes or its hex text, and an id; see
    /// `crate::seal::key_of`) and a new data key made from `fresh`, in bounded
    /// steps each saved, so a crash midway loses nothing and a rerun with the same
    /// new key finishes. Resolves `{keyId, moved}`; rejects with an
    /// `EncryptionError` (a plaintext store: not encrypted).
    pub fn rekey(
        &self,
        mount: String,
        bytes: Option<Vec<u8>>,
        hex: Option<String>,
        id: Option<String>,
        fresh: Vec<u8>,
    ) -> Promise {
        let mounted = Rc::clone(&self.mounted);
        promise(async move {
            let engine = mounted.engine(&mount).ok_or_else(|| {
                JsValue::from(js_sys::Error::new(&alloc::format!(
                    "rekey: no memory store is mounted at {}",
                    memdir::Echo(&mount)
                )))
            })?;
            // A read-only mount is read-only for the memory as a whole: re-keying
            // rewrites every stored value (and locks out the store's other readers
            // until they have the new key), so it is done where the store is writable.
            if engine.config().read_only {
                return Err(JsValue::from(js_sys::Error::new(&alloc::format!(
                    "rekey: the store at /memories/{} is mounted read-only; re-key it where it is opened read-write",
                    engine.config().mount
                ))));
            }
            let key =
                crate::seal::key_of(bytes, hex, id).map_err(|e| crate::seal::seal_error(&e))?;
            crate::seal::rekey(engine.store(), key, &fresh).await
        })
    }
}

#[cfg(not(feature = "tool"))]
#[wasm_bindgen]
impl Memory {
    /// Garbage-collects objects unreachable from the last `keep_commits` commits
    /// that were so at a pass at least `min_age_ms` ago; resolves `{reachable,
    /// deleted, pending}`.
    pub fn gc(&self, keep_commits: u32, min_age_ms: f64) -> Promise {
        let mounted = Rc::clone(&self.mounted);
        promise(async move {
            let mut total = memdir::GcReport::default();
            for (_, engine) in mounted.engines() {
                let report = engine
                    .gc_after(keep_commits, min_age_ms as u64)
                    .await
                    .map_err(|e| error(&e))?;
                total.reachable += report.reachable;
                total.deleted += report.deleted;
                total.pending += report.pending;
            }
            to_js(&total)
        })
    }
}

/// `openMemory`'s settings as `js/core.js` sends them.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Options {
    max_file_bytes: u64,
    max_total_bytes: u64,
    read_limit_chars: u64,
    max_memories: u64,
    actor: String,
    max_retries: u32,
    secrets: String,
}

fn parse_config(text: &str) -> Result<Config, &'static str> {
    let o: Options =
        memdir::__hooks::from_text(text).map_err(|_| "openMemory: the options are out of range")?;
    if o.max_retries > memdir::config::MAX_RETRIES_CAP {
        return Err("openMemory: maxRetries is over its cap");
    }
    let secrets =
        SecretPolicy::from_name(&o.secrets).ok_or("openMemory: unknown secrets policy")?;
    Ok(Config {
        // Saturating: a limit beyond the address space is no limit at all.
        limits: Limits {
            max_file_bytes: usize::try_from(o.max_file_bytes).unwrap_or(usize::MAX),
            max_total_bytes: o.max_total_bytes,
            read_limit_chars: usize::try_from(o.read_limit_chars).unwrap_or(usize::MAX),
            max_memories: o.max_memories,
        },
        actor: o.actor,
        max_retries: o.max_retries,
        secrets,
        mount: String::new(),
        read_only: false,
    })
}

/// The typed entry point for a tool input in JSON text, on behalf of `by`.
async fn run_json(
    mounted: &Mounted<Engine<AnyStore>>,
    input: &str,
    by: Option<&Actor>,
) -> Result<String, ToolError> {
    match memdir::parse_text(input) {
        Ok(cmd) => mounted.run_by(cmd, by).await,
        Err(e) => Err(e.into()),
    }
}

/// Checks an actor as [`actor_of`] does, before any call is made with it: the
/// `TypeError` for one the engine refuses. The calls check it again, but a throw
/// from them is the wrapper's internal failure, never the caller's.
#[wasm_bindgen(js_name = checkActor)]
pub fn check_actor(text: String) -> Result<(), JsValue> {
    actor_of(Some(text)).map(|_| ())
}

/// Whom a call acts for: `None` (absent), the memory's configured actor as a
/// session; else the JSON text of an actor object as the Memory Stores API records
/// it (`{"type":"api_actor","api_key_id":…}`), which the versions the call makes
/// name. Checked by the engine's rules for an actor, as the API checks a request's.
fn actor_of(text: Option<String>) -> Result<Option<Actor>, JsValue> {
    let Some(text) = text else {
        return Ok(None);
    };
    match memdir::__hooks::from_text::<Actor>(&text) {
        Ok(actor) if actor.is_valid() => Ok(Some(actor)),
        _ => Err(JsValue::from(js_sys::TypeError::new(&alloc::format!(
            "actor must be an actor object ({{type: 'api_actor', api_key_id}}, or a session_actor, user_actor or service_account_actor) whose id is 1 to {} characters without control characters",
            memdir::config::MAX_ACTOR_ID_CHARS
        )))),
    }
}

/// Sets `kind` on a result object without making it enumerable.
pub fn mark_kind(result: &JsValue, e: &ToolError) {
    let descriptor = Object::new();
    let _ = Reflect::set(
        &descriptor,
        &JsValue::from_str("value"),
        &JsValue::from_str(e.kind().name()),
    );
    let _ = Reflect::define_property(
        &Object::from(result.clone()),
        &JsValue::from_str("kind"),
        &descriptor,
    );
}

/// A clock reading as milliseconds; anything that is not a finite, non-negative
/// number (a clock that threw, returned a string) reads as 0 rather than failing a command.
fn millis(v: Option<f64>) -> u64 {
    match v {
        Some(ms) if ms.is_finite() && ms >= 0.0 => ms as u64,
        _ => 0,
    }
}

/// A `ToolError` as a JS `Error`: the protocol's text as its message, its kind as
/// `kind`, so that faces branch on the kind and never on the sentence.
pub fn error(e: &ToolError) -> JsValue {
    let err = js_sys::Error::new(&alloc::format!("{e}"));
    let _ = Reflect::set(
        &err,
        &JsValue::from_str("kind"),
        &JsValue::from_str(e.kind().name()),
    );
    err.into()
}

/// `{content, is_error}` as a plain object, built directly: it cannot fail.
pub fn result_to_js(r: &ToolResult) -> JsValue {
    let o = Object::new();
    let _ = Reflect::set(
        &o,
        &JsValue::from_str("content"),
        &JsValue::from_str(&r.content),
    );
    let _ = Reflect::set(
        &o,
        &JsValue::from_str("is_error"),
        &JsValue::from_bool(r.is_error),
    );
    o.into()
}

#[cfg(not(feature = "tool"))]
/// The engine's options for `memory.search` / `memory.recall` from the JSON text
/// of `{query, options}` (js/core.js): the JS names (`limit`, `pathPrefix`,
/// `maxChars`) as the engine's (`limit`, `path_prefix`, `max_chars`), every other
/// name left out as the engine leaves unknown options. Options that are not an
/// object (or text that is not JSON) go as they are, for
/// `memdir::search::Request::from_json` to refuse in its words: the one place
/// that judges them.
fn search_input(text: &str) -> serde_json::Value {
    use serde_json::Value;
    let Ok(Value::Object(mut given)) = memdir::__hooks::from_text::<Value>(text) else {
        return Value::Null;
    };
    let query = given.remove("query").unwrap_or(Value::Null);
    let options = match given.remove("options") {
        None | Some(Value::Null) => serde_json::Map::new(),
        Some(Value::Object(o)) => o,
        Some(other) => return other,
    };
    let mut input = serde_json::Map::new();
    input.insert(String::from("query"), query);
    for (js, engine) in [
        ("limit", "limit"),
        ("pathPrefix", "path_prefix"),
        ("maxChars", "max_chars"),
        ("mode", "mode"),
        ("minScore", "min_score"),
    ] {
        if let Some(v) = options.get(js) {
            input.insert(String::from(engine), v.clone());
        }
    }
    Value::Object(input)
}

#[cfg(not(feature = "tool"))]
/// A search's failure as a JS `Error`: the engine's text as its message; `kind`
/// the store's failure's (`storage_failed`, …), or `input` for options or a
/// query it refused.
fn search_error(e: &memdir::SearchError) -> JsValue {
    match e {
        memdir::SearchError::Store(t) => error(t),
        other => {
            let err = js_sys::Error::new(&alloc::format!("{other}"));
            let _ = Reflect::set(
                &err,
                &JsValue::from_str("kind"),
                &JsValue::from_str(memdir::ErrorKind::Input.name()),
            );
            err.into()
        }
    }
}

#[cfg(not(feature = "tool"))]
/// `{indexed, pending}` as a plain object: the index's memories and whether it is
/// behind (or texts wait for vectors); with an embedder also `fingerprint` and
/// `vectors: {indexed, pending}`, counts of distinct live texts with a vector and
/// waiting for one. Without one the answer is as it was before embedders.
fn status_to_js(
    s: memdir::search::IndexStatus,
    v: Option<memdir::search::VectorStatus>,
) -> Result<JsValue, JsValue> {
    let o = Object::new();
    let waiting = v.as_ref().is_some_and(|v| v.pending > 0);
    Reflect::set(&o, &"indexed".into(), &JsValue::from_f64(s.indexed as f64))?;
    Reflect::set(
        &o,
        &"pending".into(),
        &JsValue::from_bool(s.pending || waiting),
    )?;
    if let Some(v) = v {
        Reflect::set(
            &o,
            &"fingerprint".into(),
            &JsValue::from_str(&v.fingerprint),
        )?;
        let counts = Object::new();
        Reflect::set(
            &counts,
            &"indexed".into(),
            &JsValue::from_f64(v.indexed as f64),
        )?;
        Reflect::set(
            &counts,
            &"pending".into(),
            &JsValue::from_f64(v.pending as f64),
        )?;
        Reflect::set(&o, &"vectors".into(), &counts)?;
    }
    Ok(o.into())
}
