//! The rules the PostgreSQL store (`js/stores/postgres.js`) reads from the engine:
//! which rows a read brings back of what other instances committed, and how many;
//! and how it keeps and searches vectors where the database has pgvector.

use memdir::config::{
    PG_AHEAD_KEPT_BYTES, PG_AHEAD_ROWS, PG_AHEAD_VALUE_BYTES, PG_VECTOR_EF_SEARCH,
    PG_VECTOR_HNSW_EF_CONSTRUCTION, PG_VECTOR_HNSW_M, PG_VECTOR_INDEX_MAX_DIMS,
    PG_VECTOR_INDEX_MEMORY_MB, PG_VECTOR_INDEX_ROWS, PG_VECTOR_INDEX_TIMEOUT_MS,
    PG_VECTOR_MAX_CANDIDATES, PG_VECTOR_MAX_DIMS,
};
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// `{structurePrefixes, aheadRows, aheadValueBytes, aheadKeptBytes}`: the prefixes
/// of the keys whose values never change and which a read brings ahead
/// (`memdir::STRUCTURE_PREFIXES`), and its bounds (`memdir::config::PG_AHEAD_*`);
/// then the vectors' (`memdir::config::PG_VECTOR_*`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rules {
    structure_prefixes: &'static [&'static str],
    ahead_rows: usize,
    ahead_value_bytes: usize,
    ahead_kept_bytes: usize,
    vector_index_rows: usize,
    vector_index_max_dims: usize,
    vector_max_dims: usize,
    vector_index_timeout_ms: u64,
    vector_index_memory_mb: usize,
    vector_hnsw_m: usize,
    vector_hnsw_ef_construction: usize,
    vector_ef_search: usize,
    vector_max_candidates: usize,
}

#[wasm_bindgen(js_name = postgresRules)]
pub fn postgres_rules() -> Result<JsValue, JsValue> {
    crate::to_js::to_js(&Rules {
        structure_prefixes: &memdir::STRUCTURE_PREFIXES,
        ahead_rows: PG_AHEAD_ROWS,
        ahead_value_bytes: PG_AHEAD_VALUE_BYTES,
        ahead_kept_bytes: PG_AHEAD_KEPT_BYTES,
        vector_index_rows: PG_VECTOR_INDEX_ROWS,
        vector_index_max_dims: PG_VECTOR_INDEX_MAX_DIMS,
        vector_max_dims: PG_VECTOR_MAX_DIMS,
        vector_index_timeout_ms: PG_VECTOR_INDEX_TIMEOUT_MS,
        vector_index_memory_mb: PG_VECTOR_INDEX_MEMORY_MB,
        vector_hnsw_m: PG_VECTOR_HNSW_M,
        vector_hnsw_ef_construction: PG_VECTOR_HNSW_EF_CONSTRUCTION,
        vector_ef_search: PG_VECTOR_EF_SEARCH,
        vector_max_candidates: PG_VECTOR_MAX_CANDIDATES,
    })
}
