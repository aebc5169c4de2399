#!/usr/bin/env bash
# Fuzz every target for SECONDS each (default 600): the path function, tool
# commands, the Memory Stores API, the toolset, and the decoding of tampered stored
# values. cargo-fuzz needs nightly flags; RUSTC_BOOTSTRAP lets the pinned stable
# toolchain accept them. Seeds: the conformance inputs for `execute`, a request or
# tool input of each kind for `api` and `toolset`.
set -euo pipefail
cd "$(dirname "$0")"
secs=${1:-600}
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz
mkdir -p corpus/{path,execute,api,toolset,decode} seeds/{execute,api,toolset}
python3 - <<'PY'
import json
for n, c in enumerate(json.load(open('../tests/conformance/cases.json'))['cases']):
    open(f'seeds/execute/{n:04}.json', 'w').write(c['input_text'] if 'input_text' in c else json.dumps(c['input']))
api = [
    {"op": "memory.list", "query": {"path_prefix": "/notes/", "depth": "1", "limit": "1"}},
    {"op": "memory.retrieve", "id": "$M0", "query": {"view": "full"}},
    {"op": "memory.create", "body": json.dumps({"path": "/n/x.md", "content": "x"})},
    {"op": "memory.update", "id": "$M0", "body": json.dumps({"path": "/moved.md", "precondition": {"type": "content_sha256", "content_sha256": "0" * 64}})},
    {"op": "memory.delete", "id": "$M1"},
    {"op": "memory.search", "query": {"query": "beta"}},
    {"op": "version.list", "query": {"memory_id": "$M0", "limit": "1"}},
    {"op": "version.retrieve", "id": "$V0"},
    {"op": "version.redact", "id": "$V1", "body": "{}"},
    {"op": "store.update", "body": json.dumps({"name": "n", "description": "d"})},
]
for n, r in enumerate(api):
    open(f'seeds/api/{n:04}.txt', 'w').write(json.dumps(r))
tools = [
    (0, {"path_prefix": "/notes/", "depth": 1}), (1, {"query": "alpha"}), (2, {"path": "/b.md"}),
    (3, {"path": "/n.md", "content": "x"}), (4, {"path": "/b.md", "old_string": "secret", "new_string": "s"}),
    (5, {"path": "/b.md"}),
]
for n, (pick, i) in enumerate(tools):
    open(f'seeds/toolset/{n:04}.bin', 'wb').write(bytes([pick]) + json.dumps(i).encode())
PY
export RUSTC_BOOTSTRAP=1
# run TARGET MAX_LEN [SEED_DIR] [LIBFUZZER_FLAG...]
run() {
  local target=$1 len=$2 dirs=() flags=()
  for a in "${@:3}"; do [[ $a == -* ]] && flags+=("$a") || dirs+=("$a"); done
  cargo fuzz run -O "$target" "corpus/$target" "${dirs[@]}" -- -max_total_time="$secs" -max_len="$len" "${flags[@]}"
}
run path 4096
run execute 8192 seeds/execute
run api 8192 seeds/api
run toolset 4096 seeds/toolset
# Patches are 3 bytes each: long inputs from the start, not grown slowly.
run decode 4096 -len_control=0
