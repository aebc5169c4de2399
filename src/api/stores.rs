//! A store's own record through the API (create, retrieve, update, archive,
//! delete), and listing many stores' records, which a catalog gathers.

use alloc::format;
use alloc::rc::Rc;
use alloc::vec::Vec;

use serde_json::{Value, json};

use super::body::Query;
use super::error::ApiError;
use super::meta::StoreMeta;
use super::page::{self, PageRequest};
use super::{Ctx, Outcome};
use crate::storage::Engine;
use crate::storage::overlay::Overlay;
use crate::storage::publish::Attempt;
use crate::store::Store;

fn no_store() -> ApiError {
    ApiError::no_store()
}

impl<S: Store> Engine<S> {
    /// Publishes a new store record made by `change` from the current one.
    async fn set_store(
        &self,
        change: impl Fn(Option<&StoreMeta>, u64) -> Result<Option<StoreMeta>, ApiError>,
        summary: &str,
    ) -> Outcome {
        let result = self
            .transact(true, async |head| {
                let now = self.now();
                let next = match change(head.store.as_deref(), now) {
                    Ok(Some(next)) => next,
                    Ok(None) => return Ok(Attempt::Unchanged(Ok(()))),
                    Err(e) => return Ok(Attempt::Unchanged(Err(e))),
                };
                let mut overlay = Overlay::on(head, now);
                overlay.set_store(next);
                Ok(Attempt::Publish {
                    overlay,
                    root: head.root,
                    summary: summary.into(),
                    value: Ok(()),
                })
            })
            .await?;
        result?;
        let (head, _) = self.cached_head().await?;
        head.store
            .as_deref()
            .map(StoreMeta::to_json)
            .ok_or_else(no_store)
    }

    pub(crate) async fn store_create(&self, id: Option<&str>, body: &Value) -> Outcome {
        let id = id.unwrap_or_default();
        if !super::rules::is_store_id(id) {
            return Err(ApiError::not_a_store_id(id));
        }
        let body = body.clone();
        self.set_store(
            |current, now| match current {
                Some(_) => Err(ApiError::store_exists()),
                None => StoreMeta::create(id, &body, now).map(Some),
            },
            "api create store",
        )
        .await
    }

    pub(crate) fn store_retrieve(&self, ctx: &Ctx) -> Outcome {
        ctx.head
            .store
            .as_deref()
            .map(StoreMeta::to_json)
            .ok_or_else(no_store)
    }

    pub(crate) async fn store_update(&self, body: &Value) -> Outcome {
        let body = body.clone();
        self.set_store(
            |current, now| {
                let meta = current.ok_or_else(no_store)?;
                if meta.archived_at.is_some() {
                    return Err(ApiError::store_archived());
                }
                meta.update(&body, now)
            },
            "api update store",
        )
        .await
    }

    pub(crate) async fn store_archive(&self) -> Outcome {
        self.set_store(
            |current, now| {
                let meta = current.ok_or_else(no_store)?;
                if meta.archived_at.is_some() {
                    return Ok(None);
                }
                Ok(Some(StoreMeta {
                    archived_at: Some(now),
                    updated_at: now,
                    ..meta.clone()
                }))
            },
            "api archive store",
        )
        .await
    }

    pub(crate) fn store_delete(&self, ctx: &Ctx) -> Outcome {
        let meta = ctx.head.store.as_deref().ok_or_else(no_store)?;
        Ok(json!({"id": meta.id, "type": "memory_store_deleted"}))
    }
}

/// One page of stores from every store's record (what `store.retrieve` answered),
/// newest first, with the list's filters: `include_archived`, `created_at[gte]`,
/// `created_at[lte]`.
pub fn list_stores(records: &[Value], q: &Query<'_>) -> Outcome {
    let include_archived = q.bool("include_archived")?;
    let from = q.time("created_at[gte]")?;
    let to = q.time("created_at[lte]")?;
    let fp = page::fingerprint(&[
        "store.list",
        if include_archived { "1" } else { "0" },
        q.str("created_at[gte]").unwrap_or_default(),
        q.str("created_at[lte]").unwrap_or_default(),
    ]);
    let PageRequest { limit, after } = page::read(q, &fp, false)?;
    let mut metas: Vec<Rc<StoreMeta>> = Vec::new();
    for r in records {
        let meta: StoreMeta = serde_json::from_value(from_api(r)).map_err(|_| ApiError::Damaged)?;
        if (include_archived || meta.archived_at.is_none())
            && from.is_none_or(|t| meta.created_at >= t)
            && to.is_none_or(|t| meta.created_at <= t)
        {
            metas.push(Rc::new(meta));
        }
    }
    metas.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(a.id.cmp(&b.id)));
    // A page starts after the last store of the one before, by (time, id), so a
    // store deleted in between moves nothing.
    let start = match after.as_deref().map(|a| a.split_once(':')) {
        None => 0,
        Some(Some((t, id))) => {
            let t: u64 = t.parse().map_err(|_| bad_page())?;
            metas
                .iter()
                .position(|m| m.created_at < t || (m.created_at == t && m.id.as_str() > id))
                .unwrap_or(metas.len())
        }
        Some(None) => return Err(bad_page()),
    };
    let page: Vec<&Rc<StoreMeta>> = metas.iter().skip(start).take(limit).collect();
    let more = metas.len() > start + page.len();
    let next = match (more, page.last()) {
        (true, Some(m)) => Some(page::token(&fp, &format!("{}:{}", m.created_at, m.id))),
        _ => None,
    };
    let data: Vec<Value> = page.iter().map(|m| m.to_json()).collect();
    Ok(json!({"data": data, "next_page": next}))
}

fn bad_page() -> ApiError {
    ApiError::bad_page_token()
}

/// A store object as the API shows it, back into the stored record's shape.
fn from_api(v: &Value) -> Value {
    let time = |k: &str| {
        v.get(k)
            .and_then(Value::as_str)
            .and_then(crate::time::parse_ms)
            .map(Value::from)
            .unwrap_or(Value::Null)
    };
    json!({
        "id": v.get("id"),
        "name": v.get("name"),
        "description": v.get("description"),
        "metadata": v.get("metadata"),
        "created_at": time("created_at"),
        "updated_at": time("updated_at"),
        "archived_at": time("archived_at"),
    })
}
