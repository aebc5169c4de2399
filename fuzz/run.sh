#!/usr/bin/env bash
# Fuzz the path function and `execute` for SECONDS each (default 600).
# cargo-fuzz needs nightly flags; RUSTC_BOOTSTRAP lets the pinned stable toolchain
# accept them. Seeds for `execute` are the conformance inputs.
set -euo pipefail
cd "$(dirname "$0")"
secs=${1:-600}
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz
mkdir -p corpus/path corpus/execute seeds/execute
python3 - <<'PY'
import json
for n, c in enumerate(json.load(open('../tests/conformance/cases.json'))['cases']):
    open(f'seeds/execute/{n:04}.json', 'w').write(c['input_text'] if 'input_text' in c else json.dumps(c['input']))
PY
export RUSTC_BOOTSTRAP=1
cargo fuzz run -O path corpus/path -- -max_total_time="$secs" -max_len=4096
cargo fuzz run -O execute corpus/execute seeds/execute -- -max_total_time="$secs" -max_len=8192
