"""Which definition a reference means, when that can be decided (issue 23, docs/schema.md).

Runs once at the end of every `index` run (and of every watch cycle), over what the run
changed: the references of the files it wrote (the writer holds them in `refs_staged`;
this pass inserts them into `refs`, resolved, so each is written there once) and every
reference, in any file, to a name whose definitions it added or removed (`refs_pending`,
likewise): of those, only the rows whose link changed are written again. A changed file
can change how references in *other* files resolve (a second `parse` appears, the only
`Lexer` is deleted); the queue of names is what catches that, so an unchanged file's
links never go stale and a one-file change costs one name's references, not the index's.

For one reference (file F, name N, kind K) the candidates are the symbols named N
(exactly, case-sensitive) of a kind that fits K: any callable or class-like kind for a
call (a class is called to construct it), class-like kinds for a type use or an
inheritance, any kind for an import. Then, in order:

1. `local`: candidates in F itself. Several: the one whose parent encloses the
   reference (a method of the caller's own class), else the file's top-level one, else
   the first. A definition inside a function's body (or inside a class defined there:
   `_Def.scope`) is a candidate only for references inside that function, never for
   the rest of F or another file (pytest's TypeVar `E` is not a test's local `class E`).
   Not for
   a member of another object than the method's own (`refs.qualifier` `OTHER_OBJECT`,
   Python and JavaScript/TypeScript: `router.handle(...)` inside express's `app.handle`
   is the router's, `super().save()` the parent's): such a reference takes rule 2 with
   F's own definitions left out (in Rust the one member under an imported folder only
   when F imports its type by name or its module with `*`; a Rust method on a chain
   begun by `Type::f(…)`, a Python member of a parameter annotated with a class or of a
   name bound to a new instance, and a Go member of a name declared with a type (of the
   package the type names; unresolved when the index holds no type of that name:
   `_go_member`), qualifier `Type()`, are first that type's member: `_value_of`), then 3 (in Python
   among members only), else stays
   ambiguous; a member of a built-in object (`BUILT_IN_OBJECT`: `JSON.parse`, `str.join`)
   is unresolved.
2. `import`: exactly one candidate lies in a file that F imports: its path contains a
   tail of the imported module's parts (`a.b` → `a/b`, `std::io` → `std/io`,
   `"net/http"`, `./util` → `util`) as consecutive path segments — which is the same as
   a path segment named like the module's last part (`_imports_of`). A relative
   import (`./x`, `../types`) imports the one file it names, relative to F. A module
   asked for a name (`pytest.raises`, `from flask import url_for`: `_in_path`) answers
   with its one top-level definition (overloads in one Python or TypeScript file: the
   last), else, in Python and JavaScript/TypeScript, with the definition its own file
   re-exports under that name (`from m import name`, `export { name } from "m"`, else
   a star: `_reexports`, followed up to REEXPORT_DEPTH modules); the writer queues the
   names a file's imports bind, so a re-export that changes decides its uses again.
3. `unique`: exactly one candidate in the whole index. In Python, a top-level one only
   when F imports the name from a module the index holds (a re-export): a top-level
   definition of another file is reachable by an import alone (`_reexported`).
4. `ambiguous`: several candidates and nothing above decided: no target.
5. `unresolved`: no candidate (a built-in, the standard library, a dependency); also a
   Python built-in name (`super`, `len`, `dict`) that F neither defines nor imports,
   whatever definitions of that name other files have (`_BUILTINS`), and a name F
   imports from a module the index does not hold (`from datetime import date`: the
   standard library's `date`, not a `date` of a file F also imports), bare or qualified
   (`datetime.date` after `import datetime`: `_outside`). A module nested in
   a package (a folder with an indexed `__init__.py`; an empty one is indexed too,
   `parse.PACKAGE_MARKER`) is not the module its last part names:
   django/db/models/functions/datetime.py is not `datetime`.

A name one of F's imports renames (`Sq` after `from m import Square as Sq`, JS's
`{ join as j }`, Rust's `use m::Square as Sq`) skips these rules: it is the one top-level
`Square` of m's files (`import`), else `unresolved` (`_Resolver._renamed`); when the
definitions of `Square` change, the uses of `Sq` are decided again with it.

A name written after an imported qualifier that is no module of the index holding it
(`ValError::new`, `Field.clean(self)`, Rust's `ptr::null()`) is decided by the qualifier
(`_Resolver._through_qualifier`): a member of the type it names (the one the import names
when several types share the name), else — in Rust, where a path says whether it names
a type (capitalised) or a module — an item of an inline `mod` or of a file under a folder
of that name, else `unresolved` (another crate's type or module: `Arc::new`,
`libc::exit`); elsewhere the rules above. In Rust only `::` writes a path: `x.len()`
is a value's method, a value other than `self` is another object, and a bare name is
never a type's member (`_decide`: `Ok(…)` is not an `impl`'s `type Ok`); `self.x` and
`Self::x` (`refs.qualifier` `self`, `Self`) take rule 1 with the members.

`candidates` records how many there were, so an answer can say "one of 7".
Types are read only where the code writes them down (an annotation, a Go, Java or C++
declaration (`const Normalizer normalizer(spec);`, `(const Lattice& lattice)`; not a
template's type parameter), `x = Class(…)`, `self.x = Class(…)`, a Rust chain begun by `Type::f`, a
Java, Kotlin, C# or Swift constructor's call); a value returned
by a call, and virtual dispatch, are beyond this: such a method resolves by the rules
above, which the `resolution` column says.
"""

from __future__ import annotations

import gc
import json
import posixpath
import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..module_paths import local_modules, module_segments, renamed_name
from ..path_kinds import is_test
from ..ref_codes import (
    BUILT_IN_OBJECT,
    CALLABLE,
    CLASS_LANGUAGES,
    CLASS_LIKE,
    ENUM_MEMBER,
    FITS,
    MACRO,
    OTHER_OBJECT,
    OWN_MEMBER,
    OWN_TYPE,
    PARENT,
    REFERENCE_KINDS,
    RESOLUTIONS,
    TYPES_BY_CASE,
    VALUE_OF,
)

if TYPE_CHECKING:
    from ..dialect import Dialect


_NOT_IMPORTABLE = frozenset({"method", "constructor"})  # an import names top-level things
# Languages whose files can use each other's definitions (a header's declarations in C++).
_FAMILY = {"tsx": "typescript", "javascript": "typescript", "c": "cpp"}


def _family(language: str | None) -> str:
    return _FAMILY.get(language or "", language or "")


# `refs.kind` and `refs.resolution` codes (schema 11): positions in these tuples.
_CALL, _TYPE, _INHERIT, _IMPORT = (
    REFERENCE_KINDS.index(k) for k in ("call", "type", "inherit", "import")
)
_LOCAL, _BY_IMPORT, _UNIQUE, _AMBIGUOUS = (
    RESOLUTIONS.index(r) for r in ("local", "import", "unique", "ambiguous")
)
_UNRESOLVED: tuple[int | None, int, int] = (None, RESOLUTIONS.index("unresolved"), 0)
# Functions of modules an index seldom holds that return a value of their argument's
# class (typeshed: `def copy(x: _T) -> _T`), which may be the index's: `copy.copy(info)`
# is still a `FieldInfo` (`_Resolver._python_result`).
_SAME_VALUE = frozenset(("copy.copy", "copy.deepcopy", "typing.cast", "typing_extensions.cast"))
# How a staged reference row of kind inherit goes on after its name (`references_json`'s
# compact JSON: `["Reader",2,12,…`): a name's string ends right before its kind, and no
# other string of a row is followed by a number.
_INHERIT_MARK = f'",{_INHERIT},'
# `_Resolver._go_members`' markers (compared by identity): not asked yet; no type there.
_NOT_ASKED: list[Any] = []
_NO_TYPE: list[Any] = []
_FITS = {REFERENCE_KINDS.index(kind): fits for kind, fits in FITS.items()}
# Ruby's: a module is named as a class is (`include Enumerable`, `Rack::Utils.escape`).
_RUBY_FITS = {group: fits | {"module"} for group, fits in _FITS.items()}
_BATCH = 20_000  # references written per statement batch
# The import rule looks at most this many candidates: a name defined in hundreds of files
# (`new`, `String`, `fmt`) is not told apart by a module path anyway (it stays ambiguous).
IMPORT_SCAN_LIMIT = 64
# Languages whose overloads are definitions of one name in one file, the implementation
# last: Python's `typing.overload`, TypeScript's overload signatures (`_in_path`).
_OVERLOADING = frozenset({"python", "typescript"})
# Language families where one name defined more than once in one file, in the same
# scope, is one definition: C/C++'s alternatives under `#if` (`#define BROTLI_INLINE …`
# once per compiler, `typedef … brotli_reg_t` per word size) and C++'s overloads. The
# first stands for all (`_first_per_file`); without it every use of Brotli's macros and
# typedefs from another file was ambiguous.
_ONE_PER_FILE = frozenset({"cpp"})
# Languages whose package is the file's folder by convention (Java requires it of public
# classes; Kotlin recommends it): a top-level type or function of another file of the
# folder is visible without an import (`Node` in java/util/stream/Nodes.java is Node.java's
# interface, not one of the index's 17 nested `Node` classes).
_PACKAGE_IS_FOLDER = frozenset({"java", "kotlin"})
# The class languages (`CLASS_LANGUAGES`): their methods overload by parameter types,
# which the pass does not read, so the overloads of one name under one parent in one file
# are one method, linked at the first (`Objects.requireNonNull(x)` and `(x, message)`:
# 488 calls of OpenJDK 17's java.util were ambiguous between them, `_fitting`); a bare
# name no definition of the file is, is looked for in the bases of the class around it
# (`set(YEAR, …)` in GregorianCalendar is its base `Calendar`'s: `_inherited_bare`).
# Of them, in Java, C# and Swift a bare call is never a method of an unrelated class
# (Kotlin's lambdas with receivers are: expo's module DSL calls `Name(…)` bare; Swift's
# DSL is top-level functions).
_BARE_NEVER_FOREIGN = frozenset({"java", "c_sharp", "swift"})
# Language families whose classes' bases are read (`_inherited`).
_BASES_READ = frozenset({"python", "typescript", "ruby", "php"}) | CLASS_LANGUAGES
# Language families where a capitalised qualifier names a class or module, by the
# language's rule or its universal convention (Ruby's constants, PHP's PSR-1 classes): a
# member the index's classes of that name lack is outside it (`_member_of_type`).
_CAPITALISED_TYPES = TYPES_BY_CASE | {"ruby", "php"}
# Language families whose `super` / `parent::` member is looked for in the bases the
# class's signature writes (`_parent_member`).
_PARENTS_READ = _OVERLOADING | CLASS_LANGUAGES | {"ruby", "php"}
_C_HEADERS = (".h", ".hh", ".hpp", ".hxx", ".h++", ".inl")
# Language families whose paths say what they name (`Type::x`, `module::x`, `self.x`):
# a bare name is no member (`_decide`), a qualifier is a type or a module by its case
# (`_through_qualifier`).
_PATH_FAMILIES = frozenset({"rust"})
# Language families where a member is always written through its object (`self.x`,
# `Self::x`, Go's `b.grow()`, PHP's `$this->x`, `self::x`): a bare name is never a
# member of a type (`_decide`), and `refs.qualifier` `self` marks the method's own object.
_RECEIVER_FAMILIES = frozenset({"rust", "go", "php"})
# Rust's qualifiers of the method's own type (`ref_codes.OWN_MEMBER`, `OWN_TYPE`).
_OWN = frozenset({OWN_MEMBER, OWN_TYPE})
# Language families whose modules re-export what they import (`_Resolver._reexports`:
# Python's package `__init__.py`, JavaScript/TypeScript's barrel files), and the file
# that is its folder's module.
_REEXPORTING = frozenset({"python", "typescript"})
_PACKAGE_FILES = frozenset({"__init__", "index"})
# How many modules that import a name and define none (`pytest` → `_pytest.python_api`)
# `_Resolver._in_path` follows before it gives up: a package re-exporting a subpackage's
# re-export is two.
REEXPORT_DEPTH = 4
# Python's built-in names, which every module sees without an import: a use of one that
# the file neither defines nor imports is the built-in (`super()`, `len(x)`, `dict(a)`,
# `x: list`), never the only method of that name somewhere else (Django's one
# `BlockNode.super` took all 1,235 `super()` calls of Django, `tuple(x)` went to
# `GeometryCollection.tuple`). Per language family; only Python's for now. Written out
# (Python 3.11–3.13's `dir(builtins)` without `_` names), not read from the running
# interpreter: the links an index holds must not depend on which Python built it.
_PYTHON_BUILTINS = """
    ArithmeticError AssertionError AttributeError BaseException BaseExceptionGroup
    BlockingIOError BrokenPipeError BufferError BytesWarning ChildProcessError
    ConnectionAbortedError ConnectionError ConnectionRefusedError ConnectionResetError
    DeprecationWarning EOFError Ellipsis EncodingWarning EnvironmentError Exception
    ExceptionGroup False FileExistsError FileNotFoundError FloatingPointError
    FutureWarning GeneratorExit IOError ImportError ImportWarning IndentationError
    IndexError InterruptedError IsADirectoryError KeyError KeyboardInterrupt LookupError
    MemoryError ModuleNotFoundError NameError None NotADirectoryError NotImplemented
    NotImplementedError OSError OverflowError PendingDeprecationWarning PermissionError
    ProcessLookupError PythonFinalizationError RecursionError ReferenceError
    ResourceWarning RuntimeError RuntimeWarning StopAsyncIteration StopIteration
    SyntaxError SyntaxWarning SystemError SystemExit TabError TimeoutError True
    TypeError UnboundLocalError UnicodeDecodeError UnicodeEncodeError UnicodeError
    UnicodeTranslateError UnicodeWarning UserWarning ValueError Warning
    ZeroDivisionError abs aiter all anext any ascii bin bool breakpoint bytearray bytes
    callable chr classmethod compile complex copyright credits delattr dict dir divmod
    enumerate eval exec exit filter float format frozenset getattr globals hasattr hash
    help hex id input int isinstance issubclass iter len license list locals map max
    memoryview min next object oct open ord pow print property quit range repr reversed
    round set setattr slice sorted staticmethod str sum super tuple type vars zip
"""
# Ruby's Kernel and Module methods, which every object and class body calls bare
# (`raise`, `puts`, `attr_reader`, `include`, `define_method`), and its conversion
# functions (`Integer(x)`, `Array(x)`).
_RUBY_BUILTINS = """
    Array Complex Float Hash Integer Rational String abort alias_method at_exit attr class
    clone dup hash object_id
    attr_accessor attr_reader attr_writer autoload binding block_given? caller catch
    class_eval class_exec const_get const_set define_method exit extend fail format
    freeze frozen? gets include instance_eval instance_exec instance_of?
    instance_variable_get instance_variable_set is_a? kind_of? lambda loop method
    module_function nil? open p pp prepend print printf private private_class_method
    private_constant proc protected public public_send puts raise rand require
    require_relative respond_to? send sleep sprintf srand system tap then throw warn
    yield_self
"""
# Bash's builtins and Lua's base functions: never a function of the index.
_BASH_BUILTINS = """
    alias bg bind break builtin caller cd command compgen complete compopt continue declare
    dirs disown echo enable eval exec exit export false fc fg getopts hash help history jobs
    kill let local logout mapfile popd printf pushd pwd read readarray readonly return set
    shift shopt source suspend test times trap true type typeset ulimit umask unalias unset
    wait
"""
_LUA_BUILTINS = """
    assert collectgarbage dofile error getmetatable ipairs load loadfile loadstring next
    pairs pcall print rawequal rawget rawlen rawset require select setmetatable tonumber
    tostring type unpack xpcall
"""
# Ruby's core and standard classes and modules: a library that reopens one (`class File`
# in ActiveSupport's core extensions, to add `atomic_write`) does not define it, so a use of
# the constant from another file is Ruby's class, not that file (`File.join` made
# ActiveSupport's atomic.rb the centre of a map of six gems); its members stay links
# (`File.atomic_write` is that file's method).
_RUBY_CORE_CONSTANTS = frozenset(
    """
    Array BasicObject BigDecimal Binding Class Comparable Complex Date DateTime Dir
    Encoding Enumerable Enumerator Errno Exception FalseClass Fiber File FileTest Float
    GC Hash IO Integer Kernel Marshal MatchData Math Method Module Mutex NilClass
    Numeric Object ObjectSpace Pathname Proc Process Queue Random Range Rational Regexp
    Set Signal String Struct Symbol Thread Time TrueClass URI UnboundMethod
    ArgumentError IOError IndexError KeyError LoadError NameError NoMethodError
    NotImplementedError RangeError RuntimeError StandardError StopIteration SystemExit
    TypeError ZeroDivisionError
    """.split()
)
# Perl's named operators and functions (perlfunc) written as calls.
_PERL_BUILTINS = """
    abs bless binmode caller chdir chmod chomp chop chr close closedir defined delete die
    do each eof eval exec exists exit exp glob grep hex index int join keys kill lc lcfirst
    length local localtime lock map mkdir oct open opendir ord pack pop pos print printf
    push quotemeta rand read readdir readline ref rename require reverse rindex rmdir
    scalar seek select shift sleep sort splice split sprintf sqrt srand stat substr
    sysread system syswrite tell time uc ucfirst undef unlink unpack unshift utime values
    wait waitpid wantarray warn write
"""
_BUILTINS: dict[str, frozenset[str]] = {
    "perl": frozenset(_PERL_BUILTINS.split()),
    "python": frozenset(_PYTHON_BUILTINS.split()),
    "ruby": frozenset(_RUBY_BUILTINS.split()),
    "bash": frozenset(_BASH_BUILTINS.split()),
    "lua": frozenset(_LUA_BUILTINS.split()),
}
# The methods of each language's built-in types (Python's str, bytes, list, dict, set,
# tuple and numbers; JavaScript's Array, String, Promise, Function and Object.prototype,
# not Map's and Set's `get`/`set`/`has`/`add`/`delete`/`clear`, which a library's own
# classes name as often (rxjs's `Subscription.add`); Rust's Vec, slices, str, String,
# Option, Result, HashMap and Iterator): `x.get(…)`, `x.append(…)`, `x.push(…)` on a
# value whose type is not known is as likely the built-in's as any definition of the
# index, so such a member of another
# object is never linked by the import or the uniqueness rule (`_member_of_another`):
# sqlglot's 888 `e.args.get(…)` all went to `_Dialect.get`, pytest's 271 `x.append(…)` to
# `_NodeReporter.append`. Written out, as `_PYTHON_BUILTINS` is.
_PYTHON_BUILT_IN_METHODS = """
    add append as_integer_ratio bit_count bit_length capitalize casefold center clear
    conjugate copy count decode denominator difference difference_update discard encode
    endswith expandtabs extend find format format_map from_bytes fromhex fromkeys get hex
    imag index insert intersection intersection_update is_integer isalnum isalpha isascii
    isdecimal isdigit isdisjoint isidentifier islower isnumeric isprintable isspace
    issubset issuperset istitle isupper items join keys ljust lower lstrip maketrans
    numerator partition pop popitem real remove removeprefix removesuffix replace reverse
    rfind rindex rjust rpartition rsplit rstrip setdefault sort split splitlines
    startswith strip swapcase symmetric_difference symmetric_difference_update title
    to_bytes translate union update upper values zfill
    close detach fileno flush getbuffer getvalue isatty peek read read1 readable readall
    readinto readinto1 readline readlines reconfigure seek seekable tell truncate writable
    write writelines
"""
_JS_BUILT_IN_METHODS = """
    at concat copyWithin entries every fill filter find findIndex findLast findLastIndex
    flat flatMap forEach includes indexOf join keys lastIndexOf map pop push reduce
    reduceRight reverse shift slice some sort splice toReversed toSorted toSpliced unshift
    values with charAt charCodeAt codePointAt endsWith localeCompare match matchAll
    normalize padEnd padStart repeat replace replaceAll search split startsWith substring
    substr toLowerCase toUpperCase toLocaleLowerCase toLocaleUpperCase trim trimEnd
    trimStart toString toLocaleString valueOf hasOwnProperty isPrototypeOf
    propertyIsEnumerable then catch finally apply bind call exec test toFixed toPrecision
    toISOString toJSON getTime
"""
_RUST_BUILT_IN_METHODS = """
    len is_empty push pop insert remove get get_mut contains contains_key iter iter_mut
    into_iter map map_err and_then or_else unwrap unwrap_or unwrap_or_else
    unwrap_or_default expect ok ok_or ok_or_else err is_some is_none is_ok is_err as_ref
    as_mut as_str as_slice as_bytes as_ptr as_mut_ptr clone cloned copied to_string
    to_owned to_vec into collect filter filter_map flat_map find position fold any all
    count sum min max next last first split split_at trim starts_with ends_with chars
    bytes lines join extend append clear entry or_insert or_insert_with or_default keys
    values sort sort_by sort_by_key sort_unstable dedup retain truncate reserve capacity
    borrow borrow_mut lock read write take replace cmp partial_cmp eq ne hash fmt
    rev zip enumerate skip step_by chain peekable windows chunks with_capacity drain
    push_str to_lowercase to_uppercase parse is_ascii
"""
# Ruby's Object, String, Symbol, Array, Hash, Enumerable, Integer and IO.
_RUBY_BUILT_IN_METHODS = """
    << == =~ abs all? any? between? bytes call capitalize ceil chars chomp clear close
    collect compact concat count delete delete_if detect dig downcase downto dup each
    each_key each_pair each_value each_with_index each_with_object empty? encode
    end_with? fetch filter find first flatten floor flush force_encoding freeze gets
    group_by gsub gsub! has_key? include? index inject inspect join key? keys last length
    lines map match max merge merge! min none? partition pop push read reduce reject
    replace reverse round scan select shift size slice sort sort_by split start_with?
    strip sub sub! succ sum times to_a to_h to_i to_f to_s to_sym uniq unshift update
    upcase upto values write zip
"""
# PHP's built-in classes' methods — Throwable, DateTime, PDO and PDOStatement, DOM, SPL's
# iterators, ArrayAccess, Countable, JsonSerializable, Closure — which a library's own
# classes name too (`$pdo->setAttribute(…)` was Symfony's `AcceptHeaderItem::setAttribute`).
_PHP_BUILT_IN_METHODS = """
    getMessage getCode getPrevious getTrace getTraceAsString getFile getLine __toString
    format modify getTimestamp setTimestamp setTimezone getTimezone diff add sub setDate
    setTime createFromFormat query prepare execute fetch fetchAll fetchColumn fetchObject
    bindValue bindParam beginTransaction commit rollBack inTransaction lastInsertId
    rowCount columnCount closeCursor errorCode errorInfo quote setAttribute getAttribute
    hasAttribute removeAttribute appendChild removeChild createElement createTextNode
    getElementsByTagName saveXML loadXML saveHTML loadHTML count offsetGet offsetSet
    offsetExists offsetUnset getIterator current key next rewind valid attach detach
    contains jsonSerialize bindTo call __invoke getArrayCopy append
"""
# Java's Object, String, StringBuilder, the collections, Optional and streams.
_JAVA_BUILT_IN_METHODS = """
    toString equals hashCode getClass length charAt substring indexOf lastIndexOf
    startsWith endsWith contains isEmpty trim split replace replaceAll toLowerCase
    toUpperCase format append insert reverse size get put remove add addAll removeAll
    containsKey containsValue keySet values entrySet iterator hasNext next clear stream
    map filter collect forEach orElse orElseGet isPresent ifPresent getKey getValue
    compareTo toArray asList sort getName
"""
# The C++ standard library's members (containers, strings, smart pointers, streams):
# `pieces.size()`, `v.push_back(x)`, `p.get()`.
_CPP_BUILT_IN_METHODS = """
    size empty begin end cbegin cend rbegin rend data clear insert erase emplace
    emplace_back push_back pop_back push_front pop_front front back at find count reserve
    resize swap c_str substr append compare length get reset release first second
    lower_bound upper_bound equal_range assign str what value has_value load store
"""
# Families where `x.name` on another object is a member, never a free function: Python,
# Rust, Go, C++ (a method has its class as parent) and C (none is: a call through
# `m->free_func(…)` is a struct field's pointer, no function of the index).
_MEMBERS_ONLY = frozenset({"python", "rust", "go", "cpp", "ruby", "php", "perl"})
_BUILT_IN_METHODS: dict[str, frozenset[str]] = {
    "cpp": frozenset(_CPP_BUILT_IN_METHODS.split()),
    "java": frozenset(_JAVA_BUILT_IN_METHODS.split()),
    "python": frozenset(_PYTHON_BUILT_IN_METHODS.split()),
    "typescript": frozenset(_JS_BUILT_IN_METHODS.split()),
    "rust": frozenset(_RUST_BUILT_IN_METHODS.split()),
    "ruby": frozenset(_RUBY_BUILT_IN_METHODS.split()),
    "php": frozenset(_PHP_BUILT_IN_METHODS.split()),
}
# `refs`' index on the name (sql/011_refs_compact.sql: the same definition).
NAME_INDEX = "refs_name"
# Without spaces: apsw's `executemany` looks the statement up by its text for every row
# (a hash of the text: ~1.7 k instructions a row at 150 characters).
_INSERT = (
    "INSERT INTO refs(doc_id,ord,name,kind,caller_ord,line,end_line,col,qualifier,target_id,"
    "resolution,candidates)VALUES(?,?,?,?,?,?,?,?,?,?,?,?)"
)


@dataclass(slots=True)
class _Def:
    id: int
    doc_id: int
    kind: str
    parent: str
    family: str  # the language family (`_FAMILY`): references resolve within it
    # The segments of the file's path without extension (split at '/'): one set per
    # document, shared by its symbols (`_imports_of`).
    segments: frozenset[str]
    # The file's path without extension as `module_segments` spells a relative import's
    # target (`path_key`), and its directory: one string each per document.
    key: str
    directory: str
    # The qualified name of the innermost function or method whose body defines it, or
    # a class it defines ("" for a definition of a module, or of a class or namespace
    # outside any function): such a definition is a name of that body only (`_closest`),
    # never a candidate for another file or function.
    scope: str = ""
    # Whether its file is a test (`path_kinds.is_test`): no other file but a test reaches
    # it by the loose rules (`_hidden`).
    test: bool = False
    # Whether its file is a C/C++ header (`_sources_over_headers`).
    header: bool = False
    # Whether it is a C/C++ prototype (its signature ends with `;`, as the file writes
    # it: `code_symbols`), whose body another file holds (`_bodies_behind_declarations`).
    declaration: bool = False
    # Whether it is a C# extension method (`static … F(this PropertyInfo p, …)`), which a
    # value of another class calls as its own (`_value_of`).
    extension: bool = False


def _sources_over_headers(definitions: list[_Def]) -> list[_Def]:
    """Without the header declarations (`memory.h`'s `void BrotliFree(…);`) of what the
    source file of the same name defines under the same parent (`memory.c`'s
    `BrotliFree`): one function, declared where callers include it and defined where it
    is compiled. Every file that includes `memory.h` imports both (a path without its
    extension is the module), so the pair made each use ambiguous; the definition is the
    link."""
    sources = {(d.key, d.parent) for d in definitions if not d.header}
    if not sources:
        return definitions
    return [d for d in definitions if not (d.header and (d.key, d.parent) in sources)]


def _bodies_behind_declarations(definitions: list[_Def], bodies: dict[int, int]) -> list[_Def]:
    """Without the body of a function whose prototypes are among `definitions` when the
    index holds that one body under that parent: the prototypes stand for it (the one a
    file includes decides, as for any name), and `bodies` maps each to the body, the
    link `_Resolver.resolve` gives. Brotli's `include/brotli/decode.h` declares what
    `dec/decode.c` defines (no file of one name pairs them: `_sources_over_headers`),
    apsw's unity build declares `AddTraceBackHere` in `pyutil.c` and defines it in
    `traceback.c`: each call was ambiguous between the two, or linked to the prototype.
    With several bodies of the name (two libraries' `init`) nothing changes."""
    if not any(d.declaration for d in definitions):
        return definitions
    groups: dict[str, list[_Def]] = defaultdict(list)
    for d in definitions:
        if not d.declaration:
            groups[d.parent].append(d)
    behind: set[int] = set()
    for d in definitions:
        found = groups.get(d.parent)
        if d.declaration and found is not None and len(found) == 1:
            bodies[d.id] = found[0].id
            behind.add(found[0].id)
    return [d for d in definitions if d.id not in behind] if behind else definitions


def _first_per_file(definitions: list[_Def]) -> list[_Def]:
    """The first of the definitions each file holds under one parent (`_ONE_PER_FILE`)."""
    seen: set[tuple[int, str]] = set()
    first = []
    for d in definitions:
        if (d.doc_id, d.parent) not in seen:
            seen.add((d.doc_id, d.parent))
            first.append(d)
    return first


def resolve_pending(
    conn: Any, names: set[str], staged: list[tuple[int, str]], dialect: Dialect
) -> int:
    """`_resolve_pending` with Python's cyclic garbage collector paused: the pass builds
    millions of small lists and tuples (the decoded references, their rows) and no cycle,
    and the collector traversed the growing heap again and again — on the scale corpus'
    code ~3 of the ~8 CPU seconds of the pass (docs/benchmarks.md, issue 23)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _resolve_pending(conn, names, staged, dialect)
    finally:
        if was_enabled:
            gc.enable()


def _resolve_pending(
    conn: Any, names: set[str], staged: list[tuple[int, str]], dialect: Dialect
) -> int:
    """Insert the `staged` references ((doc_id, refs) rows of `refs_staged`, by doc_id)
    into `refs` resolved, and resolve again the references to `names` already there (the
    queues the writer took: `Writer.resolve_references` calls this in its transaction
    and empties `refs_staged` after). Plain SQL with `?` markers spelled for the engine
    (`dialect.positional`): the same pass on either engine. Returns how many references
    were resolved."""

    def rows(sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        # Tuples on either engine (apsw's rows, psycopg's default row factory).
        return conn.execute(dialect.positional(sql), params).fetchall()

    renamed = _renamed_imports(rows) if names or staged else {}
    marks = {n for n in names if n.startswith(STAR_MARK)}
    if marks:
        # A star re-export written or deleted: the uses of what it carries may now go
        # another way (or none); a mark is no name of any reference.
        names = (names - marks) | _star_names(rows, marks)
    if names:
        # A name an import renames resolves as the name it renames (`Sq` as `Square`):
        # when `Square`'s definitions change, the uses of `Sq` are decided again too.
        names = names | {
            alias
            for bound in renamed.values()
            for alias, (_, original) in bound.items()
            if original in names
        }
    again: list[tuple[Any, ...]] = []
    if names:
        # The staged documents have no rows in `refs` yet.
        again = _decided_again(conn, rows, dialect, names)
    if not again and not staged:
        return 0
    # With staged files, every symbol's definition (most names are used somewhere: on
    # the scale corpus' code 94 k of 128 k), so that each file's references are decoded
    # only as they are inserted: all of them at once took ~250 MB there.
    # (With the qualifiers: `Field.__init__` asks which file `Field` is defined in.)
    wanted = None
    if not staged:
        wanted = {row[2] for row in again}
        for row in again:
            if row[5]:  # (`Session()`, `=Template.render()`: the names they are made of)
                wanted.add(row[5])
                wanted.update(row[5].removesuffix(VALUE_OF).lstrip("=").split("."))
    if wanted is not None:
        wanted |= {
            original
            for bound in renamed.values()
            for alias, (_, original) in bound.items()
            if alias in wanted
        }
    resolver = _Resolver(rows, _definitions(rows, wanted), renamed, staged)
    resolve = resolver.resolve
    insert = dialect.positional(_INSERT)
    # Into an empty `refs` (a new index, or one whose code was all parsed again) the
    # rows go without `refs_name`, which is built after them from the sorted names: one
    # pass instead of a random b-tree insert per row, and pages ~83 % full where the
    # inserts left them ~72 % (on the scale corpus' code: 19.7 → 17.1 MB, and 3.7 G
    # fewer instructions in a pass over all of it).
    rebuild_index = bool(staged) and not rows("SELECT 1 FROM refs LIMIT 1")
    if rebuild_index:
        conn.execute(dialect.positional(f"DROP INDEX IF EXISTS {NAME_INDEX}"))
    batch: list[tuple[Any, ...]] = []
    count = len(again)
    for doc_id, text in staged:
        references = json.loads(text)
        if references and len(references[0]) == 6:  # staged before schema 13: unqualified
            references = [[*r, None] for r in references]
        count += len(references)
        # The file's links by (name, kind, qualifier), filled as they are decided: most
        # references repeat a name of their file, and then cost one lookup, no call.
        known = resolver.load(doc_id).get
        decide = resolver.link
        start = len(batch)
        batch += [
            (
                doc_id,
                ord_,
                name,
                kind,
                caller_ord,
                line,
                end_line,
                col,
                qualifier,
                *(known((name, kind, qualifier)) or decide(name, kind, caller_ord, qualifier)),
            )
            for ord_, (name, kind, caller_ord, line, end_line, col, qualifier) in enumerate(
                references
            )
        ]
        if resolver.bodies or resolver.copies().hashes:
            batch[start:] = [(*row[:9], *resolver.final(row[9:])) for row in batch[start:]]
        if len(batch) >= _BATCH:
            _many(conn, insert, batch)
            batch = []
    _many(conn, insert, batch)
    if rebuild_index:
        conn.execute(dialect.positional(f"CREATE INDEX {NAME_INDEX} ON refs(name)"))
    update = dialect.positional(
        "UPDATE refs SET target_id = ?, resolution = ?, candidates = ? WHERE doc_id = ? AND ord = ?"
    )
    for start in range(0, len(again), _BATCH):
        # Only the rows whose link changed are written.
        changed = []
        for doc_id, ord_, name, kind, caller_ord, qualifier, *stored in again[
            start : start + _BATCH
        ]:
            link = resolve(doc_id, name, kind, caller_ord, qualifier)
            if link[0] != stored[0] or link[1] != stored[1] or link[2] != stored[2]:
                changed.append((*link, doc_id, ord_))
        _many(conn, update, changed)
    return count


def _temp_names(
    conn: Any, dialect: Dialect, table: str, values: set[str] | set[int], column: str = "name TEXT"
) -> None:
    """`values` as the one-column temp table `table` (created on first use), for `IN`."""
    conn.execute(dialect.positional(f"CREATE TEMP TABLE IF NOT EXISTS {table}({column})"))
    conn.execute(dialect.positional(f"DELETE FROM {table}"))
    insert = dialect.positional(f"INSERT INTO {table}({column.split()[0]}) VALUES (?)")
    _many(conn, insert, [(v,) for v in values])


# How far the pass follows subclasses of a changed class (a chain of `extends` deeper
# than this is not met in practice; the bound keeps a cycle of bases from looping).
_SUBCLASS_DEPTH = 16


def _decided_again(
    conn: Any, rows: Callable[..., list[tuple[Any, ...]]], dialect: Dialect, names: set[str]
) -> list[tuple[Any, ...]]:
    """The stored references to decide again when the definitions of `names` changed
    (the queue), by (doc_id, ord): those named so, and those whose link goes through
    one of them without naming it:

    - a qualifier that is one of them: `Link::assertInstanceOf()` (PHP), `seenIds.add()`
      on a `Set` (`Set()`), Go's `idx.Add()` on `NewMemIndex()`'s value (`=NewMemIndex()`)
      is the member of that class, function or value, decided by what it is;
    - every reference of a file whose class inherits from one of them, directly or
      through other classes of the index (`class Mention extends Link`): `$this->x`,
      `super`, a bare member are looked up along its bases.

    Without these a class's file deleted and then restored left `Link::assertInstanceOf`
    unresolved and Mention's `$this->prependChild()` linked by uniqueness where a fresh
    index links both through the class (league/commonmark, 6 of 5,417 references)."""
    _temp_names(conn, dialect, "resolve_names", names)
    qualifiers = {form for n in names for form in (n, n + VALUE_OF, "=" + n + VALUE_OF, "=" + n)}
    _temp_names(conn, dialect, "resolve_qualifiers", qualifiers)
    # A file's references of one name are decided in their order (the first one's link
    # serves the rest: `links`), so a qualified one is decided again with every other
    # reference of its name in its file, as when the file was new.
    conn.execute(
        dialect.positional(
            "CREATE TEMP TABLE IF NOT EXISTS resolve_pairs(doc_id BIGINT, name TEXT)"
        )
    )
    conn.execute(dialect.positional("DELETE FROM resolve_pairs"))
    conn.execute(
        dialect.positional(
            "INSERT INTO resolve_pairs(doc_id, name) SELECT DISTINCT doc_id, name FROM refs "
            "WHERE qualifier IN (SELECT name FROM resolve_qualifiers)"
        )
    )
    subclass_docs: set[int] = set()
    frontier = "resolve_names"  # the classes whose subclasses are sought: the names first
    for _ in range(_SUBCLASS_DEPTH):
        # (through `refs_name`: the inherit references naming the frontier's classes)
        found = {
            int(doc)
            for (doc,) in rows(
                f"SELECT DISTINCT doc_id FROM refs WHERE kind = ? AND name IN "
                f"(SELECT name FROM {frontier})",
                (_INHERIT,),
            )
        } - subclass_docs
        if not found:
            break
        subclass_docs |= found
        _temp_names(conn, dialect, "resolve_found", found, "doc_id BIGINT")
        classes = {
            str(name)
            for (name,) in rows(
                "SELECT DISTINCT name FROM symbols WHERE doc_id IN "
                "(SELECT doc_id FROM resolve_found) "
                f"AND kind IN ({', '.join('?' for _ in CLASS_LIKE)})",
                tuple(sorted(CLASS_LIKE)),
            )
        }
        if not classes:
            break
        frontier = "resolve_bases"
        _temp_names(conn, dialect, frontier, classes)
    _temp_names(conn, dialect, "resolve_docs", subclass_docs, "doc_id BIGINT")
    return rows(
        "SELECT r.doc_id, r.ord, r.name, r.kind, r.caller_ord, r.qualifier, r.target_id, "
        "r.resolution, r.candidates FROM refs r WHERE r.name IN (SELECT name FROM resolve_names) "
        "OR (r.doc_id, r.name) IN (SELECT doc_id, name FROM resolve_pairs) "
        "OR r.doc_id IN (SELECT doc_id FROM resolve_docs) ORDER BY r.doc_id, r.ord"
    )


# How a writer queues a star import or re-export (`_QUEUE_NAMES` of either writer): this,
# then the file's language, its path and the module, one per line.
STAR_MARK = "*\n"


def _star_names(rows: Any, marks: set[str]) -> set[str]:
    """The names the modules behind star marks hold, to decide their uses again: their
    files' top-level definitions and the names they import or re-export, and through
    their own stars, up to REEXPORT_DEPTH modules (`_Resolver._reexports` goes as far).
    Only for the families whose stars resolution follows (Java's `import a.b.*` is a
    star too, and follows nothing)."""
    files = _module_file_map(rows)
    pending: list[tuple[str, tuple[str, ...], int]] = []
    for mark in marks:
        _, language, path, module = mark.split("\n", 3)
        if (family := _family(language)) in _REEXPORTING:
            pending.append((family, module_segments(module, posixpath.dirname(path)), 0))
    found: set[str] = set()
    seen: set[tuple[str, str]] = set()
    while pending:
        family, segments, depth = pending.pop()
        tail = "/".join(segments)
        if not tail or (family, tail) in seen:
            continue
        seen.add((family, tail))
        for doc_id, directory in _files_of(files.get(family, {}), tail):
            found.update(
                name
                for (name,) in rows(
                    "SELECT name FROM symbols WHERE doc_id = ? AND (parent IS NULL OR parent = '')",
                    (doc_id,),
                )
            )
            for module, text, alias in rows(
                "SELECT module, names, alias FROM imports WHERE doc_id = ?", (doc_id,)
            ):
                names = _names(text)
                if names == ["*"] and alias is None:
                    if depth + 1 < REEXPORT_DEPTH:
                        pending.append((family, module_segments(module, directory), depth + 1))
                else:
                    found.update(n for n in names if n != "*")
                    if alias:
                        found.add(alias)
    return found


def _module_file_map(rows: Any) -> dict[str, dict[str, list[tuple[str, int, str]]]]:
    """Per language family that re-exports (`_REEXPORTING`): a module path's last segment
    → (module path, doc_id, directory) of the code files that are that module — a file by
    its path without extension, a package file (`__init__.py`, `index.ts`) also as its
    folder. One scan of `documents`."""
    found: dict[str, dict[str, list[tuple[str, int, str]]]] = {
        family: defaultdict(list) for family in _REEXPORTING
    }
    for doc_id, path, language in rows(
        "SELECT id, path, language FROM documents WHERE format = 'code'"
    ):
        by_last = found.get(_family(language))
        if by_last is None:
            continue
        key = path_key(path, language)
        keys = [key]
        if key.rsplit("/", 1)[-1] in _PACKAGE_FILES:
            keys.append(posixpath.dirname(key))
        for one in keys:
            by_last[one.rsplit("/", 1)[-1]].append((one, doc_id, posixpath.dirname(path)))
    return {family: dict(by_last) for family, by_last in found.items()}


def _files_of(by_last: dict[str, list[tuple[str, int, str]]], tail: str) -> list[tuple[int, str]]:
    """(doc_id, directory) of the files of `_module_file_map`'s family map at `tail`."""
    return [
        (doc_id, directory)
        for key, doc_id, directory in by_last.get(tail.rsplit("/", 1)[-1], ())
        if _ends_with(key, tail)
    ]


def _many(conn: Any, sql: str, params: list[tuple[Any, ...]]) -> None:
    if not params:
        return
    if hasattr(conn, "executemany"):  # apsw
        cursor = conn.cursor()
        # (the index's connection puts many rows in a statement: `db.Cursor.insert_rows`)
        getattr(cursor, "insert_rows", cursor.executemany)(sql, params)
    else:  # psycopg: a cursor's
        with conn.cursor() as cursor:
            cursor.executemany(sql, params)


def _definitions(rows: Any, wanted: set[str] | None) -> dict[str, list[_Def]]:
    """The symbols named like a reference to resolve (`wanted`; None: every symbol), by
    name (exact). Read whole and kept by name in Python: one scan of `symbols`, on any
    engine."""
    by_name: dict[str, list[_Def]] = defaultdict(list)
    segments: dict[int, tuple[frozenset[str], str, str]] = {}  # per document
    tests: dict[int, bool] = {}  # per document: a test file
    # The document's symbols so far (a parent comes before what it defines, by `ord`):
    # qualified name → (the scope of what it defines: itself for a function, its lines).
    scopes: dict[str, tuple[str, int, int]] = {}
    document = -1
    for (
        sid,
        doc_id,
        name,
        kind,
        parent,
        qualified,
        line,
        end_line,
        language,
        path,
        semi,
        extension,
    ) in rows(
        "SELECT y.id, y.doc_id, y.name, y.kind, y.parent, y.qualified_name, y.line, "
        "y.end_line, y.language, d.path, y.signature LIKE '%;', "
        "y.language = 'c_sharp' AND y.signature LIKE '%(this %' FROM symbols y "
        "JOIN documents d ON d.id = y.doc_id ORDER BY y.doc_id, y.ord"
    ):
        if doc_id != document:
            document, scopes = doc_id, {}
        scope = ""
        if parent and kind != MACRO and (outer := scopes.get(parent)) is not None:
            # Inside the parent's lines: its body's (a method assigned outside a
            # function's body, JavaScript's `Route.prototype.dispatch = function …`,
            # is a member of it, seen as any member is). A C macro is the file's from
            # its `#define` on, wherever that is (apsw's `WRITE_DEST`, defined in one
            # function of `unicode.c` and used in the next).
            if outer[1] <= line <= outer[2]:
                scope = outer[0]
        scopes.setdefault(
            qualified, (qualified if kind in CALLABLE else scope, line, end_line or line)
        )
        if kind == MACRO and language == "rust":
            name += "!"  # a Rust macro is used as `name!` (code_refs' reference names)
        if wanted is None or name in wanted:
            split = segments.get(doc_id)
            if split is None:
                stem = posixpath.splitext(path)[0]
                key = path_key(path, language)
                split = segments[doc_id] = (path_segments(stem), key, posixpath.dirname(key))
                tests[doc_id] = is_test(path)
            family = _family(language)
            by_name[name].append(
                _Def(
                    sid,
                    doc_id,
                    kind,
                    parent or "",
                    family,
                    *split,
                    scope,
                    tests[doc_id],
                    family in _ONE_PER_FILE and path.endswith(_C_HEADERS),
                    family in _ONE_PER_FILE and bool(semi) and kind in CALLABLE,
                    bool(extension),
                )
            )
    return by_name


def _first_result(signature: str | None) -> str:
    """The named type of a Go function's first result, by its signature: `Engine` for
    `func New() *Engine` and `func F[T any](x T) (e *Engine, err error)`; "" when it is
    none of the function's package (`*http.Request`), predeclared (`error`, `string`)
    or no name (`[]byte`, `map[…]…`, `func(…)`)."""
    if not signature:
        return ""
    if signature.startswith("func ("):  # a method: its receiver first
        signature = "func " + signature[_group_end(signature, 5) + 1 :].lstrip()
    depth, opened, closed = 0, False, -1
    for i, char in enumerate(signature):  # the parameters' closing parenthesis
        if char in "([{":
            depth += 1
            opened = opened or char == "("
        elif char in ")]}":
            depth -= 1
            if depth == 0 and char == ")" and opened:
                closed = i
                break
    rest = signature[closed + 1 :].strip() if closed >= 0 else ""
    if rest.startswith("("):
        rest = rest[1:].split(",")[0].strip().rstrip(")")
        rest = rest.split()[-1] if rest.split() else ""
    rest = rest.lstrip("*")
    return rest if rest.isidentifier() and rest[:1].isupper() else ""


def _group_end(text: str, start: int) -> int:
    """The index of the parenthesis closing the one at `start` (the text's end when
    none does)."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    return len(text)


def _returned(signature: str | None) -> str:
    """The class a Python `def`'s return annotation names, as written (`Response`,
    `httpx.Response`; `Optional[X]`, `X | None` and a quoted name unwrapped); "" for
    none or anything else (a container, a lower-case type)."""
    if not signature or "->" not in signature:
        return ""
    text = signature.rpartition("->")[2].strip().rstrip(":").strip().strip("\"'").strip()
    while (inner := _OPTIONAL.match(text)) is not None:
        text = inner.group(1).split(",")[0].strip().strip("\"'")
    kept = [p.strip() for p in text.split("|") if p.strip() != "None"]
    if len(kept) != 1:
        return ""
    last = kept[0].rpartition(".")[2]
    ok = last.isidentifier() and last[:1].isupper() and "[" not in kept[0]
    return kept[0] if ok else ""


_OPTIONAL = re.compile(r"^(?:\w+\.)?(?:Optional|Annotated)\[(.*)\]$", re.S)


# How many levels of Go embedded types a method is looked for in (`_promoted`).
EMBED_DEPTH = 3
# How many levels of Python base classes a member is looked for in (`_inherited`).
INHERIT_DEPTH = 4
_BASE = re.compile(r"\(([^()]*)\)\s*:?\s*$")
_SUBSCRIPT = re.compile(r"\[[^\[\]]*\]")  # a base's type arguments, innermost first


def _python_bases(rows: Any) -> dict[str, frozenset[str]]:
    """Every Python class's name → the names of its bases, as its signature writes them
    (`class Flask(App)`, `class Blueprint(sansio.Blueprint, metaclass=M)` → `Blueprint`;
    several classes of one name: all their bases)."""
    return _bases_by_signature(rows, "python", "%(%", _python_base_names)


def _bases_by_signature(
    rows: Any, language: str, like: str, read: Callable[[str | None], set[str]]
) -> dict[str, frozenset[str]]:
    """Every class of `language` whose signature is LIKE `like` → the bases `read` finds
    in it (several classes of one name: all their bases; none its own name)."""
    bases: dict[str, set[str]] = defaultdict(set)
    for name, signature in rows(
        "SELECT name, signature FROM symbols WHERE kind = 'class' AND language = ? "
        "AND signature LIKE ?",
        (language, like),
    ):
        bases[name].update(b for b in read(signature) if b != name)
    return {name: frozenset(found) for name, found in bases.items() if found}


def _python_base_names(signature: str | None) -> set[str]:
    """The names of the bases a Python class's signature writes (`class Blueprint(
    sansio.Blueprint, metaclass=M)` → `Blueprint`; a generic base by its own name,
    `class MultiDict(ImmutableMultiDict[typing.Any, typing.Any])` → `ImmutableMultiDict`,
    where its type arguments gave `Any`)."""
    written = _BASE.search(signature or "")
    if written is None:
        return set()
    text = written.group(1)
    while "[" in text:
        unsubscripted = _SUBSCRIPT.sub("", text)
        if unsubscripted == text:
            break
        text = unsubscripted
    return {
        base
        for part in text.split(",")
        if (base := part.strip().rpartition(".")[2]).isidentifier() and "=" not in part
    }


def _script_bases(rows: Any) -> dict[str, frozenset[str]]:
    """Every JavaScript/TypeScript class's or interface's name → the names of what it
    extends, as its signature writes them (`class Subject<T> extends Observable<T>`,
    `interface ZodString extends _ZodString<…>, Other`; a type parameter's own `extends`
    inside `<…>` is none)."""
    bases: dict[str, set[str]] = defaultdict(set)
    for name, signature in rows(
        "SELECT name, signature FROM symbols WHERE kind IN ('class', 'interface') "
        "AND language IN ('typescript', 'tsx', 'javascript') AND signature LIKE '%extends%'"
    ):
        bases[name].update(b for b in _script_base_names(signature) if b != name)
    return {name: frozenset(found) for name, found in bases.items() if found}


def _script_base_names(signature: str | None) -> set[str]:
    """The names of what a JavaScript/TypeScript class's signature extends."""
    head = _without_type_parameters(signature or "")
    written = head.partition(" extends ")[2].partition(" implements ")[0]
    return {
        base
        for part in _top_level_parts(written)
        if (base := _without_type_parameters(part).strip().rpartition(".")[2]).isidentifier()
    }


def _php_bases(rows: Any) -> dict[str, frozenset[str]]:
    """Every PHP class's or interface's qualified name → its bases' qualified names: each
    name its signature `extends` or `implements`, as its file's `use` imports it (`use
    League\\CommonMark\\Node\\Node;`, an alias's too), else in the class's namespace."""
    imported: dict[int, dict[str, str]] = defaultdict(dict)
    for doc_id, module, names, alias in rows(
        "SELECT i.doc_id, i.module, i.names, i.alias FROM imports i "
        "JOIN documents d ON d.id = i.doc_id WHERE d.language = 'php'"
    ):
        for imported_name in _names(names):
            imported[doc_id][alias or imported_name] = f"{module}.{imported_name}"
    bases: dict[str, frozenset[str]] = {}
    for doc_id, qualified, parent, signature in rows(
        "SELECT doc_id, qualified_name, parent, signature FROM symbols WHERE language = 'php' "
        "AND kind IN ('class', 'interface', 'enum', 'trait')"
    ):
        uses = imported.get(doc_id, {})
        found = frozenset(
            uses.get(base) or (f"{parent}.{base}" if parent else base)
            for base in _declared_base_names(signature)
        )
        if found:
            bases[qualified] = found
    return bases


def _ruby_qualified_bases(rows: Any) -> dict[str, frozenset[str]]:
    """Every Ruby class's qualified name → its superclass's, the constant its signature
    writes (`class Multipart < UrlEncoded`, `< Rack::Base`) looked up as Ruby does: in the
    class's own module, then each one out, to the top level (a class the index lacks,
    `StandardError`, is none)."""
    classes = {
        qualified: (parent or "", signature or "")
        for qualified, parent, signature in rows(
            "SELECT qualified_name, parent, signature FROM symbols "
            "WHERE language = 'ruby' AND kind = 'class'"
        )
    }
    bases: dict[str, frozenset[str]] = {}
    for qualified, (scope, signature) in classes.items():
        written = _ruby_superclass(signature).lstrip(":").replace("::", ".")
        if not written or not all(part.isidentifier() for part in written.split(".")):
            continue
        for outer in _outward(scope):
            found = f"{outer}.{written}" if outer else written
            if found in classes and found != qualified:
                bases[qualified] = frozenset({found})
                break
    return bases


def _outward(scope: str) -> Iterator[str]:
    """A Ruby constant's lookup: `scope` (`Rack.Multipart`), then each module out
    (`Rack`), then the top level ("")."""
    while scope:
        yield scope
        scope = scope.rpartition(".")[0]
    yield ""


def _ruby_base_names(signature: str | None) -> set[str]:
    """The superclass a Ruby class's signature writes (`class A < Rack::Base` → `Base`)."""
    base = _ruby_superclass(signature).rpartition("::")[2]
    return {base} if base.isidentifier() else set()


def _ruby_superclass(signature: str | None) -> str:
    """The superclass a Ruby class's signature writes, as written (`Rack::Base`): the
    word after ` < ` (an empty class's signature runs on to its `end`, a one-line one's
    to `;`)."""
    words = (signature or "").partition(" < ")[2].replace(";", " ").split()
    return words[0] if words else ""


def _ruby_bases(rows: Any) -> dict[str, frozenset[str]]:
    """Every Ruby class's name → its superclass's, as its signature writes it (`class
    Response < Base`; `class Error < Rack::Error`'s `Error` is dropped: a class is not its
    own base). Mixins (`include M`) are not in a signature: not read."""
    return _bases_by_signature(rows, "ruby", "% < %", _ruby_base_names)


def _declared_bases(rows: Any, family: str) -> dict[str, frozenset[str]]:
    """Every Java, Kotlin or C# class's, interface's, enum's or record's name → the names
    of what its signature extends or implements (`class GregorianCalendar extends
    Calendar`, Kotlin's `class A(x: Int) : B(x), C`, C#'s `class ClassObject : ClassBase`)."""
    languages = tuple(language for language, of in _FAMILY.items() if of == family) + (family,)
    marks = ", ".join("?" * len(languages))
    bases: dict[str, set[str]] = defaultdict(set)
    for name, signature in rows(
        "SELECT name, signature FROM symbols WHERE kind IN ('class', 'interface', 'enum', "
        f"'record', 'object', 'struct') AND language IN ({marks})",
        languages,
    ):
        bases[name].update(b for b in _declared_base_names(signature) if b != name)
    return {name: frozenset(found) for name, found in bases.items() if found}


_JAVA_BASES = re.compile(r"\b(?:extends|implements)\s+(.*?)(?=\s+implements\b|\s+permits\b|$)")


def _declared_base_names(signature: str | None) -> set[str]:
    """The names of what a Java, Kotlin or C# declaration's signature extends or
    implements: Java's `extends A implements B, C`; Kotlin's and C#'s `: A(…), B` after
    the type parameters and the primary constructor (C#'s `where T : …` is none)."""
    head = _without_parentheses(_without_type_parameters(signature or ""))
    if " extends " in head or " implements " in head:
        written = ", ".join(m.group(1) for m in _JAVA_BASES.finditer(head))
    else:
        written = head.partition(":")[2].partition(" where ")[0]
    names = set()
    for part in written.split(","):
        words = part.split()
        # (PHP's `\\Countable`, `Foo\\Bar`: the last part)
        base = words[0].rpartition(".")[2].rpartition("\\")[2] if words else ""
        if base.isidentifier():
            names.add(base)
    return names


def _without_parentheses(text: str) -> str:
    """`text` with every `(…)` group taken out (nested ones too)."""
    return _without_groups(text, "(", ")")


def _without_type_parameters(text: str) -> str:
    """`text` with every `<…>` group taken out (nested ones too)."""
    return _without_groups(text, "<", ">")


def _without_groups(text: str, opening: str, closing: str) -> str:
    out: list[str] = []
    depth = 0
    for char in text:
        if char == opening:
            depth += 1
        elif char == closing and depth:
            depth -= 1
        elif not depth:
            out.append(char)
    return "".join(out)


def _top_level_parts(text: str) -> list[str]:
    """`text` split at the commas outside any brackets."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char in "<([{":
            depth += 1
        elif char in ">)]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _renamed_imports(rows: Any) -> dict[int, dict[str, tuple[str, str]]]:
    """The names imports bind under another name, by document: alias → (module, the name
    it renames): `Sq` → (`m`, `Square`) for `from m import Square as Sq`, `j` for `import
    { join as j } from './path'`, `F` for `use std::fs::File as F` (`renamed_name`). A
    module bound under another name (`import numpy as np`) renames no name: its alias is
    a qualifier (`_in_module`). Aliases are few (one statement, a few hundred rows on
    Go's `src/`), so every file's are read at once instead of a query per file."""
    found: dict[int, dict[str, tuple[str, str]]] = defaultdict(dict)
    for doc_id, module, text, alias in rows(
        "SELECT doc_id, module, names, alias FROM imports WHERE alias IS NOT NULL "
        "ORDER BY doc_id, ord"
    ):
        original = renamed_name(_names(text), alias) if module else None
        if original is not None and alias.isidentifier():
            found[doc_id].setdefault(alias, (module, original))  # the first import wins
    return dict(found)


class _Copies:
    """The files whose bytes another file has too, read once per pass: by document, its
    content's hash and folder, and its symbols in order (a copy's k-th symbol is the same
    definition as another copy's k-th); the symbols' places; the copies of each hash."""

    def __init__(self, rows: Any) -> None:
        self.hashes: dict[int, str] = {}
        self.directory: dict[int, list[str]] = {}
        self.group: dict[str, list[int]] = defaultdict(list)
        self.symbols: dict[int, list[int]] = defaultdict(list)
        self.place: dict[int, tuple[int, int]] = {}
        copied = (
            "SELECT id FROM documents WHERE sha256 IN "
            "(SELECT sha256 FROM documents GROUP BY sha256 HAVING count(*) > 1)"
        )
        for doc_id, content, path in rows(
            f"SELECT id, sha256, path FROM documents WHERE id IN ({copied}) ORDER BY id"
        ):
            self.hashes[doc_id] = content
            self.directory[doc_id] = posixpath.dirname(path).split("/")
            self.group[content].append(doc_id)
        if self.hashes:
            for symbol_id, doc_id in rows(
                f"SELECT id, doc_id FROM symbols WHERE doc_id IN ({copied}) ORDER BY doc_id, ord"
            ):
                self.place[symbol_id] = (doc_id, len(self.symbols[doc_id]))
                self.symbols[doc_id].append(symbol_id)


def _shared(here: list[str], there: list[str]) -> int:
    """How many leading folders two paths' folder lists share."""
    count = 0
    for a, b in zip(here, there):
        if a != b:
            break
        count += 1
    return count


class _Resolver:
    """Resolves references file by file (the work comes ordered by document)."""

    def __init__(
        self,
        rows: Any,
        definitions: dict[str, list[_Def]],
        renamed: dict[int, dict[str, tuple[str, str]]] | None = None,
        staged: list[tuple[int, str]] | None = None,
    ) -> None:
        self.rows = rows
        self.definitions = definitions
        self.renamed = renamed or {}  # `_renamed_imports`
        self.staged = staged or []  # the files this pass inserts (`_embeds` reads them)
        # Go: a struct's or interface's name → the types it embeds, on demand (`_embeds`).
        self._embedded: dict[str, frozenset[str]] | None = None
        self.directory = ""  # the loaded file's directory (`_read_file`)
        self._copies: _Copies | None = None  # the files with copies (`_one_copy`)
        self.copies_chosen = 0  # how many times `_one_copy` chose the nearest copy
        self.package = ""  # … as `path_key` spells it
        self.doc_id = -1
        self.family = ""
        self.in_test = False  # the loaded file is a test (`_hidden`)
        # The last segment of each module this file imports by name (`_imports_of`), and
        # the files its relative imports (`./x`, `../types`) name: exactly those.
        self.imported_names: frozenset[str] = frozenset()
        self.imported_paths: frozenset[str] = frozenset()
        self.imported_items: frozenset[str] = frozenset()  # the names its imports list
        self.globbed: frozenset[str] = frozenset()  # modules it imports with `*` (last part)
        # This file's links by (name, kind) where one link serves every such reference
        # (`link`): all but a name the file defines several times.
        self.links: dict[tuple[str, int, str | None], tuple[int | None, int, int]] = {}
        # (name, kind, qualifier: None or `_OWN`) → (the link, the file's own definitions):
        # the caller's scope picks.
        self.several: dict[
            tuple[str, int, str | None], tuple[tuple[int | None, int, int], list[_Def]]
        ] = {}
        # The names this file's imports bind → the module path each stands for.
        self.modules: dict[str, tuple[str, ...]] = {}
        # (name, kind group, family, module path) → the link `_in_module` decided, or None.
        self.in_module: dict[tuple[str, int, str, str], tuple[int | None, int, int] | None] = {}
        # Python: a class's name → the names of its bases, from the index's class
        # signatures (`class Flask(App)`), read once per pass on demand (`_inherited`).
        self._bases: dict[str, dict[str, frozenset[str]]] = {}  # by language family
        # Python: (a class's name, its file) → its bases' names (`_python_bases_of`).
        self._doc_bases: dict[tuple[str, int], frozenset[str]] | None = None
        # A function's id → the type its signature says it returns ("" for none): Go's
        # first result, Python's return annotation; read on demand (`_result_of`).
        self._results: dict[int, str] = {}
        # Go: (type as qualified, member name, kind group, the file's package, the
        # imported package the type names) → the type's members `_go_member` found (None
        # or []: none it could tell; _NO_TYPE: no type of that name where it looked).
        # Every file of a package asks for the same few types' methods.
        self._go_members: dict[tuple[Any, ...], list[_Def] | None] = {}
        self._callers: dict[int, str] | None = None  # symbol ord → qualified name, on demand
        # the file's classes' qualified names → their signatures, on demand
        self._classes: dict[str, str | None] | None = None
        self._namespaces: set[str] | None = None  # a PHP file's (`_php_spaces`)
        self._ruby_modules: set[str] | None = None  # every Ruby module's qualified name
        # by family: a class's qualified name → its bases' (`_php_bases`,
        # `_ruby_qualified_bases`), read once per pass
        self._base_maps: dict[str, dict[str, frozenset[str]]] = {}
        # (name, kind group, class) → this file's link of `super().name` in that class
        self._parent_links: dict[tuple[str, int, str], tuple[int | None, int, int]] = {}
        # Java, Kotlin, C#: a bare name's link when no base decides it (`_inherited_bare`)
        self._bare_links: dict[tuple[Any, ...], tuple[int | None, int, int]] = {}
        self._file_read = False
        # Per (name, kind group, family): the fitting candidates, and them by document.
        self.fitting: dict[tuple[str, int, str], tuple[list[_Def], dict[int, list[_Def]]]] = {}
        # A C/C++ prototype's id → its function's one body (`_bodies_behind_declarations`)
        self.bodies: dict[int, int] = {}
        # … and those of them no type's member, for a bare name in Go and Rust (`_decide`).
        self._free: dict[tuple[str, int, str], list[_Def]] = {}
        self.name_sources: dict[str, str] = {}  # `_read_file`
        self.package_roots: set[str] = set()  # `_read_file`: `a` of an `import a.b`
        # Every indexed file's module path and its folders', by last segment, and the
        # answers given (`_indexed_module`): read on first use.
        self._modules_by_last: dict[str, list[str]] | None = None
        self._indexed: dict[str, list[str]] = {}
        self._packages: set[str] = set()  # folders with an __init__.py (`_indexed_module`)
        self._go_folders: set[str] | None = None  # `_go_package_held`, read on first use
        self._go_held: dict[str, bool] = {}
        # `_module_file_map`, read on first use (`_module_files`).
        self._module_file: dict[str, dict[str, list[tuple[str, int, str]]]] | None = None

    def load(self, doc_id: int) -> dict[tuple[str, int, str | None], tuple[int | None, int, int]]:
        """Start on the references of `doc_id`; its links so far (empty when it is new)."""
        if doc_id != self.doc_id:
            self.doc_id = doc_id
            self.links = {}
            self.several = {}
            self._callers = None
            self._classes = None
            self._namespaces = None
            self._parent_links = {}
            self._bare_links = {}
            self._file_read = False  # `_read_file`, when a name has definitions
        return self.links

    def _read_file(self) -> None:
        """The loaded file's language family and the modules it imports."""
        self._file_read = True
        found = self.rows(
            "SELECT d.path, d.language, i.module, i.names, i.alias FROM documents d "
            "LEFT JOIN imports i ON i.doc_id = d.id WHERE d.id = ? ORDER BY i.ord",
            (self.doc_id,),
        )
        self.family = _family(found[0][1]) if found else ""
        self.in_test = bool(found) and is_test(found[0][0])
        directory = self.directory = posixpath.dirname(found[0][0]) if found else ""
        # Its folder as `_Def.directory` spells it (Go's package: `_elsewhere`).
        self.package = posixpath.dirname(path_key(found[0][0], found[0][1])) if found else ""
        # (module, the names it imports, alias) of each import, decoded once
        imports = [(module, _names(text), alias) for _, _, module, text, alias in found if module]
        self.modules = local_modules(imports, directory, self.family)
        names: set[str] = set()
        paths: set[str] = set()
        # The names the file imports from a module by name (`from m import a`, JS's
        # `import { a } from "m"`): the module each comes from (`_reexported`).
        self.name_sources = {}
        self.package_roots = set()
        items: set[str] = set()
        globbed: set[str] = set()
        for module, imported_names, alias in imports:
            items.update(imported_names)
            if not (segments := module_segments(module, directory)):
                continue
            if "*" in imported_names:
                globbed.add(segments[-1])
            if alias is None and not imported_names and not module.startswith("."):
                self.package_roots.add(segments[0])  # Python's `import a.b` binds `a`
            if alias is None:
                for imported in imported_names:
                    self.name_sources.setdefault(imported, "/".join(segments))
            if module.startswith(("./", "../")):  # a file relative to this one: that file
                target = "/".join(segments)
                paths.update((target, target + "/index"))  # `./lib` may be lib/index.ts
            elif self.family == "python" and imported_names and "*" not in imported_names:
                # `from . import types`, `from sqlglot import parser`: the modules it
                # names (`types.py`, a folder's `__init__.py`), not every file of the
                # package: by the package's last part, core.py in click "imported"
                # testing.py (`ctx.invoke(…)` became `CliRunner.invoke`), each of
                # sqlglot's dialects every other dialect. A name that is no module is
                # the package's (`from flask import Flask`, which it may re-export from
                # any of its files): then the package's last part, as for any module.
                package = "/".join(segments)
                others = False
                for imported in imported_names:
                    keys = self._module_keys(f"{package}/{imported}")
                    paths.update(keys)
                    paths.update(f"{key}/__init__" for key in keys)
                    others = others or not keys
                if not module.strip("."):  # (a relative package: this one exactly)
                    paths.add(package + "/__init__")
                elif others:
                    names.add(segments[-1])
            elif (
                self.family in ("java", "php")
                and imported_names
                and "*" not in imported_names
                and (self.family == "php" or not segments[-1][:1].isupper())
            ):
                # `import java.util.Map;` imports Map.java, the file of that public
                # class, not every file of a folder `util` (`set(…)` was java/io's
                # `FileDescriptor.set` in a file importing `java.io.IOException`); a
                # class's member (`import static a.B.c`, `import a.Map.Entry`) is B's.
                names.update(imported_names)
            else:
                names.add(segments[-1])
        self.imported_names, self.imported_paths = frozenset(names), frozenset(paths)
        # Rust's `use` names items (`use crate::builder::IntoResettable`), not a module's
        # files: the items, and the modules it takes whole (`use crate::builder::*`).
        self.imported_items = frozenset(items)
        self.globbed = frozenset(globbed)

    def resolve(
        self, doc_id: int, name: str, kind: int, caller_ord: int | None, qualifier: str | None
    ) -> tuple[int | None, int, int]:
        """The link of one reference of `doc_id`: (target_id, resolution, candidates)."""
        known = self.load(doc_id).get((name, kind, qualifier))
        link = known if known is not None else self.link(name, kind, caller_ord, qualifier)
        return self.final(link) if self.bodies or self.copies().hashes else link

    def final(self, link: Any) -> tuple[int | None, int, int]:
        """A decided link as it is stored: to a C/C++ function's body rather than its
        prototype (`to_body`), in the copy of its file nearest the reference
        (`_in_nearest_copy`)."""
        if self.bodies:
            link = self.to_body(link)
        return self._in_nearest_copy(link) if self.copies().hashes else link

    def to_body(self, link: Any) -> tuple[int | None, int, int]:
        """`link` to a C/C++ prototype made the link to its function's one body (`bodies`),
        which is another file's: a prototype of this file's is no local link to it."""
        body = self.bodies.get(link[0]) if link[0] is not None else None
        if body is None:
            return link[0], link[1], link[2]
        return body, _UNIQUE if link[1] == _LOCAL else link[1], link[2]

    def link(
        self, name: str, kind: int, caller_ord: int | None, qualifier: str | None = None
    ) -> tuple[int | None, int, int]:
        """The link of a reference of the loaded file not in `links` yet. The kind is its
        own group: call, type, inherit (`_FITS`) and import. A qualifier that names one
        of the file's imports (`http.Get`) is tried first (`_in_module`); a name one of
        its imports renames (`Sq`) resolves as the name it renames (`_renamed`)."""
        if qualifier is None:
            renamed = self.renamed.get(self.doc_id)
            if renamed is not None and name in renamed:
                return self._renamed(name, kind, *renamed[name])
        return self._link(name, kind, caller_ord, qualifier)

    def _renamed(
        self, alias: str, kind: int, module: str, original: str
    ) -> tuple[int | None, int, int]:
        """`alias`, which an import of this file binds to `original` of `module` (`from m
        import Square as Sq`; `Sq(3)`): the one top-level `original` of that module's
        files when there is exactly one, else unresolved. Never the definitions named
        `alias`, nor another `original` (this file's own, a unique one elsewhere): the
        import says where the name comes from, and a module the index lacks is a
        built-in or a dependency (`from builtins import abs as _abs` in a file that
        defines `abs`; `from html import escape as html_escape` beside `re.escape`)."""
        if not self._file_read:
            self._read_file()
        segments = module_segments(module, self.directory)
        decided = self._in_path(original, kind, segments) if segments else None
        self.links[(alias, kind, None)] = decided = decided or _UNRESOLVED
        return decided

    def _link(
        self, name: str, kind: int, caller_ord: int | None, qualifier: str | None = None
    ) -> tuple[int | None, int, int]:
        if not self._file_read:
            # Every rule below is the file's language's (`family`, read with the file),
            # `_fitting` too: a file's first reference decided before the file was read
            # took the previous file's family — a pass that decides a name again starts
            # a file on any of its references (a Java `seenIds.add(id)` on a `Set` had 0
            # candidates decided again, 1 when the file was new).
            self._read_file()
        if qualifier == BUILT_IN_OBJECT:  # `JSON.parse`: the language's, not the index's
            self.links[(name, kind, qualifier)] = _UNRESOLVED
            return _UNRESOLVED
        if qualifier == PARENT:  # per reference: the class around it decides
            return self._parent_member(name, kind, caller_ord)
        if qualifier == OTHER_OBJECT or (qualifier and qualifier.endswith(VALUE_OF)):
            member = self._value_of(name, kind, qualifier) or self._member_of_another(name, kind)
            self.links[(name, kind, qualifier)] = member
            return member
        if qualifier is not None and qualifier[:1] in ("\\", "?") and self.family == "php":
            # PHP's `\A\B\name`, `B\name`: the name in that namespace
            link = self._php_named(name, kind, self._php_spaces(qualifier))
            self.links[(name, kind, qualifier)] = link
            return link
        if self.family == "perl" and qualifier and qualifier not in (OTHER_OBJECT, PARENT):
            return self._perl_member(name, kind, qualifier)
        if self.family == "ruby" and qualifier == "::":
            # `::Time`: the top level's constant, never one the caller's module defines
            return self._ruby_constant(name, kind, None)
        if self.family == "ruby" and qualifier and qualifier[:1].isupper():
            # `Utils.escape` inside `Rack::Multipart`: `Rack::Utils`'s, found as Ruby finds
            # the constant (else by the rules of any qualifier, below)
            # (none there: a constant the index does not hold, `File.join`, `Digest::MD5`)
            return self._ruby_member(name, kind, caller_ord, qualifier)
        if qualifier in _OWN:
            if self.family in _RECEIVER_FAMILIES:  # `self.x`, `Self::x`, Go's `b.grow()`
                link = self._unqualified(name, kind, caller_ord, qualifier)
                if self.family == "php" and link[1] != _LOCAL:
                    # `$this->close()`, `self::x()` not of this file: its bases' first
                    # (a trait's, which no signature names, by the rules after); per
                    # class, so not the file's one link of the name (`links`)
                    self.links.pop((name, kind, qualifier), None)
                    base_member = self._parent_member(name, kind, caller_ord)
                    if base_member[0] is not None:
                        return base_member
                return link
            if self.family in CLASS_LANGUAGES and qualifier == OWN_MEMBER:
                # `this.x`, Swift's `self.x`: the class's own (this file's), else its bases'
                inherited = self._inherited_bare(name, kind, caller_ord, own=True)
                return inherited or self._unqualified(name, kind, caller_ord, None)
        if qualifier is not None:
            # The module's own definition; else the link the name has in this file
            # without a qualifier (decided once for both).
            decided = (
                self._in_module(name, kind, qualifier)
                or self._outside(qualifier)
                or self._through_qualifier(name, kind, qualifier)
                or self.links.get((name, kind, None))
            )
            if decided is None and self.family == "c_sharp" and qualifier[:1].isupper():
                # C#: `Items.Add(x)`, no class `Items` with an `Add`: a property's value
                decided = self._member_of_another(name, kind)
            if decided is None:
                decided = self.link(name, kind, caller_ord)
                if (name, kind, None) in self.several:  # picked per caller: not one link
                    return decided
            self.links[(name, kind, qualifier)] = decided
            return decided
        if kind != _IMPORT and self.family in CLASS_LANGUAGES:
            inherited = self._inherited_bare(name, kind, caller_ord)
            if inherited is not None:
                return inherited
        if self.family == "ruby" and (kind in (_TYPE, _INHERIT) or name[:1].isupper()):
            return self._ruby_constant(name, kind, caller_ord)
        link = self._unqualified(name, kind, caller_ord, None)
        if kind == _CALL and self.family == "ruby" and link[1] in (_BY_IMPORT, _UNIQUE):
            # (decided per caller: not the file's one link of the name, `links`)
            self.links.pop((name, kind, None), None)
            return self._ruby_bare(link, name, caller_ord)
        return link

    def _ruby_constant(
        self, name: str, group: int, caller_ord: int | None
    ) -> tuple[int | None, int, int]:
        """Ruby: a constant written bare (a class or module: `NumberConverter`, `raise
        LintError`, `Foo.new`) is looked up as Ruby does, lexically: a definition of it
        directly inside the caller's innermost module or class, then the next one out, up
        to the top level (`Encoding` inside `ActiveSupport::Cache` is Ruby's, not
        `ActiveSupport::JSON::Encoding`). A class reopened in several files (`class
        String` of core extensions) is one constant: its first definition. None found:
        outside the index (Ruby's own, a gem's). Reported as `local` in the caller's
        file, else `import` (as Go's package rule)."""
        defined = self.definitions.get(name)
        if not defined:
            return _UNRESOLVED
        if not self._file_read:
            self._read_file()
        key = (name, group, caller_ord)
        link = self._bare_links.get(key)
        if link is not None:
            return link
        candidates = [
            d for d in self._fitting(name, group, defined)[0] if d.kind in _RUBY_FITS[_TYPE]
        ]
        caller = self._caller_names().get(caller_ord, "") if caller_ord is not None else ""
        link = None, _UNRESOLVED[1], len(candidates)
        for scope in _outward(caller):
            found = [d for d in candidates if d.parent == scope and not d.scope]
            if found and not scope and name in _RUBY_CORE_CONSTANTS:
                # a core class a library reopens is Ruby's, unless the file is the reopening
                found = [d for d in found if d.doc_id == self.doc_id]
            if found:
                link = self._first_constant(found, candidates)
                break
        self._bare_links[key] = link
        return link

    def _first_constant(
        self, found: list[_Def], candidates: list[_Def]
    ) -> tuple[int | None, int, int]:
        """A Ruby constant defined in several files (a module or class reopened): one
        constant, its definition in this file, else the one of the shortest path
        (`active_support.rb` for `ActiveSupport`, which 300 files reopen; by path, not by
        id: ids follow the workers' order, and the index must not depend on it)."""
        first = min(found, key=lambda d: (d.doc_id != self.doc_id, len(d.key), d.key, d.id))
        return first.id, _LOCAL if first.doc_id == self.doc_id else _BY_IMPORT, len(candidates)

    def _perl_member(self, name: str, group: int, package: str) -> tuple[int | None, int, int]:
        """Perl: `Foo::Util::helper(…)`, `Foo::Other->new(…)` (qualifier `Foo.Util`,
        `Foo.Other`): the sub `name` of that package — a package's name is written whole,
        from the top — else `unresolved` (a package the index does not hold, or a sub it
        inherits through `@ISA`, which the pass does not read)."""
        key = (name, group, package)
        link = self.links.get(key)
        if link is None:
            defined = self.definitions.get(name)
            if not defined:
                link = _UNRESOLVED
            else:
                candidates = self._fitting(name, group, defined)[0]
                members = [d for d in candidates if d.parent == package]
                link = self._one_of(members, candidates) or (
                    None,
                    _UNRESOLVED[1],
                    len(candidates),
                )
            self.links[key] = link
        return link

    def _ruby_member(
        self, name: str, group: int, caller_ord: int | None, qualifier: str
    ) -> tuple[int | None, int, int]:
        """Ruby: `Const.name` (`Utils.escape`; `Rack::Utils.escape`, qualifier `Rack.Utils`):
        a member of the module or class the constant is where the caller names it — `Const` inside
        the caller's innermost module or class, then the next one out, up to the top level
        (`Rack.Multipart.Utils`, `Rack.Utils`, `Utils`) — read from the members' own
        qualified names; `unresolved` when none is (Ruby's own `File.join`, `Digest::MD5`
        with no `Digest` the caller sees: not Rack's `Rack::Auth::Digest::MD5`)."""
        defined = self.definitions.get(name)
        if not defined:
            return _UNRESOLVED
        if not self._file_read:
            self._read_file()
        key = (name, group, caller_ord, qualifier)
        if key in self._bare_links:
            return self._bare_links[key]
        candidates = self._fitting(name, group, defined)[0]
        caller = self._caller_names().get(caller_ord, "") if caller_ord is not None else ""
        link: tuple[int | None, int, int] | None = None
        for scope in _outward(caller):
            owner = f"{scope}.{qualifier}" if scope else qualifier
            members = [d for d in candidates if d.parent == owner]
            if members and all(d.kind in _RUBY_FITS[_TYPE] for d in members):
                # a constant (`Pending::SkipDeclaredInExample`), its class reopened in
                # several files: one constant
                link = self._first_constant(members, candidates)
            elif members:
                link = self._one_of(members, candidates)
            if link is not None:
                break
        if link is None:
            link = None, _UNRESOLVED[1], len(candidates)
        self._bare_links[key] = link
        return link

    def _ruby_bare(
        self, link: tuple[int | None, int, int], name: str, caller_ord: int | None
    ) -> tuple[int | None, int, int]:
        """Ruby: a bare call (or `self.x`) linked by an import or by uniqueness to a method
        stays linked when that method can be the caller's own: a method of a module (a
        mixin, included anywhere), of a class the caller is inside (reopened in another
        file: `class String` of a core extension), or of one of that class's
        superclasses; else it is unresolved — a method of an unrelated class is not
        reachable bare (`join` in Faraday was Rake's `ThreadPool#join`)."""
        target = next((d for d in self.definitions.get(name, ()) if d.id == link[0]), None)
        if target is None or not target.parent or target.kind not in CALLABLE:
            return link
        if self._ruby_modules is None:
            self._ruby_modules = {
                q
                for (q,) in self.rows(
                    "SELECT qualified_name FROM symbols WHERE language = 'ruby' AND kind = 'module'"
                )
            }
        if target.parent in self._ruby_modules:
            return link
        owner = target.parent.rpartition(".")[2]
        caller = self._caller_names().get(caller_ord, "") if caller_ord is not None else ""
        scopes = set(caller.split("."))
        if owner in scopes:
            return link
        bases = self._bases.get("ruby")
        if bases is None:
            bases = self._bases["ruby"] = _ruby_bases(self.rows)
        level = {b for scope in scopes for b in bases.get(scope, ())}
        seen: set[str] = set()
        for _ in range(INHERIT_DEPTH):
            if owner in level:
                return link
            seen |= level
            level = {b for n in level for b in bases.get(n, ())} - seen
        return None, _UNRESOLVED[1], link[2]

    def _inherited_bare(
        self, name: str, group: int, caller_ord: int | None, own: bool = False
    ) -> tuple[int | None, int, int] | None:
        """Java, Kotlin, C#, Swift (`CLASS_LANGUAGES`): a bare name that no definition
        of the file is and no import names is the member of the nearest bases of the
        class around it that have one (`_parent_member`; for an extension, the extended
        type's own members, then its bases'); else in Java, C# and Swift a call names no
        method of another class (a class's constructor, a top-level function, a static
        import's member), in Kotlin the usual rules decide. `own` (`this.name`): never
        anything but the class's and its bases' (`unresolved`). None: the usual rules
        decide."""
        if not self._file_read:
            self._read_file()
        defined = self.definitions.get(name)
        if not defined:
            return _UNRESOLVED if own else None
        if name in self.name_sources and not own:
            return None
        candidates, by_doc = self._fitting(name, group, defined)
        if self.doc_id in by_doc or name in self.renamed.get(self.doc_id, {}):
            return None
        found: tuple[int | None, int, int] | None = None
        if self._enclosing_class(caller_ord) is not None:  # a class of this file: its bases'
            found = self._parent_member(name, group, caller_ord)
        else:
            # else the type an extension of it adds to (Swift's `extension SharedObject`,
            # whose functions call the type's own `native(…)` bare): its own members
            # (another file's), else its bases'
            caller = self._caller_names().get(caller_ord, "") if caller_ord is not None else ""
            type_name = caller.rpartition(".")[0].rpartition(".")[2]
            if type_name:
                members = [
                    d
                    for d in candidates
                    if d.parent.rpartition(".")[2] == type_name and d.kind != ENUM_MEMBER
                ]
                found = self._one_of(members or self._inherited(type_name, candidates), candidates)
        if found is not None and found[0] is not None:
            return found
        if own:
            # (Kotlin: or an extension function, top-level: `this.weak()`)
            extensions = [d for d in candidates if not d.parent and self.family == "kotlin"]
            if extensions:
                return self._elsewhere(name, group, extensions)[:2] + (len(candidates),)
            return None, _UNRESOLVED[1], len(candidates)
        # (Not in `links`: that would answer the file's later references of the name,
        # whose classes may have other bases.)
        key = (name, group)
        link = self._bare_links.get(key)
        if link is None:
            if group == _CALL and self.family in _BARE_NEVER_FOREIGN:
                # (a top-level function, Swift's; a static import's: `import static
                # java.util.zip.ZipUtils.*`)
                classes = [
                    d
                    for d in candidates
                    if d.kind != ENUM_MEMBER
                    and (
                        d.kind not in CALLABLE
                        or not d.parent
                        or d.parent.rpartition(".")[2] in self.globbed
                    )
                ]
                link = self._elsewhere(name, group, classes) if classes else _UNRESOLVED
                link = link[0], link[1], len(candidates)
            else:
                link = self._unqualified(name, group, caller_ord, None)
                self.links.pop((name, group, None), None)
            self._bare_links[key] = link
        return link

    def _unqualified(
        self, name: str, kind: int, caller_ord: int | None, qualifier: str | None
    ) -> tuple[int | None, int, int]:
        """The link of a name written bare (`qualifier` None) or as the method's own
        member (`_OWN`): by the rules of `_decide`."""
        key = (name, kind, qualifier)
        several = self.several.get(key)
        if several is None:
            defined = self.definitions.get(name)
            if not defined:  # over half of them: built-ins, std, dependencies
                self.links[(name, kind, qualifier)] = _UNRESOLVED
                return _UNRESOLVED
            link, local = self._decide(name, kind, defined, bare=qualifier is None)
            if local is None:
                self.links[(name, kind, qualifier)] = link
                return link
            several = self.several[key] = (link, local)
        link, local = several
        found = self._closest(local, caller_ord)
        return link if found is None else (found.id, _LOCAL, link[2])

    def _decide(
        self, name: str, group: int, defined: list[_Def], bare: bool = False
    ) -> tuple[tuple[int | None, int, int], list[_Def] | None]:
        """The link of a reference to `name` of kind group `group` from this file: the
        same for every such reference in it, except when the file defines several, or
        one inside a function (then the link for a reference no definition of the file
        encloses, and the list, for `_closest`). Decided once per file and name, not per
        reference. A `bare` name in Rust is never a type's member (a method, an
        associated type or constant is written `self.x`, `Self::x` or `Type::x`: `Ok(…)`
        is not an `impl`'s `type Ok`), only a top-level item or an inline module's."""
        if not self._file_read:
            self._read_file()
        candidates, by_doc = self._fitting(name, group, defined)
        local = by_doc.get(self.doc_id)
        if bare and self.family in _RECEIVER_FAMILIES:
            member = _in_a_type if self.family == "rust" else _a_method
            key = (name, group, self.family)
            free = self._free.get(key)
            if free is None:  # (the same for every file asking: kept for the pass)
                free = self._free[key] = [d for d in candidates if not member(d)]
            candidates = free
            local = [d for d in local if not member(d)] if local else local
        # An enum's member is named through its enum (`Cow::Borrowed`: `_member_of_type`)
        # or, in its own file, as `Self::Set`; never another file's by import or
        # uniqueness (pydantic-core's `Self::Dict`, a trait's associated type, is no
        # other file's `CombinedValidator::Dict`).
        elsewhere = [d for d in candidates if d.kind != ENUM_MEMBER]
        if local:
            if not any(d.scope for d in local):
                if len(local) > 1:
                    return (None, _LOCAL, len(candidates)), local
                return (local[0].id, _LOCAL, len(candidates)), None
            # Some are inside a function: `_closest` picks per reference, and a reference
            # outside them takes the file's other definitions, else the rules after.
            visible = [d for d in local if not d.scope]
            if visible:
                link = (visible[0].id if len(visible) == 1 else None, _LOCAL, len(candidates))
            else:
                link = self._elsewhere(name, group, elsewhere, bare)
            return link, local
        return self._elsewhere(name, group, elsewhere, bare), None

    def _elsewhere(
        self, name: str, group: int, candidates: list[_Def], bare: bool = False
    ) -> tuple[int | None, int, int]:
        """The link of a reference to `name` that no definition of this file can be: by
        the rules after the first (`import`, `unique`, `ambiguous`, `unresolved`)."""
        if not candidates:
            return _UNRESOLVED
        if name in _BUILTINS.get(self.family, ()) and name not in self.modules:
            return None, _UNRESOLVED[1], len(candidates)
        if self.family == "php" and bare:
            return self._php_named(name, group, None, candidates)
        source = self.name_sources.get(name)  # `from m import name`: m
        if source is not None:
            if self.family == "python" and not self._indexed_module(source):
                # `from datetime import date`: a module the index does not hold is the
                # standard library's or a dependency's, so no `date` of the index is it
                # (not the filter of defaultfilters.py, which the file also imports).
                return None, _UNRESOLVED[1], len(candidates)
            # `from flask import url_for`: a module exports top-level names, so the one
            # top-level `url_for` of flask's files (helpers.py, which the package
            # re-exports), not also the method `Flask.url_for` under the same folder.
            from_module = self._in_path(name, group, tuple(source.split("/")))
            if from_module is not None:
                return from_module
        if self.family == "go":
            # Go: a bare name is of the file's own package, the files of its folder
            # (`NewRequest(…)` in net/http/client.go is request.go's, not httptest's).
            package = [d for d in candidates if d.directory == self.package]
            if package:
                visible = [d for d in package if not self._hidden(d)]
                if len(visible) == 1 and len(package) == 1:
                    return visible[0].id, _BY_IMPORT, len(candidates)
                return None, _AMBIGUOUS, len(candidates)
        if self.family in _PACKAGE_IS_FOLDER:
            # Java, Kotlin: the one top-level definition of the file's own package
            # (folder) before wildcard imports, as the compiler looks (JLS 6.4.1).
            package = [d for d in candidates if not d.parent and d.directory == self.package]
            if len(package) == 1 and not self._hidden(package[0]):
                return package[0].id, _BY_IMPORT, len(candidates)
        if (
            self.family == "python"
            and name in _BUILT_IN_METHODS["python"]
            and all(d.parent for d in candidates)
        ):
            # A method a built-in type has, written bare (`append(x)` after `append =
            # parts.append` in rich's box.py) or as `self.append(…)` of a base elsewhere:
            # as likely the built-in's as the index's one (`_member_of_another`).
            return None, _AMBIGUOUS, len(candidates)
        imported = self._one_imported(candidates, candidates)
        if imported is not None:
            return imported.id, _BY_IMPORT, len(candidates)
        one = self._one_copy(candidates)  # (one definition, or one in copies of one file)
        only = one[0] if len(one) == 1 else None
        if only is not None:
            if self._hidden(only) or (
                self.family == "python" and not only.parent and not self._reexported(name)
            ):
                return None, _UNRESOLVED[1], len(candidates)
            return only.id, _UNIQUE, len(candidates)
        return None, _AMBIGUOUS, len(candidates)

    def _php_named(
        self,
        name: str,
        group: int,
        spaces: set[str] | None,
        candidates: list[_Def] | None = None,
    ) -> tuple[int | None, int, int]:
        r"""PHP: a class or function named without `$this->`, `self::` or a class: the one
        defined in the namespace it is written in — `spaces`, else the namespace its `use`
        import names (`use GuzzleHttp\Exception\RequestException`), else the file's own
        (a function also the global one, as PHP falls back; a class never does). A name
        no definition of that namespace has is outside the index (`Psr\Log\LoggerInterface`,
        a PHP built-in): never a same-named definition of another namespace (two packages'
        `InvalidArgumentException`s)."""
        if candidates is None:
            defined = self.definitions.get(name)
            if not defined:
                return _UNRESOLVED
            if not self._file_read:
                self._read_file()
            candidates = [d for d in self._fitting(name, group, defined)[0] if not _a_method(d)]
        fallback = spaces is None and name not in self.name_sources
        if spaces is None:
            source = self.name_sources.get(name)
            spaces = {source.replace("/", ".")} if source is not None else self._php_spaces("")
        same = [d for d in candidates if d.parent in spaces and d.kind != ENUM_MEMBER]
        if not same and fallback:
            same = [d for d in candidates if not d.parent and d.kind == "function"]
        visible = [d for d in same if not self._hidden(d)]
        if len(visible) == 1 and len(same) == 1:
            return visible[0].id, _BY_IMPORT, len(candidates)
        return None, _AMBIGUOUS if visible else _UNRESOLVED[1], len(candidates)

    def _php_spaces(self, qualifier: str) -> set[str]:
        r"""The namespaces a PHP qualifier names (`_php_named`): `\A.B` that one (`\` the
        global one, ""), `?B.C` B.C under the file's namespaces or under what its imports
        bind B to (`use GuzzleHttp\Psr7;` … `Psr7\Utils`), "" the file's namespaces
        (the global one when it declares none)."""
        if self._namespaces is None:
            self._namespaces = {
                space
                for (space,) in self.rows(
                    "SELECT qualified_name FROM symbols WHERE doc_id = ? AND kind = 'namespace'",
                    (self.doc_id,),
                )
            } or {""}
        if qualifier.startswith("\\"):
            return {qualifier[1:]}
        if not qualifier:
            return self._namespaces
        relative = qualifier[1:]
        first, _, rest = relative.partition(".")
        found = {f"{space}.{relative}" if space else relative for space in self._namespaces}
        imported = self.modules.get(first)
        if imported:
            found.add(".".join((*imported, rest) if rest else imported))
        return found

    def _hidden(self, definition: _Def) -> bool:
        """Whether a definition of another file is never this file's link by the loose
        rules (rule 2 by path segments, rule 3), though it counts as a candidate: one
        inside a function (`_Def.scope`), or one of a test file when this file is none
        (pytest's `self.trace(…)` is not a test's `FakeConfig.trace`, Go's
        `buf.WriteByte` no `_test.go` type's; an explicit import still reaches it:
        `from django.test import TestCase`)."""
        return bool(definition.scope) or (definition.test and not self.in_test)

    def _reexported(self, name: str) -> bool:
        """Python: whether the file imports `name` from a module the index holds (which
        then re-exports it: `from .base import TemplateSyntaxError`, defined in
        exceptions.py). A top-level definition of another file is only reachable by an
        import: a name the file neither defines nor imports is a built-in's or a
        method's (`x.lower()` is `str.lower`, never the one top-level `lower` of
        defaultfilters.py), and one imported from a module the index lacks is that
        module's (`from urllib.parse import unquote`, `import time`)."""
        module = self.name_sources.get(name)
        return module is not None and self._indexed_module(module)

    def _indexed_module(self, tail: str) -> bool:
        """Whether an indexed Python file or folder is the module at `tail`
        (`django/template/base`): its path without extension, or a folder of it, ends
        with the whole of `tail`, and what comes before `tail` is no package (a folder
        with an `__init__.py`): `django/db/models/functions/datetime.py` is the module
        `django.db.models.functions.datetime`, which `import datetime` never names (the
        one family `_reexported` asks about)."""
        return bool(self._module_keys(tail))

    def _module_keys(self, tail: str) -> list[str]:
        """The indexed Python files and folders (`path_key`s) that are the module at
        `tail`, by `_indexed_module`'s rule (kept per pass)."""
        known = self._indexed.get(tail)
        if known is not None:
            return known
        if self._modules_by_last is None:
            by_last: dict[str, set[str]] = defaultdict(set)
            for path, language in self.rows(
                "SELECT path, language FROM documents WHERE language = ?", (self.family,)
            ):
                key = path_key(path, language)
                if key.rsplit("/", 1)[-1] == "__init__":
                    self._packages.add(posixpath.dirname(key))
                while key:
                    by_last[key.rsplit("/", 1)[-1]].add(key)
                    key = posixpath.dirname(key)
            self._modules_by_last = {last: sorted(keys) for last, keys in by_last.items()}
        last = tail.rsplit("/", 1)[-1]
        found = self._indexed[tail] = [
            key
            for key in self._modules_by_last.get(last, ())
            if key == tail
            or (key.endswith("/" + tail) and key[: -len(tail) - 1] not in self._packages)
        ]
        return found

    def _outside(self, qualifier: str) -> tuple[int | None, int, int] | None:
        """Python: `unresolved` for `qualifier.name` when the qualifier is a module the
        index does not hold (`datetime.date` after `import datetime`: the standard
        library's, not the `date` filter of another file); else None. A qualifier
        imported from a module (`from django.db import router`) may be an object of it
        rather than a submodule: held when that module is. Go: a package is a folder,
        held when an indexed Go file's folder is named like the last part of its path
        (`errors.Is` with no folder `errors` indexed is not another package's `Is`)."""
        module = self.modules.get(qualifier)
        if self.family == "go" and module:
            # (Its last part: a module's own path, `example.com/web`, is no folder chain.)
            return None if self._go_package_held(module[-1]) else _UNRESOLVED
        if self.family not in ("python", "lua") or not module:
            return None
        # (Lua: `local m = require "lpeg"`, a C module: `m.P` is no function of the index)
        held = self._indexed_module("/".join(module)) or (
            len(module) > 1 and self._indexed_module("/".join(module[:-1]))
        )
        return None if held else _UNRESOLVED

    def _go_package_held(self, tail: str) -> bool:
        """Whether an indexed Go file lies in a folder ending with `tail` (`net/http`)."""
        known = self._go_held.get(tail)
        if known is None:
            if self._go_folders is None:
                self._go_folders = {
                    posixpath.dirname(path)
                    for (path,) in self.rows("SELECT path FROM documents WHERE language = 'go'")
                }
            known = self._go_held[tail] = any(_ends_with(f, tail) for f in self._go_folders)
        return known

    def _through_qualifier(
        self, name: str, group: int, qualifier: str
    ) -> tuple[int | None, int, int] | None:
        """`qualifier::name` / `qualifier.name` where the file imports `qualifier` and the
        module it names defines no top-level `name` (`_in_module`): in Rust a path says
        which it is (types are capitalised, modules are not: the language's naming
        rule), elsewhere the definitions do."""
        defined = self.definitions.get(name)
        candidates = self._fitting(name, group, defined)[0] if defined else []
        if self.family in _PATH_FAMILIES and not qualifier[:1].isupper():
            return self._item_of_module(qualifier, candidates)
        return self._member_of_type(qualifier, candidates)

    def _member_of_type(
        self, qualifier: str, candidates: list[_Def]
    ) -> tuple[int | None, int, int] | None:
        """`Type::name` / `Type.name`: a member of that type, the candidates whose parent
        is named `qualifier` (`ValError::new` is `impl ValError`'s `new`, never the `new`
        of the file's own `JsonArgs`), one of them by the import when several types share
        the name. A Rust type with no such member in the index has it from elsewhere (a
        derive, a trait, another crate: `Arc::new`, `SchemaFilter::default`): unresolved.
        Else None: another rule decides (in Python or TypeScript an inherited method is
        the base class's)."""
        members = self._members(qualifier, candidates)
        if not members:
            if self.family in _PATH_FAMILIES or (
                self.family in _CAPITALISED_TYPES and qualifier[:1].isupper()
            ):
                # (Java's `Thread.sleep(…)`, a class the index lacks, is no bare `sleep`.)
                return None, _UNRESOLVED[1], len(candidates)
            return None
        return self._one_of(members, candidates)

    def _members(self, type_name: str, candidates: list[_Def]) -> list[_Def]:
        """The candidates that are members of a type named `type_name`; of several types
        of that name (Django's two `Field`s), the members in the file of the one the
        import names (`from django.forms.fields import Field`), else of the file's own."""
        members = [d for d in candidates if d.parent.rpartition(".")[2] == type_name]
        if not members and self.family == "kotlin":
            # a class's companion object's (`LogType.toOSLogType(…)`)
            companion = type_name + ".Companion"
            members = [d for d in candidates if d.parent.endswith(companion)]
        if not members and self.family in _BASES_READ:
            # (a Python class of this file's name: its own bases first)
            home = self.doc_id if self.family == "python" else None
            members = self._inherited(type_name, candidates, home)
        if len(members) > 1:
            # the type the file imports, else its own type of that name (Sphinx's C and
            # C++ domains each have a `Symbol` calling `Symbol.debug_print(…)`: 138 calls
            # were ambiguous between the two)
            members = (
                self._in_type_of_import(type_name, members)
                or [d for d in members if d.doc_id == self.doc_id]
                or members
            )
        if (
            len(members) > 1
            and self.family in _OVERLOADING
            and len({(d.doc_id, d.parent) for d in members}) == 1
        ):
            # Overloads of one method (`@overload def setattr` twice, then the
            # implementation, which comes last): the method, at its last definition.
            members = members[-1:]
        return members

    def _inherited(
        self, type_name: str, candidates: list[_Def], home: int | None = None
    ) -> list[_Def]:
        """The candidates that are members of the nearest bases of the Python or
        JavaScript/TypeScript classes named `type_name` that have any (`app.route` on a
        `Flask()` is `Scaffold.route`: `class Flask(App)`, `class App(Scaffold)`;
        `subject.pipe()` is `Observable.pipe`: `class Subject<T> extends Observable<T>`),
        by the classes' names, at most INHERIT_DEPTH levels up; [] when none is. `home`:
        the file of the Python class meant, whose own bases are the first level when it
        writes any (pydantic's tests define a `Bar` of `BaseModel` in one test and of
        `RootModel[int]` in another: `Bar().model_dump()` is the file's own `Bar`'s)."""
        bases = self._bases.get(self.family)
        if bases is None:
            if self.family in CLASS_LANGUAGES or self.family == "php":
                bases = _declared_bases(self.rows, self.family)
            elif self.family == "ruby":
                bases = _ruby_bases(self.rows)
            else:
                bases = (_python_bases if self.family == "python" else _script_bases)(self.rows)
            self._bases[self.family] = bases
        seen = {type_name}
        own = self._python_bases_of(type_name, home) if home is not None else None
        level = set(own if own else bases.get(type_name, frozenset())) - seen
        for _ in range(INHERIT_DEPTH):
            if not level:
                break
            found = [d for d in candidates if d.parent.rpartition(".")[2] in level]
            if found:
                return found
            seen |= level
            level = {b for name in level for b in bases.get(name, ())} - seen
        return []

    def _python_bases_of(self, name: str, doc_id: int) -> frozenset[str] | None:
        """The bases the Python classes named `name` in the file `doc_id` write (all of
        them when it defines several), None when it defines none that writes any."""
        if self._doc_bases is None:
            found: dict[tuple[str, int], set[str]] = defaultdict(set)
            for class_name, doc, signature in self.rows(
                "SELECT name, doc_id, signature FROM symbols WHERE kind = 'class' "
                "AND language = 'python' AND signature LIKE '%(%'"
            ):
                found[(class_name, doc)].update(
                    b for b in _python_base_names(signature) if b != class_name
                )
            self._doc_bases = {key: frozenset(names) for key, names in found.items() if names}
        return self._doc_bases.get((name, doc_id))

    def _item_of_module(
        self, qualifier: str, candidates: list[_Def]
    ) -> tuple[int | None, int, int]:
        """Rust's `module::name` that `_in_module` did not find: an item of an inline
        `mod module { … }` (its parent), else a top-level item of a file under a folder of
        that name (`sys::cleanup` in sys/unix/mod.rs); never a method of a type, nor
        another module's item (`ptr::copy_nonoverlapping` is not
        `VecDeque::copy_nonoverlapping`, `libc::exit` not the file's own `exit`):
        unresolved when none is (another crate's)."""
        # An inline module of this file, or of the file that is the module's parent
        # (`use crate::sys::l4re::net` → l4re.rs's `mod net`; `crate::net` is no inline
        # `mod net` of sys/unix/l4re.rs).
        outer = "/".join(self.modules.get(qualifier, ())[:-1])
        inline = [
            d
            for d in candidates
            if d.parent.rpartition(".")[2] == qualifier
            and (d.doc_id == self.doc_id or (outer and _ends_with(d.key, outer)))
        ]
        under = [d for d in candidates if not d.parent and qualifier in d.segments]
        return self._one_of(inline or under, candidates) or _UNRESOLVED

    def _one_of(
        self, found: list[_Def], candidates: list[_Def]
    ) -> tuple[int | None, int, int] | None:
        """The link to the one of `found` (by rule 2 when several), `ambiguous` when it
        cannot be told; None when `found` is empty."""
        if not found:
            return None
        found = self._one_copy(found)
        if len(found) == 1:
            if found[0].scope:
                return None, _UNRESOLVED[1], len(candidates)
            resolution = _LOCAL if found[0].doc_id == self.doc_id else _BY_IMPORT
            return found[0].id, resolution, len(candidates)
        imported = self._one_imported(candidates, found)
        if imported is not None:
            return imported.id, _BY_IMPORT, len(candidates)
        return None, _AMBIGUOUS, len(candidates)

    def _one_copy(self, found: list[_Def]) -> list[_Def]:
        """`found` in one of its files when its files are copies of one file (the same
        bytes) holding the same definitions of the name and one copy is nearer this
        file than the others (the longest folder path they share), else `found`.
        Debian's `lua-penlight` installs `pl/utils.lua` for Lua 5.1, 5.2, 5.3 and 5.4:
        `utils.split(…)` in `5.1/pl/func.lua` was ambiguous among four, and "who calls
        utils.split" listed no caller outside `utils.lua`. Two packages' identical
        `_compat.py` seen from a file of neither stay two."""
        if len(found) < 2 or not self.copies().hashes:
            return found
        copies = self.copies()
        content = copies.hashes.get(found[0].doc_id)
        by_doc: dict[int, list[tuple[str, str]]] = defaultdict(list)
        for d in found:
            if copies.hashes.get(d.doc_id) != content:
                return found
            by_doc[d.doc_id].append((d.kind, d.parent))
        shapes = list(by_doc.values())
        if content is None or len(shapes) < 2 or any(shape != shapes[0] for shape in shapes):
            return found
        nearest = self._nearest(list(by_doc))
        if nearest is None:
            return found
        self.copies_chosen += 1
        return [d for d in found if d.doc_id == nearest]

    def _nearest(self, doc_ids: list[int]) -> int | None:
        """Of copies of one file, the one nearer this file than every other (this file
        itself when it is one), or None."""
        if self.doc_id in doc_ids:
            return self.doc_id
        if not self._file_read:
            self._read_file()
        here = self.directory.split("/")
        ranked = sorted(
            ((_shared(here, self.copies().directory[d]), d) for d in doc_ids), reverse=True
        )
        return ranked[0][1] if ranked[0][0] > ranked[1][0] else None

    def copies(self) -> _Copies:
        """The files with copies (`_Copies`), read on first use."""
        if self._copies is None:
            self._copies = _Copies(self.rows)
        return self._copies

    def _in_nearest_copy(self, link: tuple[int | None, int, int]) -> tuple[int | None, int, int]:
        """`link` to a definition in a file that has copies made the link to the same
        definition in the copy nearest this file (`_nearest`), when one is nearer than
        the rest: each copy of a tree links within itself, as it would alone (a rule
        that decides once for every file, a Ruby constant's path, took the first)."""
        copies = self.copies()
        place = copies.place.get(link[0]) if link[0] is not None else None
        if place is None:
            return link
        doc_id, index = place
        same = [
            d
            for d in copies.group[copies.hashes[doc_id]]
            if len(copies.symbols[d]) == len(copies.symbols[doc_id])
        ]
        nearest = self._nearest(same)
        if nearest is None or nearest == doc_id:
            return link
        return copies.symbols[nearest][index], link[1], link[2]

    def _in_type_of_import(self, qualifier: str, members: list[_Def]) -> list[_Def]:
        """Of `members`, those in the file of the type `qualifier` that the file imports
        from a module by name (`_in_path`), or [] when the import does not decide it."""
        source = self.name_sources.get(qualifier)
        if source is None:
            return []
        found = self._in_path(qualifier, _TYPE, tuple(source.split("/")))
        if found is None or found[0] is None:
            return []
        home = next(
            (d.doc_id for d in self.definitions.get(qualifier, ()) if d.id == found[0]), None
        )
        return [d for d in members if d.doc_id == home]

    def _in_module(
        self, name: str, group: int, qualifier: str
    ) -> tuple[int | None, int, int] | None:
        """`qualifier.name` where the qualifier is a name the file's imports bind: the one
        top-level definition of `name` in that module's files, if there is exactly one —
        `http.Get` is net/http's `Get`, not `Client.Get` or `Header.Get`. A module's files
        are those whose directory (a Go or Python package) or path without extension (a
        Python module) ends with the module's whole path; a module the index does not
        hold, or that defines the name several times or not at all, decides nothing (the
        rules after it do). The module's own file is asked before its folder."""
        if not self._file_read:
            self._read_file()
        return self._in_path(name, group, self.modules.get(qualifier))

    def _in_path(
        self, name: str, group: int, module: tuple[str, ...] | None, depth: int = 0
    ) -> tuple[int | None, int, int] | None:
        """The one top-level definition of `name` in the files of the module at the path
        `module` (`_in_module`), or None. A Python or JavaScript/TypeScript module that
        defines no `name` but re-exports it (`from _pytest.python_api import raises` in
        pytest/__init__.py; `export * from "./schemas.js"` in zod's external.ts) leads to
        the definition in the module it takes it from (`_reexports`), through at most
        REEXPORT_DEPTH such modules."""
        if not module:
            return None
        tail = "/".join(module)
        key = (name, group, self.family, tail)
        if key in self.in_module:  # the same for every file that names this module
            return self.in_module[key]
        self.in_module[key] = None  # meanwhile: a cycle of re-exports ends here
        decided: tuple[int | None, int, int] | None = None
        chosen = self.copies_chosen  # (a copy chosen as the nearest: for this file only)
        if self.family != "python" or self._indexed_module(tail):
            # (Else: `datetime` is no module of the index even though a nested
            # django/db/models/functions/datetime.py ends with its name.)
            defined = self.definitions.get(name)
            inside: list[_Def] = []
            if defined:
                candidates, _ = self._fitting(name, group, defined)
                # (a Lua module's functions are its file's table's: `function M.split`)
                top = [
                    d
                    for d in candidates
                    if not d.parent or (self.family == "lua" and "." not in d.parent)
                ]
                # The module's own file first (`core::ptr` is ptr/mod.rs), then the
                # files of its folder (a Go package; a Rust or Python module's
                # submodules, which hold what it re-exports: `io::Error` is io/error.rs).
                inside = self._one_copy(
                    [d for d in top if _ends_with(d.key, tail)]
                    or [d for d in top if _ends_with(d.directory, tail)]
                )
                if len(inside) == 1 or (
                    self.family in _OVERLOADING and len({d.doc_id for d in inside}) == 1
                ):
                    # Several in one file are overloads (`@overload def raises(...)` twice,
                    # then the implementation, which comes last) or a definition per
                    # platform: the module's one name, at its last definition.
                    decided = (inside[-1].id, _BY_IMPORT, len(candidates))
            # (Also when its folder holds several: `from .core import Option as Option`
            # in click/__init__.py says which of core.py's and parser.py's `click.Option`
            # is.)
            if decided is None and self.family in _REEXPORTING and depth < REEXPORT_DEPTH:
                found = [
                    link
                    for source, original in self._reexports(name, tail)
                    if (link := self._in_path(original, group, source, depth + 1)) is not None
                ]
                # Two star re-exports that both hold the name: JavaScript leaves it out,
                # and so does this (undecided).
                decided = found[0] if len({link[0] for link in found}) == 1 else None
        if self.copies_chosen == chosen:
            self.in_module[key] = decided
        else:
            del self.in_module[key]
        return decided

    def _reexports(self, name: str, tail: str) -> list[tuple[tuple[str, ...], str]]:
        """Where the module at `tail` takes `name` from, when its own file (`tail`.py,
        `tail`/__init__.py, `tail`.ts, `tail`/index.ts) binds or re-exports it: (that
        module's path, the name it has there: `skip` for `from _pytest.outcomes import skip
        as skip_test`). A binding by name is the one answer; else every star (`from m import
        *`, `export * from "m"`) is a place to look."""
        stars: list[tuple[tuple[str, ...], str]] = []
        for doc_id, directory in self._module_files(tail):
            for module, text, alias in self.rows(
                "SELECT module, names, alias FROM imports WHERE doc_id = ? ORDER BY ord",
                (doc_id,),
            ):
                names = _names(text)
                original = renamed_name(names, alias) if alias else None
                named = (original is not None and alias == name) or (
                    alias is None and name in names
                )
                star = alias is None and names == ["*"]
                if (named or star) and (segments := module_segments(module, directory)):
                    if named:
                        return [(segments, original or name)]
                    stars.append((segments, name))
        return stars

    def _module_files(self, tail: str) -> list[tuple[int, str]]:
        """The files of this language family that are the module at `tail` (`a/b.py`, the
        package `a/b/__init__.py`; `a/b.ts`, `a/b/index.ts`): (doc_id, its directory),
        the map read once for all (`_module_file_map`)."""
        if self._module_file is None:
            self._module_file = _module_file_map(self.rows)
        return _files_of(self._module_file.get(self.family, {}), tail)

    def _value_of(
        self, name: str, group: int, qualifier: str
    ) -> tuple[int | None, int, int] | None:
        """A Rust method called on a chain begun by `Type::f(…)` (`VALUE_OF`): the member
        `name` of `Type` when the index has one (a builder's `Arg::new("x").index(1)
        .required(true)` is `Arg::required`, not `ArgGroup::required`); None otherwise."""
        if not qualifier.endswith(VALUE_OF):
            return None
        defined = self.definitions.get(name)
        if not defined:
            return None
        candidates = self._fitting(name, group, defined)[0]
        type_name = qualifier[: -len(VALUE_OF)]
        if not self._file_read:
            self._read_file()  # (its family)
        if self.family == "go":
            return self._go_member(type_name, name, group, candidates)
        if (
            self.family == "rust"
            and self._defined_nowhere(type_name)
            and type_name not in self.renamed.get(self.doc_id, ())
        ):  # (`use crate::sys::StaticKey as OsStaticKey` names the index's type)
            # `s: String`, `v: Vec<u8>`, `buf: &mut termcolor::Buffer`: another crate's
            # type has none of the index's members but those an `impl` of the index
            # gives it (`impl Display for String`: its methods' parent is `String`).
            impls = [d for d in candidates if d.parent.rpartition(".")[2] == type_name]
            return (
                self._one_of(impls, candidates)
                if impls
                else (None, _UNRESOLVED[1], len(candidates))
            )
        if (
            self.family in ("python", "typescript", "cpp") or self.family in CLASS_LANGUAGES
        ) and self._defined_nowhere(type_name):
            # `new Map()`, `ValueError(…)`, `argparse.ArgumentParser()`, C++'s
            # `std::vector<int> v`: a class the index does not hold has none of its
            # members (zod's `seen.add(x)` on a `new Set()` was `$ZodRegistry.add`, the
            # one `add` of the index). A Python name the file
            # imports may be an alias or a type variable of that module's (sqlglot's `E`,
            # bound to `Expression`): `_python_member` reads where it comes from.
            imported = type_name in self.name_sources or type_name in self.renamed.get(
                self.doc_id, ()
            )  # (`from m import DialectType as DialectType`)
            if self.family in CLASS_LANGUAGES:
                # What extends a class the index lacks: a Swift `extension String`'s member,
                # a C# extension method (`md.GetBaseGetMethod(true)` on a `PropertyInfo`,
                # pythonnet's `ReflectionUtil`), a Kotlin extension function (top level:
                # `ownerClass.isSharedRefClass()` on a `KClass`, expo's SharedRef.kt)
                extensions = [
                    d for d in candidates if d.parent.rpartition(".")[2] == type_name
                ] or [
                    d
                    for d in candidates
                    if d.extension or (self.family == "kotlin" and not d.parent)
                ]
                if extensions:
                    return self._one_of(extensions, candidates)
            if self.family != "python" or not imported:
                return None, _UNRESOLVED[1], len(candidates)
        if self.family == "python":
            return self._python_member(type_name, candidates)
        if self.family == "typescript":
            return self._imported_member(type_name, candidates)
        return self._one_of(self._members(type_name, candidates), candidates)

    def _defined_nowhere(self, type_name: str) -> bool:
        """Whether the class a value is of (`Session`, `mod.Session`; not what a call
        returns, `=f`) is nothing the index defines: no symbol of its name at all."""
        return type_name[:1] != "=" and not self.definitions.get(type_name.rpartition(".")[2])

    def _imported_member(
        self, name: str, candidates: list[_Def]
    ) -> tuple[int | None, int, int] | None:
        """The member of JavaScript's or TypeScript's class `name` among `candidates`: of
        the class the file imports by that name, or of a namespace it imports (`import
        type { ZodString } from "./schemas.js"`, `z.ZodString` after `import * as z`: v4's
        interface, not v3's class of the same name; None, as for any other object, when
        that class has no such member of its own or cannot be found), else of every class
        of that name (`_members`)."""
        if not self._file_read:
            self._read_file()
        space, _, name = name.rpartition(".")
        if space:  # `z.ZodString` after `import * as z from "…"`: that module's
            module = self.modules.get(space)
            found = self._in_path(name, _TYPE, module) if module else None
        elif (source := self.name_sources.get(name)) is not None:
            found = self._in_path(name, _TYPE, tuple(source.split("/")))
        else:
            return self._one_of(self._members(name, candidates), candidates)
        if found is None or found[0] is None:
            return None
        home = next((d.doc_id for d in self.definitions.get(name, ()) if d.id == found[0]), None)
        members = [
            d for d in candidates if d.parent.rpartition(".")[2] == name and d.doc_id == home
        ] or self._inherited(name, candidates)
        return self._one_of(members, candidates) if members else None

    def _python_member(
        self, type_name: str, candidates: list[_Def]
    ) -> tuple[int | None, int, int] | None:
        """The method of Python's class `type_name` (`Session`, `threading.Thread`: a name
        bound to a new instance or annotated with it) among `candidates`. A class the file
        imports (`from m import Session`, `m.Session`) is m's: unresolved when the index
        holds no module m (the class is none of the index's, whatever other `Session`
        it has), None (decided as for any other object) when m defines no class of that
        name (`threading.Lock` is a function); its member is the class's own, else its
        bases' (`_inherited`). Any other name is every class of that name's (`_members`)."""
        if not self._file_read:
            self._read_file()
        if type_name.startswith("="):  # `r = client.get(…)`: what `get` returns
            returned = self._python_result(type_name[1:])
            if returned is None:
                return None
            if returned[0] is None:
                return None, _UNRESOLVED[1], len(candidates)
            class_id, class_name = returned
            return self._class_member(class_id, class_name, candidates)
        package, _, name = type_name.rpartition(".")
        source = self.name_sources.get(name)
        if package:
            source = "/".join(self.modules.get(package, ()))
            source = source or (package if package in self.package_roots else "")
        if not source:
            if package:
                # `DocQLLexer.Cursor(…)`: a class nested in a class (no module of that
                # name), whose methods' parent is the qualified name
                nested = [
                    d
                    for d in candidates
                    if d.parent == type_name or d.parent.endswith("." + type_name)
                ]
                return self._one_of(nested, candidates) if nested else None
            # a class of this file's, before any other of that name
            members = self._members(name, candidates)
            return self._one_of(
                [d for d in members if d.doc_id == self.doc_id] or members, candidates
            )
        if not self._indexed_module(source):
            return None, _UNRESOLVED[1], len(candidates)
        found = self._in_path(name, _TYPE, tuple(source.split("/")))
        if found is None or found[0] is None:
            # The module takes it from one the index lacks (`io`'s `from _io import
            # BytesIO`): none of the index's; else not a class (`threading.Lock`).
            taken = self._reexports(name, source)
            if taken and not any(self._indexed_module("/".join(m)) for m, _ in taken):
                return None, _UNRESOLVED[1], len(candidates)
            return None
        return self._class_member(found[0], name, candidates)

    def _class_member(
        self, class_id: int | None, name: str, candidates: list[_Def]
    ) -> tuple[int | None, int, int] | None:
        """The member among `candidates` of the Python class `name` whose definition is
        `class_id`: its own, else its bases' (`class Flask(App)`), else another class of
        its name's, which it mostly extends under another name (`class
        Blueprint(SansioBlueprint)`); an overloaded method at its implementation."""
        home = next((d.doc_id for d in self.definitions.get(name, ()) if d.id == class_id), None)
        members = [
            d for d in candidates if d.parent.rpartition(".")[2] == name and d.doc_id == home
        ]
        members = (
            members or self._inherited(name, candidates, home) or self._members(name, candidates)
        )
        if len(members) > 1 and len({(d.doc_id, d.parent) for d in members}) == 1:
            members = members[-1:]  # overloads: the implementation
        return self._one_of(members, candidates)

    def _python_result(self, callee: str) -> tuple[int | None, str] | None:
        """The class a Python call returns by its function's annotation (`-> Response`):
        (its definition's id, its name) for `callee` as called — `f`, `mod.f`, or
        `Class.m` for a method of a value of that class (`code_refs._py_bound`); (None,
        name) when the class is another module's that the index does not hold (`->
        httpx.Response`); None when the function, its annotation or the class cannot be
        told."""
        owner, _, name = callee.rpartition(".")
        imported = self.modules.get(owner or name)
        if (
            imported
            and not owner[:1].isupper()
            and ".".join((*imported, name) if owner else imported) not in _SAME_VALUE
        ):
            # `re.compile(…)`, or `compile(…)` after `from re import compile`: a function
            # of a module the index does not hold returns none of its classes (rich's
            # `RE_COLOR.match(color)` was `Palette.match`, the one `match` it defines).
            # (`imported` is the module, `import re`, or a name and the module it is
            # taken from, `from blueprintapp import app`: either may be the index's. A
            # module's function of a name the index defines at a file's top level may be
            # that file's under a second import: httplib2's `import socks`, failing, then
            # `from . import socks`.)
            homes = (imported, imported[:-1]) if owner else (imported[:-1],)
            if not any(home and self._indexed_module("/".join(home)) for home in homes) and (
                all(d.parent for d in self.definitions.get(name, ()))
            ):
                return None, name
        defined = self.definitions.get(name)
        if not defined:
            return None
        functions = self._fitting(name, _CALL, defined)[0]
        if not owner:
            local = [d for d in functions if d.doc_id == self.doc_id and not d.parent]
            link: tuple[int | None, int, int] | None = (local[-1].id, 0, 0) if local else None
            source = self.name_sources.get(name)
            if link is None and source:
                link = self._in_path(name, _CALL, tuple(source.split("/")))
        elif (owner in self.modules and not owner[:1].isupper()) or owner in self.package_roots:
            # (`from web.client import Client` binds a name; a capitalised one a class)
            tail = self.modules.get(owner) or (owner,)
            link = self._in_path(name, _CALL, tuple(tail))
        else:
            link = self._python_member(owner, functions)
        if link is None or link[0] is None:
            return None
        function = next((d for d in functions if d.id == link[0]), None)
        if function is None:
            return None
        written = self._result_of(function.id, _returned)
        if not written:
            return None
        package, _, class_name = written.rpartition(".")
        # a name of the function's file: of its import, or its own
        tail = (
            tuple(package.split(".")) if package else self._import_of(function.doc_id, class_name)
        )
        if tail:
            if not self._indexed_module("/".join(tail)):
                return None, class_name
            found = self._in_path(class_name, _TYPE, tail)
            return (found[0], class_name) if found is not None and found[0] is not None else None
        classes = [
            d
            for d in self.definitions.get(class_name, ())
            if d.kind in CLASS_LIKE and d.doc_id == function.doc_id
        ]
        return (classes[-1].id, class_name) if classes else None

    def _import_of(self, doc_id: int, name: str) -> tuple[str, ...]:
        """The module a file imports `name` from, as path segments (`from web.responses
        import Response` → (web, responses); a relative `from .core import Context` from
        the file's folder), () when it imports no such name."""
        for module, text, alias, path in self.rows(
            "SELECT i.module, i.names, i.alias, d.path FROM imports i "
            "JOIN documents d ON d.id = i.doc_id WHERE i.doc_id = ? ORDER BY i.ord",
            (doc_id,),
        ):
            if module and alias is None and name in _names(text):
                return module_segments(module, posixpath.dirname(path))
        return ()

    def _go_member(
        self, type_name: str, name: str, group: int, candidates: list[_Def]
    ) -> tuple[int | None, int, int] | None:
        """The method of Go's `type_name` (`Context`, `render.Writer`: a name declared
        with that type, `code_refs._go_typed`) among `candidates`: the type's of that name
        in the package it names (the file's own folder when unqualified, the imported
        package's when qualified, else a folder of the package's own name: a module path
        the folders do not spell, `github.com/gin-gonic/gin/render` in a checkout at
        `~/gin`). Unresolved when the index holds no type of that name there (an
        `*http.Request`'s `FormValue`, a `*testing.T`'s `Fatal` are none of the index's);
        None (decided as for any other object) when the type has no such method of its
        own (one of an embedded field)."""
        if not self._file_read:
            self._read_file()
        first = type_name.lstrip("=").partition(".")[0]
        key = (type_name, name, group, self.package, self.modules.get(first))
        members = self._go_members.get(key, _NOT_ASKED)
        if members is _NOT_ASKED:
            members = self._go_members[key] = self._go_type_members(type_name, candidates)
        if members is _NO_TYPE:
            return None, _UNRESOLVED[1], len(candidates)
        return self._one_of(members, candidates) if members else None

    def _go_type_members(self, type_name: str, candidates: list[_Def]) -> list[_Def] | None:
        """`_go_member`'s finding for the loaded file, before the link is made of it: the
        members of the type (`[]` or None: none found), or _NO_TYPE."""
        if type_name.startswith("="):  # `r := New()`: the first result of `New`
            result = self._go_result(type_name[1:])
            if result is None:
                return None
            name, folder = result
            members = [d for d in candidates if d.parent == name and d.directory == folder]
            return members or self._promoted(name, candidates)
        package, _, name = type_name.rpartition(".")
        types = [d for d in self.definitions.get(name, ()) if d.kind in CLASS_LIKE and not d.parent]
        if not types:
            return _NO_TYPE
        if package:
            tail = "/".join(self.modules.get(package, ()))
            home = [d for d in types if tail and _ends_with(d.directory, tail)]
            if not home:
                # A checkout's folders need not spell the module path (`~/gin/render`
                # for `github.com/gin-gonic/gin/render`), but they end with the
                # package's own name; no type in such a folder: not the index's
                # (`t *testing.T` beside a test's own `type T struct`).
                last = tail.rpartition("/")[2] or package
                home = [d for d in types if d.directory.rpartition("/")[2] == last]
                if not home:
                    return _NO_TYPE
        else:
            home = [d for d in types if d.directory == self.package]
        folders = {d.directory for d in home} or {d.directory for d in types}
        members = [d for d in candidates if d.parent == name and d.directory in folders]
        return members or self._promoted(name, candidates)

    def _promoted(self, name: str, candidates: list[_Def]) -> list[_Def]:
        """The candidates that are methods of the types Go's `name` embeds, the nearest
        first (`Engine` embeds `RouterGroup`: `r.GET` is `RouterGroup.GET`), at most
        EMBED_DEPTH levels down, by the embedded types' names."""
        embeds = self._embeds()
        seen = {name}
        level = set(embeds.get(name, ())) - seen
        for _ in range(EMBED_DEPTH):
            if not level:
                break
            found = [d for d in candidates if d.parent in level]
            if found:
                return found
            seen |= level
            level = {e for n in level for e in embeds.get(n, ())} - seen
        return []

    def _embeds(self) -> dict[str, frozenset[str]]:
        """Go: each struct's or interface's name → the names of the types it embeds (its
        `inherit` references), from `refs` and from the files this pass inserts, read
        once per pass when first asked."""
        if self._embedded is not None:
            return self._embedded
        found: dict[str, set[str]] = defaultdict(set)
        staged = {doc_id for doc_id, _ in self.staged}
        for doc_id, used, owner in self.rows(
            "SELECT r.doc_id, r.name, y.name FROM refs r JOIN documents d ON d.id = r.doc_id "
            "JOIN symbols y ON y.doc_id = r.doc_id AND y.ord = r.caller_ord "
            f"WHERE r.kind = {_INHERIT} AND d.language = 'go'"
        ):
            if doc_id not in staged:
                found[owner].add(used)
        for doc_id, text in self.staged:
            if _INHERIT_MARK not in text:  # (most files embed nothing: no decoding for them)
                continue
            inherits = _inherit_rows(text)
            if not inherits or not self.rows(
                "SELECT 1 FROM documents WHERE id = ? AND language = 'go'", (doc_id,)
            ):
                continue
            owners = dict(self.rows("SELECT ord, name FROM symbols WHERE doc_id = ?", (doc_id,)))
            for used, ord_ in inherits:
                if ord_ in owners:
                    found[owners[ord_]].add(used)
        self._embedded = {owner: frozenset(names) for owner, names in found.items()}
        return self._embedded

    def _go_result(self, function: str) -> tuple[str, str] | None:
        """The named type a Go function's first result is (`New` → `func New() *Engine`
        → Engine) and the package folder it is of (the function's), for `function` as
        called (`New`, `gin.New`: a function of this package or of an imported one); None
        when the index holds no one such function, or its first result is no named type
        of its own package (`error`, `*http.Request` in another package, a slice)."""
        package, _, name = function.rpartition(".")
        if package.endswith(")"):  # `=Context().Copy`: a method of a value of that type
            methods = self._typed_members(package[:-2], name)
            found = methods or []
        elif package:
            tail = "/".join(self.modules.get(package, ()))
            if not tail:
                return None  # a method of a value whose type is not known
            found = [
                d
                for d in self.definitions.get(name, ())
                if not d.parent and d.kind in CALLABLE and _ends_with(d.directory, tail)
            ]
        else:
            found = [
                d
                for d in self.definitions.get(name, ())
                if not d.parent and d.kind in CALLABLE and d.directory == self.package
            ]
        if len(found) != 1:
            return None
        result = self._result_of(found[0].id, _first_result)
        return (result, found[0].directory) if result else None

    def _result_of(self, function_id: int, read: Callable[[str | None], str]) -> str:
        """The type the signature of the function `function_id` returns, as `read` finds
        it there (`_first_result`, `_returned`), read once per pass."""
        if function_id not in self._results:
            rows = self.rows("SELECT signature FROM symbols WHERE id = ?", (function_id,))
            self._results[function_id] = read(rows[0][0] if rows else None)
        return self._results[function_id]

    def _typed_members(self, type_name: str, name: str) -> list[_Def]:
        """The one method `name` of Go's `type_name` (as `_go_member` finds it), as a
        list; [] when it is not one."""
        defined = self.definitions.get(name)
        if not defined:
            return []
        candidates = self._fitting(name, _CALL, defined)[0]
        link = self._go_member(type_name, name, _CALL, candidates)
        if link is None or link[0] is None:
            return []
        return [d for d in candidates if d.id == link[0]]

    def _member_of_another(self, name: str, group: int) -> tuple[int | None, int, int]:
        """`x.name` where `x` is another object than the method's own (`OTHER_OBJECT`):
        the rules of `_decide` but the first. This file's `name` is not known to be it
        (`router.handle(...)` inside express's `app.handle`, `app_config.get_models()`
        in Django's registry.py, `super().save()`); the one in a file it imports is the
        likely one (the receiver's class is imported for its type: `o: Observable` from
        '../types'). In Python, Rust, Go and C++ only a member (a definition inside a
        class, an `impl`, a method of a type; in C++ a method, never a namespace's
        function) can be it; a name that built-in types have as a
        method (`_BUILT_IN_METHODS`) stays ambiguous."""
        defined = self.definitions.get(name)
        if not defined:
            return _UNRESOLVED
        if not self._file_read:
            self._read_file()
        candidates, _ = self._fitting(name, group, defined)
        # a value's methods, never a free function (Java has none but members), nor an
        # enum's member (`py.None()` is no enum's `None`)
        candidates = [d for d in candidates if d.kind != ENUM_MEMBER]
        if self.family in _MEMBERS_ONLY:
            # (a PHP or C++ function's parent may be its namespace: a member is a method;
            # sentencepiece's `normalizer.Normalize(…)` had linked to builder.cc's free
            # `normalizer::Normalize` in an anonymous namespace)
            candidates = [
                d
                for d in candidates
                if d.parent and (self.family not in ("php", "cpp") or _a_method(d))
            ]
        if not candidates:
            return _UNRESOLVED
        built_in = name in _BUILT_IN_METHODS.get(self.family, ())
        if built_in and self.family != "php":
            # `args.get(…)`: a dict's as likely as the index's one `get` (a definition
            # inside a function is seen by no other: none visible, none it can be).
            visible = any(not self._hidden(d) for d in candidates)
            return None, _AMBIGUOUS if visible else _UNRESOLVED[1], len(candidates)
        # Not this file, even when an import names it (`from html.parser import …` in
        # django/test/html.py): its own definitions are what this rule refuses.
        elsewhere = [d for d in candidates if d.doc_id != self.doc_id]
        imported = self._one_imported(candidates, elsewhere)
        if (
            imported is not None
            and self.family in CLASS_LANGUAGES
            and len(elsewhere) < len(candidates)
        ):
            # Java, Kotlin, C#: a value of one of this file's classes as likely (a field,
            # a cast: `next.match(…)` in java/util/regex/Pattern.java is a `Node`'s, not
            # Matcher.java's, `((ConcurrentSkipListMap<K,V>) m).removeEntryIf(…)` its own)
            imported = None
        if (
            imported is not None
            and self.family == "rust"
            and imported.parent not in self.imported_items
            and self.globbed.isdisjoint(imported.segments)
        ):
            # `use crate::builder::IntoResettable` imports that trait, not every member
            # under builder/: the one member under an imported folder is no link unless
            # the file imports its type by name or its module whole (`*`). `g.required
            # (true)` on an `ArgGroup` in arg_group.rs was `Arg::required` of
            # builder/arg.rs. (Taking the imported type's member where the folder rule
            # found several linked `float.into_py(py)` to a local type's `into_py` in
            # pydantic-core: pyo3's traits give values those methods.)
            imported = None
        if imported is not None:
            return imported.id, _BY_IMPORT, len(candidates)
        if built_in:
            # PHP: its `use` names the class whose file holds the member (Twig's
            # `$node->getAttribute(…)`); without one a built-in class's method is as likely
            # (`$pdo->setAttribute(…)` was Symfony's `AcceptHeaderItem::setAttribute`)
            visible = any(not self._hidden(d) for d in candidates)
            return None, _AMBIGUOUS if visible else _UNRESOLVED[1], len(candidates)
        one = self._one_copy(candidates)  # (one definition, or one in copies of one file)
        only = one[0] if len(one) == 1 else None
        if only is not None:
            if self._hidden(only):
                return None, _UNRESOLVED[1], len(candidates)
            return only.id, _UNIQUE, len(candidates)
        return None, _AMBIGUOUS, len(candidates)

    def _parent_member(
        self, name: str, group: int, caller_ord: int | None
    ) -> tuple[int | None, int, int]:
        """`super().name` (JavaScript's `super.name`): the member `name` of the nearest
        bases of the class around the reference that have one: the bases its signature
        writes (a base of the class's own name is another class: sqlglot's `class
        Generator(generator.Generator)` in each dialect), then theirs (`_inherited`).
        Never the class's own `name`, which the rule of another object's member could
        not take either, so a base in the same file was never found (`super().invoke
        (ctx)` in click's `MultiCommand(Command)` took another file's `invoke`).
        Unresolved when no base the index holds has one (`super().__init__()` in a
        class of `Exception`, or of no base: `object`'s); by the rule of another
        object's member when no class encloses the reference or its language's bases
        are not read."""
        if not self._file_read:
            self._read_file()
        enclosing = self._enclosing_class(caller_ord)
        if enclosing is None and self.family == "ruby":
            # `super` in a module's method: the method of whatever class includes or
            # prepends it (a core class's, `Range#===` for ActiveSupport's extension)
            defined = self.definitions.get(name)
            return (
                None,
                _UNRESOLVED[1],
                len(self._fitting(name, group, defined)[0] if defined else ()),
            )
        if enclosing is None or self.family not in _PARENTS_READ:
            return self._member_of_another(name, group)
        if self.family in ("php", "ruby"):
            return self._parent_by_qualified_bases(name, group, enclosing[0])
        key = (name, group, enclosing[0])
        link = self._parent_links.get(key)
        if link is None:
            qualified, signature = enclosing
            defined = self.definitions.get(name)
            candidates = self._fitting(name, group, defined)[0] if defined else []
            members = [d for d in candidates if d.parent]
            read = (
                _python_base_names
                if self.family == "python"
                else _declared_base_names
                if self.family in CLASS_LANGUAGES or self.family == "php"
                else _ruby_base_names
                if self.family == "ruby"
                else _script_base_names
            )
            # a base an import renames is the class it names (FastAPI's `class UploadFile(
            # StarletteUploadFile)`: `from starlette.datastructures import UploadFile as …`)
            renamed = self.renamed.get(self.doc_id, {})
            bases = {renamed[b][1] if b in renamed else b for b in read(signature)}
            found = [
                d
                for d in members
                if d.parent.rpartition(".")[2] in bases
                and not (d.doc_id == self.doc_id and d.parent == qualified)
            ]
            for base in sorted(bases):
                if found:
                    break
                found = self._inherited(base, members)
            # a base the file defines is that class (`class Group(Command)` beside
            # `class Command`), whatever other files name a class so
            found = [d for d in found if d.doc_id == self.doc_id] or found
            link = self._one_of(found, candidates) or (None, _UNRESOLVED[1], len(candidates))
            self._parent_links[key] = link
        return link

    def _parent_by_qualified_bases(
        self, name: str, group: int, qualified: str
    ) -> tuple[int | None, int, int]:
        """PHP's `parent::name` and `$this->name` of no definition of its own file, Ruby's
        `super`: the member of the nearest base of the class `qualified` that has one, the
        bases named as the language names them — PHP by the `use` of the class's file, else
        in its namespace (`_php_bases`: League's `Node` and Twig's `Node` are two classes),
        Ruby by the constant's lexical lookup from the class (`_ruby_qualified_bases`:
        Faraday's `Middleware`, not Rack's)."""
        key = (name, group, qualified)
        link = self._parent_links.get(key)
        if link is not None:
            return link
        defined = self.definitions.get(name)
        candidates = self._fitting(name, group, defined)[0] if defined else []
        bases = self._base_maps.get(self.family)
        if bases is None:
            read = _php_bases if self.family == "php" else _ruby_qualified_bases
            bases = self._base_maps[self.family] = read(self.rows)
        seen = {qualified}
        level = set(bases.get(qualified, ())) - seen
        found: list[_Def] = []
        for _ in range(INHERIT_DEPTH):
            found = [d for d in candidates if d.parent in level]
            if found or not level:
                break
            seen |= level
            level = {b for q in level for b in bases.get(q, ())} - seen
        link = self._one_of(found, candidates) or (None, _UNRESOLVED[1], len(candidates))
        self._parent_links[key] = link
        return link

    def _caller_names(self) -> dict[int, str]:
        """This file's symbols' qualified names by their ord (a reference's caller)."""
        if self._callers is None:
            self._callers = {
                ord_: qualified
                for ord_, qualified in self.rows(
                    "SELECT ord, qualified_name FROM symbols WHERE doc_id = ?", (self.doc_id,)
                )
            }
        return self._callers

    def _enclosing_class(self, caller_ord: int | None) -> tuple[str, str] | None:
        """The qualified name and signature of the innermost class of this file around
        the symbol `caller_ord` (`MultiCommand` for `MultiCommand.invoke._process_result`),
        None when none is."""
        if caller_ord is None:
            return None
        callers = self._caller_names()
        if self._classes is None:
            self._classes = dict(
                self.rows(
                    "SELECT qualified_name, signature FROM symbols WHERE doc_id = ? AND "
                    "kind IN ('class', 'interface', 'enum', 'record', 'object', 'struct')",
                    (self.doc_id,),
                )
            )
        scope = callers.get(caller_ord, "")
        while scope and scope not in self._classes:
            scope = scope.rpartition(".")[0]
        return (scope, self._classes[scope] or "") if scope else None

    def _one_imported(self, candidates: list[_Def], among: list[_Def]) -> _Def | None:
        """The one of `among` that lies in a file this file imports (rule 2), when there
        is exactly one; not tried past IMPORT_SCAN_LIMIT `candidates`."""
        package = self.family in _PACKAGE_IS_FOLDER
        if (
            not (self.imported_names or self.imported_paths or package)
            or len(candidates) > IMPORT_SCAN_LIMIT
        ):
            return None
        imported = _imports_of(self.imported_names, self.imported_paths, among)
        if package:
            # Java, Kotlin: its package's top-level classes (and their members) are seen
            # unimported; a class nested in one is not (`Flow.Subscription` of another
            # package, imported, is not the package's `Stream.Subscription`)
            imported += [
                d
                for d in among
                if d.directory == self.package
                and (not d.parent or (d.kind not in CLASS_LIKE and "." not in d.parent))
                and d not in imported
            ]
        imported = self._one_copy(imported)  # (one file's copies: the nearest)
        # (A definition inside a function, or a test's, is seen by no other file: it
        # counts, so that two such names stay undecided, but it is never the link.)
        return imported[0] if len(imported) == 1 and not self._hidden(imported[0]) else None

    def _fitting(
        self, name: str, group: int, defined: list[_Def]
    ) -> tuple[list[_Def], dict[int, list[_Def]]]:
        key = (name, group, self.family)
        found = self.fitting.get(key)
        if found is None:
            fits = _FITS.get(group)
            if self.family == "ruby" and group != _IMPORT:
                fits = _RUBY_FITS[group]  # (a module is a constant too: `include M`, `M.f`)
            fitting = [
                d
                for d in defined
                if d.family == self.family
                and (d.kind in fits if fits is not None else d.kind not in _NOT_IMPORTABLE)
            ]
            if self.family in CLASS_LANGUAGES:
                fitting = _first_per_file(fitting)
            local = fitting
            if self.family in _ONE_PER_FILE:
                local = _sources_over_headers(_first_per_file(fitting))
                # (the body stays its own file's local definition)
                fitting = _bodies_behind_declarations(local, self.bodies)
            by_doc: dict[int, list[_Def]] = defaultdict(list)
            for d in local:
                by_doc[d.doc_id].append(d)
            found = self.fitting[key] = (fitting, dict(by_doc))
        return found

    def _closest(self, local: list[_Def], caller_ord: int | None) -> _Def | None:
        """Of this file's definitions of a name, the one a reference inside the symbol
        `caller_ord` means: defined by the caller's innermost enclosing scope that
        defines one, else the file's top-level one (else its first). A definition inside
        a function is seen only inside that function: None when only such definitions
        exist and none encloses the reference (the link decided without them counts)."""
        visible = [d for d in local if not d.scope]
        if caller_ord is None or (len(local) == 1 and visible):
            return next((d for d in visible if not d.parent), visible[0] if visible else None)
        scope = self._caller_names().get(caller_ord, "")
        while scope:
            for d in local:
                if d.parent == scope:
                    return d
            scope = scope.rpartition(".")[0]
        return next((d for d in visible if not d.parent), visible[0] if visible else None)


def _inherit_rows(text: str) -> list[tuple[str, int]]:
    """(name, caller's ord) of the inherit rows of a `refs_staged.refs` text that have a
    caller, found by `str.find` (a Go file's whole JSON decoded for them, or a regular
    expression run over it, cost more than the rest of the pass's Go work); the text
    decoded when a name holds an escape."""
    found: list[tuple[str, int]] = []
    at = text.find(_INHERIT_MARK)
    while at >= 0:
        start = text.rfind('["', 0, at) + 2
        caller_end = text.find(",", at + len(_INHERIT_MARK))
        name, caller = text[start:at], text[at + len(_INHERIT_MARK) : caller_end]
        if "\\" in name or '"' in name:
            return [(r[0], r[2]) for r in json.loads(text) if r[1] == _INHERIT and r[2] is not None]
        if caller.isdigit():
            found.append((name, int(caller)))
        at = text.find(_INHERIT_MARK, caller_end)
    return found


def _names(text: str) -> list[str]:
    """An `imports.names` JSON list; most are empty (a Go import, `import os`)."""
    return [] if text == "[]" else list(json.loads(text))


def _a_method(definition: _Def) -> bool:
    """Whether a definition is a member: a method (Go: its parent is its receiver's type,
    a type declared inside a function has that function as its parent, and is no member;
    PHP and C++: a function's parent may be its namespace)."""
    return definition.kind == "method"


def _in_a_type(definition: _Def) -> bool:
    """Whether a Rust definition is a type's member: its parent is capitalised (a type,
    by the language's naming rule; a lowercase parent is an inline module)."""
    return definition.parent.rpartition(".")[2][:1].isupper()


def _ends_with(path: str, tail: str) -> bool:
    """`path` ends with the segments of `tail` (`a/net/http` with `net/http`)."""
    return path == tail or path.endswith("/" + tail)


def _imports_of(
    imported_names: frozenset[str], imported_paths: frozenset[str], candidates: list[_Def]
) -> list[_Def]:
    """The candidates in a file the importing file imports: a file is imported by a module
    when one of the module's tails (its parts without a prefix: `a.b.c` → `a.b.c`, `b.c`,
    `c`) is a run of consecutive segments of the file's path (`_runs`, which the
    repository map uses). The shortest tail, the module's last part, is a run whenever a
    longer one is, so that is the same as: the path has a segment named like the last
    part of a module the file imports — a set test per candidate, with names whose hash
    is kept (the runs were tuples, hashed again in every test: ~1 s of the pass on the
    scale corpus' code, issue 23).

    A relative import (`./x`, `../types`: JavaScript, TypeScript, C's `#include "../x.h"`)
    names one file, relative to the importing one: only that file (or the directory's
    `index`) is imported by it — `../types` in rxjs is not zod's `v3/types.ts`."""
    return [
        d
        for d in candidates
        if d.key in imported_paths or not imported_names.isdisjoint(d.segments)
    ]


def path_segments(path_without_extension: str) -> frozenset[str]:
    """The segments of a file's path (without its extension): `_imports_of` tests them."""
    return frozenset(path_without_extension.split("/"))


def path_key(path: str, language: str | None = None) -> str:
    """A file's path without its extension, spelled as `module_segments` spells the target
    of a relative import (`src/a/../b.ts` → `src/b`; `types.d.ts` → `types`). A Rust
    file as the module path it holds: without the crate's `src` folder, and a `mod.rs` or
    `lib.rs` as its folder (`std/src/fs.rs` → `std/fs`, `alloc/src/collections/mod.rs` →
    `alloc/collections`, `std/src/lib.rs` → `std`), so that `fs::read` in a file that
    has `use std::fs` reaches `std/src/fs.rs`."""
    stem = posixpath.splitext(path)[0]
    if path.endswith(".d.ts"):
        stem = stem[:-2]
    parts = module_segments("./" + stem.lstrip("/")) if stem else ()
    if language == "rust" and parts:
        if parts[-1] in ("mod", "lib", "main") and len(parts) > 1:
            parts = parts[:-1]
        parts = tuple(_crate_name(p) for p in parts if p != "src")
    elif language == "go" and any("@" in p or "!" in p for p in parts):
        parts = tuple(map(_go_module_folder, parts))
    return "/".join(parts)


def _go_module_folder(folder: str) -> str:
    """A folder of Go's module cache as an import path names it (`$GOPATH/pkg/mod`): the
    module's with its version cut (`gin@v1.8.1` → `gin`: `import
    "github.com/gin-gonic/gin"` reached no file of it) and its escaped capitals read
    (`!burnt!sushi` → `BurntSushi`)."""
    folder = folder.partition("@")[0]
    return re.sub(r"!([a-z])", lambda m: m.group(1).upper(), folder) if "!" in folder else folder


# A package's folder as Cargo unpacks it (`~/.cargo/registry/src/…/regex-1.7.1`, Debian's
# `/usr/share/cargo/registry/regex-syntax-0.6.27`): its name, then its version.
_VERSIONED_PACKAGE = re.compile(r"(.+?)-\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?")


def _crate_name(folder: str) -> str:
    """A folder of a Rust path as a `use` path names it: a package's folder by its crate
    (`regex-syntax-0.6.27` → `regex_syntax`: `use regex_syntax::ast` reached no file of a
    registry's copy, nor `use regex::Regex` the `regex-1.7.1` crate's own)."""
    if "-" not in folder:
        return folder
    versioned = _VERSIONED_PACKAGE.fullmatch(folder)
    return (versioned.group(1) if versioned else folder).replace("-", "_")


def path_runs(path_without_extension: str) -> frozenset[tuple[str, ...]]:
    """`_runs` of a file's path (without its extension): what `module_segments`' tails
    are matched against (the repository map uses the same rule)."""
    return _runs(tuple(path_without_extension.split("/")))


def _runs(segments: tuple[str, ...]) -> frozenset[tuple[str, ...]]:
    """Every run of consecutive segments of a path. A file is imported by a module when
    one of the module's tails (its parts without a prefix) is one of these runs: the
    longest tail found as consecutive segments of the path is there, so
    `example.com/go/util` matches `go/util/strings` (a module path's host and repository
    prefix are rarely directories of the checkout). Sets, so that a file's modules are
    tested against a candidate's path in one `isdisjoint`."""
    n = len(segments)
    return frozenset(segments[i:j] for i in range(n) for j in range(i + 1, n + 1))
