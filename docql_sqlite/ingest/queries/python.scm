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
