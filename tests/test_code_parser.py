"""Tests for the code parser (`ingest/code.py`, `code_symbols.py`, `code_text.py`) and
`ingest/grammars.py`.

Symbol tables per language are table-driven; Python is also checked against the
standard library's own `ast` over a deterministic sample of stdlib files.
"""

from __future__ import annotations

import ast
import codecs
import hashlib
import sysconfig
import warnings
from collections import Counter
from pathlib import Path

import pytest

from docql_sqlite.errors import IngestError
from docql_sqlite.ingest import code, grammars
from docql_sqlite.ingest.code import parse, parse_code_text
from docql_sqlite.ingest.code_symbols import _query
from docql_sqlite.ingest.read import decode_text
from docql_sqlite.model import Document, Source


def _source(data: bytes, path: str = "src/x.py") -> Source:
    return Source(path=path, uri="/abs/" + path, data=data, sha256=hashlib.sha256(data).hexdigest())


def _symbols(document: Document) -> list[tuple]:
    return [
        (s.kind, s.name, s.qualified_name, s.line, s.end_line, s.parent) for s in document.symbols
    ]


def _by_name(document: Document, qualified_name: str):
    return next(s for s in document.symbols if s.qualified_name == qualified_name)


# language -> (snippet, [(kind, name, qualified_name, line, end_line, parent)])
CASES: dict[str, tuple[str, list[tuple]]] = {
    "python": (
        '''\
import functools


class Lexer:
    """Turns text into tokens."""

    class Token:
        pass

    @functools.cache
    def next(self, n: int = 1) -> "Token":
        def helper():
            return n
        return helper()


async def main():
    pass
''',
        [
            ("class", "Lexer", "Lexer", 4, 14, None),
            ("class", "Token", "Lexer.Token", 7, 8, "Lexer"),
            ("method", "next", "Lexer.next", 11, 14, "Lexer"),
            ("function", "helper", "Lexer.next.helper", 12, 13, "Lexer.next"),
            ("function", "main", "main", 17, 18, None),
        ],
    ),
    "javascript": (
        """\
// Shapes.
class Shape {
  constructor(name) {
    this.name = name;
  }

  area() {
    return 0;
  }
}

function make(kind) {
  return new Shape(kind);
}

const double = (x) => x * 2;
""",
        [
            ("class", "Shape", "Shape", 2, 10, None),
            ("constructor", "constructor", "Shape.constructor", 3, 5, "Shape"),
            ("method", "area", "Shape.area", 7, 9, "Shape"),
            ("function", "make", "make", 12, 14, None),
            ("function", "double", "double", 16, 16, None),
        ],
    ),
    "typescript": (
        """\
export interface Named {
  name(): string;
}

export enum Color {
  Red,
  Green,
}

export class Point implements Named {
  constructor(public x: number) {}

  name(): string {
    return "point";
  }
}

namespace Geo {
  export function origin(): Point {
    return new Point(0);
  }
}
""",
        [
            ("interface", "Named", "Named", 1, 3, None),
            ("method", "name", "Named.name", 2, 2, "Named"),
            ("enum", "Color", "Color", 5, 8, None),
            ("enum_member", "Red", "Color.Red", 6, 6, "Color"),
            ("enum_member", "Green", "Color.Green", 7, 7, "Color"),
            ("class", "Point", "Point", 10, 16, None),
            ("constructor", "constructor", "Point.constructor", 11, 11, "Point"),
            ("method", "name", "Point.name", 13, 15, "Point"),
            ("namespace", "Geo", "Geo", 18, 22, None),
            ("function", "origin", "Geo.origin", 19, 21, "Geo"),
        ],
    ),
    "tsx": (
        """\
import React from "react";

/** A button. */
export function Button(props: { label: string }) {
  return <button>{props.label}</button>;
}

export const Card = ({ title }: { title: string }) => {
  return <div className="card">{title}</div>;
};

class Panel extends React.Component<Props> {
  render() {
    return <section />;
  }
}
""",
        [
            ("function", "Button", "Button", 4, 6, None),
            ("function", "Card", "Card", 8, 10, None),
            ("class", "Panel", "Panel", 12, 16, None),
            ("method", "render", "Panel.render", 13, 15, "Panel"),
        ],
    ),
    "go": (
        """\
package stack

// Stack is a LIFO.
type Stack struct {
	items []int
}

type Sizer interface {
	Size() int
}

// Push adds v.
func (s *Stack) Push(v int) {
	s.items = append(s.items, v)
}

func New() *Stack {
	return &Stack{}
}
""",
        [
            ("struct", "Stack", "Stack", 4, 6, None),
            ("interface", "Sizer", "Sizer", 8, 10, None),
            ("method", "Size", "Sizer.Size", 9, 9, "Sizer"),
            ("method", "Push", "Stack.Push", 13, 15, "Stack"),
            ("function", "New", "New", 17, 19, None),
        ],
    ),
    "rust": (
        """\
/// A point.
#[derive(Debug)]
pub struct Point {
    x: i32,
}

pub trait Area {
    fn area(&self) -> f64;
}

impl Point {
    pub fn new(x: i32) -> Self {
        Point { x }
    }
}

pub enum Shape {
    Circle,
}

fn main() {}
""",
        [
            ("struct", "Point", "Point", 3, 5, None),
            ("trait", "Area", "Area", 7, 9, None),
            ("method", "area", "Area.area", 8, 8, "Area"),
            ("method", "new", "Point.new", 12, 14, "Point"),
            ("enum", "Shape", "Shape", 17, 19, None),
            ("enum_member", "Circle", "Shape.Circle", 18, 18, "Shape"),
            ("function", "main", "main", 21, 21, None),
        ],
    ),
    "java": (
        """\
package demo;

/** A greeter. */
public class Greeter {
    private final String name;

    public Greeter(String name) {
        this.name = name;
    }

    @Override
    public String toString() {
        return name;
    }

    interface Listener {
        void heard(String word);
    }

    enum Mood { HAPPY, SAD }
}
""",
        [
            ("class", "Greeter", "Greeter", 4, 21, None),
            ("constructor", "Greeter", "Greeter.Greeter", 7, 9, "Greeter"),
            ("method", "toString", "Greeter.toString", 12, 14, "Greeter"),
            ("interface", "Listener", "Greeter.Listener", 16, 18, "Greeter"),
            ("method", "heard", "Greeter.Listener.heard", 17, 17, "Greeter.Listener"),
            ("enum", "Mood", "Greeter.Mood", 20, 20, "Greeter"),
            ("enum_member", "HAPPY", "Greeter.Mood.HAPPY", 20, 20, "Greeter.Mood"),
            ("enum_member", "SAD", "Greeter.Mood.SAD", 20, 20, "Greeter.Mood"),
        ],
    ),
    "kotlin": (
        """\
package demo

/** A user. */
data class User(val name: String) {
    constructor() : this("anon") {
    }

    fun greet(): String {
        return "hi " + name
    }

    companion object {
        fun guest() = User()
    }
}

interface Repo {
    fun find(id: Int): User?
}

fun main() {
}
""",
        [
            ("class", "User", "User", 4, 15, None),
            ("constructor", "constructor", "User.constructor", 5, 6, "User"),
            ("method", "greet", "User.greet", 8, 10, "User"),
            ("object", "Companion", "User.Companion", 12, 14, "User"),
            ("method", "guest", "User.Companion.guest", 13, 13, "User.Companion"),
            ("interface", "Repo", "Repo", 17, 19, None),
            ("method", "find", "Repo.find", 18, 18, "Repo"),
            ("function", "main", "main", 21, 22, None),
        ],
    ),
    "swift": (
        """\
import Foundation

/// A registry of modules.
@objc(EXRegistry)
public final class Registry: NSObject, Module {
  init(context: Context) {
  }

  public func register(module: AnyModule) {
  }
}

protocol AnyModule: AnyObject {
  func definition() -> Definition
}

extension Registry {
  func count() -> Int { 0 }
}

struct Point { var x: Int }
enum Kind { case a }
actor Worker { func run() async {} }
typealias Callback = (Int) -> Void
func top(_ x: Int) -> Int { x }
""",
        [
            ("class", "Registry", "Registry", 5, 11, None),
            ("constructor", "init", "Registry.init", 6, 7, "Registry"),
            ("method", "register", "Registry.register", 9, 10, "Registry"),
            ("interface", "AnyModule", "AnyModule", 13, 15, None),
            ("method", "definition", "AnyModule.definition", 14, 14, "AnyModule"),
            ("method", "count", "Registry.count", 18, 18, "Registry"),
            ("struct", "Point", "Point", 21, 21, None),
            ("enum", "Kind", "Kind", 22, 22, None),
            ("enum_member", "a", "Kind.a", 22, 22, "Kind"),
            ("class", "Worker", "Worker", 23, 23, None),
            ("method", "run", "Worker.run", 23, 23, "Worker"),
            ("type", "Callback", "Callback", 24, 24, None),
            ("function", "top", "top", 25, 25, None),
        ],
    ),
    "objc": (
        """\
#import <Foundation/Foundation.h>

NS_ASSUME_NONNULL_BEGIN

/// Utilities for modules.
@interface EXUtilities : NSObject <EXUtilitiesInterface>
+ (void)performSynchronouslyOnMainThread:(void (^)(void))block;
- (nullable NSDictionary *)launchOptions;
@end

@protocol EXUtilService
- (UIViewController *)currentViewController;
@end

@interface EXUtilities ()
- (void)setup;
@end

@implementation EXUtilities

- (void)setup
{
  helper(1);
}

@end

static int helper(int x) { return x; }

NS_ASSUME_NONNULL_END
""",
        [
            ("class", "EXUtilities", "EXUtilities", 6, 9, None),
            (
                "method",
                "performSynchronouslyOnMainThread",
                "EXUtilities.performSynchronouslyOnMainThread",
                7,
                7,
                "EXUtilities",
            ),
            ("method", "launchOptions", "EXUtilities.launchOptions", 8, 8, "EXUtilities"),
            ("interface", "EXUtilService", "EXUtilService", 11, 13, None),
            (
                "method",
                "currentViewController",
                "EXUtilService.currentViewController",
                12,
                12,
                "EXUtilService",
            ),
            ("method", "setup", "EXUtilities.setup", 21, 24, "EXUtilities"),
            ("function", "helper", "helper", 28, 28, None),
        ],
    ),
    "c_sharp": (
        """\
namespace Demo
{
    /// <summary>A counter.</summary>
    public class Counter
    {
        public Counter(int start)
        {
        }

        public int Next()
        {
            return 1;
        }
    }

    public interface IClock
    {
        long Now();
    }

    public struct Pair { }

    public enum Kind { A, B }
}
""",
        [
            ("namespace", "Demo", "Demo", 1, 24, None),
            ("class", "Counter", "Demo.Counter", 4, 14, "Demo"),
            ("constructor", "Counter", "Demo.Counter.Counter", 6, 8, "Demo.Counter"),
            ("method", "Next", "Demo.Counter.Next", 10, 13, "Demo.Counter"),
            ("interface", "IClock", "Demo.IClock", 16, 19, "Demo"),
            ("method", "Now", "Demo.IClock.Now", 18, 18, "Demo.IClock"),
            ("struct", "Pair", "Demo.Pair", 21, 21, "Demo"),
            ("enum", "Kind", "Demo.Kind", 23, 23, "Demo"),
            ("enum_member", "A", "Demo.Kind.A", 23, 23, "Demo.Kind"),
            ("enum_member", "B", "Demo.Kind.B", 23, 23, "Demo.Kind"),
        ],
    ),
    "c": (
        """\
#include <stdio.h>

/* A 2D point. */
struct point {
    int x;
    int y;
};

typedef struct {
    int w;
} size_t2;

int area(int w, int h);

/* Multiply. */
int area(int w, int h) {
    return w * h;
}

static char **names(void) {
    return NULL;
}
""",
        [
            ("struct", "point", "point", 4, 7, None),
            ("struct", "size_t2", "size_t2", 9, 11, None),
            ("function", "area", "area", 16, 18, None),
            ("function", "names", "names", 20, 22, None),
        ],
    ),
    "cpp": (
        """\
namespace geo {

class Shape {
public:
    Shape(int sides);
    virtual double area() const = 0;
    int sides() const { return sides_; }
private:
    int sides_;
};

Shape::Shape(int sides) : sides_(sides) {}

struct Point {
    double x;
};

}  // namespace geo

int main() {
    return 0;
}
""",
        [
            ("namespace", "geo", "geo", 1, 18, None),
            ("class", "Shape", "geo.Shape", 3, 10, "geo"),
            ("method", "area", "geo.Shape.area", 6, 6, "geo.Shape"),
            ("method", "sides", "geo.Shape.sides", 7, 7, "geo.Shape"),
            ("constructor", "Shape", "geo.Shape.Shape", 12, 12, "geo.Shape"),
            ("struct", "Point", "geo.Point", 14, 16, "geo"),
            ("function", "main", "main", 20, 22, None),
        ],
    ),
}


RUBY_SOURCE = """require 'set'

module Rack
  # Builds a response.
  class Response < Base
    def initialize(body = nil)
      @body = body
    end

    # The status line.
    def self.status_line(code)
      code.to_s
    end

    class << self
      def build; end
    end

    def finish = nil
  end
end

def top_level(a); end
"""

PHP_SOURCE = """<?php
namespace GuzzleHttp\\Psr7;

use Psr\\Http\\Message\\StreamInterface;

/**
 * A stream.
 */
final class Stream implements StreamInterface
{
    public function __construct($stream) {}

    /** Reads. */
    public function read(int $n): string { return ''; }
}

interface Readable { public function read(int $n): string; }
trait Helps { function help() {} }
enum Suit: string { case Hearts = 'H'; }
function helper_fn($a) { return $a; }
"""


CASES["ruby"] = (
    RUBY_SOURCE,
    [
        ("module", "Rack", "Rack", 3, 21, None),
        ("class", "Response", "Rack.Response", 5, 20, "Rack"),
        ("constructor", "initialize", "Rack.Response.initialize", 6, 8, "Rack.Response"),
        ("method", "status_line", "Rack.Response.status_line", 11, 13, "Rack.Response"),
        ("method", "build", "Rack.Response.build", 16, 16, "Rack.Response"),
        ("method", "finish", "Rack.Response.finish", 19, 19, "Rack.Response"),
        ("function", "top_level", "top_level", 23, 23, None),
    ],
)
CASES["php"] = (
    PHP_SOURCE,
    [
        ("namespace", "GuzzleHttp.Psr7", "GuzzleHttp.Psr7", 2, 20, None),
        ("class", "Stream", "GuzzleHttp.Psr7.Stream", 9, 15, "GuzzleHttp.Psr7"),
        (
            "constructor",
            "__construct",
            "GuzzleHttp.Psr7.Stream.__construct",
            11,
            11,
            "GuzzleHttp.Psr7.Stream",
        ),
        ("method", "read", "GuzzleHttp.Psr7.Stream.read", 14, 14, "GuzzleHttp.Psr7.Stream"),
        ("interface", "Readable", "GuzzleHttp.Psr7.Readable", 17, 17, "GuzzleHttp.Psr7"),
        ("method", "read", "GuzzleHttp.Psr7.Readable.read", 17, 17, "GuzzleHttp.Psr7.Readable"),
        ("trait", "Helps", "GuzzleHttp.Psr7.Helps", 18, 18, "GuzzleHttp.Psr7"),
        ("method", "help", "GuzzleHttp.Psr7.Helps.help", 18, 18, "GuzzleHttp.Psr7.Helps"),
        ("enum", "Suit", "GuzzleHttp.Psr7.Suit", 19, 19, "GuzzleHttp.Psr7"),
        ("enum_member", "Hearts", "GuzzleHttp.Psr7.Suit.Hearts", 19, 19, "GuzzleHttp.Psr7.Suit"),
        ("function", "helper_fn", "GuzzleHttp.Psr7.helper_fn", 20, 20, "GuzzleHttp.Psr7"),
    ],
)


BASH_SOURCE = """\
#!/bin/bash
source ./lib/common.sh

# Builds the site.
build() {
  local out=$1
  render "$out" | tee build.log
}

function render {
  printf '%s\\n' "$1"
}

build public
"""
LUA_SOURCE = """\
local utils = require "pl.utils"
local M = {}

--- Splits a string at a separator.
function M.split(s, sep)
  return utils.split(s, sep)
end

function M:join(parts) return table.concat(parts, self.sep) end

local function trim(s) return (s:gsub("^%s+", "")) end

M.strip = function(s) return trim(s) end

return M
"""
CASES["bash"] = (
    BASH_SOURCE,
    [
        ("function", "build", "build", 5, 8, None),
        ("function", "render", "render", 10, 12, None),
    ],
)
CASES["lua"] = (
    LUA_SOURCE,
    [
        ("method", "split", "M.split", 5, 7, "M"),
        ("method", "join", "M.join", 9, 9, "M"),
        ("function", "trim", "trim", 11, 11, None),
        ("method", "strip", "M.strip", 13, 13, "M"),
    ],
)


PERL_SOURCE = """\
package Foo::Bar;
use strict;
use parent 'Foo::Base';

# Makes a new bar.
sub new {
    my ($class, %args) = @_;
    return bless {%args}, $class;
}

sub Foo::Util::helper { 1 }

package Foo::Baz {
    sub qux { 1 }
}

package Foo::Last;
sub last_one { 2 }
1;
"""
CASES["perl"] = (
    PERL_SOURCE,
    [
        ("class", "Bar", "Foo.Bar", 1, 16, "Foo"),
        ("method", "new", "Foo.Bar.new", 6, 9, "Foo.Bar"),
        ("method", "helper", "Foo.Util.helper", 11, 11, "Foo.Util"),
        ("class", "Baz", "Foo.Baz", 13, 15, "Foo"),
        ("method", "qux", "Foo.Baz.qux", 14, 14, "Foo.Baz"),
        ("class", "Last", "Foo.Last", 17, 19, "Foo"),
        ("method", "last_one", "Foo.Last.last_one", 18, 18, "Foo.Last"),
    ],
)


@pytest.mark.parametrize("language", sorted(CASES))
def test_symbols_per_language(language: str) -> None:
    text, expected = CASES[language]
    document = parse_code_text(text, f"demo/file.{language}", language)
    assert _symbols(document) == expected
    assert document.warnings == []
    assert document.format == "code" and document.language == language


# CommonJS and prototype-style JavaScript (Express 4, most older npm packages): the API
# is functions assigned to members, not declarations.
COMMONJS = """\
var res = module.exports = {};
function Route(path) {
  this.path = path;
}
Route.prototype.dispatch = function dispatch(req, done) {
  function next(err) {
    return done(err);
  }
  next();
};
exports.etag = function (body) {
  return body;
};
module.exports.compile = (val) => val;
res.send = function send(body) {
  this.end(body);
};
res.json = async (obj) => obj;
function wire(req) {
  req.onerror = function () {};
}
res.notAFunction = 3;
Route.prototype.path = "/";
"""


def test_commonjs_and_prototype_assignments_are_symbols() -> None:
    document = parse_code_text(COMMONJS, "lib/router.js", "javascript")
    assert _symbols(document) == [
        ("function", "Route", "Route", 2, 4, None),
        ("method", "dispatch", "Route.dispatch", 5, 10, "Route"),
        ("function", "next", "Route.dispatch.next", 6, 8, "Route.dispatch"),
        ("function", "etag", "etag", 11, 13, None),
        ("function", "compile", "compile", 14, 14, None),
        ("method", "send", "res.send", 15, 17, "res"),
        ("method", "json", "res.json", 18, 18, "res"),
        # inside a function, a member assignment is wiring (a callback), not a definition
        ("function", "wire", "wire", 19, 21, None),
    ]
    assert _by_name(document, "res.send").signature == "res.send = function send(body)"
    assert _by_name(document, "Route.dispatch").signature == (
        "Route.prototype.dispatch = function dispatch(req, done)"
    )
    assert document.warnings == []


@pytest.mark.parametrize(
    "text, expected",
    [
        # the module's export: named by the function's own name, never `module.exports`
        (
            "module.exports = function serveStatic(root) {\n  return root;\n};\n",
            [("function", "serveStatic", "serveStatic", 1, 3, None)],
        ),
        ("module.exports = function (a) {\n  return a;\n};\n", []),
        ("module.exports = (a) => a;\n", []),
        # Express's router: `var proto = module.exports = function (options) {…}`
        (
            "var proto = module.exports = function(options) {\n  function router() {}\n};\n",
            [
                ("function", "proto", "proto", 1, 3, None),
                ("function", "router", "proto.router", 2, 2, "proto"),
            ],
        ),
        ("const f = exports.f = () => 1;\n", [("function", "f", "f", 1, 1, None)]),
        ("exports = module.exports = createApplication;\n", []),
    ],
)
def test_module_exports_assignments(text: str, expected: list[tuple]) -> None:
    assert _symbols(parse_code_text(text, "lib/x.js", "javascript")) == expected


def test_every_supported_language_has_a_case_and_a_compiling_query() -> None:
    assert set(CASES) == set(grammars.LANGUAGES)
    for language in grammars.LANGUAGES:
        assert _query(language).query.pattern_count > 0


@pytest.mark.parametrize(
    ("ext", "language"),
    [
        (".py", "python"),
        (".pyi", "python"),
        (".js", "javascript"),
        (".mjs", "javascript"),
        (".cjs", "javascript"),
        (".jsx", "javascript"),
        (".ts", "typescript"),
        (".mts", "typescript"),
        (".cts", "typescript"),
        (".tsx", "tsx"),
        (".go", "go"),
        (".rs", "rust"),
        (".java", "java"),
        (".kt", "kotlin"),
        (".kts", "kotlin"),
        (".cs", "c_sharp"),
        (".swift", "swift"),
        (".m", "objc"),
        (".mm", "objc"),
        (".c", "c"),
        (".h", "c"),
        (".cpp", "cpp"),
        (".cc", "cpp"),
        (".cxx", "cpp"),
        (".hpp", "cpp"),
        (".hh", "cpp"),
        (".hxx", "cpp"),
        ("py", "python"),
        (".PY", "python"),
        (".vue", "javascript"),  # a component: TypeScript when its <script lang="ts">
        (".svelte", "javascript"),
        (".astro", "javascript"),  # (its front matter TypeScript: `component_language`)
        (".md", None),
        ("", None),
    ],
)
def test_language_for_extension(ext: str, language: str | None) -> None:
    assert grammars.language_for_extension(ext) == language


def test_grammar_errors_are_ingest_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(IngestError, match="no grammar for language 'cobol'"):
        grammars.get_parser("cobol")
    monkeypatch.setitem(
        grammars.LANGUAGES,
        "fake",
        grammars.Grammar("no_such_grammar_module", "language", (".fake",), "tree-sitter-fake"),
    )
    with pytest.raises(IngestError, match="pip install tree-sitter-fake"):
        grammars.get_language("fake")
    assert grammars.get_parser("python") is grammars.get_parser("python")  # cached


# --- documents: title, headings, entities, chunk breaks -------------------------------


def test_parse_code_builds_the_document() -> None:
    text, _ = CASES["python"]
    document = parse(_source(text.encode(), "pkg/lexer.py"))
    assert document.title == "lexer.py"
    assert document.text == text
    assert [(h.level, h.title, h.line, h.end_line) for h in document.headings] == [
        (1, "Lexer", 4, 14),
        (2, "Token", 7, 8),
        (2, "next", 10, 14),  # its section starts at its decorator; the symbol at `def`
        (3, "helper", 12, 13),
        (1, "main", 17, 18),
    ]
    assert [(e.entity_type, e.name, e.line, e.end_line) for e in document.entities] == [
        ("ClassEntity", "Lexer", 4, 14),
        ("ClassEntity", "Lexer.Token", 7, 8),
        ("FunctionEntity", "Lexer.next", 11, 14),
        ("FunctionEntity", "Lexer.next.helper", 12, 13),
        ("FunctionEntity", "main", 17, 18),
    ]
    assert document.entities[0].definition == "Turns text into tokens."
    assert document.entities[2].signature == 'def next(self, n: int = 1) -> "Token"'
    # every section start and the line after every symbol end (within the file)
    assert document.chunk_breaks == {4, 7, 9, 10, 12, 14, 15, 17}


# A symbol's section starts at what leads it — its doc comment (no blank line between, but
# JSDoc's `/** … */`), its decorators, attributes and annotations, its `template <…>` —
# while the symbol keeps its header's line. (title, section's first line, symbol's line)
LEADS = [
    (
        "p.go",
        "package p\n\n// Old notes about the package.\n\n// Bytes returns the bytes.\n// More.\n"
        "func Bytes() {}\nvar x = 1 // trailing\n// Len returns n.\nfunc Len() int { return 0 }\n",
        [("Bytes", 5, 7), ("Len", 9, 10)],
    ),
    (
        "l.rs",
        "/// Splits text.\n#[inline]\n#[must_use]\npub fn split() {}\n\nstruct S;\n\nimpl S {\n"
        "    /// Makes one.\n    pub fn new() -> S { S }\n}\n",
        [("split", 1, 4), ("S", 6, 6), ("new", 9, 10)],
    ),
    (
        "G.java",
        "/** A greeter. */\n@Deprecated\npublic class Greeter {\n    /**\n     * Says hello.\n"
        '     */\n    @Override\n    public String toString() { return ""; }\n}\n',
        [("Greeter", 1, 3), ("toString", 4, 8)],
    ),
    (
        "a.js",
        '"use strict";\n\n/**\n * Adds.\n */\n\nexport function add(a, b) { return a + b; }\n',
        [("add", 3, 7)],
    ),
    (
        "c.py",
        "import os\n\n# Loads the config.\n@cache\ndef load():\n    pass\n\n# unrelated\n\n"
        "def other():\n    pass\n",
        [("load", 3, 5), ("other", 10, 10)],
    ),
    (
        "b.cpp",
        "// A box.\ntemplate <typename T>\nclass Box {\n  // Its size.\n"
        "  int size() const { return 0; }\n};\n",
        [("Box", 1, 3), ("size", 4, 5)],
    ),
    ("t.ts", "class A {\n  /** Runs. */\n  @decorate()\n  run(): void {}\n}\n", [("run", 2, 4)]),
    (
        "a.cs",
        "class A {\n    /// <summary>Runs.</summary>\n    [Obsolete]\n"
        "    public void Run() {}\n}\n",
        [("Run", 2, 4)],
    ),
    (
        "r.rb",
        "module Rack\n  # Builds a response.\n  class Response\n  end\nend\n",
        [("Rack", 1, 1), ("Response", 2, 3)],
    ),
]


@pytest.mark.parametrize(("name", "text", "expected"), LEADS, ids=[c[0] for c in LEADS])
def test_a_section_starts_at_its_doc_comment_and_decorators(
    name: str, text: str, expected: list[tuple[str, int, int]]
) -> None:
    language = grammars.language_for_extension(Path(name).suffix)
    assert language is not None
    document = parse_code_text(text, name, language)
    heading = {h.title: h.line for h in document.headings}
    symbol = {s.name: s.line for s in document.symbols}
    assert [(t, heading[t], symbol[t]) for t, _, _ in expected] == expected
    # and the chunk that holds the symbol starts there: the doc comment is its passage's
    assert {first for _, first, _ in expected} <= document.chunk_breaks


def test_constructor_entities_and_rust_impl_heading() -> None:
    document = parse_code_text(CASES["java"][0], "Greeter.java", "java")
    types = {e.name: e.entity_type for e in document.entities}
    assert types["Greeter.Greeter"] == "ConstructorEntity"
    assert types["Greeter.toString"] == "FunctionEntity"
    assert types["Greeter.Listener"] == "ClassEntity"
    rust = parse_code_text(CASES["rust"][0], "lib.rs", "rust")
    impl = [
        (h.level, h.title, h.line, h.end_line) for h in rust.headings if h.title.startswith("impl")
    ]
    assert impl == [(1, "impl Point", 11, 15)]
    assert [(h.level, h.title) for h in rust.headings if h.title == "new"] == [(2, "new")]
    assert "impl Point" not in {s.name for s in rust.symbols}


def test_heading_levels_stop_at_six() -> None:
    text = (
        "".join("    " * depth + f"class C{depth}:\n" for depth in range(8)) + "    " * 8 + "pass\n"
    )
    document = parse_code_text(text, "deep.py", "python")
    assert [h.level for h in document.headings] == [1, 2, 3, 4, 5, 6, 6, 6]
    assert document.symbols[-1].qualified_name == ".".join(f"C{d}" for d in range(8))


# --- signatures -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "text", "qualified_name", "signature"),
    [
        (
            "python",
            "def next(self,\n         n: int = 1,  # how many\n         ) -> Token:\n    pass\n",
            "next",
            "def next(self, n: int = 1, ) -> Token",
        ),
        ("python", "@dec\nasync def f(*a, **k):\n    pass\n", "f", "async def f(*a, **k)"),
        ("python", "class A(B, metaclass=M):\n    pass\n", "A", "class A(B, metaclass=M)"),
        (
            "java",
            'class A {\n  @Override\n  public synchronized String toString() { return ""; }\n}\n',
            "A.toString",
            "public synchronized String toString()",
        ),
        ("java", "interface I {\n  void m(int a);\n}\n", "I.m", "void m(int a)"),
        (
            "go",
            "package p\nfunc (s *Stack[T]) Push(v T) error {\n\treturn nil\n}\n",
            "Stack.Push",
            "func (s *Stack[T]) Push(v T) error",
        ),
        (
            "go",
            "package p\ntype Reader interface {\n\tRead() int\n}\n",
            "Reader",
            "type Reader interface",
        ),
        (
            "c",
            "static char **names(int n, /* count */\n                    int m) {\n  return "
            "0;\n}\n",
            "names",
            "static char **names(int n, int m)",
        ),
        ("kotlin", "fun top(x: Int) = x + 1\n", "top", "fun top(x: Int)"),
        (
            "swift",
            "@discardableResult\npublic func top(_ x: Int) -> Int {\n  x\n}\n",
            "top",
            "public func top(_ x: Int) -> Int",
        ),
        (
            "typescript",
            "export const f = async (x: number): Promise<void> => {};\n",
            "f",
            "const f = async (x: number): Promise<void>",
        ),
        (
            "rust",
            "pub fn new<T: Copy>(x: T) -> Self where T: Sized {\n    todo!()\n}\n",
            "new",
            "pub fn new<T: Copy>(x: T) -> Self where T: Sized",
        ),
        (
            "c_sharp",
            "class A {\n  [Obsolete]\n  public static int Add(int a, int b) => a + b;\n}\n",
            "A.Add",
            "public static int Add(int a, int b)",
        ),
    ],
)
def test_signature(language: str, text: str, qualified_name: str, signature: str) -> None:
    document = parse_code_text(text, "x", language)
    assert _by_name(document, qualified_name).signature == signature


# --- docstrings and doc comments ------------------------------------------------------


def test_python_docstrings_are_cleaned_like_ast() -> None:
    text = (
        "class A:\n"
        "    '''Summary line.\n\n        Indented detail.\n    '''\n"
        "    def m(self):\n"
        "        # a comment first does not hide the docstring\n"
        '        r"""Raw \\d stays."""\n'
        "    def e(self):\n"
        '        "esc\\taped"\n'
        "    def f(self):\n"
        "        f'not a docstring'\n"
        "    def g(self):\n"
        "        x = 1\n"
        "        'not first'\n"
    )
    document = parse_code_text(text, "a.py", "python")
    tree = ast.parse(text)
    expected = {
        node.name: ast.get_docstring(node)
        for node in ast.walk(tree)
        if isinstance(node, (ast.ClassDef, ast.FunctionDef))
    }
    assert {s.name: s.docstring for s in document.symbols} == expected
    assert expected["A"] == "Summary line.\n\nIndented detail."


@pytest.mark.parametrize(
    ("language", "text", "qualified_name", "docstring"),
    [
        (
            "java",
            "/**\n * Says hello.\n *\n * @param n times\n */\n@Deprecated\npublic class A {}\n",
            "A",
            "Says hello.\n\n@param n times",
        ),
        (
            "rust",
            "/// A point.\n/// Second line.\n#[derive(Debug)]\nstruct P;\n",
            "P",
            "A point.\nSecond line.",
        ),
        (
            "go",
            "package p\n\n// Push adds v.\n// It never fails.\nfunc Push(v int) {}\n",
            "Push",
            "Push adds v.\nIt never fails.",
        ),
        ("c_sharp", "/// <summary>A counter.</summary>\nclass C {}\n", "C", "A counter."),
        (
            "typescript",
            "class A {\n  /** Render it. */\n  @memo\n  render() {}\n}\n",
            "A.render",
            "Render it.",
        ),
        ("cpp", "/* Widget. */\ntemplate <typename T>\nclass W {};\n", "W", "Widget."),
        ("kotlin", "// Top level.\nfun top() {\n}\n", "top", "Top level."),
        ("swift", "/// Top level.\n@MainActor\nfunc top() {\n}\n", "top", "Top level."),
        # a blank line between comment and code: not a doc comment
        ("java", "// License header.\n\nclass B {}\n", "B", None),
        # except a JSDoc block in JavaScript and TypeScript (Express's style)
        (
            "javascript",
            "'use strict';\n\n/**\n * Set status `code`.\n *\n * @public\n */\n\n"
            "res.status = function status(code) {};\n",
            "res.status",
            "Set status `code`.\n\n@public",
        ),
        ("typescript", "let a = 1;\n/** Adds. */\n\nfunction add() {}\n", "add", "Adds."),
        ("javascript", "let a = 1;\n// A line comment.\n\nfunction f() {}\n", "f", None),
        ("javascript", "/** File header. */\n\nfunction f() {}\n", "f", None),
        ("javascript", "/** One. */\nlet x = 1;\n\nfunction f() {}\n", "f", None),
        # a comment trailing the previous line's code belongs to that code
        ("c", "int x; // the x\nint f(void) { return x; }\n", "f", None),
    ],
)
def test_doc_comments(language: str, text: str, qualified_name: str, docstring: str | None) -> None:
    document = parse_code_text(text, "x", language)
    assert _by_name(document, qualified_name).docstring == docstring


def test_entity_definition_is_first_sentence() -> None:
    text = 'def f():\n    """Compute the thing. Then more.\n\n    Details."""\n'
    document = parse_code_text(text, "f.py", "python")
    assert document.entities[0].definition == "Compute the thing."


# --- kinds that need rules beyond the query -------------------------------------------


def test_declarations_dropped_when_defined_and_kept_otherwise() -> None:
    text = "int area(int w, int h);\nint volume(int w);\nint area(int w, int h) { return w * h; }\n"
    document = parse_code_text(text, "geo.c", "c")
    assert [(s.name, s.line) for s in document.symbols] == [("volume", 2), ("area", 3)]
    ts = "function f(a: string): void;\nfunction f(a: any) {}\n"
    assert [s.line for s in parse_code_text(ts, "f.ts", "typescript").symbols] == [2]
    # only a function defines what they declare: a namespace or a struct of the same name
    # does not (@types/node's `namespace readFile` hid every `function readFile(…)`)
    ts = (
        "export function readFile(p: string): void;\n"
        "export function readFile(p: string, o: object): void;\n"
        "export namespace readFile {\n  function __promisify__(p: string): Promise<string>;\n}\n"
    )
    symbols = parse_code_text(ts, "fs.d.ts", "typescript").symbols
    assert [(s.kind, s.qualified_name, s.line) for s in symbols] == [
        ("function", "readFile", 1),
        ("function", "readFile", 2),
        ("namespace", "readFile", 3),
        ("function", "readFile.__promisify__", 4),
    ]
    c = "struct stat { int st_size; };\nint stat(const char *path, struct stat *buf);\n"
    symbols = parse_code_text(c, "stat.h", "c").symbols
    assert [(s.kind, s.name) for s in symbols] == [("struct", "stat"), ("function", "stat")]


def test_function_pointers_and_local_declarations_are_not_symbols() -> None:
    text = "int (*handler)(int);\nint main(void) {\n  int helper(int);\n  return 0;\n}\n"
    document = parse_code_text(text, "m.c", "c")
    assert [s.qualified_name for s in document.symbols] == ["main"]


def test_python_init_stays_a_method_and_nested_class_methods_are_methods() -> None:
    text = (
        "def outer():\n    class Local:\n        def __init__(self):\n"
        "            pass\n    return Local\n"
    )
    document = parse_code_text(text, "o.py", "python")
    assert [(s.kind, s.qualified_name) for s in document.symbols] == [
        ("function", "outer"),
        ("class", "outer.Local"),
        ("method", "outer.Local.__init__"),
    ]


def test_file_scoped_namespace_extends_to_end_of_file() -> None:
    text = "namespace N.M;\n\npublic class A\n{\n}\n"
    document = parse_code_text(text, "a.cs", "c_sharp")
    assert _symbols(document) == [
        ("namespace", "N.M", "N.M", 1, 5, None),
        ("class", "A", "N.M.A", 3, 5, "N.M"),
    ]


def test_trailing_comments_do_not_extend_a_python_symbol() -> None:
    text = "def f():\n    return 1\n    # trailing\n\n# header of g\ndef g():\n    pass\n"
    document = parse_code_text(text, "t.py", "python")
    assert [(s.name, s.line, s.end_line) for s in document.symbols] == [("f", 1, 2), ("g", 6, 7)]


# --- syntax errors and decoding -------------------------------------------------------


def test_syntax_errors_keep_recovered_symbols_and_warn() -> None:
    text = (
        "class Good:\n    def ok(self):\n        return 1\n\n"
        "def broken(:\n    pass\n\ndef after():\n    return 2\n"
    )
    document = parse_code_text(text, "b.py", "python")
    names = [s.qualified_name for s in document.symbols]
    assert "Good" in names and "Good.ok" in names and "after" in names
    assert document.warnings == ["syntax errors at line 5: extracted what tree-sitter recovered"]


def test_syntax_warning_lists_several_lines() -> None:
    text = "def a(:\n    pass\n\ndef ok():\n    pass\n\nx = = 1\n"
    document = parse_code_text(text, "b.py", "python")
    assert document.warnings == [
        "syntax errors at lines 1, 7: extracted what tree-sitter recovered"
    ]
    assert [s.name for s in document.symbols] == ["a", "ok"]


def test_syntax_warning_without_a_line_says_so() -> None:
    # tree-sitter can flag a whole tree (`has_error`) with no ERROR or MISSING node in it
    # (Go's go/types/testdata/check/cycles5.go): no empty "at lines :" then.
    assert code._syntax_warning([]) == (
        "syntax errors (tree-sitter named no line): extracted what tree-sitter recovered"
    )
    assert code._syntax_warning([3]).startswith("syntax errors at line 3:")


# --- C and C++ as real libraries write them: macros the grammar cannot expand ----------
# Found on Brotli 1.1.0 (PyPI sdist): 80 of its 93 C files warned of syntax errors,
# signatures ended at the macro (`static BROTLI_INLINE`), and `decode.h` named a
# function `void` after its error-code macro, whose continued lines hold comments.

_BROTLI_SHAPED_HEADER = """\
#ifndef DEC_H_
#define DEC_H_
#if defined(__cplusplus) || defined(c_plusplus)
extern "C" {
#endif

#define ERROR_CODES_LIST(ERROR_CODE, SEPARATOR) \\
  ERROR_CODE(_, NO_ERROR, 0) SEPARATOR       \\
  /* Same as Result values */                \\
  ERROR_CODE(_, SUCCESS, 1)

/** Callback to fire on metadata block start. */
typedef void (*metadata_start_func)(void* opaque, size_t size);

/** Decompresses the data. */
DEC_API Result Decompress(
    size_t encoded_size, const uint8_t* encoded_buffer);

DEC_API const char* ErrorString(int c);

#if defined(__cplusplus) || defined(c_plusplus)
}  /* extern "C" */
#endif
#endif  /* DEC_H_ */
"""


def test_c_macros_neither_hide_definitions_nor_warn() -> None:
    document = parse_code_text(_BROTLI_SHAPED_HEADER, "decode.h", "c")
    assert [(s.name, s.line, s.signature) for s in document.symbols] == [
        ("ERROR_CODES_LIST", 7, "#define ERROR_CODES_LIST(ERROR_CODE, SEPARATOR)"),
        (
            "metadata_start_func",
            13,
            "typedef void (*metadata_start_func)(void* opaque, size_t size)",
        ),
        (
            "Decompress",
            16,
            "DEC_API Result Decompress( size_t encoded_size, const uint8_t* encoded_buffer);",
        ),
        # a prototype ends with `;`, as the header writes it
        ("ErrorString", 19, "DEC_API const char* ErrorString(int c);"),
    ]
    assert document.symbols[2].docstring == "Decompresses the data."
    assert document.warnings == []
    # the text itself is untouched: only what tree-sitter reads has blanks
    assert document.text == _BROTLI_SHAPED_HEADER


@pytest.mark.parametrize("language", ["c", "cpp"])
def test_a_macro_word_in_a_header_stays_in_the_signature(language: str) -> None:
    text = (
        "static BROTLI_INLINE void memmove16(uint8_t* dst, uint8_t* BROTLI_RESTRICT src) {\n"
        "  memcpy(dst, src, 16);\n}\n"
        "static Code BROTLI_NOINLINE\nSkipBlock(State* s) {\n  return 0;\n}\n"
    )
    document = parse_code_text(text, "x.c", language)
    assert [(s.name, s.line, s.end_line, s.signature) for s in document.symbols] == [
        (
            "memmove16",
            1,
            3,
            "static BROTLI_INLINE void memmove16(uint8_t* dst, uint8_t* BROTLI_RESTRICT src)",
        ),
        ("SkipBlock", 4, 7, "static Code BROTLI_NOINLINE SkipBlock(State* s)"),
    ]
    assert document.warnings == []


@pytest.mark.parametrize("language", ["c", "cpp"])
def test_c_typedefs_and_macros_are_symbols(language: str) -> None:
    text = (
        "typedef unsigned long ul;\n"  # 1
        "typedef struct S *SP;\n"
        "typedef struct T { int a; } T;\n"  # the struct, not also a type
        "typedef void (*cb_func)(void* opaque);\n"
        "#define MAX(a, b) ((a) > (b) ? (a) : (b))\n"  # 5
        "#define LIMIT 10\n"
        "#define GUARD_H_\n"  # an include guard: no symbol
        "#define LOOP(x) \\\n  do { f(x); \\\n  } while (0)\n"  # 8-10
        "int f(int x) { return MAX(x, LIMIT); }\n"
    )
    document = parse_code_text(text, "x.h", language)
    assert [(s.kind, s.name, s.line, s.end_line, s.signature) for s in document.symbols] == [
        ("type", "ul", 1, 1, "typedef unsigned long ul"),
        ("type", "SP", 2, 2, "typedef struct S *SP"),
        ("struct", "T", 3, 3, "struct T"),
        ("type", "cb_func", 4, 4, "typedef void (*cb_func)(void* opaque)"),
        ("macro", "MAX", 5, 5, "#define MAX(a, b)"),
        ("macro", "LIMIT", 6, 6, "#define LIMIT"),
        ("macro", "LOOP", 8, 10, "#define LOOP(x)"),
        ("function", "f", 11, 11, "int f(int x)"),
    ]


def test_a_macro_renaming_a_function_leaves_its_prototype() -> None:
    # xxhash.h (in lz4): a namespacing macro for each public function, then the
    # prototypes; the prototypes were dropped as "defined in the file".
    text = (
        "#define XXH32_digest XXH_NAME2(XXH_NAMESPACE, XXH32_digest)\n"
        "XXH_PUBLIC_API XXH32_hash_t XXH32_digest(const XXH32_state_t* statePtr);\n"
        "XXH_PUBLIC_API XXH32_hash_t XXH32 (const void* input, size_t length);\n"
    )
    document = parse_code_text(text, "xxhash.h", "c")
    assert [(s.kind, s.name, s.line) for s in document.symbols] == [
        ("macro", "XXH32_digest", 1),
        ("function", "XXH32_digest", 2),
        ("function", "XXH32", 3),  # tree-sitter's name node is `XXH32_hash_t` here
    ]


def test_a_cpp_header_named_dot_h_is_read_as_cpp() -> None:
    # sentencepiece names its 40 C++ headers `.h`: read as C, `namespace port {` was a
    # function and `virtual` a type reference. A `.h` with C++'s signs is C++; a C header
    # (its `extern "C"` guard included) stays C.
    cpp = (
        "namespace util {\nclass ReadableFile {\n public:\n"
        "  virtual ~ReadableFile() {}\n  virtual bool ReadLine(std::string *line) = 0;\n};\n}\n"
    )
    document = parse(_source(cpp.encode(), "src/filesystem.h"))
    assert document.language == "cpp"
    assert [(s.kind, s.qualified_name) for s in document.symbols][:2] == [
        ("namespace", "util"),
        ("class", "util.ReadableFile"),
    ]
    assert not any(row[0] == "virtual" for row in document.reference_rows)
    c = '#ifdef __cplusplus\nextern "C" {\n#endif\nint f(void);\n#ifdef __cplusplus\n}\n#endif\n'
    assert parse(_source(c.encode(), "src/api.h")).language == "c"


def test_cpp_using_declares_a_type() -> None:
    document = parse_code_text("namespace n {\nusing Vec = std::vector<int>;\n}\n", "x.hpp", "cpp")
    assert [(s.kind, s.qualified_name) for s in document.symbols] == [
        ("namespace", "n"),
        ("type", "n.Vec"),
    ]


def test_c_real_syntax_errors_still_warn_beside_macro_words() -> None:
    text = "static INLINE int f(int a) {\n  return a;\n}\nint g(int a {\n  return a;\n}\n"
    document = parse_code_text(text, "x.c", "c")
    assert document.warnings and document.warnings[0].startswith("syntax errors at line 4")
    assert document.symbols[0].signature == "static INLINE int f(int a)"


def test_a_statement_after_a_macro_is_no_function() -> None:
    # CPython's `Py_END_ALLOW_THREADS` before `if (!ok) {…}` parses as the header of a
    # function named `if`, nested in the real one.
    text = (
        "static int compress(Enc* e) {\n  Py_BEGIN_ALLOW_THREADS\n  ok = run(e);\n"
        "  Py_END_ALLOW_THREADS\n  if (!ok) {\n    goto error;\n  }\n  return 1;\n}\n"
    )
    document = parse_code_text(text, "x.c", "c")
    assert [(s.name, s.line, s.end_line) for s in document.symbols] == [("compress", 1, 9)]


@pytest.mark.parametrize("language", ["c", "cpp"])
def test_a_bare_define_with_trailing_blanks_hides_nothing(language: str) -> None:
    # tree-sitter-c takes the line after `#define X ` (blanks, no value) as X's value:
    # cffi's `# define ENUM_PRIMITIVE_TYPES_WCHAR   /* nothing */` hid what followed.
    text = (
        "#ifdef WIDE\n# define WCHAR_TYPES   /* nothing */\n#endif\n"
        "#define GUARD_H_ \nstatic int after_guard(void)\n{\n  return 1;\n}\n"
        "#define EMPTY() \t\nint after_empty(void) { return 2; }\n"
    )
    document = parse_code_text(text, "x.c", language)
    assert [(s.name, s.line, s.signature) for s in document.symbols] == [
        ("after_guard", 5, "static int after_guard(void)"),
        ("EMPTY", 9, "#define EMPTY()"),
        ("after_empty", 10, "int after_empty(void)"),
    ]
    assert document.warnings == []


def test_directive_comment_blanking_keeps_every_offset() -> None:
    src = _BROTLI_SHAPED_HEADER.encode() + b"#define X 1 /* one\n two */\nint y;\n"
    blanked = code._as_the_parser_reads(src, "c")
    assert len(blanked) == len(src)
    assert [i for i, b in enumerate(src) if b == 10] == [
        i for i, b in enumerate(blanked) if b == 10
    ]
    assert b"Same as" not in blanked and b'extern "C"' not in blanked
    assert b"/* one\n two */" in blanked  # a comment that leaves its directive stays
    assert b"DEC_API Result Decompress(" in blanked and b"int y;" in blanked


def test_decoding_bom_crlf_and_legacy_encodings() -> None:
    data = codecs.BOM_UTF8 + b"def f():\r\n    return 'h\xc3\xa9'\r\n"
    document = parse(_source(data))
    assert document.text == "def f():\n    return 'hé'\n" and document.warnings == []
    assert document.symbols[0].end_line == 2
    # A PEP 263 cookie names the codec: no guess, so no warning (as Python reads the file).
    latin = b"# -*- coding: latin-1 -*-\ndef caf\xe9():\n    pass\n"
    document = parse(_source(latin))
    assert document.symbols[0].name == "café"
    assert document.warnings == []
    # No cookie: UTF-8 fails, so cp1252 (or Latin-1 where cp1252 has a hole) with a warning.
    document = parse(_source(b"def caf\xe9():\n    pass\n"))
    assert document.symbols[0].name == "café"
    assert document.warnings == ["not valid UTF-8 (byte 7); decoded as cp1252/Latin-1"]
    text, warnings = decode_text(b"x = '\x81\xff'\n", coding_cookie=True)  # not cp1252 either
    assert text == "x = '\x81\xff'\n" and warnings == [
        "not valid UTF-8 (byte 5); decoded as cp1252/Latin-1"
    ]


def test_empty_and_symbol_free_files() -> None:
    for language in grammars.LANGUAGES:
        document = parse_code_text("", "empty", language)
        assert document.symbols == [] and document.headings == [] and document.chunk_breaks == set()


# --- ground truth: Python's own ast over the standard library --------------------------

STDLIB = Path(sysconfig.get_paths()["stdlib"])
SAMPLE_SIZE = 60


def _stdlib_files() -> list[Path]:
    return sorted(
        p for p in STDLIB.rglob("*.py") if not {"site-packages", "dist-packages"} & set(p.parts)
    )


def _sample() -> list[Path]:
    files = _stdlib_files()
    step = max(1, len(files) // SAMPLE_SIZE)
    return files[::step][:SAMPLE_SIZE]


ENUM_BASES = {"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "ReprEnum"}


def _enum_members(node: ast.ClassDef, qualified: str) -> list[tuple[str, str, int]]:
    """The members of a class whose base is named like an enum: each name its body gives
    a value (`RED = 1`, `RED: int = 1`; the first target of `A = B = 1`)."""
    named = {b.id if isinstance(b, ast.Name) else getattr(b, "attr", None) for b in node.bases}
    if not named & ENUM_BASES:
        return []
    out = []
    for statement in node.body:
        target = None
        if isinstance(statement, ast.Assign):
            target = statement.targets[0]
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            target = statement.target
        if isinstance(target, ast.Name):
            out.append(("enum_member", f"{qualified}.{target.id}", statement.lineno))
    return out


def _ast_symbols(tree: ast.AST) -> Counter:
    found: Counter = Counter()

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                qualified = f"{prefix}.{child.name}" if prefix else child.name
                kind = "class" if isinstance(child, ast.ClassDef) else "function"
                found[(kind, qualified, child.lineno)] += 1
                if isinstance(child, ast.ClassDef):
                    found.update(_enum_members(child, qualified))
                visit(child, qualified)
            else:
                visit(child, prefix)

    visit(tree, "")
    return found


def _ts_symbols(document: Document) -> Counter:
    return Counter(
        (s.kind if s.kind in ("class", "enum_member") else "function", s.qualified_name, s.line)
        for s in document.symbols
    )


def _parse_ast(data: bytes, name: str) -> ast.AST | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(data, filename=name)
    except (SyntaxError, ValueError):
        return None


@pytest.mark.skipif(
    not STDLIB.is_dir(), reason="no Python standard library sources on this machine"
)
def test_python_symbols_match_ast_on_stdlib_sample() -> None:
    compared = 0
    mismatches = {}
    for path in _sample():
        data = path.read_bytes()
        tree = _parse_ast(data, str(path))
        if tree is None:
            continue
        compared += 1
        document = parse(_source(data, str(path.relative_to(STDLIB))))
        want, got = _ast_symbols(tree), _ts_symbols(document)
        if want != got:
            mismatches[str(path.relative_to(STDLIB))] = (
                sorted((want - got).elements())[:5],
                sorted((got - want).elements())[:5],
            )
    assert compared >= SAMPLE_SIZE * 0.9
    assert mismatches == {}


BROKEN = [
    "test/tokenizedata/badsyntax_*.py",
    "test/badsyntax_*.py",
    "test/tokenizedata/bad_coding*.py",
    "test/bad_coding*.py",
    "lib2to3/tests/data/py2_test_grammar.py",
]


@pytest.mark.skipif(
    not STDLIB.is_dir(), reason="no Python standard library sources on this machine"
)
def test_deliberately_broken_stdlib_files_do_not_crash() -> None:
    paths = sorted({p for pattern in BROKEN for p in STDLIB.glob(pattern)})
    if not paths:
        pytest.skip("this Python ships none of the deliberately broken test files")
    for path in paths:
        data = path.read_bytes()
        assert _parse_ast(data, str(path)) is None, f"{path} is not broken any more"
        document = parse(_source(data, path.name))
        assert document.title == path.name
        assert all(s.line <= s.end_line for s in document.symbols)


ENUMS = {
    # language: (file name, source, the members' qualified names and lines)
    "rust": (
        "a.rs",
        "pub enum ArgAction {\n    /// Store the value.\n    Set,\n    /// Count occurrences.\n"
        "    Count,\n    Custom(String),\n}\n",
        [("ArgAction.Set", 3), ("ArgAction.Count", 5), ("ArgAction.Custom", 6)],
    ),
    "c": (
        "a.c",
        "enum color { RED, GREEN = 2 };\ntypedef enum {\n  A,\n  B\n} ab_t;\n",
        [("color.RED", 1), ("color.GREEN", 1), ("ab_t.A", 3), ("ab_t.B", 4)],
    ),
    "cpp": ("a.cpp", "enum class Mode { Fast, Slow = 3 };\n", [("Mode.Fast", 1), ("Mode.Slow", 1)]),
    "c_sharp": (
        "a.cs",
        "enum Level {\n  Low,\n  High = 2\n}\n",
        [("Level.Low", 2), ("Level.High", 3)],
    ),
    "java": (
        "A.java",
        "enum Planet {\n  MERCURY(1.0),\n  VENUS(2.0);\n  double m;\n"
        "  Planet(double m) { this.m = m; }\n}\n",
        [("Planet.MERCURY", 2), ("Planet.VENUS", 3)],
    ),
    "typescript": (
        "a.ts",
        "enum Dir {\n  Up = 1,\n  Down,\n  Left = 'L',\n}\n",
        [("Dir.Up", 2), ("Dir.Down", 3), ("Dir.Left", 4)],
    ),
    "python": (
        "a.py",
        "from enum import Enum\n\n\nclass Color(Enum):\n    RED = 1\n    GREEN = 2\n\n"
        "    def describe(self):\n        shade = 3\n        return shade\n\n\n"
        "class Plain:\n    A = 1\n",  # no enum: a class attribute is no member
        [("Color.RED", 5), ("Color.GREEN", 6)],
    ),
    "kotlin": (
        "a.kt",
        "enum class Color(val rgb: Int) {\n  RED(0xFF0000),\n  GREEN(0x00FF00)\n}\n",
        [("Color.RED", 2), ("Color.GREEN", 3)],
    ),
}


@pytest.mark.parametrize("language", sorted(ENUMS))
def test_an_enums_members_are_symbols_under_it_and_no_headings(language: str) -> None:
    """`ArgAction::Count` is what a Rust user asks for (clap's `ArgAction` has 8
    variants, each with its doc comment): an enum's members are symbols of kind
    `enum_member` under the enum, with their doc comments, but no headings of their
    file and no chunk breaks — a C header's enum of 300 values would otherwise be 300
    sections."""
    name, text, expected = ENUMS[language]
    document = parse_code_text(text, name, language)
    members = [(s.qualified_name, s.line) for s in document.symbols if s.kind == "enum_member"]
    assert members == expected
    assert [h.line for h in document.headings] == [
        s.line for s in document.symbols if s.kind != "enum_member"
    ]
    enum_lines = {s.line for s in document.symbols if s.kind in ("enum", "class")}
    assert not {line for _, line in expected if line not in enum_lines} & document.chunk_breaks
    if language == "rust":
        docs = {s.name: s.docstring for s in document.symbols}
        assert docs["Count"] == "Count occurrences."


def test_a_long_signature_keeps_its_return_annotation() -> None:
    """Starlette's `TestClient.get` has ~900 characters of parameters before `->
    httpx.Response`: the stored signature is cut at 400 with `…`, and keeps the return
    annotation the resolution pass reads (what `response = client.get(…)` holds)."""
    from docql_sqlite.ingest.code import parse_code_text

    params = ", ".join(f"p{i}: httpx._types.QueryParamTypes | None = None" for i in range(20))
    source = (
        f"class TestClient:\n    def get(self, url, {params}) -> httpx.Response:\n        pass\n"
    )
    document = parse_code_text(source, "testclient.py", "python")
    (get,) = [s for s in document.symbols if s.name == "get"]
    assert get.signature is not None and len(get.signature) == 400, get.signature
    assert get.signature.endswith("…) -> httpx.Response"), get.signature
    assert get.signature.startswith("def get(self, url, p0: httpx._types.QueryParamTypes")


def test_a_c_function_left_open_ends_where_the_next_definition_begins() -> None:
    """A brace left open (`if (c) {` without its `}`; in apsw 3.54's `unicode.c` a brace
    a macro hid) made the next functions part of the open one: `casefold` held 1,300
    lines and `strip` was `casefold.strip`. No function is defined inside another in C:
    the open one ends where the next definition begins, and that one is top level."""
    text = (
        "static int first(int c)\n{\n  if (c) {\n    c += 1;\n  return c;\n}\n\n"
        "static int second(int x)\n{\n  return x;\n}\n\n"
        "static int third(void)\n{\n  return 3;\n}\n"
    )
    document = parse_code_text(text, "b.c", "c")
    assert [(s.qualified_name, s.line, s.end_line, s.parent) for s in document.symbols] == [
        ("first", 1, 7, None),
        ("second", 8, 11, None),
        ("third", 13, 16, None),
    ]


def test_a_header_or_a_dot_m_file_says_by_its_text_which_language_it_is(tmp_path: Path) -> None:
    """expo-modules-core's iOS headers are Objective-C: parsed as C, 70 of them were
    syntax warnings and no class; a `.m` file without Objective-C is MATLAB's (or
    Octave's), kept as plain text rather than misread; a C header stays C."""
    import docql_sqlite

    files = {
        "ios/EXUtilities.h": "#import <Foundation/Foundation.h>\n\nNS_ASSUME_NONNULL_BEGIN\n\n"
        "@interface EXUtilities : NSObject\n- (void)setup;\n@end\n\nNS_ASSUME_NONNULL_END\n",
        "c/util.h": "#ifndef UTIL_H\n#define UTIL_H\nint add(int a, int b);\n#endif\n",
        "matlab/peaks.m": "function z = peaks(n)\n% PEAKS A sample function.\nz = n .^ 2;\nend\n",
    }
    for name, text in files.items():
        (tmp_path / "src" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "src" / name).write_text(text)
    db = tmp_path / "i.db"
    report = docql_sqlite.index(db, [str(tmp_path / "src")])
    assert not report.warnings and not report.failed, report
    with docql_sqlite.open(db) as idx:
        rows = idx.store.conn.execute(
            "SELECT d.path, d.language, (SELECT group_concat(s.qualified_name) FROM symbols s "
            "WHERE s.doc_id = d.id) FROM documents d ORDER BY d.path"
        ).fetchall()
    found = {path.split("/src/", 1)[1]: (language, names) for path, language, names in rows}
    assert found == {
        "c/util.h": ("c", "add"),
        "ios/EXUtilities.h": ("objc", "EXUtilities,EXUtilities.setup"),
        "matlab/peaks.m": ("matlab", None),
    }, found


def test_ruby_and_php_symbols() -> None:
    """Ruby's modules, classes, methods (`def self.x` and a `class << self` body's are
    the class's), `initialize` as constructor and `#` doc comments (also the one before a
    body's first statement, which tree-sitter-ruby puts outside the body); PHP's
    namespaces (dotted: they qualify what follows `namespace A\\B;` to the end of the
    file), classes, interfaces, traits, enums and their cases, `__construct`, functions
    and `/** */` docs."""
    ruby = parse_code_text(RUBY_SOURCE, "lib/rack/response.rb", "ruby")
    assert [(s.kind, s.qualified_name, s.line, s.end_line) for s in ruby.symbols] == [
        ("module", "Rack", 3, 21),
        ("class", "Rack.Response", 5, 20),
        ("constructor", "Rack.Response.initialize", 6, 8),
        ("method", "Rack.Response.status_line", 11, 13),
        ("method", "Rack.Response.build", 16, 16),
        ("method", "Rack.Response.finish", 19, 19),
        ("function", "top_level", 23, 23),
    ]
    docs = {s.name: s.docstring for s in ruby.symbols}
    assert docs["Response"] == "Builds a response."
    assert docs["status_line"] == "The status line."
    assert ruby.symbols[1].signature == "class Response < Base"
    php = parse_code_text(PHP_SOURCE, "src/Stream.php", "php")
    assert [(s.kind, s.qualified_name, s.line) for s in php.symbols] == [
        ("namespace", "GuzzleHttp.Psr7", 2),
        ("class", "GuzzleHttp.Psr7.Stream", 9),
        ("constructor", "GuzzleHttp.Psr7.Stream.__construct", 11),
        ("method", "GuzzleHttp.Psr7.Stream.read", 14),
        ("interface", "GuzzleHttp.Psr7.Readable", 17),
        ("method", "GuzzleHttp.Psr7.Readable.read", 17),
        ("trait", "GuzzleHttp.Psr7.Helps", 18),
        ("method", "GuzzleHttp.Psr7.Helps.help", 18),
        ("enum", "GuzzleHttp.Psr7.Suit", 19),
        ("enum_member", "GuzzleHttp.Psr7.Suit.Hearts", 19),
        ("function", "GuzzleHttp.Psr7.helper_fn", 20),
    ]
    docs = {s.qualified_name: s.docstring for s in php.symbols}
    assert docs["GuzzleHttp.Psr7.Stream"] == "A stream."
    assert docs["GuzzleHttp.Psr7.Stream.read"] == "Reads."
    assert php.symbols[0].end_line == PHP_SOURCE.count("\n")
    assert [(i.module, i.names) for i in php.imports] == [("Psr.Http.Message", ["StreamInterface"])]


def test_bash_and_lua_symbols_docs_and_imports() -> None:
    """Bash's functions (both forms) with their `#` docs and `source` imports; Lua's
    functions of a table (`M.split`, `M:join`, `M.strip = function`), local ones, `---`
    docs, and `require` bound to its local name."""
    bash = parse_code_text(BASH_SOURCE, "scripts/site.sh", "bash")
    assert {s.name: s.docstring for s in bash.symbols} == {
        "build": "Builds the site.",
        "render": None,
    }
    assert [(i.module, i.names) for i in bash.imports] == [("./lib/common", ["*"])]
    lua = parse_code_text(LUA_SOURCE, "pl/text.lua", "lua")
    assert {s.qualified_name: s.docstring for s in lua.symbols}["M.split"] == (
        "Splits a string at a separator."
    )
    assert [(i.module, i.alias) for i in lua.imports] == [("pl.utils", "utils")]
    strip = next(s for s in lua.symbols if s.name == "strip")
    assert strip.signature == "M.strip = function(s)"


# -- single-file components: a Vue or Svelte file's <script> blocks are its code -----------
VUE_COMPONENT = """<template>
  <button :class="cx('root')" @click="onClick($event)" v-if="visible">
    {{ label }}
  </button>
</template>

<script lang="ts">
import { defineComponent } from 'vue';
import BaseButton from './BaseButton.vue';

export default defineComponent({
    name: 'Button',
    extends: BaseButton,
    methods: {
        onClick(event: MouseEvent): void {
            this.track(event);
        },
        track(event: MouseEvent): void {}
    },
    computed: {
        visible(): boolean {
            return !this.hidden;
        }
    }
});
</script>

<style scoped>
.p-button { display: inline-flex; }
</style>
"""

SVELTE_COMPONENT = """<script>
  export let name = 'world';
  function greet(who) {
    return `Hello ${who}`;
  }
</script>

{#if name}
  <h1>{greet(name)}!</h1>
{:else}
  <p>Nobody.</p>
{/if}
"""


def test_a_vue_component_is_parsed_in_its_script() -> None:
    """primevue ships its components as `.vue` files, which were text: no symbol, no
    reference. Its <script lang="ts"> is TypeScript at its own lines; the template and
    the style are no code to the parser (no syntax warning), and stay in the text."""
    document = parse(_source(VUE_COMPONENT.encode(), "src/button/Button.vue"))
    assert document.format == "code" and document.language == "typescript"
    assert document.text == VUE_COMPONENT
    assert not document.warnings
    assert [(s.kind, s.name, s.line, s.end_line) for s in document.symbols] == [
        ("method", "onClick", 15, 17),
        ("method", "track", 18, 18),
        ("method", "visible", 21, 23),
    ]
    calls = [(r.name, r.line, r.column, r.caller) for r in document.references if r.kind == "call"]
    assert ("track", 16, 18, "onClick") in calls, calls  # the script's own lines and columns
    # the template's expressions are code too, at their own lines and columns
    assert ("cx", 2, 19, None) in calls and ("onClick", 2, 39, None) in calls, calls


@pytest.mark.parametrize(
    "template, calls",
    [
        # a handler named alone is a call of it (at its opening quote: the name moves
        # one byte left to make room for the call's parentheses)
        ('<b @click="save">x</b>', [("save", 13)]),
        ('<b v-on:click="save(1)">x</b>', [("save", 18)]),
        (
            '<li v-for="(item, i) in visible(items)">{{ label(item) }}</li>',
            [("visible", 27), ("label", 46)],
        ),
        ('<b v-if="ok()" :title="t(\'k\')">x</b>', [("ok", 12), ("t", 26)]),
        ('<b @click="a(); b()">x</b>', []),  # two statements: left out
        # an expression the parser cannot read: the scripts alone, without a warning
        ('<b :class="{ a: b c }" @click="save">x</b>', []),
    ],
)
def test_a_vue_templates_expressions_are_references(template: str, calls: list) -> None:
    text = f"<template>\n  {template}\n</template>\n<script>\nexport default {{\n  methods: {{\n"
    text += "    save() { return 1; }\n  }\n};\n</script>\n"
    document = parse(_source(text.encode(), "src/A.vue"))
    assert not document.warnings
    assert [s.name for s in document.symbols] == ["save"]
    found = [(r.name, r.column) for r in document.references if r.kind == "call" and r.line == 2]
    assert found == calls


def test_a_svelte_component_is_parsed_in_its_script() -> None:
    document = parse(_source(SVELTE_COMPONENT.encode(), "src/Hello.svelte"))
    assert document.language == "javascript" and not document.warnings
    assert [(s.name, s.line, s.end_line) for s in document.symbols] == [("greet", 3, 5)]
    assert "{#if name}" in document.text
    calls = [(r.name, r.line, r.column) for r in document.references if r.kind == "call"]
    assert calls == [("greet", 9, 8)]  # `<h1>{greet(name)}!</h1>`, at its own column


@pytest.mark.parametrize(
    "template, calls",
    [
        # a handler named alone is a call of it (at its brace: the name moves one byte left)
        ("<b on:click={save}>x</b>", [("save", 15)]),
        ("<b onclick={save} title={label(1)}>x</b>", [("save", 14), ("label", 28)]),
        ("<b on:click={() => save(2)}>x</b>", [("save", 22)]),
        (
            "{#if ok()}<i>{label(0)}</i>{:else if other()}<i/>{/if}",
            [("ok", 8), ("label", 17), ("other", 40)],
        ),
        ("{#each rows(all) as row, i (row.id)}<i>{row.name}</i>{/each}", [("rows", 10)]),
        ("{#await load() then value}{value}{/await}", [("load", 11)]),
        ('<b {...rest()} class="a {cls()}">x</b>', [("rest", 10), ("cls", 28)]),
        ("{@html render(x)}{@const y = save()}", [("render", 10)]),
        # an expression the parser cannot read: the scripts alone, without a warning
        ("<b on:click={save}>{'}'}</b>", []),
    ],
)
def test_a_svelte_templates_expressions_are_references(template: str, calls: list) -> None:
    text = "<script>\n  function save() {}\n</script>\n" + f"  {template}\n"
    document = parse(_source(text.encode(), "src/A.svelte"))
    assert not document.warnings
    assert [s.name for s in document.symbols] == ["save"]
    found = [(r.name, r.column) for r in document.references if r.kind == "call" and r.line == 4]
    assert found == calls


ASTRO_COMPONENT = """---
import Icon from './Icon.astro';
const { label } = Astro.props;
function shout(text: string): string {
  return text.toUpperCase();
}
---
<button>{shout(label)}</button>
<script>
  function track(): void {}
</script>
"""


def test_an_astro_component_is_parsed_in_its_front_matter_and_scripts() -> None:
    """An Astro component's front matter (between its `---` lines) is TypeScript, and so
    are its `<script>` blocks (Starlight 0.28's 52 components were text)."""
    document = parse(_source(ASTRO_COMPONENT.encode(), "src/Button.astro"))
    assert document.language == "typescript" and not document.warnings
    assert [(s.name, s.line) for s in document.symbols] == [("shout", 4), ("track", 10)]
    assert [i.module for i in document.imports] == ["./Icon.astro"]


@pytest.mark.parametrize(
    "text, expected",
    [
        # a module's default export: its methods and its groups' methods
        ("export default {\n  mounted() {},\n  methods: { go() {} }\n};\n", ["mounted", "go"]),
        # any other object literal's methods are no symbols (a config, an argument)
        ("const config = {\n  build() {}\n};\nsetup({ run() {} });\n", []),
    ],
)
def test_the_methods_of_a_default_export(text: str, expected: list[str]) -> None:
    for path in ("src/m.js", "src/m.ts"):
        document = parse(_source(text.encode(), path))
        assert [s.name for s in document.symbols] == expected, path


def test_a_component_is_indexed_as_code(tmp_path: Path) -> None:
    """Indexed, a Vue component answers code questions: its methods' callers, its
    template's words by search."""
    import docql_sqlite

    (tmp_path / "Button.vue").write_text(VUE_COMPONENT)
    db = tmp_path / "x.db"
    docql_sqlite.index(db, [str(tmp_path)])
    with docql_sqlite.open(db) as index:
        assert index.query('$.files[?(@.name == "Button.vue")].format') == ["code"]
        assert index.query('$.code.callers("track").caller') == ["onClick"]
        hit = index.search("p-button inline-flex", limit=1)[0]
        assert hit["line"] <= 29 <= hit["end_line"]  # the style's line: text of the file


# A Mojo::Base / Moose / Moo class: attributes by `has`, the manual in POD after the
# code (as perldoc reads `Mojo::UserAgent`), POD between subs, and a heredoc whose lines
# look like POD.
PERL_MODULE = """\
package My::Agent;
use Mojo::Base -base;

has request_timeout => sub { $ENV{MY_TIMEOUT} // 0 };
has 'name' => (is => 'rw');
has max_redirects => 5;

=head2 start

Starts it.

=cut

sub start {
    my $self = shift;
    my $text = <<EOT;
=head1 NOT POD

EOT
    return $self->request_timeout;
}

1;

=encoding utf8

=head1 NAME

My::Agent - An agent

=head1 ATTRIBUTES

=head2 request_timeout

  my $timeout = $agent->request_timeout;

Maximum amount of time in seconds establishing a connection, sending the request and
receiving a whole response may take, defaults to C<0>.

=head2 name

Its name.

=head1 SEE ALSO

L<Mojolicious>.

=cut
"""


def test_a_perl_modules_pod_is_its_outline_and_has_attributes_are_methods() -> None:
    document = parse_code_text(PERL_MODULE, "lib/My/Agent.pm", "perl")
    assert _symbols(document) == [
        ("class", "Agent", "My.Agent", 1, 48, "My"),
        ("method", "request_timeout", "My.Agent.request_timeout", 4, 4, "My.Agent"),
        ("method", "name", "My.Agent.name", 5, 5, "My.Agent"),
        ("method", "max_redirects", "My.Agent.max_redirects", 6, 6, "My.Agent"),
        ("method", "start", "My.Agent.start", 14, 21, "My.Agent"),
    ]
    # headings by line: the package, the POD's (inside it, by their `=head` level),
    # the sub; an attribute opens none (one line each), the heredoc's `=head1` is text
    outline = [(h.level, h.title, h.line, h.end_line) for h in document.headings]
    assert outline == [
        (1, "Agent", 1, 48),
        (3, "start", 8, 12),
        (2, "start", 14, 21),
        (2, "NAME", 27, 30),
        (2, "ATTRIBUTES", 31, 43),
        (3, "request_timeout", 33, 39),
        (3, "name", 40, 43),
        (2, "SEE ALSO", 44, 48),
    ]
    # passages split at each POD heading and after each POD block
    assert {8, 13, 27, 31, 33, 40, 44} <= document.chunk_breaks
    from docql_sqlite.ingest.chunk import chunk_document
    from docql_sqlite.ingest.sections import build_sections

    sections = build_sections(document)
    chunks = chunk_document(document, sections, 1500)
    by_line = {c.line: sections[c.section].title for c in chunks if c.section is not None}
    assert by_line[33] == "request_timeout" and by_line[40] == "name"
    # a sub's or an attribute's POD section is its docstring (its first paragraph,
    # rendered), and its entity's definition
    docs = {s.name: s.docstring for s in document.symbols}
    assert docs["request_timeout"] == (
        "Maximum amount of time in seconds establishing a connection, sending the request "
        "and receiving a whole response may take, defaults to 0."
    )
    assert docs["start"] == "Starts it." and docs["max_redirects"] is None
    assert {e.name: e.definition for e in document.entities}["My.Agent.start"] == "Starts it."
