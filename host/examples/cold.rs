//! One cold start of the component in this host, timed from inside a fresh process:
//! compile (or load from the compile cache), instantiate, open, first answer. Run
//! once per sample by `node bench/cold/bench.mjs`, which compares it with the same
//! for an empty component (bench/cold/empty: one `ping` export) in the same run.
//!
//! Usage: `cold memdir|empty COMPONENT CACHE_DIR`; prints the milliseconds. A cache
//! directory without this component's entry is a miss (Cranelift compiles, and the
//! entry is written); with it, a hit (the entry is loaded). Both sides go through
//! `memdir_host::cache::load_or_compile`, the host's own cache.
#![allow(
    clippy::expect_used,
    clippy::panic,
    reason = "a benchmark run by hand: a broken setup should stop it, saying where"
)]

use std::sync::Arc;
use std::time::Instant;

use memdir_host::{HostLimits, MemoryBackend, Runtime};

fn main() {
    let start = Instant::now();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [side, component, cache] = args.as_slice() else {
        panic!("usage: cold memdir|empty COMPONENT CACHE_DIR");
    };
    let bytes = std::fs::read(component).expect("reading the component");
    let cache = std::path::Path::new(cache);
    match side.as_str() {
        "memdir" => {
            let runtime = Runtime::from_bytes_cached(&bytes, cache).expect("compiling");
            let mut host = runtime.host(Arc::new(MemoryBackend::new()), HostLimits::default());
            let r = host.execute_json(r#"{"command":"view","path":"/memories"}"#);
            assert!(!r.is_error, "first view: {}", r.content);
            assert!(r.content.contains("/memories"), "first view: {}", r.content);
        }
        "empty" => {
            use wasmtime::component::{Component, Linker};
            // The configuration memdir_host's engine has (sandbox.rs: fuel metering on),
            // so both sides compile and load alike.
            let mut config = wasmtime::Config::new();
            config.consume_fuel(true);
            let engine = wasmtime::Engine::new(&config).expect("engine");
            let component: Component =
                memdir_host::cache::load_or_compile(&engine, &bytes, cache).expect("compiling");
            let mut store = wasmtime::Store::new(&engine, ());
            store.set_fuel(u64::MAX).expect("fuel");
            let instance = Linker::new(&engine)
                .instantiate(&mut store, &component)
                .expect("instantiating");
            let ping = instance
                .get_typed_func::<(), (u32,)>(&mut store, "ping")
                .expect("ping export");
            let (one,) = ping.call(&mut store, ()).expect("ping");
            assert_eq!(one, 1);
        }
        other => panic!("unknown side {other}"),
    }
    println!("{:.3}", start.elapsed().as_secs_f64() * 1e3);
}
