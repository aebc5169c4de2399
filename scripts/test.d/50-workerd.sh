#!/usr/bin/env bash
# Edge suite, in real workerd through miniflare (npm miniflare 4.20260426.0):
# every conformance case and hostile path over HTTP through the example memory
# service (examples/worker), its credentials and bad-request answers, 50 concurrent
# edits, a restart with persistence, the store contract on durableObjectStore and
# kvStore, every tampered store on durableObjectStore, every write path × access over
# two durableObjectStores mounted in one memory, and the example bundled by
# wrangler (deploy --dry-run) and served; and the Memory Stores API of the example
# (one Durable Object per store) driven by the official SDK client, and two Node
# devices syncing through it.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$HOME/.cargo/bin:$PATH"
# wrangler must not try to reach its telemetry service.
export WRANGLER_SEND_METRICS=false
node scripts/build.mjs
node --test --test-concurrency=1 tests/workerd/*.test.mjs
