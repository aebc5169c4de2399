#!/usr/bin/env bash
# Python suite: clippy over the PyO3 extension (memdir-python, the workspace's
# lints, warnings denied), then README.md's Python install block run as written
# from the repository's root (python/build.sh builds the component and the abi3
# wheel; a fresh .venv, replacing any there, gets the wheel and with it
# anthropic), pytest added to that venv, and python/tests run there against the
# installed wheel: the conformance data in full on both backends, the SDK's sync
# and async tool runners against a loopback fake Messages API, faults and hostile
# input, and Python and Node CLI processes writing one store directory. The Node
# CLI loads dist/, so the npm package is built first (a no-op when current).
# pytest's exit code 5 (no test collected) fails the suite like any other.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$HOME/.cargo/bin:$PATH"
node scripts/build.mjs
cargo build -p memdir-component --target wasm32-wasip2 --profile release-wasm
cargo clippy -p memdir-python --all-targets -- -D warnings

export MEMDIR_PYTHON_SUITE=1
t0=$(date +%s)
rm -rf .venv
block=$(awk '/^<!-- checked: python-install -->$/ { getline; inside = 1; next } inside && /^```$/ { exit } inside { print }' README.md)
[ -n "$block" ] || { echo "README.md has no checked python-install block" >&2; exit 1; }
while IFS= read -r line; do
  line=${line%%#*}
  [ -n "${line// }" ] || continue
  echo "+ $line"
  sh -c "$line"
done <<< "$block"
t1=$(date +%s)
.venv/bin/pip install -q --disable-pip-version-check pytest
status=0
.venv/bin/python -m pytest -q -p no:cacheprovider python/tests || status=$?
echo "python suite: wheel built and installed in $((t1 - t0))s, tests in $(( $(date +%s) - t1 ))s; wheel $(du -k python/dist/*.whl | cut -f1) KiB"
# 5: pytest collected no test; that is a failure here, not a pass.
[ "$status" = 0 ] || { echo "pytest exited $status" >&2; exit 1; }
