//! `memdir-host`: the memory tool in a wasmtime sandbox, from the command line.
//!
//! ```text
//! memdir-host exec --store DIR '<tool input json>'   one call, one JSON result line
//! memdir-host exec --store DIR < calls.ndjson        one JSON result line per input line
//! memdir-host export --store DIR                     the whole tree as JSON
//! memdir-host api --store DIR '<request json>'       one Memory Stores API call
//! memdir-host gc --store DIR [--keep N]              remove unreachable objects
//! memdir-host expire --store DIR --older-than-ms N   remove what was not written lately
//! memdir-host search --store DIR [--limit N] [--prefix P] QUERY   ranked hits as JSON
//! memdir-host recall --store DIR [--limit N] [--max-chars N] QUERY  memories for a prompt
//! memdir-host reindex --store DIR [--rounds N]         bring the search index up to date
//! memdir-host search-status --store DIR                how far the search index is
//! memdir-host imports                                what the component imports
//! memdir-host rekey --store DIR --encryption-key-file F --new-key-file G   re-encrypt
//! memdir-host encrypt --store DIR --encryption-key-file F   encrypt a plaintext store
//! memdir-host encryption-status --store DIR [--encryption-key-file F]  how it is encrypted
//! memdir-host exec --mount NAME=DIR[:ro] ... '<json>'  several stores as one memory
//! memdir-host instructions --mount NAME=DIR[:ro] ...  the system-prompt text for them
//! ```

use std::ffi::OsString;
use std::io::{self, BufRead, Write};
use std::process::ExitCode;
use std::sync::Arc;

use memdir::MountError;
use memdir::mounts::{Access, Mount};
use memdir_host::{
    Backend, CallError, DirBackend, Encryption, Host, HostLimits, MemoryBackend, MountedHost,
    Runtime, ToolConfig,
};

/// The usage text, with every default read from where it is decided.
fn usage() -> String {
    let d = memdir::config::Defaults::get();
    let h = HostLimits::default();
    format!(
        "\
usage:
  memdir-host exec (--store DIR | --in-memory) [options] ['<tool input json>']
      With an input: runs it and prints the result as one JSON line
      {{\"content\": ..., \"is_error\": ...}}; exits 1 if is_error, else 0.
      Without: reads tool inputs from stdin, one JSON value per line, and prints
      one result line for each (blank lines are skipped); after every line, exits
      1 if any result is_error, else 0.
  memdir-host api (--store DIR | --in-memory) [options] '<request json>'
      Runs one Memory Stores API request {{\"op\", \"id\", \"query\", \"body\",
      \"actor\"}} (see docs/memory-stores.md) and prints the answer as one JSON line
      {{\"status\": ..., \"body\": ...}}; exits 1 if the status is not 2xx, else 0.
  memdir-host export (--store DIR | --in-memory) [options]
      Prints every directory and file as one JSON array of {{\"path\", \"content\"}}
      (directories have no content).
  memdir-host gc (--store DIR | --in-memory) [--keep N] [options]
      Deletes stored objects that the head and its last N commits (default {keep}) do
      not reach and that were already unreachable at the previous gc; prints
      {{\"reachable\", \"deleted\", \"pending\"}}.
  memdir-host expire (--store DIR | --in-memory) --older-than-ms N [options]
      Removes, in one commit, every file not written in the last N milliseconds
      and every directory with nothing recent beneath it; prints {{\"removed\", \"bytes\"}}.
  memdir-host search (--store DIR | --in-memory | --mount ...) [--limit N]
                     [--prefix P] [options] QUERY
      Prints the memories that best match QUERY as one JSON array, best first:
      [{{\"path\", \"score\", \"lines\": [{{\"line\", \"text\"}}]}}] (at most N, default
      {search_limit}, at most {search_max}; only under the directory P, such as
      /memories/notes); exits 1 if the query is refused.
  memdir-host recall (--store DIR | --in-memory | --mount ...) [--limit N]
                     [--max-chars N] [--prefix P] [options] QUERY
      Prints the block of the memories most relevant to QUERY for a system prompt
      (at most --limit, default {recall_limit}, within --max-chars characters,
      default {recall_chars}); nothing when none is found or fits.
  memdir-host reindex (--store DIR | --in-memory) [--rounds N] [options]
      Brings the search index up to the store's head, at most --rounds calls
      (default {rounds}) of {work} memories each (with --embedder, and as many
      rounds of the texts waiting for a vector); prints what search-status prints.
  memdir-host search-status (--store DIR | --in-memory) [options]
      Prints how far the search index is: {{\"indexed\", \"pending\"}}, with
      --embedder also {{\"fingerprint\", \"vectors\": {{\"indexed\", \"pending\"}}}}.
  memdir-host rekey (--store DIR | --in-memory) --encryption-key-file F
                    --new-key-file G [--new-key-id ID] [options]
      Re-encrypts every stored value under the key in G (and a new data key), in
      steps of at most {seal_step} keys, each saved: if it is cut short, run it
      again with the same G (and either key) to finish; prints {{\"moved\"}}.
  memdir-host encrypt (--store DIR | --in-memory) --encryption-key-file F [options]
      Turns a plaintext store into one encrypted with the key in F, in the same
      resumable steps; prints the store's encryption status.
  memdir-host encryption-status (--store DIR | --in-memory) [options]
      Prints {{\"encrypted\", \"keyId\", \"rotatingFrom\"}}, opening the store with
      the key given (or none): a key it refuses is an error.
  memdir-host imports [--component PATH]
      Prints the component's imports, one per line: all it can reach.
  memdir-host exec --mount NAME=DIR[:ro] [--mount ...] [options] ['<tool input json>']
      As exec, over up to {max_mounts} stores as one memory: each store directory is
      mounted at /memories/NAME (read-only with :ro), or one alone at /memories with
      an empty NAME (--mount ''=DIR). view /memories lists every store; a write into
      a read-only store, or a rename between stores, is refused before any store is
      touched.
  memdir-host instructions (--mount NAME=DIR[:ro] ... | --store DIR) [options]
      Prints the text for the system prompt: where each store is mounted, whether it
      is read-only, its description and instructions.

options:
  --store DIR              the memory's store directory (format memdir-store, shared
                           with the memdir CLI; created if missing or empty)
  --in-memory              a store that lives only as long as this process
  --component PATH         the component (default: $MEMDIR_COMPONENT, else the build
                           output next to this executable's target directory)
  --cache DIR              keep the compiled component here (default: $MEMDIR_CACHE,
                           else $XDG_CACHE_HOME/memdir-host, else ~/.cache/memdir-host)
  --no-cache               compile the component on every start
  --bucket NAME            the wasi:keyvalue bucket the component opens (default: default)
  --encryption-key-file F  the store is encrypted at rest with the key in F: 64 hex
                           characters (32 bytes), one trailing newline allowed
  --encryption-key-id ID   that key's id (default: derived from the key)
  --new-key-file F         rekey: the new key, in the same form
  --new-key-id ID          rekey: the new key's id
  --actor NAME             recorded in each commit
  --max-file-bytes N       largest file (default {file})
  --max-total-bytes N      quota for all files together (default {total})
  --read-limit-chars N     longest view before paging (default {read})
  --max-retries N          re-plans after a lost race (default {retries}, at most {cap})
  --secrets POLICY         allow, refuse or redact text that looks like a credential
                           (default {secrets})
  --memory-mib N           the instance's memory cap (default {mib})
  --fuel N                 fuel per call (default {fuel})
  --max-input-bytes N      longest input accepted (default {input})
  --mount NAME=DIR[:ro]    mount the store directory DIR at /memories/NAME (repeatable)
  --mount-description NAME=TEXT   what the store mounted at NAME holds (for the model)
  --mount-instructions NAME=TEXT  how the model should use it
  --limit N                search, recall: most memories answered
  --prefix P               search, recall: only under the directory P (/memories/notes)
  --max-chars N            recall: the block's most characters
  --rounds N               reindex: most calls
  --embedder test[:DIMS]   lend the component memdir's test embedder (hashed character
                           trigrams, no model; for tests and examples only), DIMS
                           default 384: search and recall rank by meaning too
  --mode MODE              search, recall: lexical, semantic or hybrid (default hybrid
                           with --embedder, else lexical)
  --min-score X            search, recall: semantic and hybrid only, drop hits whose
                           cosine is below X (model-specific; no cutoff by default)
",
        keep = d.keep_commits,
        file = d.max_file_bytes,
        total = d.max_total_bytes,
        read = d.read_limit_chars,
        retries = d.max_retries,
        cap = d.max_retries_cap,
        secrets = d.secrets,
        mib = h.memory_bytes >> 20,
        fuel = h.fuel,
        input = h.max_input_bytes,
        max_mounts = memdir::config::MAX_MOUNTS,
        search_limit = memdir::config::SEARCH_DEFAULT_LIMIT,
        search_max = memdir::config::SEARCH_MAX_LIMIT,
        recall_limit = memdir::config::RECALL_DEFAULT_LIMIT,
        recall_chars = memdir::config::RECALL_DEFAULT_MAX_CHARS,
        rounds = memdir::config::SEARCH_REINDEX_ROUNDS,
        work = memdir::config::SEARCH_INDEX_WORK,
        seal_step = memdir::config::SEAL_STEP_KEYS,
    )
}

struct Options {
    store: Option<OsString>,
    in_memory: bool,
    component: Option<OsString>,
    cache: Option<std::path::PathBuf>,
    limits: HostLimits,
    config: ToolConfig,
    input: Option<OsString>,
    keep: u32,
    older_than_ms: Option<u64>,
    /// `--mount`s in the order given: the mount (texts filled in after parsing) and
    /// its store directory.
    mounts: Vec<(Mount, OsString)>,
    /// `--mount-description` and `--mount-instructions`: (name, field, text).
    mount_texts: Vec<(String, &'static str, String)>,
    /// `--embedder`: the embedder lent to the component (none: lexical search only).
    embedder: Option<Arc<dyn memdir_host::HostEmbedder>>,
    /// A search's or recall's options, as the engine reads them
    /// (`limit`, `path_prefix`, `max_chars`); absent ones are its defaults.
    search: serde_json::Map<String, serde_json::Value>,
    rounds: u32,
    /// `--encryption-key-file` and `--encryption-key-id`, read once every option is parsed.
    key_file: Option<OsString>,
    key_id: Option<String>,
    /// `--new-key-file` and `--new-key-id` (rekey's new key).
    new_key_file: Option<OsString>,
    new_key_id: Option<String>,
}

/// The key in the file `flag` names, as `memdir::seal::Key::from_hex` reads it.
/// Neither error shows a byte of the file nor its path: the flag and the
/// engine's words only (the words of the npm package's CLI, `bin/key-file.js`).
fn key_from_file(flag: &str, path: &OsString, key_id: Option<&str>) -> Result<Encryption, Failure> {
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open(path)
        // One byte past the bound, so a longer file is refused as not a key
        // rather than cut to fit.
        .and_then(|f| {
            let cap = memdir::config::ENCRYPTION_KEY_FILE_BYTES.saturating_add(1);
            f.take(u64::try_from(cap).unwrap_or(u64::MAX))
                .read_to_string(&mut text)
        })
        .map_err(|e| match e.kind() {
            io::ErrorKind::InvalidData => {
                Failure::Key(format!("{flag}: {}", memdir::seal::SealError::BadKey))
            }
            _ => Failure::Key(format!("{flag}: the file cannot be read")),
        })?;
    Encryption::from_hex(&text, key_id).map_err(|e| Failure::Key(format!("{flag}: {e}")))
}

/// `NAME=DIR[:ro]`: the name may be empty (the one store at `/memories`).
fn mount_flag(v: Option<OsString>) -> Result<(Mount, OsString), String> {
    let need = || "--mount needs NAME=DIR or NAME=DIR:ro".to_string();
    let v = v.ok_or_else(need)?.into_string().map_err(|_| need())?;
    let (name, dir) = v.split_once('=').ok_or_else(need)?;
    let (dir, access) = match dir.strip_suffix(":ro") {
        Some(d) => (d, Access::ReadOnly),
        None => (dir, Access::ReadWrite),
    };
    if dir.is_empty() {
        return Err(need());
    }
    let mount = Mount {
        name: name.into(),
        access,
        description: String::new(),
        instructions: String::new(),
    };
    Ok((mount, dir.into()))
}

/// `--embedder test` or `test:DIMS`: memdir's test embedder (deterministic, no
/// model; for tests and examples only). A real embedder is lent through the
/// library (`Host::set_embedder` with a `HostEmbedder`) or Python's `embedder=`.
fn embedder_flag(v: Option<OsString>) -> Result<Arc<dyn memdir_host::HostEmbedder>, String> {
    let need = || {
        format!(
            "--embedder needs test or test:DIMS (DIMS from 1 to {})",
            memdir::config::EMBED_MAX_DIMS
        )
    };
    let v = v.and_then(|v| v.into_string().ok()).ok_or_else(need)?;
    let dims = match v.split_once(':') {
        None if v == "test" => 384,
        Some(("test", d)) => d.parse::<usize>().map_err(|_| need())?,
        _ => return Err(need()),
    };
    if dims == 0 || dims > memdir::config::EMBED_MAX_DIMS {
        return Err(need());
    }
    Ok(Arc::new(memdir_host::TestHostEmbedder(
        memdir::search::TestEmbedder { dims },
    )))
}

/// `NAME=TEXT` of `--mount-description` or `--mount-instructions`.
fn mount_text(
    flag: &str,
    field: &'static str,
    v: Option<OsString>,
) -> Result<(String, &'static str, String), String> {
    let v = text(flag, v)?;
    let (name, text) = v
        .split_once('=')
        .ok_or_else(|| format!("{flag} needs NAME=TEXT"))?;
    Ok((name.into(), field, text.into()))
}

fn number<T: std::str::FromStr>(flag: &str, v: Option<OsString>) -> Result<T, String> {
    v.and_then(|v| v.into_string().ok())
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| format!("{flag} needs a number"))
}

fn text(flag: &str, v: Option<OsString>) -> Result<String, String> {
    v.and_then(|v| v.into_string().ok())
        .ok_or_else(|| format!("{flag} needs a value"))
}

fn parse(args: impl Iterator<Item = OsString>) -> Result<Options, String> {
    let mut o = Options {
        store: None,
        in_memory: false,
        component: None,
        cache: memdir_host::cache::default_dir(),
        limits: HostLimits::default(),
        config: ToolConfig::default(),
        input: None,
        keep: memdir::config::DEFAULT_KEEP_COMMITS,
        older_than_ms: None,
        mounts: Vec::new(),
        mount_texts: Vec::new(),
        embedder: None,
        search: serde_json::Map::new(),
        rounds: memdir::config::SEARCH_REINDEX_ROUNDS,
        key_file: None,
        key_id: None,
        new_key_file: None,
        new_key_id: None,
    };
    let mut args = args.peekable();
    while let Some(a) = args.next() {
        match a.to_str() {
            Some("--store") => o.store = Some(args.next().ok_or("--store needs a directory")?),
            Some("--in-memory") => o.in_memory = true,
            Some("--component") => {
                o.component = Some(args.next().ok_or("--component needs a path")?)
            }
            Some("--cache") => {
                o.cache = Some(args.next().ok_or("--cache needs a directory")?.into())
            }
            Some("--no-cache") => o.cache = None,
            Some("--bucket") => o.config.bucket = text("--bucket", args.next())?,
            Some("--actor") => o.config.engine.actor = text("--actor", args.next())?,
            Some("--max-file-bytes") => {
                o.config.engine.limits.max_file_bytes = number("--max-file-bytes", args.next())?
            }
            Some("--max-total-bytes") => {
                o.config.engine.limits.max_total_bytes = number("--max-total-bytes", args.next())?
            }
            Some("--read-limit-chars") => {
                o.config.engine.limits.read_limit_chars = number("--read-limit-chars", args.next())?
            }
            Some("--max-retries") => {
                let n: u32 = number("--max-retries", args.next())?;
                if n > memdir::config::MAX_RETRIES_CAP {
                    return Err(format!(
                        "--max-retries must be at most {}",
                        memdir::config::MAX_RETRIES_CAP
                    ));
                }
                o.config.engine.max_retries = n;
            }
            Some("--secrets") => {
                let name = text("--secrets", args.next())?;
                o.config.engine.secrets =
                    memdir::SecretPolicy::from_name(&name).ok_or_else(|| {
                        let names: Vec<&str> =
                            memdir::SecretPolicy::ALL.iter().map(|p| p.name()).collect();
                        format!("--secrets must be one of: {}", names.join(", "))
                    })?;
            }
            Some("--older-than-ms") => {
                o.older_than_ms = Some(number("--older-than-ms", args.next())?)
            }
            Some("--memory-mib") => {
                let mib: usize = number("--memory-mib", args.next())?;
                o.limits.memory_bytes = mib.saturating_mul(1 << 20);
            }
            Some("--keep") => o.keep = number("--keep", args.next())?,
            Some("--fuel") => o.limits.fuel = number("--fuel", args.next())?,
            Some("--max-input-bytes") => {
                o.limits.max_input_bytes = number("--max-input-bytes", args.next())?
            }
            Some("--limit") => {
                let n: u64 = number("--limit", args.next())?;
                o.search.insert("limit".into(), n.into());
            }
            Some("--max-chars") => {
                let n: u64 = number("--max-chars", args.next())?;
                o.search.insert("max_chars".into(), n.into());
            }
            Some("--prefix") => {
                let p = text("--prefix", args.next())?;
                o.search.insert("path_prefix".into(), p.into());
            }
            Some("--rounds") => o.rounds = number("--rounds", args.next())?,
            Some("--encryption-key-file") => {
                o.key_file = Some(args.next().ok_or("--encryption-key-file needs a file")?)
            }
            Some("--encryption-key-id") => {
                o.key_id = Some(text("--encryption-key-id", args.next())?)
            }
            Some("--new-key-file") => {
                o.new_key_file = Some(args.next().ok_or("--new-key-file needs a file")?)
            }
            Some("--new-key-id") => o.new_key_id = Some(text("--new-key-id", args.next())?),
            Some("--embedder") => o.embedder = Some(embedder_flag(args.next())?),
            Some("--mode") => {
                let m = text("--mode", args.next())?;
                o.search.insert("mode".into(), m.into());
            }
            Some("--min-score") => {
                let n: f64 = number("--min-score", args.next())?;
                o.search.insert("min_score".into(), n.into());
            }
            Some("--mount") => o.mounts.push(mount_flag(args.next())?),
            Some("--mount-description") => o.mount_texts.push(mount_text(
                "--mount-description",
                "description",
                args.next(),
            )?),
            Some("--mount-instructions") => o.mount_texts.push(mount_text(
                "--mount-instructions",
                "instructions",
                args.next(),
            )?),
            Some("--") => {
                o.input = args.next();
                break;
            }
            Some(s) if s.starts_with("--") => return Err(format!("unknown option {s}")),
            _ if o.input.is_none() => o.input = Some(a),
            _ => return Err("only one tool input may be given; pipe several on stdin".into()),
        }
    }
    if args.next().is_some() {
        return Err("only one tool input may be given; pipe several on stdin".into());
    }
    for (name, field, text) in &o.mount_texts {
        let Some((m, _)) = o.mounts.iter_mut().find(|(m, _)| m.name == *name) else {
            return Err(format!("no --mount {name}=DIR for the {field} given"));
        };
        match *field {
            "description" => m.description = text.clone(),
            _ => m.instructions = text.clone(),
        }
    }
    Ok(o)
}

fn runtime(
    component: Option<OsString>,
    cache: Option<std::path::PathBuf>,
) -> Result<Runtime, String> {
    let path = match component {
        Some(p) => p.into(),
        None => memdir_host::locate_component().map_err(|e| e.to_string())?,
    };
    let bytes = std::fs::read(&path).map_err(|_| "cannot read the component file".to_string())?;
    match cache {
        Some(dir) => Runtime::from_bytes_cached(&bytes, &dir),
        None => Runtime::from_bytes(&bytes),
    }
    .map_err(|e| format!("cannot load the component: {e}"))
}

fn result_line(r: &memdir::ToolResult) -> String {
    serde_json::json!({"content": r.content, "is_error": r.is_error}).to_string()
}

/// The bytes of a command-line argument, whatever their encoding.
fn arg_bytes(a: &OsString) -> Vec<u8> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        a.as_bytes().to_vec()
    }
    #[cfg(not(unix))]
    {
        a.to_str()
            .map(|s| s.as_bytes().to_vec())
            .unwrap_or_else(|| vec![0xff])
    }
}

/// One line of stdin: its bytes (without the newline), or `TooLong` if it is
/// longer than `max` (the rest is read and dropped, never held).
enum Line {
    Text(Vec<u8>),
    TooLong,
}

fn read_line(r: &mut impl BufRead, max: usize) -> io::Result<Option<Line>> {
    let mut buf = Vec::new();
    let mut len = 0usize;
    let mut any = false;
    loop {
        let chunk = r.fill_buf()?;
        if chunk.is_empty() {
            break;
        }
        any = true;
        // Up to the first newline; shorter than the chunk when there is one.
        let part = chunk.split(|&b| b == b'\n').next().unwrap_or(chunk);
        let done = part.len() < chunk.len();
        len += part.len();
        if len <= max.saturating_add(1) {
            buf.extend_from_slice(part);
        }
        let used = part.len() + usize::from(done);
        r.consume(used);
        if done {
            break;
        }
    }
    if !any {
        return Ok(None);
    }
    if len == buf.len() && buf.last() == Some(&b'\r') {
        buf.pop();
        len -= 1;
    }
    Ok(Some(if len > max {
        Line::TooLong
    } else {
        Line::Text(buf)
    }))
}

/// Why a command could not run (exit status 2): a usage error is followed by the
/// usage; a store directory that cannot be opened is not.
enum Failure {
    Usage(String),
    Store(String),
    /// A set of mounts the engine refuses: its text, without the usage.
    Mounts(MountError),
    /// A key file that cannot be read or holds no key: the flag and why.
    Key(String),
}

impl From<String> for Failure {
    fn from(m: String) -> Self {
        Failure::Usage(m)
    }
}

/// The host over the store the options name, configured as they say.
fn host(o: &mut Options) -> Result<Host, Failure> {
    if !o.mounts.is_empty() {
        return Err(Failure::Usage(
            "--mount works with exec, search, recall and instructions only; for one store use --store DIR".into(),
        ));
    }
    let backend: Arc<dyn Backend> = match (&o.store, o.in_memory) {
        (Some(dir), false) => {
            // The directory as the user named it, and what is wrong with it.
            let open = DirBackend::open(dir);
            Arc::new(open.map_err(|e| Failure::Store(format!("{}: {e}", dir.to_string_lossy())))?)
        }
        (None, true) => Arc::new(MemoryBackend::new()),
        _ => {
            return Err(Failure::Usage(
                "needs exactly one of --store DIR and --in-memory".into(),
            ));
        }
    };
    encryption(o)?;
    let mut host = runtime(o.component.take(), o.cache.take())?.host(backend, o.limits);
    host.configure(o.config.clone());
    host.set_embedder(o.embedder.clone());
    Ok(host)
}

/// Reads `--encryption-key-file` (with `--encryption-key-id`) into the settings.
fn encryption(o: &mut Options) -> Result<(), Failure> {
    if let Some(path) = o.key_file.take() {
        let key = key_from_file("--encryption-key-file", &path, o.key_id.as_deref())?;
        o.config.encryption = Some(key);
    } else if o.key_id.is_some() {
        return Err(Failure::Usage(
            "--encryption-key-id needs --encryption-key-file".into(),
        ));
    }
    Ok(())
}

/// `rekey`: the store opened with its key, re-encrypted under the new one.
fn rekey(mut o: Options) -> Result<ExitCode, Failure> {
    if o.key_file.is_none() {
        return Err(Failure::Usage(
            "rekey needs --encryption-key-file F (the store's key)".into(),
        ));
    }
    let path = o
        .new_key_file
        .take()
        .ok_or_else(|| Failure::Usage("rekey needs --new-key-file F".into()))?;
    let new = key_from_file("--new-key-file", &path, o.new_key_id.as_deref())?;
    let moved = host(&mut o)?.rekey(&new);
    Ok(report(moved.map(|n| serde_json::json!({"moved": n}))))
}

/// `encrypt`: the plaintext store encrypted with the key given.
fn encrypt(mut o: Options) -> Result<ExitCode, Failure> {
    encryption(&mut o)?;
    let key = o
        .config
        .encryption
        .take()
        .ok_or_else(|| Failure::Usage("encrypt needs --encryption-key-file F".into()))?;
    let mut host = host(&mut o)?;
    let status = host.encrypt(&key).and_then(|()| host.seal_status());
    Ok(print_status(status))
}

/// Prints the status JSON text the component answered, or the error.
fn print_status(status: Result<String, CallError>) -> ExitCode {
    match status {
        Ok(text) => {
            println!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => report::<()>(Err(e)),
    }
}

/// The memory the options name: one store (`--store`, `--in-memory`), or the
/// stores `--mount` names as one memory, each checked before any is opened.
fn memory(o: &mut Options) -> Result<Memory, Failure> {
    if o.mounts.is_empty() {
        return Ok(Memory::One(Box::new(host(o)?)));
    }
    if o.store.is_some() || o.in_memory {
        return Err(Failure::Usage(
            "--mount cannot be combined with --store or --in-memory".into(),
        ));
    }
    let specs: Vec<Mount> = o.mounts.iter().map(|(m, _)| m.clone()).collect();
    memdir::mounts::check(&specs).map_err(Failure::Mounts)?;
    let mut stores = Vec::new();
    for (mount, dir) in &o.mounts {
        let open = DirBackend::open(dir);
        let backend =
            open.map_err(|e| Failure::Store(format!("{}: {e}", dir.to_string_lossy())))?;
        stores.push((mount.clone(), Arc::new(backend) as Arc<dyn Backend>));
    }
    encryption(o)?;
    let runtime = runtime(o.component.take(), o.cache.take())?;
    let memory =
        MountedHost::new(&runtime, stores, &o.config, o.limits).map_err(Failure::Mounts)?;
    memory.set_embedder(o.embedder.clone());
    Ok(Memory::Mounted(memory))
}

/// What `exec` runs tool inputs on.
enum Memory {
    One(Box<Host>),
    Mounted(MountedHost),
}

impl Memory {
    fn execute_bytes(&mut self, input: &[u8]) -> memdir::ToolResult {
        match self {
            Memory::One(h) => h.execute_bytes(input),
            Memory::Mounted(m) => m.execute_bytes(input),
        }
    }

    fn too_large(&self) -> CallError {
        match self {
            Memory::One(h) => h.too_large(),
            Memory::Mounted(m) => m.too_large(),
        }
    }

    fn search_json(&mut self, request: &str) -> Result<String, CallError> {
        match self {
            Memory::One(h) => h.search_json(request),
            Memory::Mounted(m) => m.search_json(request),
        }
    }

    fn recall_json(&mut self, request: &str) -> Result<String, CallError> {
        match self {
            Memory::One(h) => h.recall_json(request),
            Memory::Mounted(m) => m.recall_json(request),
        }
    }
}

/// `search` and `recall`: the query (the one argument) and the options as the
/// engine reads them, as JSON text.
fn search_request(o: &mut Options, what: &str) -> Result<String, Failure> {
    let query = o
        .input
        .take()
        .ok_or_else(|| Failure::Usage(format!("{what} needs a query")))?
        .into_string()
        .map_err(|_| Failure::Usage("the query is not UTF-8".into()))?;
    let mut request = std::mem::take(&mut o.search);
    request.insert("query".into(), query.into());
    Ok(serde_json::Value::Object(request).to_string())
}

/// Prints a search's answer (JSON text) or a recall's block as it is, or the
/// error as a result line (exit 1; 2 when the storage or the sandbox failed).
fn print_answer(answer: Result<String, CallError>) -> ExitCode {
    match answer {
        Ok(text) if text.is_empty() => ExitCode::SUCCESS,
        Ok(text) => {
            println!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => report::<()>(Err(e)),
    }
}

fn search(mut o: Options) -> Result<ExitCode, Failure> {
    let request = search_request(&mut o, "search")?;
    Ok(print_answer(memory(&mut o)?.search_json(&request)))
}

fn recall(mut o: Options) -> Result<ExitCode, Failure> {
    let request = search_request(&mut o, "recall")?;
    Ok(print_answer(memory(&mut o)?.recall_json(&request)))
}

/// An index status as the CLI prints it.
/// As `memdir reindex` prints it: with an embedder also `fingerprint` and
/// `vectors: {indexed, pending}`.
fn status_json(s: memdir_host::IndexStatus) -> serde_json::Value {
    let mut out = serde_json::json!({"indexed": s.indexed, "pending": s.pending});
    if let (Some(v), Some(map)) = (s.vectors, out.as_object_mut()) {
        map.insert("fingerprint".into(), v.fingerprint.into());
        map.insert(
            "vectors".into(),
            serde_json::json!({"indexed": v.indexed, "pending": v.pending}),
        );
    }
    out
}

/// The system-prompt text for the mounts (or the one store) the options name. No
/// store is opened and no component loaded: the text is the mounts' alone.
fn instructions(o: Options) -> Result<ExitCode, Failure> {
    let specs: Vec<Mount> = if o.mounts.is_empty() {
        if o.store.is_none() && !o.in_memory {
            return Err(Failure::Usage(
                "instructions needs --mount NAME=DIR (or --store DIR)".into(),
            ));
        }
        vec![Mount {
            name: String::new(),
            access: Access::ReadWrite,
            description: String::new(),
            instructions: String::new(),
        }]
    } else {
        o.mounts.into_iter().map(|(m, _)| m).collect()
    };
    memdir::mounts::check(&specs).map_err(Failure::Mounts)?;
    print!("{}", memdir::mounts::instructions(&specs));
    Ok(ExitCode::SUCCESS)
}

fn exec(mut o: Options) -> Result<ExitCode, Failure> {
    let mut host = memory(&mut o)?;
    let stdout = io::stdout();
    if let Some(input) = o.input {
        let r = host.execute_bytes(&arg_bytes(&input));
        writeln!(stdout.lock(), "{}", result_line(&r)).map_err(|e| e.to_string())?;
        return Ok(if r.is_error {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        });
    }
    let any_error = serve(
        &mut host,
        &mut io::stdin().lock(),
        &mut stdout.lock(),
        o.limits.max_input_bytes,
    )
    .map_err(|_| "cannot read standard input or write standard output".to_string())?;
    Ok(if any_error {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// One API request from the command line: its answer on stdout.
fn api(mut o: Options) -> Result<ExitCode, Failure> {
    let input = o
        .input
        .take()
        .ok_or_else(|| Failure::Usage("api needs a request (JSON)".into()))?;
    let request = input
        .into_string()
        .map_err(|_| Failure::Usage("the request is not UTF-8".into()))?;
    let answer = host(&mut o)?.api(&request);
    println!("{answer}");
    let status = serde_json::from_str::<serde_json::Value>(&answer)
        .ok()
        .and_then(|v| v.get("status")?.as_u64());
    Ok(match status {
        Some(200..=299) => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    })
}

/// Prints a tree-level answer as JSON, or its error as a result line: exit 2 when
/// the storage or the sandbox failed (as for any I/O error), 1 for an answer.
fn report<T: serde::Serialize>(answer: Result<T, CallError>) -> ExitCode {
    match answer {
        Ok(v) => {
            println!("{}", serde_json::to_string(&v).unwrap_or_default());
            ExitCode::SUCCESS
        }
        Err(e) => {
            let r = memdir::ToolResult {
                content: format!("Error: {e}"),
                is_error: true,
            };
            println!("{}", result_line(&r));
            if e.is_io() {
                ExitCode::from(2)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}

fn serve(
    host: &mut Memory,
    input: &mut impl BufRead,
    out: &mut impl Write,
    max: usize,
) -> io::Result<bool> {
    let mut any_error = false;
    while let Some(line) = read_line(input, max)? {
        let r = match line {
            Line::TooLong => memdir::ToolResult {
                content: format!("Error: {}", host.too_large()),
                is_error: true,
            },
            Line::Text(t) if t.iter().all(u8::is_ascii_whitespace) => continue,
            Line::Text(t) => host.execute_bytes(&t),
        };
        any_error |= r.is_error;
        writeln!(out, "{}", result_line(&r))?;
        out.flush()?;
    }
    Ok(any_error)
}

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let cmd = args.next();
    let outcome = match cmd.as_ref().and_then(|c| c.to_str()) {
        Some("exec") => parse(args).map_err(Failure::from).and_then(exec),
        Some("api") => parse(args).map_err(Failure::from).and_then(api),
        Some("export") => parse(args)
            .map_err(Failure::from)
            .and_then(|mut o| Ok(report(host(&mut o)?.entries()))),
        Some("gc") => parse(args).map_err(Failure::from).and_then(|mut o| {
            let keep = o.keep;
            Ok(report(host(&mut o)?.gc(keep)))
        }),
        Some("expire") => parse(args).map_err(Failure::from).and_then(|mut o| {
            let ms = o
                .older_than_ms
                .ok_or_else(|| Failure::Usage("expire needs --older-than-ms N".into()))?;
            Ok(report(host(&mut o)?.expire(ms)))
        }),
        Some("search") => parse(args).map_err(Failure::from).and_then(search),
        Some("recall") => parse(args).map_err(Failure::from).and_then(recall),
        Some("reindex") => parse(args).map_err(Failure::from).and_then(|mut o| {
            let rounds = o.rounds;
            Ok(report(host(&mut o)?.reindex(rounds).map(status_json)))
        }),
        Some("rekey") => parse(args).map_err(Failure::from).and_then(rekey),
        Some("encrypt") => parse(args).map_err(Failure::from).and_then(encrypt),
        Some("encryption-status") => parse(args)
            .map_err(Failure::from)
            .and_then(|mut o| Ok(print_status(host(&mut o)?.seal_status()))),
        Some("search-status") => parse(args)
            .map_err(Failure::from)
            .and_then(|mut o| Ok(report(host(&mut o)?.search_status().map(status_json)))),
        Some("instructions") => parse(args).map_err(Failure::from).and_then(instructions),
        Some("imports") => parse(args).map_err(Failure::from).and_then(|o| {
            for name in runtime(o.component, o.cache)?.imports() {
                println!("{name}");
            }
            Ok(ExitCode::SUCCESS)
        }),
        Some("help" | "--help" | "-h") => {
            print!("{}", usage());
            Ok(ExitCode::SUCCESS)
        }
        _ => Err(Failure::Usage("expected a command".into())),
    };
    match outcome {
        Ok(code) => code,
        Err(Failure::Usage(msg)) => {
            eprintln!("memdir-host: {msg}\n\n{}", usage());
            ExitCode::from(2)
        }
        Err(Failure::Store(msg)) => {
            eprintln!("memdir-host: {msg}");
            ExitCode::from(2)
        }
        Err(Failure::Mounts(e)) => {
            eprintln!("memdir-host: {e}");
            ExitCode::from(2)
        }
        Err(Failure::Key(msg)) => {
            eprintln!("memdir-host: {msg}");
            ExitCode::from(2)
        }
    }
}
