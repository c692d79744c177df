"""The Datasette plugin obeys table-level permissions too.

Datasette hides a table whose `allow` block excludes the actor (its page is a 403). The
DocQL pages read an index's tables as a whole (a search hit is a row of `chunks`, the
location view reads `documents`), so they showed a hidden table's text to an actor who
could view the database: an `allow` block on `chunks` hid the table, and the search box
and the location view still printed its passages. Now the pages, the plugin's canned
queries, the menu link and the database action need `view-table` on every table and view
of the index; each case below is asked by an anonymous visitor (denied) and by the
actor the blocks allow, with Datasette's own test client.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip(
    "datasette.app", reason="Datasette is not installed: pip install 'docql-sqlite[datasette]'"
)
from datasette.plugins import pm  # noqa: E402
from test_datasette_permissions import (  # noqa: E402
    ADMIN,
    ANONYMOUS,
    CASES,
    MARKER,
    PUBLIC_DB,
    SECRET_DB,
    Client,
    make_indexes,
)


def _tables(tables: dict[str, Any], **database: Any) -> dict[str, Any]:
    return {"databases": {SECRET_DB: {"tables": tables, **database}}}


ONLY_ADMIN = {"allow": ADMIN}
SCENARIOS = {
    # Datasette's documented way to protect a table: its allow block, and no SQL.
    "chunks, no sql": _tables({"chunks": ONLY_ADMIN}, allow_sql=ADMIN),
    "chunks": _tables({"chunks": ONLY_ADMIN}),
    "documents": _tables({"documents": ONLY_ADMIN}),
    "a view": _tables({"passages": ONLY_ADMIN}),
    "a hidden table": _tables({"chunks_fts_data": ONLY_ADMIN}),
    "denied to all": _tables({"sections": {"allow": False}}),
}


@pytest.fixture(scope="module")
def indexes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return make_indexes(tmp_path_factory.mktemp("table_permissions"))


@pytest.fixture(scope="module", params=list(SCENARIOS), ids=str)
def scenario(request: pytest.FixtureRequest, indexes: dict[str, Path]) -> Any:
    made = Client([indexes[SECRET_DB], indexes[PUBLIC_DB]], SCENARIOS[request.param], {})
    yield request.param, made
    made.close()


def _path(path: str) -> str:
    return path.replace("{db}", SECRET_DB)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_a_hidden_table_shows_through_no_route(scenario: tuple[str, Client], case: Any) -> None:
    name, client = scenario
    path = _path(case.path)
    instance = not case.path.startswith("/{db}")
    denied = client.get(path, ANONYMOUS, **case.params)
    # The instance pages fall back to the index the visitor may read; the canned queries
    # are not offered (Datasette's 404), every other route is a 403.
    assert denied.status_code in ((200,) if instance else (403, 404)), (name, case)
    assert MARKER not in denied.text.replace(f'value="{MARKER}"', ""), (name, case)
    if instance:
        assert SECRET_DB not in denied.text, (name, case)
    if name == "denied to all":
        return
    allowed = client.get(path, ADMIN, **case.params)
    if instance and "location" not in case.params and "q" not in case.params:
        # Two indexes for the admin: the chooser names both (with the query string).
        assert allowed.status_code == 200 and SECRET_DB in allowed.text, (name, case)
        return
    if instance:
        return  # the lines of README.md:1-5 in the chooser's sense: covered above
    sql_denied = name == "chunks, no sql" and case.needs == "execute-sql"
    assert allowed.status_code == 200 or sql_denied, (name, case, allowed.text[:300])
    if case.shows_marker:
        assert MARKER in allowed.text, (name, case)


def test_the_table_page_itself_is_hidden(scenario: tuple[str, Client]) -> None:
    """The premise: Datasette hides the table (or view) from the anonymous visitor."""
    name, client = scenario
    table = next(iter(SCENARIOS[name]["databases"][SECRET_DB]["tables"]))
    assert client.get(f"/{SECRET_DB}/{table}").status_code == 403
    if name != "denied to all":
        assert client.get(f"/{SECRET_DB}/{table}", ADMIN).status_code == 200


def test_menu_link_and_database_action_follow_the_tables(
    indexes: dict[str, Path],
) -> None:
    client = Client([indexes[SECRET_DB]], SCENARIOS["chunks"], {})
    try:

        async def hooks(actor: Any) -> tuple[list[str], list[str]]:
            links: list[str] = []
            for hook in pm.hook.menu_links(datasette=client.ds, actor=actor, request=None):
                got = await hook() if callable(hook) else hook
                links += [link["href"] for link in got or []]
            actions: list[str] = []
            for hook in pm.hook.database_actions(
                datasette=client.ds, actor=actor, database=SECRET_DB, request=None
            ):
                got = await hook() if callable(hook) else hook
                actions += [a["label"] for a in got or [] if a["href"].endswith("/-/docql")]
            return links, actions

        assert client.run(hooks(ANONYMOUS)) == ([], [])
        assert client.run(hooks(ADMIN)) == (["/-/docql"], ["Query with DocQL"])
    finally:
        client.close()
