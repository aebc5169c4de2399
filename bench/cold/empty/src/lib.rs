//! An empty module but for `ping() -> u32`: the floor a cold start of memdir is
//! measured against (bench/cold). One call, so the peer's "first answer" crosses the
//! same boundary memdir's first view does.
#![cfg_attr(target_os = "wasi", no_std)]

#[cfg(target_os = "unknown")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn ping() -> u32 {
    1
}

#[cfg(target_os = "wasi")]
mod component {
    wit_bindgen::generate!({
        inline: "package memdir-bench:empty; world empty { export ping: func() -> u32; }",
    });

    struct Empty;

    impl Guest for Empty {
        fn ping() -> u32 {
            1
        }
    }

    export!(Empty);

    #[global_allocator]
    static ALLOC: dlmalloc::GlobalDlmalloc = dlmalloc::GlobalDlmalloc;

    #[panic_handler]
    fn panic(_: &core::panic::PanicInfo) -> ! {
        core::arch::wasm32::unreachable()
    }
}
