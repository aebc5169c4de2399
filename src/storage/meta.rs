//! A memory store's own record (name, description, metadata, times, archival), as
//! every commit carries it, and the rules a stored record must keep: a record that
//! breaks one is damage. The API decides what a record says to a client and the
//! words of each refusal ([`crate::api`]); this layer only keeps the data and says
//! which rule is broken ([`MetaFault`]).

use alloc::collections::BTreeMap;
use alloc::string::String;

use serde::{Deserialize, Serialize};

use crate::config::{
    MAX_DESCRIPTION_CHARS, MAX_METADATA_KEY_CHARS, MAX_METADATA_PAIRS, MAX_METADATA_VALUE_CHARS,
    MAX_NAME_CHARS,
};

/// How store ids begin.
pub const STORE_PREFIX: &str = "memstore_";
/// How many random characters follow [`STORE_PREFIX`] in a store id.
pub const STORE_ID_CHARS: usize = 24;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct StoreMeta {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub metadata: BTreeMap<String, String>,
    pub created_at: u64,
    pub updated_at: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archived_at: Option<u64>,
}

/// Which rule of a store's record a value breaks (the API words each one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MetaFault {
    BadId,
    /// The name's length in characters (it must be 1 to [`MAX_NAME_CHARS`]).
    NameLength(usize),
    NameControl,
    /// The description's length in characters.
    DescriptionLength(usize),
    /// How many metadata pairs there are.
    MetadataPairs(usize),
    /// A metadata key's length in characters.
    MetadataKeyLength(usize),
    /// A metadata value's length in characters, and its key.
    MetadataValueLength {
        chars: usize,
        key: String,
    },
}

fn chars(s: &str) -> usize {
    s.chars().count()
}

/// True if `id` is a store id this build makes.
pub fn is_store_id(id: &str) -> bool {
    id.strip_prefix(STORE_PREFIX).is_some_and(|r| {
        r.len() == STORE_ID_CHARS
            && r.bytes()
                .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase())
    })
}

pub(crate) fn check_name(name: &str) -> Result<(), MetaFault> {
    let n = chars(name);
    if n == 0 || n > MAX_NAME_CHARS {
        return Err(MetaFault::NameLength(n));
    }
    if name.chars().any(char::is_control) {
        return Err(MetaFault::NameControl);
    }
    Ok(())
}

pub(crate) fn check_description(d: &str) -> Result<(), MetaFault> {
    let n = chars(d);
    if n > MAX_DESCRIPTION_CHARS {
        return Err(MetaFault::DescriptionLength(n));
    }
    Ok(())
}

pub(crate) fn check_metadata(m: &BTreeMap<String, String>) -> Result<(), MetaFault> {
    if m.len() > MAX_METADATA_PAIRS {
        return Err(MetaFault::MetadataPairs(m.len()));
    }
    for (k, v) in m {
        let kn = chars(k);
        if kn == 0 || kn > MAX_METADATA_KEY_CHARS {
            return Err(MetaFault::MetadataKeyLength(kn));
        }
        let vn = chars(v);
        if vn > MAX_METADATA_VALUE_CHARS {
            return Err(MetaFault::MetadataValueLength {
                chars: vn,
                key: k.clone(),
            });
        }
    }
    Ok(())
}

impl StoreMeta {
    /// Every rule, for a record read back from a store.
    pub(crate) fn check(&self) -> Result<(), MetaFault> {
        if !is_store_id(&self.id) {
            return Err(MetaFault::BadId);
        }
        check_name(&self.name)?;
        check_description(&self.description)?;
        check_metadata(&self.metadata)
    }
}
