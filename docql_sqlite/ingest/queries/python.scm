; Code symbols for Python. Capture conventions: see docql_sqlite/ingest/code_symbols.py.
; Decorators sit outside these nodes (in decorated_definition), so a symbol's line is
; its `def`/`class` line, as in Python's `ast`. A def directly in a class becomes a
; method in code; nested defs stay functions (qualified `outer.inner`).

(class_definition
  name: (identifier) @name
  body: (block)? @body) @definition.class

(function_definition
  name: (identifier) @name
  body: (block)? @body) @definition.function

; An Enum's members (`class Color(Enum): RED = 1`): a name given a value in the class
; body of a class whose base is named like an enum (`Enum`, `IntEnum`, `StrEnum`, `Flag`,
; `IntFlag`, `enum.Enum`, …); not `x: int` alone, nor `A = B = 1`'s `B`.
(class_definition
  superclasses: (argument_list
    [(identifier) @base
     (attribute attribute: (identifier) @base)])
  body: (block
    (expression_statement
      (assignment
        left: (identifier) @name
        right: (_)) @definition.enum_member))
  (#match? @base "^(Enum|IntEnum|StrEnum|Flag|IntFlag|ReprEnum)$"))
