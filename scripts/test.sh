#!/usr/bin/env bash
# Every memdir test suite, in order: the engine (10), Node (20), the wasmtime
# component and host (30), the Python package (35), the browser (40), the edge (50), the packed tarball
# installed and run on all three JS runtimes (60). Each suite is one file
# in scripts/test.d/ and can be run alone. `npm test` runs this; run
# scripts/setup.sh once first on a fresh machine. Suites name their test files by a
# shell glob, never a directory: Node 21 and later take `node --test DIR` as a module.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
start=$(date +%s)
summary=()
for suite in scripts/test.d/*.sh; do
  name=$(basename "$suite" .sh)
  echo "::: $name"
  t0=$(date +%s)
  bash "$suite"
  summary+=("$name $(( $(date +%s) - t0 ))s")
done
echo "::: all suites passed in $(( $(date +%s) - start ))s: ${summary[*]}"
