; Code symbols for PHP (tree-sitter-php 0.25). Capture conventions: see code_symbols.py.
; A namespace is a symbol and qualifies what it holds (`GuzzleHttp.Psr7.Stream`); the
; usual `namespace A\B;` has no body and so extends to the end of the file (the next
; `namespace` statement, when a file has several, is nested in it: rare). Properties and
; constants are no symbols (as Java's fields).

(namespace_definition
  name: (namespace_name) @name
  body: (compound_statement) @body) @definition.namespace

((namespace_definition
  name: (namespace_name) @name
  !body) @definition.namespace
  (#set! extent "rest-of-file"))

(class_declaration
  name: (name) @name
  body: (declaration_list) @body) @definition.class

(interface_declaration
  name: (name) @name
  body: (declaration_list) @body) @definition.interface

(trait_declaration
  name: (name) @name
  body: (declaration_list) @body) @definition.trait

(enum_declaration
  name: (name) @name
  body: (enum_declaration_list) @body) @definition.enum

(enum_case
  name: (name) @name) @definition.enum_member

(function_definition
  name: (name) @name
  body: (compound_statement) @body) @definition.function

(method_declaration
  name: (name) @name
  body: (compound_statement)? @body) @definition.function
