//! Headroom on the wasm heap. The allocator (std's dlmalloc) grows the memory by
//! what one allocation lacks, a 64 KiB page at a time, and a memory store keeps every
//! version in that memory: without headroom, most writes grew it, and on V8 a grow
//! (with the collection it may set off) cost more than the write itself. So after
//! a call that grew the memory, one allocation of a fraction of it is made and
//! freed: the allocator grows once, and keeps the freed block as its free top for
//! the calls after. The fraction and its bounds are in `memdir::config`.

use core::cell::Cell;

use memdir::config::{HEAP_HEADROOM_DIVISOR, HEAP_HEADROOM_MAX_BYTES, HEAP_HEADROOM_MIN_BYTES};

const PAGE_BYTES: usize = 64 * 1024;

thread_local! {
    /// The memory's size in pages after the last headroom was made.
    static SEEN_PAGES: Cell<usize> = const { Cell::new(0) };
}

/// Makes headroom if the memory grew since the last call. Cheap otherwise: one
/// `memory.size`.
pub(crate) fn keep_headroom() {
    let pages = memory_pages();
    if pages <= SEEN_PAGES.with(Cell::get) {
        return;
    }
    let bytes = (pages * PAGE_BYTES / HEAP_HEADROOM_DIVISOR)
        .clamp(HEAP_HEADROOM_MIN_BYTES, HEAP_HEADROOM_MAX_BYTES);
    // Allocated and freed, never touched: the pages it grows stay untouched until
    // the allocator hands them out. Where the memory cannot grow, nothing happens.
    let mut block: alloc::vec::Vec<u8> = alloc::vec::Vec::new();
    if block.try_reserve_exact(bytes).is_ok() {
        core::hint::black_box(&mut block);
    }
    drop(block);
    SEEN_PAGES.with(|s| s.set(memory_pages()));
}

#[cfg(target_arch = "wasm32")]
fn memory_pages() -> usize {
    core::arch::wasm32::memory_size(0)
}

// The crate is built for wasm32 only; this keeps a host `cargo check` building.
#[cfg(not(target_arch = "wasm32"))]
fn memory_pages() -> usize {
    0
}
