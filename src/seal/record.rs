//! The store's encryption record: the one value kept in clear, at [`RECORD`].
//!
//! It says which key id the store is encrypted with and holds the data key wrapped
//! under that key (during a rotation, both generations' data keys, each wrapped
//! under both keys, so either key reads the store until it ends). Its JSON is
//! written by one function, so compare-and-swap on it compares equal bytes.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::error::SealError;
use super::keys::{DataKey, Key};

/// Where the record lives. No name of the engine's has this form, and no sealed
/// name does (they start with 8 hex digits and a slash).
pub(crate) const RECORD: &str = "memdir-seal";

/// The format line every record carries.
const FORMAT: &str = "memdir-seal 1";

/// One generation of the data key.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub(crate) struct Generation {
    /// The id of the key this generation belongs to.
    pub(crate) key_id: String,
    /// The data key's tag (every stored name of this generation starts with it).
    pub(crate) tag: String,
    /// The data key wrapped under each key id that may read it, in hex.
    pub(crate) wrapped: BTreeMap<String, String>,
}

impl Generation {
    /// `data` of `owner`'s generation, wrapped under each of `readers`.
    pub(crate) fn new(owner: &Key, data: &DataKey, readers: &[&Key]) -> Generation {
        Generation {
            key_id: String::from(owner.id()),
            tag: data.tag.clone(),
            wrapped: readers
                .iter()
                .map(|k| (String::from(k.id()), hex::encode(k.wrap(data))))
                .collect(),
        }
    }

    /// This generation's data key, unwrapped by `key`: `None` if no wrapping is
    /// under `key`'s id, an error if one is but `key` does not open it.
    pub(crate) fn unwrap(&self, key: &Key) -> Result<Option<DataKey>, SealError> {
        let Some(wrapped) = self.wrapped.get(key.id()) else {
            return Ok(None);
        };
        let bytes = hex::decode(wrapped).map_err(|_| SealError::Damaged)?;
        key.unwrap(&self.tag, &bytes)
            .map(Some)
            .ok_or_else(|| SealError::WrongKey {
                id: String::from(key.id()),
            })
    }
}

/// The record.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub(crate) struct Record {
    format: String,
    /// The generation new values are written under.
    pub(crate) current: Generation,
    /// During a rotation, the generation being moved out of.
    #[serde(default)]
    pub(crate) previous: Option<Generation>,
    /// During `encrypt`, plaintext values are still being moved in.
    #[serde(default)]
    pub(crate) from_plaintext: bool,
}

impl Record {
    pub(crate) fn new(
        current: Generation,
        previous: Option<Generation>,
        from_plaintext: bool,
    ) -> Record {
        Record {
            format: String::from(FORMAT),
            current,
            previous,
            from_plaintext,
        }
    }

    /// The record in `bytes`; anything else (another format, a stray field, a
    /// generation without its own key's wrapping) is damage.
    pub(crate) fn parse(bytes: &[u8]) -> Result<Record, SealError> {
        let record: Record = serde_json::from_slice(bytes).map_err(|_| SealError::Damaged)?;
        let fine = |g: &Generation| {
            g.tag.len() == 8
                && g.tag.bytes().all(|b| b.is_ascii_hexdigit())
                && g.wrapped.contains_key(&g.key_id)
        };
        if record.format != FORMAT
            || !fine(&record.current)
            || !record.previous.as_ref().is_none_or(fine)
            || (record.previous.is_some() && record.from_plaintext)
        {
            return Err(SealError::Damaged);
        }
        Ok(record)
    }

    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// The key id a rotation or `encrypt` is moving to, if one is under way.
    pub(crate) fn rotating(&self) -> bool {
        self.previous.is_some() || self.from_plaintext
    }
}
