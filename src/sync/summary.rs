//! What a sync did, and its one line of text.

use core::fmt;

/// What a sync did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Memories the remote changed (or made, or deleted), now so here.
    pub pulled: u64,
    /// Memories this store changed (or made, or deleted), now so on the remote.
    pub pushed: u64,
    /// Memories changed on both sides whose edits merged.
    pub merged: u64,
    /// Memories changed on both sides whose edits overlap: both texts kept.
    pub conflicts: u64,
    /// Memories that were the same on both sides and left alone.
    pub unchanged: u64,
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "pulled {}, pushed {}, merged {}, conflicts {}, unchanged {}",
            self.pulled, self.pushed, self.merged, self.conflicts, self.unchanged
        )
    }
}
