; Code symbols for Lua (tree-sitter-lua 0.5). Capture conventions: see code_symbols.py.
; `function M.split(…)` and `function M:method(…)` are functions of the table M
; (qualified `M.split`, kind `method`, as a Go method's receiver names its type);
; `local function f`, `function f`; `M.f = function (…) … end` and `local f = function
; (…) … end` too.

(function_declaration
  name: (identifier) @name
  body: (_)? @body) @definition.function

(function_declaration
  name: (dot_index_expression table: (_) @receiver field: (identifier) @name)
  body: (_)? @body) @definition.function

(function_declaration
  name: (method_index_expression table: (_) @receiver method: (identifier) @name)
  body: (_)? @body) @definition.function

(assignment_statement
  (variable_list . name: (identifier) @name .)
  (expression_list . value: (function_definition body: (_) @body) .)) @definition.function

(assignment_statement
  (variable_list
    . name: (dot_index_expression table: (_) @receiver field: (identifier) @name) .)
  (expression_list . value: (function_definition body: (_) @body) .)) @definition.function
