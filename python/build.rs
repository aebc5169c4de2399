//! Finds the memdir component the extension embeds, so the wheel carries it and
//! needs no file beside it: `$MEMDIR_COMPONENT` if set, else the output of
//! `cargo build -p memdir-component --target wasm32-wasip2 --profile release-wasm`
//! in this workspace's target directory. A missing component fails the build with
//! the command that makes it (python/build.sh runs that command first).

use std::path::PathBuf;

fn main() {
    println!("cargo::rerun-if-env-changed=MEMDIR_COMPONENT");
    println!("cargo::rerun-if-env-changed=CARGO_TARGET_DIR");
    let path = match std::env::var_os("MEMDIR_COMPONENT") {
        Some(p) => PathBuf::from(p),
        None => {
            let manifest =
                PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
            let target = std::env::var_os("CARGO_TARGET_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| manifest.join("..").join("target"));
            target.join("wasm32-wasip2/release-wasm/memdir_component.wasm")
        }
    };
    let path = std::path::absolute(&path).unwrap_or(path);
    if !path.is_file() {
        println!(
            "cargo::error=the memdir component is not built ({}): run `cargo build -p memdir-component \
             --target wasm32-wasip2 --profile release-wasm` first (python/build.sh does), or set \
             MEMDIR_COMPONENT to its path",
            path.display()
        );
        return;
    }
    println!("cargo::rerun-if-changed={}", path.display());
    println!("cargo::rustc-env=MEMDIR_COMPONENT_WASM={}", path.display());
}
