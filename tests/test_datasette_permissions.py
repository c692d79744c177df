"""The Datasette plugin obeys Datasette's permissions (issue 20, item 1).

Real `allow` / `allow_sql` blocks and settings, Datasette's own test client, an anonymous
visitor and a signed `ds_actor` cookie. Every route the plugin registers is in `CASES`
(a test fails when a new route is not), and each case is asked under every scenario by
both actors: the expected status follows from what the case needs (`view-database`, or
`execute-sql` too) and whom the scenario allows it.
"""

from __future__ import annotations

import asyncio
import re
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import docql_sqlite

datasette_app = pytest.importorskip(
    "datasette.app", reason="Datasette is not installed: pip install 'docql-sqlite[datasette]'"
)
from datasette.plugins import pm  # noqa: E402

from docql_sqlite import datasette_plugin  # noqa: E402

SECRET_DB = "secretdocs"
PUBLIC_DB = "publicdocs"
MARKER = "RESTRICTEDMARKER7f3a"  # a word only the restricted index holds
ADMIN = {"id": "admin"}
ANONYMOUS = None

VIEW, SQL = "view-database", "execute-sql"


@dataclass(frozen=True)
class Case:
    name: str
    path: str  # "{db}" is the restricted database
    params: dict[str, str]
    needs: str  # VIEW or SQL
    shows_marker: bool = False  # an allowed actor sees the restricted text


CASES = [
    Case("instance page", "/-/docql", {}, VIEW),
    Case("instance page: search", "/-/docql", {"search": "WAL", "mode": "bm25"}, VIEW, True),
    Case("instance page: DocQL", "/-/docql", {"q": '$.content.grep("WAL")'}, SQL, True),
    Case("instance lines", "/-/docql/get", {"location": "README.md:1-5"}, VIEW, True),
    Case("database page", "/{db}/-/docql", {}, VIEW),
    Case("database page: search", "/{db}/-/docql", {"search": MARKER}, VIEW, True),
    Case("database page: DocQL", "/{db}/-/docql", {"q": "$.toc"}, SQL),
    Case("database page: SQL", "/{db}/-/docql", {"q": "$.files", "limit": "5"}, SQL),
    Case("database lines", "/{db}/-/docql/get", {"location": "README.md:1-5"}, VIEW, True),
    # The canned queries the plugin adds: Datasette's view-query rules (no execute-sql).
    Case("canned query", "/{db}/docql_outline", {"path": "README.md"}, VIEW),
    Case("canned query json", "/{db}/docql_errors.json", {}, VIEW),
]


@dataclass(frozen=True)
class Scenario:
    name: str
    config: dict[str, Any]
    settings: dict[str, Any]
    view: tuple[Any, ...]  # actors who may view the restricted database
    sql: tuple[Any, ...]  # actors who may also execute SQL on it


def _db(config: dict[str, Any]) -> dict[str, Any]:
    return {"databases": {SECRET_DB: config}}


SCENARIOS = [
    Scenario("database allow", _db({"allow": ADMIN}), {}, (ADMIN,), (ADMIN,)),
    Scenario("instance allow", {"allow": ADMIN}, {}, (ADMIN,), (ADMIN,)),
    Scenario("database allow_sql", _db({"allow_sql": ADMIN}), {}, (ANONYMOUS, ADMIN), (ADMIN,)),
    Scenario("allow_sql false", _db({"allow_sql": False}), {}, (ANONYMOUS, ADMIN), ()),
    Scenario("default_allow_sql off", {}, {"default_allow_sql": False}, (ANONYMOUS, ADMIN), ()),
    Scenario("open", {}, {}, (ANONYMOUS, ADMIN), (ANONYMOUS, ADMIN)),
]


# -- corpora and a Datasette per scenario ---------------------------------------------
def make_indexes(root: Path) -> dict[str, Path]:
    """The secret and the public index under `root` (the table-permission tests use them
    too)."""
    made = {}
    for name, text in (
        (SECRET_DB, f"# Secret manual\n\nThe WAL keeps {MARKER} writes safe.\n"),
        (PUBLIC_DB, "# Public guide\n\nThe WAL is explained here too.\n"),
    ):
        docs = root / name
        docs.mkdir()
        (docs / "README.md").write_text(text, encoding="utf-8")
        made[name] = root / f"{name}.db"
        docql_sqlite.index(made[name], [str(docs / "README.md")])
    return made


@pytest.fixture(scope="module")
def indexes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return make_indexes(tmp_path_factory.mktemp("permissions"))


class Client:
    """Datasette's test client, synchronous, as an anonymous visitor or a signed actor."""

    def __init__(self, files: list[Path], config: dict[str, Any], settings: dict[str, Any]):
        files_ = [str(f) for f in files]
        try:  # Datasette 1.0 reads permission blocks from `config=`
            self.ds = datasette_app.Datasette(files_, settings=settings, config=config)
        except TypeError:  # 0.65 from `metadata=`
            self.ds = datasette_app.Datasette(files_, settings=settings, metadata=config)
        self.loop = asyncio.new_event_loop()
        # Datasette 1.0 registers its actions at start-up; the hooks are called directly below.
        self.run(self.ds.invoke_startup())

    def cookies(self, actor: Any) -> dict[str, str]:
        if actor is None:
            return {}
        actor_cookie = getattr(self.ds.client, "actor_cookie", None)
        if actor_cookie is not None:  # Datasette 1.0
            return {"ds_actor": actor_cookie(actor)}
        return {"ds_actor": self.ds.sign({"a": actor}, "actor")}

    def get(self, url: str, actor: Any = None, /, **params: str) -> Any:
        if params:
            url += "?" + urllib.parse.urlencode(params)
        return self.run(self.ds.client.get(url, cookies=self.cookies(actor)))

    def run(self, awaitable: Any) -> Any:
        return self.loop.run_until_complete(awaitable)

    def close(self) -> None:
        for database in self.ds.databases.values():
            database.close()
        self.loop.close()


@pytest.fixture(scope="module", params=SCENARIOS, ids=lambda s: s.name)
def scenario(request: pytest.FixtureRequest, indexes: dict[str, Path]) -> Iterator[Any]:
    made = Client([indexes[SECRET_DB]], request.param.config, request.param.settings)
    yield request.param, made
    made.close()


def _path(case: Case) -> str:
    return case.path.replace("{db}", SECRET_DB)


def _label(actor: Any) -> str:
    return "anonymous" if actor is None else actor["id"]


# -- every route and case, under every scenario, for both actors ------------------------
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
@pytest.mark.parametrize("actor", [ANONYMOUS, ADMIN], ids=_label)
def test_every_route_asks_datasettes_permissions(
    scenario: tuple[Scenario, Client], case: Case, actor: Any
) -> None:
    rules, client = scenario
    allowed = actor in (rules.sql if case.needs == SQL else rules.view)
    response = client.get(_path(case), actor, **case.params)
    assert response.status_code == (200 if allowed else 403), (
        rules.name,
        _label(actor),
        case,
        response.text[:300],
    )
    if not allowed:
        assert MARKER not in response.text
        if not case.path.startswith("/{db}"):  # the instance pages name no database
            assert SECRET_DB not in response.text
    elif case.shows_marker:
        assert MARKER in response.text


def test_every_registered_route_is_in_the_table(indexes: dict[str, Path]) -> None:
    """A route added to `register_routes` without a row in `CASES` fails here."""
    client = Client([indexes[SECRET_DB]], {}, {})
    try:
        routes = datasette_plugin.register_routes(client.ds)
    finally:
        client.close()
    assert routes
    for pattern, view in routes:
        covering = [c for c in CASES if re.match(pattern, _path(c))]
        assert covering, f"route {pattern} ({view.__name__}) has no case in CASES"


# -- what the page shows without execute-sql -------------------------------------------
def test_without_execute_sql_the_page_has_no_query_box_and_no_sql(
    indexes: dict[str, Path],
) -> None:
    client = Client([indexes[SECRET_DB]], _db({"allow_sql": ADMIN}), {})
    try:
        anonymous = client.get(f"/{SECRET_DB}/-/docql", search="WAL", mode="bm25").text
        assert 'id="docql-no-sql"' in anonymous
        assert 'id="docql-q"' not in anonymous and "?q=" not in anonymous  # no form, no examples
        assert MARKER in anonymous  # search still works
        admin = client.get(f"/{SECRET_DB}/-/docql", ADMIN, q="$.toc").text
        assert 'id="docql-q"' in admin and 'id="docql-sql"' in admin
        assert 'id="docql-open-sql"' in admin
    finally:
        client.close()


# -- the instance page, menu links and database actions: nothing leaks ----------------
def test_instance_page_shows_only_databases_the_actor_may_view(
    indexes: dict[str, Path],
) -> None:
    client = Client([indexes[SECRET_DB], indexes[PUBLIC_DB]], _db({"allow": ADMIN}), {})
    try:
        for params in (
            {},
            {"q": '$.content.grep("WAL")'},
            {"search": "WAL", "mode": "bm25"},
            {"search": MARKER, "mode": "bm25"},
        ):
            response = client.get("/-/docql", **params)
            assert response.status_code == 200, params
            assert f"DocQL on {PUBLIC_DB}" in response.text  # the one it may view
            assert SECRET_DB not in response.text, params
            typed = response.text.replace(f'value="{MARKER}"', "")  # the search box echoes it
            assert MARKER not in typed, params
        lines = client.get("/-/docql/get", location="README.md:1-5")
        assert lines.status_code == 200 and "Public guide" in lines.text
        assert MARKER not in lines.text and SECRET_DB not in lines.text
        # The permitted actor chooses between both.
        chooser = client.get("/-/docql", ADMIN, q="$.toc")
        assert chooser.status_code == 200
        assert f"/{SECRET_DB}/-/docql?q=" in chooser.text
        assert f"/{PUBLIC_DB}/-/docql?q=" in chooser.text
    finally:
        client.close()


@pytest.mark.parametrize(
    "config, anonymous_link",
    [
        (_db({"allow": ADMIN}), False),  # the only index is hidden: no link
        ({"allow": ADMIN}, False),
        (_db({"allow_sql": ADMIN}), True),  # search is still open to everyone
        ({}, True),
    ],
    ids=["database allow", "instance allow", "allow_sql", "open"],
)
def test_menu_link_only_for_actors_who_may_open_it(
    indexes: dict[str, Path], config: dict[str, Any], anonymous_link: bool
) -> None:
    client = Client([indexes[SECRET_DB]], config, {})
    try:

        async def links(actor: Any) -> list[dict[str, str]]:
            found: list[dict[str, str]] = []
            for hook in pm.hook.menu_links(datasette=client.ds, actor=actor, request=None):
                found += await hook() if callable(hook) else (await hook if hook else [])
            return found

        def has_link(actor: Any) -> bool:
            return any(link["href"] == "/-/docql" for link in client.run(links(actor)))

        assert has_link(ANONYMOUS) is anonymous_link
        assert has_link(ADMIN) is True
        # And on a page Datasette renders (its index page, when the actor may see it).
        home = client.get("/")
        if home.status_code == 200:
            assert ('href="/-/docql"' in home.text) is anonymous_link
        assert 'href="/-/docql"' in client.get("/", ADMIN).text
    finally:
        client.close()


@pytest.mark.parametrize(
    "config, anonymous_label, admin_label",
    [
        (_db({"allow": ADMIN}), None, "Query with DocQL"),
        ({"allow": ADMIN}, None, "Query with DocQL"),
        (_db({"allow_sql": ADMIN}), "Search with DocQL", "Query with DocQL"),
        (_db({"allow_sql": False}), "Search with DocQL", "Search with DocQL"),
        ({}, "Query with DocQL", "Query with DocQL"),
    ],
    ids=["database allow", "instance allow", "allow_sql", "allow_sql false", "open"],
)
def test_database_action_only_for_actors_who_may_open_it(
    indexes: dict[str, Path],
    config: dict[str, Any],
    anonymous_label: str | None,
    admin_label: str,
) -> None:
    client = Client([indexes[SECRET_DB]], config, {})
    try:

        async def actions(actor: Any) -> list[str]:
            found: list[str] = []
            for hook in pm.hook.database_actions(
                datasette=client.ds, actor=actor, database=SECRET_DB, request=None
            ):
                got = await hook() if callable(hook) else hook
                found += [a["label"] for a in got or [] if a["href"].endswith("/-/docql")]
            return found

        assert client.run(actions(ANONYMOUS)) == ([anonymous_label] if anonymous_label else [])
        assert client.run(actions(ADMIN)) == [admin_label]
        page = client.get(f"/{SECRET_DB}", ADMIN)
        assert page.status_code == 200 and admin_label in page.text
    finally:
        client.close()
