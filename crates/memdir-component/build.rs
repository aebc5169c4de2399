//! On wasm32-wasip2 the target leaves `memcpy`, `memcmp` and friends to libc, which
//! only std links. This no_std crate links the toolchain's own wasi-libc for them:
//! those functions are pure and add no import (the host's tests check the imports).
fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("wasi") {
        println!("cargo:rustc-link-lib=c");
        println!("cargo:rustc-link-arg=--wasi-adapter=none");
    }
}
