//! The host's own answers, for a call that ended without one from the engine.
//! Like the engine's, they name no host path, no key and no backend text. (Inputs
//! refused before the guest get the engine's own words: `memdir::InputError`.)

/// Why a call produced no answer from the component. The store holds nothing of it
/// either way: only the final compare-and-swap publishes a command's effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The call used up its fuel.
    Fuel,
    /// The instance asked for more memory than [`HostLimits::memory_bytes`](crate::HostLimits::memory_bytes).
    Memory,
    /// Any other trap (the engine never panics by design; this is the net).
    Trap,
    /// The instance could not be created (for example a memory cap below its needs).
    Start,
}

impl Fault {
    /// Its name where a face branches on it (Python's `MemdirFault.kind`, a
    /// toolset failure's `kind`).
    pub fn name(self) -> &'static str {
        match self {
            Fault::Fuel => "fuel",
            Fault::Memory => "memory",
            Fault::Trap => "trap",
            Fault::Start => "start",
        }
    }
}

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
