#!/usr/bin/env bash
# pgvector (the `vector` extension) for the PostgreSQL server the tests start
# (scripts/setup.sh runs this after installing postgresql). The PostgreSQL store keeps
# its vectors in a halfvec column with an HNSW index where the extension exists, so
# its tests need one server with it (and start another without it).
#
# Debian bookworm ships no pgvector binary package for its PostgreSQL 15, so this
# builds Debian's own `pgvector` source package (from trixie, the first suite that has
# it; 0.8.0 builds against 15) with postgresql-server-dev-15: the source is fetched by
# apt from the mirror apt already uses, with a private apt state under target/ so the
# system's sources stay as they are, checked against the signed index, patched by
# dpkg-source (Debian's patch drops -march=native), compiled and installed into that
# server's extension directory. Where the distribution has a binary package for the
# server's major version (postgresql-NN-pgvector), that is installed instead.
#
# Safe to re-run: nothing is done when the server already has vector 0.8 or newer
# (halfvec came with 0.7.0, iterative index scans with 0.8.0; the store needs both).
set -euo pipefail
cd "$(dirname "$0")/../.."
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# The server the tests use: the newest major under /usr/lib/postgresql (as
# tests/node/pg-cluster.mjs picks it).
major=$(ls /usr/lib/postgresql 2>/dev/null | grep -E '^[0-9]+$' | sort -n | tail -1 || true)
[ -n "$major" ] || { echo "setup: pgvector: no PostgreSQL under /usr/lib/postgresql" >&2; exit 1; }
control=/usr/share/postgresql/$major/extension/vector.control
have=$(sed -n "s/^default_version = '\([0-9.]*\)'.*/\1/p" "$control" 2>/dev/null || true)
if [ -n "$have" ] && [ -e "/usr/lib/postgresql/$major/lib/vector.so" ] &&
  [ "$(printf '%s\n0.8.0\n' "$have" | sort -V | head -1)" = 0.8.0 ]; then
  exit 0
fi

t0=$(date +%s)
if apt-cache show "postgresql-$major-pgvector" >/dev/null 2>&1; then
  echo "setup: postgresql-$major-pgvector (Debian)"
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "postgresql-$major-pgvector" >/dev/null
  exit 0
fi

echo "setup: pgvector for PostgreSQL $major, built from Debian's source package"
as_root apt-get update -qq
DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends \
  "postgresql-server-dev-$major" make gcc dpkg-dev >/dev/null

# The mirror apt fetches Debian's packages from (the archive's main component), so
# the source comes from the same place and under the same archive key.
# `apt-cache policy` lists each index's URI, then its release line (label Debian, not
# Debian-Security, whose archive holds no sources of this kind).
mirror=$(apt-cache policy | awk '$2 ~ /^https?:\/\// && $3 ~ /\/main$/ { uri = $2; next } uri && /l=Debian,/ { print uri; exit } { uri = "" }')
[ -n "$mirror" ] || { echo "setup: pgvector: apt has no Debian mirror configured" >&2; exit 1; }
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

state=$PWD/target/pgvector-apt
rm -rf "$state"
mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$state/src"
echo "deb-src [signed-by=$keyring] $mirror trixie main" >"$state/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$state/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$state/lists" -o "Dir::Cache=$state/cache")
# apt drops to the _apt user to download; the private state is root's.
[ "$(id -u)" = 0 ] && apt_opts+=(-o APT::Sandbox::User=root)
apt-get "${apt_opts[@]}" -qq update
(cd "$state/src" && apt-get "${apt_opts[@]}" -qq source --download-only pgvector >/dev/null)
dsc=$(ls "$state"/src/pgvector_*.dsc)
dpkg-source -x "$dsc" "$state/src/pgvector" >/dev/null 2>&1 || {
  echo "setup: pgvector: dpkg-source could not unpack $(basename "$dsc")" >&2
  exit 1
}
# with_llvm=no: no JIT bitcode, so clang is not needed.
make -s -C "$state/src/pgvector" -j2 PG_CONFIG="/usr/lib/postgresql/$major/bin/pg_config" with_llvm=no >/dev/null
as_root make -s -C "$state/src/pgvector" PG_CONFIG="/usr/lib/postgresql/$major/bin/pg_config" with_llvm=no install >/dev/null
rm -rf "$state"
echo "setup: pgvector $(sed -n "s/^default_version = '\([0-9.]*\)'.*/\1/p" "$control") installed in $(($(date +%s) - t0))s"
