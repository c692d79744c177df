#!/usr/bin/env bash
# Build the sdist and wheel, install the wheel (with the mcp, datasette and sqlite-utils
# extras) into a fresh venv OUTSIDE the repository, and use it there the way a user would:
# index, query, search, get, an MCP initialize + tools/list over stdio with the SDK
# client, `datasette plugins`, `sqlite-utils plugins`. A packaging break (a missing sql/
# file, a template, an entry point) fails here even when the editable install works.
#
#   scripts/wheel_smoke.sh [PYTHON]     PYTHON: an interpreter with `build` (default: .venv's)
#
# Every step prints one line; the first failure stops the script with its output and exit 1.
set -euo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"
PYTHON="${1:-$REPO/.venv/bin/python}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/docql-wheel-smoke.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
case "$WORK" in "$REPO"/*) echo "wheel smoke: $WORK is inside the repository" >&2; exit 1 ;; esac

step() { echo "wheel smoke: $*" >&2; }
fail() { echo "wheel smoke FAILED: $*" >&2; exit 1; }
# run NAME CMD...: run CMD, keep its output, and on failure print it and stop.
run() {
  local name="$1"; shift
  local status=0
  "$@" >"$WORK/out" 2>"$WORK/err" || status=$?
  if [ "$status" -ne 0 ]; then
    cat "$WORK/out" "$WORK/err" >&2
    fail "$name (exit status $status)"
  fi
}

step "building the sdist and wheel"
run "python -m build" "$PYTHON" -m build --outdir "$WORK/dist" "$REPO"
WHEEL="$(ls "$WORK"/dist/docql_sqlite-*.whl)"
SDIST="$(ls "$WORK"/dist/docql_sqlite-*.tar.gz)"
# (the listings go to variables first: `grep -q` exiting early would fail the pipe)
listing="$(unzip -Z1 "$WHEEL")"
grep -qx 'docql_sqlite-[^/]*\.dist-info/licenses/LICENSE' <<<"$listing" || fail "no LICENSE in $WHEEL"
grep -qx 'docql_sqlite/sql/001_init.sql' <<<"$listing" || fail "no sql/ files in $WHEEL"
listing="$(tar tzf "$SDIST")"
grep -qx 'docql_sqlite-[^/]*/LICENSE' <<<"$listing" || fail "no LICENSE in $SDIST"

step "installing $(basename "$WHEEL")[mcp,datasette,sqlite-utils] into a fresh venv"
run "python -m venv" "$PYTHON" -m venv "$WORK/venv"
BIN="$WORK/venv/bin"
run "pip install" "$BIN/python" -m pip install --quiet "$WHEEL[mcp,datasette,sqlite-utils]"
# From here on nothing may come from the repository: run in the scratch directory, and
# make sure the package is the installed one.
cd "$WORK"
export PYTHONNOUSERSITE=1
unset PYTHONPATH
where="$("$BIN/python" -c 'import docql_sqlite; print(docql_sqlite.__file__)')"
case "$where" in "$WORK/venv/"*) ;; *) fail "docql_sqlite imported from $where, not the venv" ;; esac
version="$("$BIN/docql-sqlite" --version)"
step "$version"

step "index, query, search, get"
mkdir -p docs/guide docs/api
cp -r "$REPO/datasets/en/." docs/guide/
cp -r "$REPO/datasets/code/." docs/api/
run "index" "$BIN/docql-sqlite" index docs.db docs --json
grep -q '"added": [1-9]' out || fail "index added nothing: $(cat out)"
run "query" "$BIN/docql-sqlite" query docs.db '$.toc[?(@.level==1)].title' --json
grep -q 'Installing Lumen' out || fail "query found no titles: $(cat out)"
run "query --sql --inline" "$BIN/docql-sqlite" query docs.db '$.files' --sql --inline
run "search" "$BIN/docql-sqlite" search docs.db "install" --json -n 3
location="$("$BIN/python" -c 'import json,sys; print(json.load(open("out"))[0]["location"])')" \
  || fail "search found nothing: $(cat out)"
run "get $location" "$BIN/docql-sqlite" get docs.db "$location" --text
[ -s out ] || fail "get $location printed nothing"
run "toc" "$BIN/docql-sqlite" toc docs.db -t
run "status" "$BIN/docql-sqlite" status docs.db --json

step "a bare install never imports numpy (vectors are the 'vectors' extra)"
if "$BIN/python" -c 'import numpy' 2>/dev/null; then
  fail "numpy is installed by the base package and the mcp/datasette/sqlite-utils extras"
fi
if "$BIN/docql-sqlite" embed docs.db --model hash >out 2>err; then fail "embed ran without numpy"; fi
grep -q "docql-sqlite\[vectors\]" err || fail "embed without numpy: $(cat err)"
if grep -q Traceback err; then fail "embed without numpy printed a traceback: $(cat err)"; fi
run "search --mode hybrid (no vectors: bm25)" "$BIN/docql-sqlite" search docs.db install --mode hybrid --json

step "MCP: initialize + tools/list over stdio with the SDK client"
cat >mcp_smoke.py <<'PY'
import sys

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client


async def main(cli: str, db: str) -> None:
    params = StdioServerParameters(command=cli, args=["mcp", db])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            tools = sorted(tool.name for tool in (await session.list_tools()).tools)
    print(init.server_info.name, init.protocol_version, " ".join(tools))
    missing = {"docql_query", "search", "get", "toc", "context", "status"} - set(tools)
    if missing:
        sys.exit(f"tools missing: {sorted(missing)}")


anyio.run(main, sys.argv[1], sys.argv[2])
PY
run "mcp" timeout 120 "$BIN/python" mcp_smoke.py "$BIN/docql-sqlite" docs.db
step "  $(cat out)"

step "the Datasette and sqlite-utils plugins, found by entry point"
run "datasette plugins" "$BIN/datasette" plugins
grep -q '"name": "docql-sqlite"' out || fail "datasette plugins does not list docql-sqlite: $(cat out)"
grep -q '"templates": true' out || fail "the plugin's templates are not in the wheel: $(cat out)"
run "sqlite-utils plugins" "$BIN/sqlite-utils" plugins
grep -q '"name": "docql_sqlite"\|"name": "docql-sqlite"' out \
  || fail "sqlite-utils plugins does not list docql_sqlite: $(cat out)"
run "sqlite-utils docql" "$BIN/sqlite-utils" docql docs.db '$.files' --limit 1
step "ok"
