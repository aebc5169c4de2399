//! The host's own answers, for a call that ended without one from the engine.
//! Like the engine's, they name no host path, no key and no backend text. (Inputs
//! refused before the guest get the engine's own words: `memdir::InputError`.)

use crate::sandbox::Fault;

/// A call that ended without an answer. `published`: the command's swap had
/// already succeeded, so its change is saved and must not be denied.
pub fn fault(fault: Fault, published: bool) -> String {
    let what = match fault {
        Fault::Fuel => "The memory tool ran out of its compute budget and was stopped",
        Fault::Memory => "The memory tool ran out of memory and was stopped",
        Fault::Trap => "The memory tool stopped on an internal fault",
        Fault::Start => "The memory tool could not be started",
    };
    if published {
        format!("{what} after it had saved its change.")
    } else {
        format!("{what}; nothing was changed.")
    }
}

/// An API request over the host's input limit, refused before the guest.
pub fn request_too_large(limit: usize) -> String {
    format!("The request is over the limit of {limit} bytes.")
}
