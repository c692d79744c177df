#!/usr/bin/env bash
# Fetch the real Markdown corpora used by benchmarks/ingest.py into a cache outside the repo.
#
#   benchmarks/fetch_corpora.sh [CACHE_DIR]     (default: ${DOCQL_CORPORA:-$HOME/.cache/docql-corpora})
#
# Debian packages, fetched with apt-get download (no install, no root needed for that
# part) and unpacked with dpkg -x:
#   nodejs-doc  → $CACHE/x/nodejs-doc/usr/share/doc/nodejs/api/*.md             (64 files, ~3.2 MB)
#   docker-doc  → $CACHE/x/docker-doc/usr/share/doc/docker-doc/**/*.md           (171 files, ~1.8 MB)
#   rust-src    → $CACHE/x/rust-src/usr/src/rustc-*/src/doc/**/*.md              (1,259 files, ~5.8 MB)
# Together: the "A6 mix" of notes/corpora.md, 1,494 files, ~10.8 MB. The .md.gz files in
# the doc packages are gunzipped. Re-running is cheap: packages already unpacked are kept.
# Prints the three corpus folders at the end (one per line) for scripts to pick up.
set -euo pipefail

CACHE=${1:-${DOCQL_CORPORA:-$HOME/.cache/docql-corpora}}
PACKAGES=(nodejs-doc docker-doc rust-src)
mkdir -p "$CACHE/debs" "$CACHE/x"
cd "$CACHE"

missing=()
for p in "${PACKAGES[@]}"; do
  [ -e "x/$p/.unpacked" ] || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "fetching: ${missing[*]} into $CACHE" >&2
  if ! (cd debs && apt-get download -q "${missing[@]}" >&2); then
    # A fresh machine has no package lists yet; apt-get update needs root.
    echo "apt-get download failed; running apt-get update once and retrying" >&2
    if [ "$(id -u)" -eq 0 ]; then apt-get update -q >&2; else sudo apt-get update -q >&2; fi
    (cd debs && apt-get download -q "${missing[@]}" >&2)
  fi
  for p in "${missing[@]}"; do
    deb=$(ls -t debs/"${p}"_*.deb | head -n 1)
    rm -rf "x/$p"
    mkdir -p "x/$p"
    dpkg -x "$deb" "x/$p"
    find "x/$p" -name '*.md.gz' -exec gunzip -f {} +
    touch "x/$p/.unpacked"
  done
fi

rust_doc=$(ls -d "$CACHE"/x/rust-src/usr/src/rustc-*/src/doc 2>/dev/null | head -n 1)
node_api="$CACHE/x/nodejs-doc/usr/share/doc/nodejs/api"
docker_doc="$CACHE/x/docker-doc/usr/share/doc/docker-doc"
for d in "$node_api" "$docker_doc" "$rust_doc"; do
  if [ -z "$d" ] || [ ! -d "$d" ]; then
    echo "expected corpus folder missing: '$d'" >&2
    exit 1
  fi
done

count=$(find "$node_api" "$docker_doc" "$rust_doc" -name '*.md' -type f | wc -l)
bytes=$(find "$node_api" "$docker_doc" "$rust_doc" -name '*.md' -type f -printf '%s\n' | awk '{s += $1} END {print s}')
echo "A6 mix: $count Markdown files, $bytes bytes" >&2
printf '%s\n' "$node_api" "$docker_doc" "$rust_doc"
