"""What a path says its file holds (`path_kinds`): the repository map lists tests and
examples after the code, and smart search counts a test's passages, and release notes',
at a share."""

from __future__ import annotations

import pytest

from docql_sqlite.path_kinds import (
    is_generated,
    is_legal,
    is_release_notes,
    is_settings,
    is_source_listing,
    is_test,
    is_test_or_example,
    is_test_support,
)


@pytest.mark.parametrize(
    ("path", "support"),
    [
        ("lib/sqlalchemy/testing/fixtures/base.py", True),  # SQLAlchemy's
        ("numpy/testing/_private/utils.py", True),
        ("pandas/_testing/asserters.py", True),
        ("src/testing/testing.go", True),  # Go's `testing` package
        ("tests/conftest.py", True),
        ("pkg/test_utils/helpers.py", True),
        ("lib/sqlalchemy/orm/session.py", False),
        ("src/testing.py", False),  # a module named so is the code under its name
        ("docs/testing.md", False),
        ("pkg/contesting/x.py", False),
    ],
)
def test_a_path_says_test_support(path: str, support: bool) -> None:
    assert is_test_support(path) is support


@pytest.mark.parametrize(
    "path, test, example",
    [
        ("src/black/linegen.py", False, False),
        ("tests/test_black.py", True, False),
        ("pkg/tests/helpers.py", True, False),  # a helper under tests/ is test code
        ("lib/test_utils.py", True, False),
        ("net/http/server_test.go", True, False),
        ("src/parser_tests.rs", True, False),
        ("alloc/src/collections/btree/map/tests.rs", True, False),  # `mod tests`
        ("app/tests.py", True, False),
        ("django/core/management/commands/test.py", False, False),  # the `test` command
        ("web/app.spec.ts", True, False),
        ("web/app.test.js", True, False),
        ("web/__tests__/app.js", True, False),
        ("src/main/java/org/FooTest.java", True, False),
        ("Lumen.Tests/ClientTests.cs", True, False),
        ("go/src/testdata/a.go", True, False),
        ("src/Contest.java", False, False),  # "test" inside a word is no test
        ("src/Latest.kt", False, False),
        ("src/testing/testing.go", False, False),  # Go's testing package is library code
        ("docs/testing.md", False, False),
        ("latest/notes.md", False, False),
        ("examples/basic.py", False, True),
        ("docs/_examples/a.rs", False, True),
        ("docs/examples.md", False, False),  # a page of examples is documentation
        ("spec/rack/request_spec.rb", True, False),  # RSpec's
        ("spec/spec_helper.rb", False, False),
        ("docs/image_spec.md", False, False),  # a specification
        ("t/01-basic.t", True, False),  # Perl's
        ("tests/Unit/ClientTest.php", True, False),
    ],
)
def test_a_path_says_test_or_example(path: str, test: bool, example: bool) -> None:
    assert is_test(path) is test
    assert is_test_or_example(path) is (test or example)


@pytest.mark.parametrize(
    "path, notes",
    [
        ("CHANGELOG.md", True),
        ("doc/changelogs/CHANGELOG_V18.md", True),  # Node's
        ("CHANGELOG", True),
        # Debian's, read by `index --decompress`
        ("usr/share/doc/curl/changelog.Debian.gz", True),
        ("usr/share/doc/python3-cffi/changelog.Debian.amd64.gz", True),  # a binNMU's
        ("usr/share/doc/apt/NEWS.Debian.gz", True),
        ("usr/share/doc/zlib/README.gz", False),
        ("docs/debian.md", False),
        ("CHANGES.rst", True),
        ("HISTORY.md", True),
        ("NEWS", True),
        ("RELEASES.md", True),  # Rust's
        ("docs/release-notes.md", True),  # starlette's
        ("RELEASE_NOTES.md", True),
        ("docs/releases/4.2.txt", True),  # Django's
        ("Doc/whatsnew/3.11.rst", True),  # Python's
        ("Documentation/RelNotes/2.40.0.txt", True),  # git's
        ("pgdoc/release-15-1.html", True),  # PostgreSQL's
        ("changelog.d/1234.feature.md", True),  # towncrier's fragments
        ("doc/changes/1.5.rst", True),  # Sphinx's: a version's file under changes/
        ("docs/news/v2.0.x.md", True),
        ("doc/changes/index.rst", False),  # the list of them
        ("docs/changes/workflow.md", False),  # a topic named "changes"
        ("history/1999.md", False),  # a year, no version
        ("reference/commandline/history.md", False),  # the `docker history` command
        ("docs/news.md", False),
        ("docs/changes.md", False),  # a page about changes, in lower case
        ("pgdoc/sql-release-savepoint.html", False),  # RELEASE SAVEPOINT
        ("docs/internals/release-process.txt", False),
        ("admin/templates/admin/object_history.html", False),
        ("src/release.rs", False),
    ],
)
def test_a_path_says_release_notes(path: str, notes: bool) -> None:
    assert is_release_notes(path) is notes


@pytest.mark.parametrize(
    "path, settings",
    [
        ("sphinx/pyproject.toml", True),  # came first for a how-to question on Sphinx
        ("setup.cfg", True),
        ("tox.ini", True),
        ("Cargo.lock", True),
        ("requirements-dev.txt", True),
        ("src/requests.egg-info/requires.txt", True),
        ("MANIFEST.in", True),
        ("scripts/docker/Dockerfile", True),  # typer's, third for "how do I add a subcommand"
        ("Dockerfile.dev", True),
        ("src/Makefile", True),
        ("docs/dockerfile.md", False),  # a page about them
        ("makefiles/README", False),
        ("docs/configuration.rst", False),  # the page that documents the settings
        ("docs/ref/models/constraints.txt", False),  # Django's page, not pip's file
        ("docs/requirements.md", False),
        ("src/config.py", False),
        ("notes.txt", False),
    ],
)
def test_a_path_says_build_settings(path: str, settings: bool) -> None:
    assert is_settings(path) is settings


@pytest.mark.parametrize(
    "path, listing",
    [
        ("html/d6/d30/_s_d_l__render_8h_source.html", True),  # Doxygen (SDL's)
        ("html/dc/d64/_s_d_l__video_8h.html", False),  # the header's reference page
        ("apidocs/src-html/org/apache/commons/lang3/ArrayUtils.html", True),  # Javadoc
        ("apidocs/org/apache/commons/lang3/ArrayUtils.html", False),
        ("html/_modules/flask/app.html", True),  # Sphinx's viewcode
        ("html/api.html", False),
        ("html/src/alloc/vec/mod.rs.html", True),  # rustdoc
        ("html/std/vec/struct.Vec.html", False),
        ("src/lib.rs", False),  # the source itself is code already
        ("docs/open_source.html", False),
    ],
)
def test_a_path_says_a_generated_source_listing(path: str, listing: bool) -> None:
    assert is_source_listing(path) is listing


@pytest.mark.parametrize(
    ("path", "legal"),
    [
        ("expo/package/LICENSE", True),
        ("LICENSE.md", True),
        ("LICENSE.txt", True),
        ("LICENSE-MIT", True),
        ("LICENCE", True),
        ("COPYING", True),
        ("COPYING.LESSER", True),
        ("NOTICE", True),
        ("PATENTS", True),
        ("UNLICENSE", True),
        ("django/LICENSE.python", True),  # a capitalised stem: any suffix
        ("docs/license.rst", True),  # a page about the licence
        ("src/license.py", False),  # code
        ("src/licenses/check.go", False),
        ("docs/notices.md", False),
        ("docs/copying_files.md", False),  # a page about copying files
        ("license_check.md", False),
        ("NOTICE_BOARD.md", False),
        ("README.md", False),
    ],
)
def test_a_path_says_legal_text(path: str, legal: bool) -> None:
    assert is_legal(path) is legal


@pytest.mark.parametrize(
    ("path", "generated"),
    [
        ("src/builtin_pb/sentencepiece_model.pb.h", True),
        ("src/builtin_pb/sentencepiece_model.pb.cc", True),
        ("api/v1/service.pb.go", True),
        ("api/v1/service.pb.gw.go", True),
        ("proto/model_pb2.py", True),
        ("proto/model_pb2_grpc.py", True),
        ("proto/model_pb2.pyi", True),
        ("web/model_pb.js", True),
        ("web/model_grpc_pb.js", True),
        ("python/sentencepiece_wrap.cxx", True),
        ("build/moc_window.cpp", True),
        ("schema/monster_generated.h", True),
        ("Forms/Form1.Designer.cs", True),
        ("Models/User.g.cs", True),
        ("lib/user.g.dart", True),
        ("lib/user.freezed.dart", True),
        ("src/parse.tab.c", True),
        ("src/lex.yy.c", True),
        ("pkg/apis/v1/zz_generated.deepcopy.go", True),
        ("gen-cpp/Service.cpp", True),
        ("src/protocol.h", False),
        ("src/wrap.c", False),  # no tool's name
        ("src/ui_helpers.h", False),  # uic's name, and people's
        ("src/model.proto", False),  # the source it is generated from
        ("docs/generated.md", False),
        ("src/generator.cc", False),
        ("src/pb.h", False),
        ("general/gen.go", False),
    ],
)
def test_a_path_says_generated_source(path: str, generated: bool) -> None:
    assert is_generated(path) is generated
