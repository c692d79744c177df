"""What a path says its file holds (`path_kinds`): the repository map lists tests and
examples after the code, and smart search counts a test's passages at a share."""

from __future__ import annotations

import pytest

from docql_sqlite.path_kinds import is_test, is_test_or_example


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
    ],
)
def test_a_path_says_test_or_example(path: str, test: bool, example: bool) -> None:
    assert is_test(path) is test
    assert is_test_or_example(path) is (test or example)
