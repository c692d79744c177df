"""What a file's path says it holds: tests, examples, release notes, build settings.

Read by the repository map (tests and examples use the API: their votes count, they are
listed after the code) and by smart search (a test is seldom the answer to a question
that does not ask for tests). Paths as stored: `/`-separated.
"""

from __future__ import annotations

import functools
import posixpath
import re

# Directories that hold tests. (`testing` is no such directory: Go's `testing` package is
# library code.)
TEST_DIRECTORIES = frozenset({"test", "tests", "testdata", "__tests__"})
EXAMPLE_DIRECTORIES = frozenset({"example", "examples", "_examples"})
# A test file's own name: `foo_test.go`, `test_foo.py`, `foo.spec.ts`, `foo.test.js`,
# `FooTest.java`, `FooTests.cs` (a capital after a lower-case letter or a digit:
# `Contest.java`, `Latest.kt` are not tests), `tests.rs` (a Rust module's `mod tests`, a
# Django app's `tests.py`; not `test.py`: Django's `test` command, `messages/test.py`).
_TEST_STEM = re.compile(r"^test_|^tests$|(?:_tests?|\.test|\.spec)$|[a-z0-9]Tests?$")
# Test files by their extension: Perl's `t/basic.t`. (RSpec's `request_spec.rb` by its
# name, `is_test`: a `_spec` document elsewhere may be a specification.)
_TEST_EXTENSIONS = frozenset({".t"})


@functools.lru_cache(maxsize=131072)  # pure; asked for the same few thousand paths
def is_test(path: str) -> bool:
    """A test: its name says so, or a directory on its way is a test directory."""
    parts = path.split("/")
    stem, extension = posixpath.splitext(parts[-1])
    return (
        _TEST_STEM.search(stem) is not None
        or not TEST_DIRECTORIES.isdisjoint(parts[:-1])
        or extension in _TEST_EXTENSIONS
        or (extension == ".rb" and stem.endswith("_spec"))
    )


@functools.lru_cache(maxsize=131072)
def is_test_or_example(path: str) -> bool:
    """A test (`is_test`) or a file under an examples directory."""
    return is_test(path) or not EXAMPLE_DIRECTORIES.isdisjoint(path.split("/")[:-1])


# Directories of code that serves tests (fixtures, assertions, test runners' plugins):
# SQLAlchemy's `lib/sqlalchemy/testing/`, numpy's `numpy/testing/`, pandas' `_testing/`,
# Go's `testing` package. Library code, so no tests (`is_test`), but what a test calls:
# a repository map lists it after the code it tests.
TEST_SUPPORT_DIRECTORIES = frozenset(
    {"testing", "_testing", "testutils", "test_utils", "testlib", "testsupport", "test_support"}
)
_TEST_SUPPORT_FILES = frozenset({"conftest.py"})


@functools.lru_cache(maxsize=131072)
def is_test_support(path: str) -> bool:
    """Code that serves tests: under a `TEST_SUPPORT_DIRECTORIES` directory, or a
    pytest `conftest.py`."""
    parts = path.split("/")
    return parts[-1] in _TEST_SUPPORT_FILES or not TEST_SUPPORT_DIRECTORIES.isdisjoint(parts[:-1])


# Release notes and changelogs: a file's own name (`CHANGELOG.md`, `CHANGES.rst`,
# `HISTORY.md`, `NEWS`, `RELEASES.md`, `release-notes.md`, `whatsnew.rst`, Node's
# `CHANGELOG_V18.md`, PostgreSQL's `release-15-1.html`) or a directory on its way
# (Django's `docs/releases/4.2.txt`, Python's `whatsnew/3.11.rst`, git's
# `RelNotes/2.40.0.txt`, towncrier's `changelog.d/`; Sphinx's `changes/1.5.rst`).
# `HISTORY`, `CHANGES`, `NEWS` and `RELEASES` only in capitals, as projects name their
# changelogs: docker's `commandline/history.md` documents the `docker history` command.
# Debian's own (`changelog.Debian.gz`, `NEWS.Debian.gz`, a binNMU's
# `changelog.Debian.amd64.gz`) are read through their compression suffix.
_NOTES_STEM = re.compile(
    r"^(?:changelog|release[-_]?notes|whats[-_]?new|relnotes)(?:[-_.]?v?\d[\w.-]*|\.debian)?$"
    r"|^release-\d[\d.-]*$",
    re.IGNORECASE,
)
_COMPRESSION_SUFFIX = re.compile(r"\.(?:gz|bz2|xz)$")  # `index --decompress` reads inside
_NOTES_CAPITAL_STEM = re.compile(r"^(?:HISTORY|History|CHANGES|NEWS|RELEASES)$")
NOTES_DIRECTORIES = frozenset(
    {"releases", "release-notes", "release_notes", "changelog", "changelogs", "changelog.d"}
    | {"whatsnew", "relnotes", "newsfragments"}
)
# Directories whose files named by a version are release notes (Sphinx's
# `doc/changes/1.5.rst`); other files there may document a topic of that name.
_VERSION_NOTES_DIRECTORIES = frozenset({"changes", "news", "history"})
_VERSION_STEM = re.compile(r"^(?:v\d+(?:\.\d+)*|\d+(?:\.\d+)+)(?:\.x)?$", re.IGNORECASE)


@functools.lru_cache(maxsize=131072)
def is_release_notes(path: str) -> bool:
    """Release notes or a changelog (`_NOTES_STEM`, `NOTES_DIRECTORIES`)."""
    parts = path.split("/")
    stem = posixpath.splitext(_COMPRESSION_SUFFIX.sub("", parts[-1]))[0]
    if _NOTES_STEM.match(stem) or _NOTES_CAPITAL_STEM.match(stem):
        return True
    if (
        len(parts) > 1
        and parts[-2].lower() in _VERSION_NOTES_DIRECTORIES
        and _VERSION_STEM.match(stem)
    ):
        return True
    return any(part.lower() in NOTES_DIRECTORIES for part in parts[:-1])


# Build files named without an extension (or before their first dot: `Dockerfile.dev`),
# indexed as text (`ingest.formats`): how a project is built and shipped.
BUILD_NAMES = frozenset(
    {"makefile", "gnumakefile", "dockerfile", "containerfile", "jenkinsfile", "procfile",
     "justfile"}
)  # fmt: skip

# A project's build and tool settings: `pyproject.toml`, `setup.cfg`, `tox.ini`,
# `Cargo.lock`, `requirements.txt`, `MANIFEST.in`, egg-info's `requires.txt`, and its build
# files (`BUILD_NAMES`). Not prose: smart search counts their passages as code's in a
# question asking for prose (Sphinx's `pyproject.toml` came first for "how to enable
# autodoc for my module": coverage and mypy settings hold "enable", "module" and
# "autodoc"; typer's Dockerfile third for "how do I add a subcommand": "# Add Fish").
_SETTINGS_SUFFIXES = (".toml", ".ini", ".cfg", ".lock")
_SETTINGS_NAMES = frozenset({"manifest.in", "requires.txt", "requirements.txt", "pipfile"})
_REQUIREMENTS = re.compile(r"^requirements[-_.\w]*\.(?:txt|in)$")
# The suffixes of a page about a build file rather than one (`docs/dockerfile.md`).
_PAGES = frozenset({".md", ".markdown", ".rst", ".txt", ".html", ".adoc", ".org"})


@functools.lru_cache(maxsize=131072)
def is_settings(path: str) -> bool:
    """A build or tool settings file (`_SETTINGS_SUFFIXES`, `_SETTINGS_NAMES`,
    `BUILD_NAMES`)."""
    name = path.rpartition("/")[2].lower()
    return (
        name.endswith(_SETTINGS_SUFFIXES)
        or name in _SETTINGS_NAMES
        or _REQUIREMENTS.match(name) is not None
        or (name.partition(".")[0] in BUILD_NAMES and posixpath.splitext(name)[1] not in _PAGES)
    )


# A documentation generator's page of a source file, its code rendered as HTML: Doxygen's
# `SDL__render_8h_source.html` (`_8` stands for the dot), Javadoc's `src-html/`, Sphinx's
# viewcode pages under `_modules/`, rustdoc's `src/…/vec.rs.html`. Code, not prose:
# smart search counts their passages as code's in a question asking for prose (SDL's
# "how do I create a renderer" listed two header listings 3rd and 4th).
_SOURCE_LISTING = re.compile(
    r"_8\w+_source\.html?$|(?:^|/)src-html/.+\.html?$|(?:^|/)_modules/.+\.html?$"
    r"|(?:^|/)src/.+\.rs\.html$"
)


@functools.lru_cache(maxsize=131072)
def is_source_listing(path: str) -> bool:
    """A generated HTML page of a source file (`_SOURCE_LISTING`)."""
    return _SOURCE_LISTING.search(path) is not None


# A project's legal text: `LICENSE`, `LICENSE.md`, `LICENSE-MIT`, `COPYING.LESSER`,
# `NOTICE`, `PATENTS`. Smart search counts its passages at a share unless the query asks
# about licensing (`fusion.legal_share`): for "where are events sent to JavaScript" on
# expo-modules-core, whose only prose is a README, a changelog and its LICENSE, the
# documents channel ranked the MIT licence 4th, above the Swift event emitter.
_LEGAL_STEM = re.compile(r"^(?:(?:un)?licen[cs]e|copying|copyright)(?:[-.]|$)|^notice$|^patents$")
_LEGAL_SUFFIXES = frozenset({"", ".md", ".txt", ".rst", ".markdown", ".html", ".adoc"})


@functools.lru_cache(maxsize=131072)
def is_legal(path: str) -> bool:
    """A licence, copyright or patent notice file (`_LEGAL_STEM`): without a suffix or
    with a document's, or named in capitals (`LICENSE.APACHE2`, `LICENSE.python`)."""
    name = path.rpartition("/")[2]
    stem, suffix = posixpath.splitext(name)
    if not _LEGAL_STEM.match(stem.lower()):
        return False
    return suffix.lower() in _LEGAL_SUFFIXES or stem.isupper()


# Source a tool wrote from another file, by the names those tools give it: protocol
# buffers and gRPC (`model.pb.h`, `model.pb.cc`, `model.pb.go`, `model_pb2.py`,
# `model_pb2_grpc.py`, `model_pb.js`, `model.pb.swift`, `model.pb.dart`), SWIG's wrappers
# (`module_wrap.cxx`), Qt's moc and rcc (`moc_window.cpp`, `qrc_icons.cpp`; not uic's
# `ui_window.h`, a name people give their own headers), FlatBuffers
# (`schema_generated.h`), C#'s designers and source generators (`Form1.Designer.cs`,
# `Model.g.cs`), Dart's builders (`model.g.dart`, `model.freezed.dart`), Bison and Flex
# (`parse.tab.c`, `lex.yy.c`), Kubernetes' `zz_generated.deepcopy.go`, Thrift's `gen-cpp/`
# folders. Smart search counts its passages at a share unless the query asks about
# generated code (`fusion.generated_share`): on sentencepiece 0.2, "how are user defined
# symbols handled" found ten accessors of `sentencepiece_model.pb.h`
# (`user_defined_symbols_size()`, `add_user_defined_symbols()`, …) and not
# `model_interface.cc`, which handles them.
_GENERATED_NAME = re.compile(
    r"\.pb\.(?:h|cc|c|go|swift|dart|gw\.go)$|_pb2(?:_grpc)?\.pyi?$|_(?:grpc_)?pb\.(?:js|d\.ts)$"
    r"|\.(?:pbenum|pbjson|pbgrpc|pbserver)\.dart$|\.grpc\.swift$|_wrap\.(?:cxx|cpp|c)$"
    r"|^(?:moc|qrc)_\w+\.cpp$|_generated\.(?:h|rs|ts|go)$|\.designer\.cs$"
    r"|\.g\.(?:i\.)?cs$|\.(?:g|freezed)\.dart$|\.tab\.[ch]$|^lex\.yy\.c$|^zz_generated\.[\w.]+\.go$"
)


@functools.lru_cache(maxsize=131072)
def is_generated(path: str) -> bool:
    """Source a tool wrote (`_GENERATED_NAME`), or a file in Thrift's `gen-*` folders."""
    parts = path.split("/")
    return _GENERATED_NAME.search(parts[-1].lower()) is not None or any(
        part.startswith("gen-") and len(part) > 4 for part in parts[:-1]
    )


# A project's JSON manifests, indexed as text by name (`ingest/formats.py`; other JSON is
# data and stays out): what a code base is built and shipped with.
JSON_MANIFESTS = frozenset(
    {"package.json", "tsconfig.json", "jsconfig.json", "composer.json", "deno.json",
     "bower.json", "lerna.json", "nx.json", "turbo.json", "angular.json", "vercel.json",
     "app.json", "manifest.json"}
)  # fmt: skip


def is_manifest(path: str) -> bool:
    """A project manifest by its name (`JSON_MANIFESTS`), or a `tsconfig.*.json` variant."""
    name = path.rpartition("/")[2].lower()
    return name in JSON_MANIFESTS or (name.startswith("tsconfig.") and name.endswith(".json"))
