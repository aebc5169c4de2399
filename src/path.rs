//! What a path may name (being written).
