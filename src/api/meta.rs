//! A memory store's own record: name, description, metadata, times and archival,
//! kept in every commit; and the rules its fields follow.

use alloc::collections::BTreeMap;
use alloc::string::String;

use serde_json::{Map, Value, json};

use super::body::Fields;
use super::error::ApiError;
use crate::storage::meta::{check_description, check_metadata, check_name};
use crate::time::format_ms;

pub(crate) use crate::storage::meta::StoreMeta;

/// What the API adds to a store's record: made from a request, and shown.
impl StoreMeta {
    /// A new store's record from a create body.
    pub(crate) fn create(id: &str, body: &Value, now: u64) -> Result<StoreMeta, ApiError> {
        let f = Fields::of(body, &["name", "description", "metadata"])?;
        let name = f
            .string("name")?
            .ok_or_else(|| ApiError::required("name"))?;
        check_name(name)?;
        let description = f.string("description")?.unwrap_or_default();
        check_description(description)?;
        let mut metadata = BTreeMap::new();
        if let Some(m) = f.object("metadata")? {
            for (k, v) in m {
                match v {
                    Value::String(s) => {
                        metadata.insert(k.clone(), s.clone());
                    }
                    _ => return Err(ApiError::metadata_value(k, false)),
                }
            }
        }
        check_metadata(&metadata)?;
        Ok(StoreMeta {
            id: id.into(),
            name: name.into(),
            description: description.into(),
            metadata,
            created_at: now,
            updated_at: now,
            archived_at: None,
        })
    }

    /// The record after an update body (`None` fields and absent keys unchanged;
    /// a metadata value `null` removes its key). `Ok(None)`: nothing changes.
    pub(crate) fn update(&self, body: &Value, now: u64) -> Result<Option<StoreMeta>, ApiError> {
        let f = Fields::of(body, &["name", "description", "metadata"])?;
        let mut next = self.clone();
        if let Some(name) = f.nullable_string("name")? {
            check_name(name)?;
            next.name = name.into();
        }
        if let Some(d) = f.nullable_string("description")? {
            check_description(d)?;
            next.description = d.into();
        }
        if let Some(m) = f.nullable_object("metadata")? {
            for (k, v) in m {
                match v {
                    Value::Null => {
                        next.metadata.remove(k);
                    }
                    Value::String(s) => {
                        next.metadata.insert(k.clone(), s.clone());
                    }
                    _ => return Err(ApiError::metadata_value(k, true)),
                }
            }
        }
        check_metadata(&next.metadata)?;
        if next == *self {
            return Ok(None);
        }
        next.updated_at = now;
        Ok(Some(next))
    }

    pub(crate) fn to_json(&self) -> Value {
        // Inserted one by one: `collect` into a map sorts first, a sort compiled
        // for this pair type alone.
        let mut metadata: Map<String, Value> = Map::new();
        for (k, v) in &self.metadata {
            metadata.insert(k.clone(), Value::from(v.as_str()));
        }
        json!({
            "type": "memory_store",
            "id": self.id,
            "name": self.name,
            "description": self.description,
            "metadata": metadata,
            "created_at": format_ms(self.created_at),
            "updated_at": format_ms(self.updated_at),
            "archived_at": self.archived_at.map(format_ms),
        })
    }
}
