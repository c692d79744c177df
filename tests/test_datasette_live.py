"""`docql-sqlite serve` as a user runs it: a live Datasette on 127.0.0.1 (a subprocess on
a free port, HTTP through urllib), the same server without pysqlite3 (vectors unavailable
in the SQL editor, every page still up), and the DocQL page in a real headless Chromium.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import docql_sqlite

pytest.importorskip(
    "datasette", reason="Datasette is not installed: pip install 'docql-sqlite[datasette]'"
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from datasette_corpus import build, checksum  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
CLI = REPO / ".venv" / "bin" / "docql-sqlite"
PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY")
# No proxy may come between the tests and 127.0.0.1.
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in PROXY_VARIABLES}
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
    return env


@dataclass
class Server:
    url: str
    process: subprocess.Popen[str]
    log: Path

    def get(self, path: str, **params: Any) -> tuple[int, str]:
        if params:
            path += "?" + urllib.parse.urlencode(params)
        try:
            with OPENER.open(self.url + path, timeout=30) as response:
                return response.status, response.read().decode("utf-8")
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode("utf-8")

    def json(self, path: str, **params: Any) -> Any:
        status, text = self.get(path, **params)
        assert status == 200, text[:500]
        return json.loads(text)


def start(command: list[str], port: int, log: Path) -> Server:
    """Start a server and wait (bounded) until /-/versions answers."""
    with open(log, "w") as sink:
        process = subprocess.Popen(
            command, stdout=sink, stderr=subprocess.STDOUT, text=True, env=clean_env()
        )
    server = Server(f"http://127.0.0.1:{port}", process, log)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"server exited {process.returncode}: {log.read_text()}")
        try:
            if server.get("/-/versions.json")[0] == 200:
                return server
        except OSError:
            pass
        time.sleep(0.2)
    stop(server)
    raise AssertionError(f"server did not answer within 90 s: {log.read_text()}")


def stop(server: Server) -> None:
    server.process.terminate()
    try:
        server.process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait(timeout=15)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(tmp_path_factory.mktemp("live"))


@pytest.fixture(scope="module")
def served(corpus: Path) -> Iterator[Server]:
    port = free_port()
    server = start(
        [str(CLI), "serve", str(corpus), "--port", str(port)], port, corpus.parent / "serve.log"
    )
    yield server
    stop(server)


# -- the live server ---------------------------------------------------------------------
def test_serve_runs_datasette_with_the_plugin_on_127_0_0_1(served: Server, corpus: Path) -> None:
    versions = served.json("/-/versions.json")
    assert versions["sqlite"]["version"].startswith("3.")
    plugins = {p["name"] for p in served.json("/-/plugins.json")}
    assert "docql-sqlite" in plugins
    assert f"DocQL page: {served.url}/-/docql" in served.log.read_text()
    rows = served.json("/index.json", sql="select vec_version() as v, docql_rrf(1) as r")["rows"]
    assert rows[0][0].startswith("v0.") and rows[0][1] == pytest.approx(1 / 61)
    # Bound to the loopback interface only.
    assert "Uvicorn running on http://127.0.0.1:" in served.log.read_text()


def test_live_docql_page_and_location_view(served: Server, corpus: Path) -> None:
    with docql_sqlite.open(corpus) as index:
        expected = index.query("$.toc[?(@.level==1)]", limit=100)
        excerpt = index.get(expected[0]["location"])
    status, text = served.get("/-/docql", q="$.toc[?(@.level==1)]")
    assert status == 200
    assert f'data-count="{len(expected)}"' in text
    for item in expected:
        assert f">{item['location']}</a>" in text
    status, text = served.get("/index/-/docql/get", location=expected[0]["location"])
    assert status == 200
    assert text.count('<td class="n">') == len(excerpt.lines)


def test_live_server_with_an_allow_block_obeys_it(corpus: Path, tmp_path: Path) -> None:
    """`serve DB -m metadata.json` passes Datasette's own options on; an `allow` block
    then closes every DocQL page to an anonymous visitor and opens it to the actor."""
    metadata = tmp_path / "metadata.json"
    metadata.write_text(json.dumps({"databases": {"index": {"allow": {"id": "admin"}}}}))
    port, secret = free_port(), "live-test-secret"
    server = start(
        [str(CLI), "serve", str(corpus), "--port", str(port), "-m", str(metadata)]
        + ["--secret", secret],
        port,
        tmp_path / "serve.log",
    )
    try:
        from datasette.app import Datasette

        cookie = Datasette([], secret=secret).sign({"a": {"id": "admin"}}, "actor")
        for path, params in (
            ("/index", {}),
            ("/-/docql", {"q": "$.toc"}),
            ("/-/docql", {"search": "install", "mode": "bm25"}),
            ("/index/-/docql", {"q": '$.content.grep("TODO")'}),
            ("/-/docql/get", {"location": "docs/guide.md:1-5"}),
            ("/index/-/docql/get", {"location": "docs/guide.md:1-5"}),
        ):
            status, text = server.get(path, **params)
            assert status == 403, (path, params, text[:300])
            assert "lumen" not in text.lower()  # nothing of the indexed text
            url = server.url + path + "?" + urllib.parse.urlencode(params)
            request = urllib.request.Request(url, headers={"Cookie": f"ds_actor={cookie}"})
            with OPENER.open(request, timeout=30) as response:
                assert response.status == 200, (path, params)
    finally:
        stop(server)


def test_live_server_leaves_the_file_unchanged(served: Server, corpus: Path) -> None:
    before = checksum(corpus)
    for params in (
        {"q": "'; DROP TABLE documents; --"},
        {"search": "x' OR 1=1; DELETE FROM chunks; --", "mode": "hybrid"},
        {"q": "$.toc", "limit": "1" + "0" * 40},
    ):
        assert served.get("/-/docql", **params)[0] in (200, 400)
    assert served.get("/index.json", sql="delete from documents")[0] in (400, 403)
    assert served.get("/-/docql/get", location="../secret.txt")[0] == 404
    assert checksum(corpus) == before


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda root: root / "missing.db", "error: no index at"),
        (lambda root: _write(root / "notes.txt", "hello"), "is not a SQLite database"),
    ],
)
def test_serve_refuses_what_is_not_an_index(tmp_path: Path, make: Any, message: str) -> None:
    target = make(tmp_path)
    run = subprocess.run(
        [str(CLI), "serve", str(target), "--port", str(free_port())],
        capture_output=True,
        text=True,
        timeout=60,
        env=clean_env(),
    )
    assert run.returncode == 2  # a database that is not an index: exit 2 (issue 8, item 11)
    assert message in run.stderr and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert not (tmp_path / "missing.db").exists()  # not created on the way


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_serve_without_the_extra_says_how_to_install_it(corpus: Path) -> None:
    # Datasette made unimportable, as on an installation without the extra.
    script = (
        "import sys; sys.modules['datasette'] = None; "
        "from docql_sqlite.cli import main; sys.argv[0] = 'docql-sqlite'; main()"
    )
    run = subprocess.run(
        [sys.executable, "-c", script, "serve", str(corpus)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 1
    assert run.stderr.strip() == (
        "error: serve needs Datasette: pip install 'docql-sqlite[datasette]'"
    )


HIDE_PYSQLITE3 = (
    "import sys; sys.modules['pysqlite3'] = None; "
    "from docql_sqlite.cli import main; sys.argv[0] = 'docql-sqlite'; main()"
)


def _stdlib_loads_extensions() -> bool:
    import sqlite3

    return hasattr(sqlite3.Connection, "enable_load_extension")


def test_without_pysqlite3_pages_work_and_say_why_vectors_are_missing(
    corpus: Path, tmp_path: Path
) -> None:
    """Python's own sqlite3 here cannot load extensions; Datasette falls back to it when
    pysqlite3 is missing. On an index without vectors no page may fail, and the DocQL page
    says why vector SQL is off."""
    if _stdlib_loads_extensions():
        pytest.skip("this Python's sqlite3 can load extensions: nothing to fall back from")
    db = tmp_path / "novectors.db"
    with contextlib.chdir(corpus.parent):
        docql_sqlite.index(db, ["docs"])
    port = free_port()
    server = start(
        [sys.executable, "-c", HIDE_PYSQLITE3, "serve", str(db), "--port", str(port)],
        port,
        tmp_path / "serve.log",
    )
    try:
        status, text = server.get("/-/docql")
        assert status == 200
        assert "docql-vec-unavailable" in text
        assert "cannot load extensions; install pysqlite3-binary" in text
        for path in ("/", "/novectors", "/novectors/documents", "/novectors/docql_errors"):
            assert server.get(path)[0] == 200, path
        assert server.get("/-/docql/get", location="docs/guide.md:1-2")[0] == 200
        assert server.get("/-/docql", q="$.toc", search="install")[0] == 200
        # Our SQL functions are there; vector SQL is a 400 with SQLite's reason, not a 500.
        rows = server.json("/novectors.json", sql="select docql_rrf(1) as r")["rows"]
        assert rows[0][0] == pytest.approx(1 / 61)
        status, text = server.get("/novectors.json", sql="select vec_version()")
        assert status == 400 and "no such function: vec_version" in text
    finally:
        stop(server)


def test_without_pysqlite3_an_index_with_vectors_is_refused_clearly(corpus: Path) -> None:
    """Datasette describes every table, and a vec0 table cannot be described without
    sqlite-vec: rather than pages that fail, one line that says what to install."""
    if _stdlib_loads_extensions():
        pytest.skip("this Python's sqlite3 can load extensions: nothing to fall back from")
    run = subprocess.run(
        [sys.executable, "-c", HIDE_PYSQLITE3, "serve", str(corpus), "--port", str(free_port())],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 1
    assert run.stderr.startswith("error: Datasette cannot read an index with vectors here: ")
    assert "install pysqlite3-binary" in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1


# -- headless Chromium ---------------------------------------------------------------------
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")


@pytest.fixture
def browser() -> Iterator[Any]:
    if not CHROMIUM or not CHROMEDRIVER:
        pytest.skip(
            "headless Chromium is not installed (Debian: apt-get install chromium "
            "chromium-driver; .ci/run does this as root)"
        )
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="docql-chromium-")
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-proxy-server",
        "--window-size=1280,900",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    saved = {k: os.environ.pop(k) for k in PROXY_VARIABLES if k in os.environ}
    os.environ["NO_PROXY"] = "127.0.0.1,localhost"
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()
        os.environ.update(saved)
        shutil.rmtree(profile, ignore_errors=True)


def test_docql_page_in_headless_chromium(
    browser: Any, served: Server, corpus: Path, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ready
    from selenium.webdriver.support.ui import WebDriverWait

    query = "$.toc[?(@.level<=2)]"
    with docql_sqlite.open(corpus) as index:
        expected = index.query(query, limit=100)
        first = index.get(expected[0]["location"])
    wait = WebDriverWait(browser, 30)

    # Type a query and submit it.
    browser.get(served.url + "/-/docql")
    box = wait.until(ready.presence_of_element_located((By.ID, "docql-q")))
    box.clear()
    box.send_keys(query)
    browser.find_element(By.ID, "docql-run").click()
    wait.until(ready.presence_of_element_located((By.CSS_SELECTOR, "table.docql-results")))
    assert urllib.parse.parse_qs(urllib.parse.urlparse(browser.current_url).query)["q"] == [query]

    # Read the rendered rows.
    header = [th.text for th in browser.find_elements(By.CSS_SELECTOR, "table.docql-results th")]
    rows = browser.find_elements(By.CSS_SELECTOR, "table.docql-results tbody tr")
    cells = [[td.text for td in row.find_elements(By.TAG_NAME, "td")] for row in rows]
    assert header == ["location"] + [c for c in expected[0] if c != "location"]  # link first
    assert [dict(zip(header, row))["location"] for row in cells] == [
        e["location"] for e in expected
    ]
    assert [dict(zip(header, row))["title"] for row in cells] == [e["title"] for e in expected]
    browser.save_screenshot(str(tmp_path / "docql-results.png"))

    # Follow a location link: the lines, from the index.
    browser.find_elements(By.CSS_SELECTOR, "a.docql-location")[0].click()
    heading = wait.until(ready.presence_of_element_located((By.ID, "docql-location")))
    assert heading.text == first.location
    lines = browser.find_elements(By.CSS_SELECTOR, "table.docql-lines td.line")
    assert [line.text for line in lines] == [text for _, text in first.lines]
    browser.save_screenshot(str(tmp_path / "docql-location.png"))

    # Back, then open the compiled SQL in Datasette's SQL editor: the same row count.
    browser.back()
    wait.until(ready.element_to_be_clickable((By.ID, "docql-open-sql"))).click()
    wait.until(ready.presence_of_element_located((By.CSS_SELECTOR, "textarea#sql-editor")))
    summary = browser.find_element(By.CSS_SELECTOR, "h3").text
    assert f"returning {len(expected)} rows" in summary, summary
    editor_rows = browser.find_elements(By.CSS_SELECTOR, "table.rows-and-columns tbody tr")
    assert len(editor_rows) == len(rows) == len(expected)
    browser.save_screenshot(str(tmp_path / "sql-editor.png"))
    for name in ("docql-results.png", "docql-location.png", "sql-editor.png"):
        assert (tmp_path / name).stat().st_size > 10_000
    print(f"screenshots in {tmp_path}")
