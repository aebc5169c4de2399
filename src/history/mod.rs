//! The history layer: the version log read and extended (`log`: a slot, a memory's
//! newest version, sealing a change's versions) and pruned (`retain`: which versions
//! a retention period keeps). It stands on the storage layer (the log's stored form
//! is `storage::versions`) and knows nothing of commands or faces.

pub(crate) mod log;
pub(crate) mod retain;
