//! Every default and limit of memdir, in one place. The npm package, the CLI, the
//! wasmtime host and the component read them from here (the wasm exports
//! [`Defaults`]); nothing restates a number.

use alloc::string::String;

use crate::secrets::SecretPolicy;

/// Largest tool input the engine accepts, in UTF-8 bytes of its JSON text. A
/// legitimate input is bounded by the per-file limit (102,400 bytes, at most six
/// times that once JSON-escaped); a runtime refuses anything larger before copying
/// it into the engine, so hundreds of MiB never reach wasm memory.
pub const MAX_INPUT_BYTES: usize = 16 * 1024 * 1024;

/// How many past commits `gc` keeps reachable unless told otherwise.
pub const DEFAULT_KEEP_COMMITS: u32 = 100;

/// How long versions are kept by default (`retain`, `memdir serve --retention`):
/// 30 days, a month of an agent's changes to audit, compare and roll back, while a
/// store's history stays a small multiple of its live content. The hosted API keeps
/// versions "for at least the retention period"; so does memdir.
pub const DEFAULT_RETENTION_MS: u64 = 30 * 24 * 60 * 60 * 1000;

/// How often `memdir serve` gives each store its upkeep (a retention pass, then
/// gc): hourly, so what retention drops is gone within hours, not days. gc deletes
/// only what was already unreachable a whole interval before (`gc_after`), so
/// instances sharing a store, each on its own timer, never delete a write in flight.
pub const UPKEEP_INTERVAL_MS: u64 = 60 * 60 * 1000;

/// The commits a server's upkeep keeps besides the head: none. A server's history
/// is its versions, which retention keeps; an older commit's tree would only keep
/// alive bytes (a deleted memory's path and content) that the versions let go.
pub const UPKEEP_KEEP_COMMITS: u32 = 0;

/// Times a command re-plans after losing a compare-and-swap race, by default.
pub const DEFAULT_MAX_RETRIES: u32 = 32;

/// Most stores one memory mounts (the hosted sessions' limit).
pub const MAX_MOUNTS: usize = 8;
/// Longest description and instructions of a mount, in characters (a store's
/// description, and a session resource's prompt, in the hosted API).
pub const MAX_MOUNT_DESCRIPTION_CHARS: usize = 1024;
/// Longest instructions a mount gives the model, in characters (the hosted API's
/// limit on a session resource's prompt).
pub const MAX_MOUNT_INSTRUCTIONS_CHARS: usize = 4096;

/// The largest `max_retries` a caller may configure: each retry may wait on the
/// runtime's backoff, so an unbounded count would be an unbounded wait.
pub const MAX_RETRIES_CAP: u32 = 10_000;

/// Size and read limits, configurable per store. Defaults are the spec's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest file content in UTF-8 bytes (default 102,400: the hosted store's limit).
    pub max_file_bytes: usize,
    /// Largest total of all file contents in bytes (default 100 MiB).
    pub max_total_bytes: u64,
    /// Longest `view` output in characters before it is cut with a paging hint.
    pub read_limit_chars: usize,
    /// Most memories the API creates in one store (default 2,000, the hosted cap).
    pub max_memories: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_file_bytes: 102_400,
            max_total_bytes: 100 * 1024 * 1024,
            read_limit_chars: 100_000,
            max_memories: 2_000,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
/// How one engine runs: its limits, who it records as acting, how it retries, what
/// it does with secrets, and where it is mounted.
pub struct Config {
    /// The store's size and read limits.
    pub limits: Limits,
    /// Recorded in each commit as who acted (an agent, a user, a tab).
    pub actor: String,
    /// Times a command re-reads and retries after losing a compare-and-swap race.
    pub max_retries: u32,
    /// What to do with text the model writes that looks like a credential.
    pub secrets: SecretPolicy,
    /// Where the store is mounted: `""` at `/memories` itself, else the name of
    /// its directory there (`team`: `/memories/team`), beside other stores.
    pub mount: String,
    /// The store is mounted read-only: the engine refuses every write to it (a
    /// commit, a redaction, the API's writes) and gc and expire leave it alone,
    /// whichever face asked. Set from the mount's access by each runtime.
    pub read_only: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            limits: Limits::default(),
            actor: String::new(),
            max_retries: DEFAULT_MAX_RETRIES,
            secrets: SecretPolicy::Allow,
            mount: String::new(),
            read_only: false,
        }
    }
}

/// Every default a face shows its users, as one record (the npm package reads it
/// through the wasm, the component through its `defaults` export).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Defaults {
    /// Largest file content in UTF-8 bytes ([`Limits::max_file_bytes`]).
    pub max_file_bytes: usize,
    /// Largest total of all file contents ([`Limits::max_total_bytes`]).
    pub max_total_bytes: u64,
    /// Longest `view` output in characters ([`Limits::read_limit_chars`]).
    pub read_limit_chars: usize,
    /// Times a command retries after losing a compare-and-swap race, by default.
    pub max_retries: u32,
    /// The largest `max_retries` a caller may configure ([`MAX_RETRIES_CAP`]).
    pub max_retries_cap: u32,
    /// The commits gc keeps besides the head unless told otherwise ([`DEFAULT_KEEP_COMMITS`]).
    pub keep_commits: u32,
    /// Largest tool input, in UTF-8 bytes of its JSON text ([`MAX_INPUT_BYTES`]).
    pub max_input_bytes: usize,
    /// The secret policy a store gets unless told otherwise, by name.
    pub secrets: &'static str,
    /// Every secret policy's name, so a face can check an option before opening.
    pub secret_policies: [&'static str; 3],
    /// Most memories the Memory Stores API creates in one store ([`Limits::max_memories`]).
    pub max_memories: u64,
    /// Largest API request body in bytes ([`MAX_API_BODY_BYTES`]).
    pub max_api_body_bytes: usize,
    /// How long a server lets one API request run before it answers 504 ([`API_DEADLINE_MS`]).
    pub api_deadline_ms: u64,
    /// How long versions are kept by default ([`DEFAULT_RETENTION_MS`]).
    pub retention_ms: u64,
    /// How often a server gives each store its retention pass and gc ([`UPKEEP_INTERVAL_MS`]).
    pub upkeep_interval_ms: u64,
    /// The commits a server's gc keeps besides the head ([`UPKEEP_KEEP_COMMITS`]).
    pub upkeep_keep_commits: u32,
    /// Most stores one workspace of a server may create ([`MAX_STORES`]).
    pub max_stores: u64,
    /// Most stores a server's catalog keeps open ([`MAX_OPEN_STORES`]).
    pub max_open_stores: u64,
    /// How long a store let go stays open before it is closed ([`STORE_CLOSE_DELAY_MS`]).
    pub store_close_delay_ms: u64,
    /// How long a write waits for the one before it before it runs anyway ([`TURN_WAIT_MS`]).
    pub turn_wait_ms: u64,
    /// How long a server told to stop lets requests under way finish ([`CLOSE_GRACE_MS`]).
    pub close_grace_ms: u64,
    /// The most bytes of a refused request body a server reads and throws away ([`DRAIN_MAX_BYTES`]).
    pub drain_max_bytes: u64,
    /// How long a server reads a refused request body before it answers anyway ([`DRAIN_WAIT_MS`]).
    pub drain_wait_ms: u64,
    /// Largest value a store may hand back ([`MAX_VALUE_BYTES`]): a store adapted in JS
    /// refuses a larger one as a failure before reading it.
    pub max_value_bytes: usize,
    /// Most rounds `memory.reindex()` runs ([`SEARCH_REINDEX_ROUNDS`]).
    pub reindex_rounds: u32,
    /// Results a search answers unless told otherwise ([`SEARCH_DEFAULT_LIMIT`]).
    pub search_default_limit: usize,
    /// Most bytes read of an encryption key file ([`ENCRYPTION_KEY_FILE_BYTES`]).
    pub encryption_key_file_bytes: usize,
    /// Most dimensions an embedder may declare ([`EMBED_MAX_DIMS`]).
    pub embed_max_dims: usize,
    /// Texts per embedder call ([`EMBED_BATCH`]).
    pub embed_batch: usize,
}

impl Defaults {
    /// The defaults of this build.
    pub fn get() -> Defaults {
        let config = Config::default();
        Defaults {
            max_file_bytes: config.limits.max_file_bytes,
            max_total_bytes: config.limits.max_total_bytes,
            read_limit_chars: config.limits.read_limit_chars,
            max_retries: config.max_retries,
            max_retries_cap: MAX_RETRIES_CAP,
            keep_commits: DEFAULT_KEEP_COMMITS,
            max_input_bytes: MAX_INPUT_BYTES,
            secrets: config.secrets.name(),
            secret_policies: SecretPolicy::ALL.map(SecretPolicy::name),
            max_memories: config.limits.max_memories,
            max_api_body_bytes: MAX_API_BODY_BYTES,
            api_deadline_ms: API_DEADLINE_MS,
            retention_ms: DEFAULT_RETENTION_MS,
            upkeep_interval_ms: UPKEEP_INTERVAL_MS,
            upkeep_keep_commits: UPKEEP_KEEP_COMMITS,
            max_stores: MAX_STORES,
            max_open_stores: MAX_OPEN_STORES,
            store_close_delay_ms: STORE_CLOSE_DELAY_MS,
            turn_wait_ms: TURN_WAIT_MS,
            close_grace_ms: CLOSE_GRACE_MS,
            drain_max_bytes: DRAIN_MAX_BYTES,
            drain_wait_ms: DRAIN_WAIT_MS,
            max_value_bytes: MAX_VALUE_BYTES,
            reindex_rounds: SEARCH_REINDEX_ROUNDS,
            search_default_limit: SEARCH_DEFAULT_LIMIT,
            encryption_key_file_bytes: ENCRYPTION_KEY_FILE_BYTES,
            embed_max_dims: EMBED_MAX_DIMS,
            embed_batch: EMBED_BATCH,
        }
    }
}

// A server's catalog of stores (the JS catalogs read these through defaults()).

/// Most stores one workspace may create.
pub const MAX_STORES: u64 = 1_000;
/// Most stores a catalog keeps open (the most recently used): each open one holds
/// an engine and its caches, so a server with many stores does not hold them all.
pub const MAX_OPEN_STORES: u64 = 64;
/// How long a store let go stays open before it is closed: twice the API's
/// deadline, so no request still running on it is cut short.
pub const STORE_CLOSE_DELAY_MS: u64 = 2 * API_DEADLINE_MS;

// What a path may be.

/// Longest path, in UTF-8 bytes, `/memories` included.
pub const MAX_PATH_BYTES: usize = 1024;
/// Longest name (one segment of a path), in UTF-8 bytes: what file systems allow.
pub const MAX_NAME_BYTES: usize = 255;
/// Deepest `%25` nesting a name's percent-decoding unwraps; deeper nesting is
/// refused outright.
pub const MAX_DECODE_DEPTH: usize = 8;

// The store contract.

/// Largest value a store may hand back. memdir writes far smaller ones (a blob is
/// at most the per-file limit, a node at most 128 entries); an adapter refuses a
/// larger value as a failure before copying it (into wasm memory, where an
/// allocation failure would abort the instance).
pub const MAX_VALUE_BYTES: usize = 64 << 20;
/// Most pages [`list_all`](crate::list_all), and the wasm component's
/// `list-keys` loop, read before they call the listing broken: a store of a
/// million pages is beyond anything memdir writes, so more means a cursor that never
/// ends.
pub const MAX_LIST_PAGES: usize = 1_000_000;

/// How many stored values a re-keying or `encrypt` moves per listing of the store
/// (src/seal/rotate.rs): each listing is one bounded step, and a cut between steps
/// loses nothing.
pub const SEAL_STEP_KEYS: usize = 256;

/// How many changing names (`head`, `index/head`, …) an encrypted store remembers
/// the stored form and last value of (src/seal/remember.rs); past it, it starts over.
pub const SEAL_REMEMBER_NAMES: usize = 64;

/// The largest sealed value an encrypted store remembers beside its name (a head
/// is a few hundred bytes; a bigger value is sealed again when needed).
pub const SEAL_REMEMBER_VALUE_BYTES: usize = 4096;

// The stored tree.

/// Deepest nesting of directories a walk follows: a path of at most 1,024 bytes
/// holds at most 507 names beneath `/memories`, so deeper is damage.
pub const MAX_NESTING: usize = 512;
/// Largest size a stored entry may claim: what a JavaScript number holds exactly,
/// so a tampered size can neither wrap a sum nor lose digits on its way to JS.
pub const MAX_STORED_SIZE: u64 = (1 << 53) - 1;

// The wasm instance's heap.

/// After a call grows the wasm memory, the npm package's engine reserves this
/// fraction of the memory again at once (`memory / HEAP_HEADROOM_DIVISOR`, within
/// the two bounds below): the allocator otherwise grows it a 64 KiB page at a time,
/// and on V8 each grow costs more than the write that asked for it. Unused headroom
/// is address space, not resident memory.
pub const HEAP_HEADROOM_DIVISOR: usize = 4;
/// The least headroom reserved after a grow.
pub const HEAP_HEADROOM_MIN_BYTES: usize = 1 << 20;
/// The most headroom reserved after a grow.
pub const HEAP_HEADROOM_MAX_BYTES: usize = 32 << 20;

// The object cache.

/// Budgets, in bytes of the stored form (a decoded node takes a few times its
/// encoding; a commit entry is two hashes). A cache over budget starts again empty.
/// This one is the tree nodes'.
pub const NODE_CACHE_MAX_BYTES: usize = 4 << 20;
/// The file contents' cache budget.
pub const BLOB_CACHE_MAX_BYTES: usize = 16 << 20;
pub(crate) const COMMIT_CACHE_MAX: usize = 8192;
/// The version log nodes' cache budget.
pub const LOG_CACHE_MAX_BYTES: usize = 4 << 20;
/// The version records' cache budget.
pub const RECORD_CACHE_MAX_BYTES: usize = 4 << 20;

// Versions.

/// Longest actor id memdir records.
pub const MAX_ACTOR_ID_CHARS: usize = 256;

// Retention.

/// Most slots one retention pass reads: a pass is bounded by this, never by a
/// count the store claims.
pub const MAX_RETAIN_SCAN: u64 = 10_000;

// Views.

/// The most lines a file view shows (the vendor's limit, named in its refusal).
pub(crate) const MAX_VIEW_LINES: usize = 999_999;

// The Memory Stores API: requests.

/// Largest request body, in bytes: content of the per-file limit, JSON-escaped, fits.
pub const MAX_API_BODY_BYTES: usize = 1 << 20;
/// How long a server lets one API request run before it answers 504 and goes on
/// with the others (the work is bounded by what a store holds; this bounds a slow
/// or stalled store).
pub const API_DEADLINE_MS: u64 = 30_000;
/// Times an API read that met a missing object is taken again at a newer head:
/// another writer erased what it read (a redaction, gc) after it read its head.
/// Each retry needs the head to have moved, so a store damaged at its head answers
/// so at once; a store moving on faster than a read can finish gives up after this.
pub const API_READ_RETRIES: u32 = 3;

// A server's connections (`memdir serve`).

/// How long a server told to stop (SIGTERM) lets the requests under way finish (a
/// write its answer) before it cuts their connections.
pub const CLOSE_GRACE_MS: u64 = 10_000;
/// A body the server refused before reading it whole (413, 403...) is read on and
/// thrown away before the answer goes, so that a client still sending gets the
/// answer rather than a reset connection: at most this many bytes (a body declaring
/// more is answered at once and its connection cut), for at most this long.
pub const DRAIN_MAX_BYTES: u64 = 64 << 20;
/// How long a refused body is read on, at most (see [`DRAIN_MAX_BYTES`]).
pub const DRAIN_WAIT_MS: u64 = 10_000;

// Error texts.

/// Most characters of a caller's text an error quotes (an id, an operation, a query
/// value, a name); longer text is cut there and its length given. Without it, an id
/// of a megabyte came back as a megabyte-long message that no one could read.
pub const MAX_ECHO_CHARS: usize = 100;

// The Memory Stores API: pages.

/// Items per page when the request gives no `limit`, and the most it may ask for.
pub const DEFAULT_LIMIT: u64 = 20;
/// The most items a page may ask for (see [`DEFAULT_LIMIT`]).
pub const MAX_LIMIT: u64 = 100;
/// The most items per page when each carries its content (`view=full`).
pub const MAX_LIMIT_FULL: u64 = 20;

// The Memory Stores API: search.

/// Longest query, in characters.
pub const MAX_QUERY_CHARS: usize = 256;
/// Most matching lines shown per memory, and the longest line shown (characters).
pub const MAX_LINES_PER_MEMORY: usize = 10;
/// Longest matching line shown, in characters; longer ones are cut.
pub const MAX_LINE_CHARS: usize = 300;
/// Most content bytes one page reads before it ends early with a `next_page`.
pub const MAX_SEARCH_BYTES: u64 = 16 << 20;

// Search (`search/`): the ranked index every face searches through.

/// BM25's term-frequency saturation: Lucene's and SQLite FTS5's default.
pub const SEARCH_BM25_K1: f64 = 1.2;
/// BM25's length normalisation: Lucene's and SQLite FTS5's default.
pub const SEARCH_BM25_B: f64 = 0.75;
/// How many times a term of a memory's path counts against one of its text (BM25F
/// with two fields, the path weighted by this): a path is a short title the writer
/// chose, so "formatting" in `/preferences/formatting.md` outweighs a passing
/// mention in a long text.
pub const SEARCH_PATH_WEIGHT: u32 = 2;
/// The weight of a match on part of an indexed term (a query term that an indexed
/// term begins or ends with, such as "richtlinie" in "sicherheitsrichtlinie", or one
/// Chinese character inside an indexed pair) against a match on the whole term.
pub const SEARCH_PART_WEIGHT: f64 = 0.5;
/// Shortest query term, in characters, matched as part of longer indexed terms
/// (a single Han, Kana or Hangul character is always): shorter ones ("is", "ion")
/// would match too much to mean anything.
pub const SEARCH_PART_MIN_CHARS: usize = 4;
/// Most indexed terms one query term matches as a part of (the first in
/// dictionary order, those it begins and those it ends each): enough that a word
/// heading hundreds of compounds ("urlaub": "urlaubsantrag" … "urlaubsvertretung")
/// still reaches them all, while the postings bound keeps a query's cost.
pub const SEARCH_MAX_PARTS: usize = 256;
/// Longest term indexed, in characters: a longer word (a key, a hash, a base64
/// run) is indexed by its first this many, and so is a query's.
pub const SEARCH_MAX_TERM_CHARS: usize = 64;
/// Most distinct terms a query searches for; the rest of a long query is ignored.
pub const SEARCH_MAX_QUERY_TERMS: usize = 32;
/// Most distinct terms indexed of one memory (a 100 KB text of distinct words has
/// about 15,000): past it, its later terms are not indexed.
pub const SEARCH_MAX_DOC_TERMS: usize = 16_384;
/// Most postings (memory, term) one query reads: its terms are read rarest first,
/// and the commonest are left out once this many were read.
pub const SEARCH_MAX_POSTINGS: usize = 4_000_000;
/// Results a search answers unless told otherwise.
pub const SEARCH_DEFAULT_LIMIT: usize = 10;
/// Most results one search answers.
pub const SEARCH_MAX_LIMIT: usize = 100;
/// Lines shown per result of `memory.search` and `memdir search`: the best matching.
pub const SEARCH_LINES_PER_HIT: usize = 3;
/// Most changed memories one call reads into the index before it answers (a
/// rebuild, or catching up after a large import): the rest wait for the next call,
/// which resumes where this one stopped, and the answer says how many wait.
pub const SEARCH_INDEX_WORK: usize = 20_000;
/// Memories one stored piece of the index holds on average: a change rewrites the
/// piece its memory falls in (by a hash of its path), and the index's table of
/// pieces doubles or halves to keep this.
pub const SEARCH_CHUNK_DOCS: usize = 64;
/// The index's changes since its base are folded into it once they number more
/// than the index's memories divided by this (or [`SEARCH_FOLD_MIN`]): a catch-up
/// writes a small delta, and the base's chunks are rewritten only that often.
pub const SEARCH_DELTA_SHARE: usize = 4;
/// Changes since the base always allowed before a fold (a small index folds no
/// more often than every this many).
pub const SEARCH_FOLD_MIN: usize = 256;
/// Most rounds of [`SEARCH_INDEX_WORK`] memories `memory.reindex()` and `memdir
/// reindex` run before they answer (2,000,000 memories): a writer that keeps the
/// index behind cannot keep them running, and their `pending` says to run again.
pub const SEARCH_REINDEX_ROUNDS: u32 = 100;
/// Memories `memory.recall` puts in a system prompt unless told otherwise.
pub const RECALL_DEFAULT_LIMIT: usize = 5;
/// The characters `memory.recall`'s block may take unless told otherwise.
pub const RECALL_DEFAULT_MAX_CHARS: usize = 4_000;
/// The most characters a caller may give `memory.recall`.
pub const RECALL_MAX_CHARS: usize = 100_000;

// Semantic search (`search/embed.rs`, `vectors.rs`, `hybrid.rs`): an embedder the
// application supplies, vectors as derived data, and hybrid ranking.

/// Texts handed to the embedder in one call: a hosted API's batch limits (OpenAI
/// 2,048 inputs, Voyage 128, Cohere 96) all take this many, and one failed batch
/// costs little to redo.
pub const EMBED_BATCH: usize = 32;
/// Most texts one search, recall or status call embeds before it answers (in
/// batches of [`EMBED_BATCH`]): the rest wait for the next call, and the answer's
/// `pending` counts them; `memory.reindex()` runs up to [`SEARCH_REINDEX_ROUNDS`]
/// such rounds.
pub const EMBED_WORK: usize = 256;
/// Longest part of a memory's text that is embedded, in characters (its start):
/// models read 512 tokens or a few thousand, and the fingerprint names this, so
/// changing it re-embeds rather than mixing vectors of two templates.
pub const EMBED_TEXT_CHARS: usize = 2_000;
/// Most dimensions an embedder may declare (the largest hosted models have 3,072).
pub const EMBED_MAX_DIMS: usize = 4_096;
/// Reciprocal-rank fusion's constant (Cormack et al. 2009; Elasticsearch's and
/// OpenSearch's default): a hit's hybrid score is the sum over the lexical and
/// semantic lists of 1 / (k + its rank there), so a hit found by keywords only is
/// still ranked, never dropped.
pub const SEARCH_RRF_K: f64 = 60.0;
/// Most bytes of int8 vectors (one byte a dimension, plus 8 of scale and
/// bookkeeping) the exact scan holds in memory: a Cloudflare Durable Object has
/// 128 MB for everything, so 64 MB leaves room for the index, the texts and the
/// runtime (about 160,000 memories of 384 dimensions). Above it semantic search
/// answers an error naming the PostgreSQL store, whose database scans instead.
pub const VECTOR_MAX_BYTES: usize = 64 << 20;
/// The semantic list's length: the texts of highest cosine, found by the exact
/// scan (selected, not all sorted) or asked of a store that searches vectors
/// itself (`Store::nearest`, PostgreSQL with pgvector) before they are restricted
/// to texts live under the searched directory. Ten times [`SEARCH_MAX_LIMIT`], so
/// a search keeps its limit when some candidates are stale or elsewhere; hybrid
/// fuses it with the whole lexical list, so no keyword hit is dropped, and a text
/// past it would add less than 1 / (60 + 1,000) to its score.
pub const VECTOR_CANDIDATES: usize = 1_000;
/// The cosine above which seed 002's `memory_store` replaces a record as a near
/// duplicate when the store has an embedder (otherwise its word overlap,
/// [`RECORDS_SIMILARITY`]): model-specific, since each model spreads cosines
/// differently (e5 puts unrelated English texts near 0.7); this suits the test
/// embedder and normalised sentence models, and `duplicate_cosine` overrides it.
pub const RECORDS_DUPLICATE_COSINE: f64 = 0.92;

// The Memory Stores API: paths.

/// Most segments a store path may have (the SDK's rule).
pub const MAX_SEGMENTS: usize = 20;
/// Longest store path in UTF-8 bytes.
pub const MAX_STORE_PATH_BYTES: usize = 1024;

// The Memory Stores API: a store's record.

/// Longest store name, in characters.
pub const MAX_NAME_CHARS: usize = 255;
/// Longest store description, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 1024;
/// Most metadata pairs a store's record holds.
pub const MAX_METADATA_PAIRS: usize = 16;
/// Longest metadata key, in characters.
pub const MAX_METADATA_KEY_CHARS: usize = 64;
/// Longest metadata value, in characters.
pub const MAX_METADATA_VALUE_CHARS: usize = 512;

// The Memory Stores API: versions.

/// Most records one page of an unfiltered-by-memory version list reads: filters
/// that skip many make a short page with a `next_page`, never an unbounded scan.
pub const MAX_VERSION_SCAN: usize = 10_000;

/// Most commits a redaction reads back from the head for the trees that still
/// name the version's path (it deletes their leaves before it answers). Past it,
/// in a store that ran no gc through that many commits, the older trees are left
/// unreachable (history starts again at the redaction) and go with gc.
pub const MAX_REDACT_COMMITS: usize = 10_000;

// The toolset.

/// Most line numbers a "several matches" error lists.
pub const MAX_LINES_LISTED: usize = 20;

/// Documents per page of `memory_list`, and results per page of `memory_search`
/// (each result shows up to [`MAX_LINES_PER_MEMORY`] lines): the API's page
/// limits.
pub const LIST_PAGE: u64 = MAX_LIMIT;
/// Results per page of `memory_search`: the API's default page.
pub const SEARCH_PAGE: u64 = DEFAULT_LIMIT;
/// How often a toolset write starts over when another writer changed the document
/// between its read and its write (each attempt is itself an atomic API operation).
pub(crate) const TOOLSET_ATTEMPTS: usize = 4;

// Store directories (`store_dir`): waits and ages.

/// A want older than this was left by a process that stopped waiting.
pub const WANT_FRESH_MS: u64 = 100;
/// How often a process waiting for the turn ([`TURN_LOCK`](crate::store_dir::TURN_LOCK)) looks again.
pub const TURN_POLL_MS: u64 = 1;
/// How long a process waits for the turn before running its command without it
/// (a stopped process may hold it; the compare-and-swap keeps going ahead safe).
/// Also how long a write waits for the one before it on the same memory, within
/// one process, on a store adapted in JS (js/turn.js): a store call that never
/// settles holds up the writes after it no longer than this.
pub const TURN_WAIT_MS: u64 = 10_000;
/// How long a writer waits for a key's lock before giving up.
pub const LOCK_WAIT_MS: u64 = 10_000;
/// A lock is held for one read-compare-rename; one this old was left by a crash.
pub const LOCK_STALE_MS: u64 = 30_000;
/// Keys per page when a store directory lists its keys (the Node store's pages).
pub const STORE_DIR_PAGE: usize = 1000;
/// How long a store directory's listing is kept for the pages after its first: a
/// directory can only be read whole, and reading it again for each page made a
/// listing of n keys (gc's) n / page reads of the whole directory.
pub const STORE_DIR_LISTING_KEEP_MS: u64 = 5_000;
/// How long a run of a Node directory store's calls holds the event loop before
/// it lets it turn: its system calls are synchronous, so a long pass (a gc deleting
/// thousands of files) would otherwise hold up every other request until its end.
pub const STORE_DIR_SLICE_MS: u64 = 20;
/// A temporary file this old was left by a crashed writer.
pub const TMP_STALE_MS: u64 = 60 * 60 * 1000;
/// Spare lock files a Node process keeps per store directory (js/stores/store-dir.js):
/// a lock is taken by hard-linking a spare that holds its token, since creating a
/// file costs tens of times a link on a busy disk. One spare per lock held at once
/// (the turn and a key's lock); with all busy, a lock is created as before.
pub const LOCK_SPARES: usize = 4;
/// Store directories a Node process keeps spare lock files in at once; past it, the
/// least recently used one with no lock held gives its spares up.
pub const LOCK_SPARE_DIRS: usize = 64;
/// Empty temporaries a Node process keeps made ahead per store directory, in the
/// directories that keep spare lock files (js/stores/store-dir.js, `Spares`): a
/// commit stages its pack in one instead of allocating an inode while it is timed,
/// and starts making the next while it waits for its fsync. One, since a process
/// stages one pack at a time per directory in its turn.
pub const STAGE_SPARES: usize = 1;
/// A temporary made ahead for a pack is written only while younger than this: half
/// the age at which every opening sweeps temporaries as a crash's
/// ([`TMP_STALE_MS`]), so no sweep takes one as it is written; an older one is
/// removed and the pack staged in a new file.
pub const STAGE_SPARE_MAX_AGE_MS: u64 = TMP_STALE_MS / 2;

// A PostgreSQL store (js/stores/postgres.js): what one instance's read brings back of
// what the others committed (see `STRUCTURE_PREFIXES`).

/// Rows one read brings back at most.
pub const PG_AHEAD_ROWS: usize = 64;
/// The largest value such a row may hold; a larger one is read when it is asked for.
pub const PG_AHEAD_VALUE_BYTES: usize = 64 * 1024;
/// The bytes of such values a store keeps at most until the engine asks for them;
/// past it the oldest go first.
pub const PG_AHEAD_KEPT_BYTES: usize = 4 * 1024 * 1024;

// A PostgreSQL store's vectors (js/stores/postgres-vectors.js): a table of their own,
// searched in the database where it has pgvector 0.8 or newer.

/// Rows of one fingerprint from which the store builds an HNSW index of them (in the
/// background; until it is built, and below this, an exact scan in the database
/// answers: about 10 ms at 10,000 vectors of 384 dimensions, where an index's
/// approximation would buy little; `npm run bench:search` prints both at 100,000).
pub const PG_VECTOR_INDEX_ROWS: usize = 10_000;
/// Most dimensions pgvector's HNSW index takes of a `halfvec`; a fingerprint of more
/// is always scanned exactly.
pub const PG_VECTOR_INDEX_MAX_DIMS: usize = 4_000;
/// Most dimensions a `halfvec` holds; a longer vector keeps its bytes only.
pub const PG_VECTOR_MAX_DIMS: usize = 16_000;
/// How long one index build may run on the server (100,000 vectors of 384
/// dimensions take about a minute on 2 cores); a build cut short is dropped and
/// tried again by a later search.
pub const PG_VECTOR_INDEX_TIMEOUT_MS: u64 = 30 * 60 * 1000;
/// The server memory an index build may use, MiB (`maintenance_work_mem`): a graph
/// of 100,000 vectors of 384 dimensions fits.
pub const PG_VECTOR_INDEX_MEMORY_MB: usize = 256;
/// HNSW's links per node and build-time candidate list (pgvector's defaults).
pub const PG_VECTOR_HNSW_M: usize = 16;
/// See [`PG_VECTOR_HNSW_M`].
pub const PG_VECTOR_HNSW_EF_CONSTRUCTION: usize = 64;
/// The least candidate list a search walks (`hnsw.ef_search`); raised to the
/// candidates asked for.
pub const PG_VECTOR_EF_SEARCH: usize = 100;
/// Most candidates one search asks the database for (pgvector's largest
/// `hnsw.ef_search`); a larger ask is cut to it.
pub const PG_VECTOR_MAX_CANDIDATES: usize = 1_000;

// Sync with a remote Memory Stores API store.

/// Memories asked for in one list page (the API's largest page).
pub const SYNC_PAGE: u64 = MAX_LIMIT;
/// Longest id or page token a sync accepts back.
pub const SYNC_MAX_TOKEN_BYTES: usize = 1_024;
/// How long a host waits for one answer before it counts as none.
pub const SYNC_REQUEST_TIMEOUT_MS: u64 = 30_000;
/// The largest answer a host reads: a page of memories or one memory of the
/// API's largest size, escaped, with room to spare.
pub const SYNC_MAX_ANSWER_BYTES: usize = 2 * 1024 * 1024;
/// Passes over both stores before a sync gives up on one that keeps changing.
pub const SYNC_MAX_PASSES: u32 = 4;
/// The most lines a sync's merge diffs: its three texts (base, ours, theirs)
/// together. The line diff costs up to the square of its lines (100 KB of 2-byte
/// lines took tens of seconds), so past this the texts are not diffed: both stay
/// whole, between conflict markers. Three 100 KB memories of 30-byte lines fit.
pub const SYNC_MERGE_MAX_LINES: usize = 10_000;

// The in-memory store.

/// Keys per page of [`MemoryStore::list`](crate::store::MemoryStore); small enough
/// that tests exercise paging.
pub const MEMORY_PAGE: usize = 256;

// Seed 002's records toolset (`records/`): `memory_store`, `memory_retrieve`,
// `memory_delete`. The half-life, capacity and similarity are defaults a caller
// may change per toolset (`memdir::records::Settings`, JS `memoryRecordTools(memory,
// {halfLifeDays, capacity, similarity})`) within the bounds below.

/// Days after which a record's importance counts half in retrieval and pruning
/// (the seed's `half_life_days`): effective importance is `importance × 2^(−age /
/// half-life)`, its age in days since its header's `created`.
pub const RECORDS_HALF_LIFE_DAYS: f64 = 30.0;
/// The longest half-life a caller may set, in days (a hundred years: no decay to speak of).
pub const RECORDS_MAX_HALF_LIFE_DAYS: f64 = 36_500.0;
/// Records a store keeps: past it, `memory_store` deletes those of lowest effective
/// importance (expired ones first) until this many are left.
pub const RECORDS_CAPACITY: u64 = 1_000;
/// The largest capacity a caller may set: a prune reads every record once.
pub const RECORDS_MAX_CAPACITY: u64 = 10_000;
/// Jaccard similarity of two records' contents (their sets of the search
/// tokenizer's terms) at or above which a new record in the same category replaces
/// the old one, as a new version of the same memory.
pub const RECORDS_SIMILARITY: f64 = 0.8;
/// Records of the category a `memory_store` compares its content with: the best
/// ranked for the new content by the search index (a near duplicate shares most of
/// its terms, so it ranks among the first).
pub const RECORDS_DEDUP_CANDIDATES: usize = 20;
/// Most records one `memory_retrieve` reads (it reads them best ranked first and
/// stops once no later one can rise into its answer).
pub const RECORDS_MAX_SCAN: usize = 10_000;
/// Results `memory_retrieve` answers unless told otherwise (the seed's default).
pub const RECORDS_DEFAULT_LIMIT: usize = 10;
/// Most results one `memory_retrieve` answers.
pub const RECORDS_MAX_LIMIT: usize = SEARCH_MAX_LIMIT;
/// Most tags one record holds.
pub const RECORDS_MAX_TAGS: usize = 32;
/// Longest tag, in characters.
pub const RECORDS_MAX_TAG_CHARS: usize = 64;
/// Longest reason a `memory_delete` records, in characters.
pub const RECORDS_MAX_REASON_CHARS: usize = 1_000;
/// How often a records write starts over when another writer changed the record
/// between its read and its write (each attempt an atomic API operation).
pub(crate) const RECORDS_ATTEMPTS: usize = 4;
/// Most bytes a face reads of an encryption key file (`--encryption-key-file`):
/// a key is 64 hex characters and a line end, so any file longer is refused as not
/// a key without being read whole (a device, a log named by mistake).
pub const ENCRYPTION_KEY_FILE_BYTES: usize = 1_024;
