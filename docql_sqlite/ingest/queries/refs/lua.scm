; References in Lua. Conventions: README.md here and ingest/code_refs.py.
(function_call
  name: [
    (identifier) @name
    (dot_index_expression field: (identifier) @name)
    (method_index_expression method: (identifier) @name)
  ]
  (#not-match? @name "^require$")) @reference.call

; `local utils = require "pl.utils"`, `require("lpeg")`: a module imported (under the
; name it is assigned to; code_refs reads the string).
(function_call
  name: (identifier) @_require
  arguments: (arguments . (string))
  (#eq? @_require "require")) @import
