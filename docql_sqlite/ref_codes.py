"""How the index stores a reference's kind and resolution (schema 11): as the position of
the name in these tuples, a small integer (0 and 1 take no byte in an SQLite record).
The compiled DocQL SQL turns them back into these names (`query/items.py`). A module of
its own, importing nothing: the query compiler reads it on a CLI query's fast path."""

REFERENCE_KINDS = ("call", "type", "inherit", "import")
RESOLUTIONS = ("unresolved", "local", "import", "unique", "ambiguous")
# `refs.qualifier` of a member of another object than the method's own (`x.name` where x
# is not `self`/`this`, an import or a definition of the file: `ingest/code_refs.py`); NULL
# is no qualifier, any other text the local name of an import (or, in Rust, a type's
# name written before `::`).
OTHER_OBJECT = ""
# `refs.qualifier` of a member of a built-in object (`JSON.parse`, `Math.max`, `str.join`,
# `dict.fromkeys`): no definition of the index is it.
BUILT_IN_OBJECT = "."
# `refs.qualifier` of a member of the parent class (Python's `super().save()`, JavaScript's
# and TypeScript's `super.save()`): the enclosing class's bases' member (`resolve.py`),
# never the class's own.
PARENT = "super"
# `refs.qualifier` of Rust's `self.x` and `Self::x`: a member of the method's own type,
# where a bare `x` never is one (a Rust path names what it means; other languages leave
# `self.x` unqualified).
OWN_MEMBER = "self"
OWN_TYPE = "Self"
# The end of a Rust `refs.qualifier` naming the type whose associated function began the
# call chain a method is called on: `Arg()` for `required` in `Arg::new("x").index(1)
# .required(true)` (a builder's methods return `Self`): a member of that type when it
# has one by that name, else another object's (`ingest/code_refs.py`, `resolve.py`).
VALUE_OF = "()"
# Symbol kinds a reference's kind fits (the resolution pass, the repository map): a call
# names a callable or a class-like kind (a class is called to construct it), a type use
# or an inheritance a class-like one; `Foo.x` with a class-like `Foo` of the file is a
# member of that type (`ingest/code_refs.py`).
CALLABLE = frozenset({"function", "method", "constructor"})
CLASS_LIKE = frozenset(
    {"class", "interface", "enum", "struct", "trait", "union", "record", "object", "type"}
)
# A C/C++ macro (`#define MIN(a, b) …`, `#define BROTLI_BOOL int`) stands for what it
# expands to: a call or a type use may name one, nothing inherits from one.
MACRO = "macro"
# An enum's member (Rust's variant, C's enumerator, Java's constant, a Python `Enum`
# class's `RED = 1`, …): a symbol under
# its enum (`ArgAction.Count`), found by name and qualified name, read by `$.code`; no
# heading of its file and no node of the repository map. A call or a type use through
# its enum links to it (Rust's `Cow::Borrowed(s)`, a pattern `Cow::Owned(o)`: a bare
# name is never a type's member there), and so may an import (`use Ordering::Less`).
ENUM_MEMBER = "enum_member"
# The symbol kinds each reference kind fits (the resolution pass, the repository map).
FITS = {
    "call": CALLABLE | CLASS_LIKE | {MACRO, ENUM_MEMBER},
    "type": CLASS_LIKE | {MACRO, ENUM_MEMBER},
    "inherit": CLASS_LIKE,
}

# Languages of classes whose members are named through a value (`x.m()`), `this`/`self`,
# or bare inside the class and its subclasses: Java, Kotlin, C#, Swift. Their methods
# overload by parameter types, their classes' bases are read from signatures, and a bare
# name is the class's or its bases' (`ingest/code_refs.py`, `ingest/resolve.py`).
CLASS_LANGUAGES = frozenset({"java", "kotlin", "c_sharp", "swift"})
# Of those, the languages whose naming rule tells a class from a value by its first
# letter (values and packages lowerCamel, constants in capitals): a capitalised name
# before `.` is a class (C#'s properties are capitalised too).
TYPES_BY_CASE = frozenset({"java", "kotlin", "swift"})
