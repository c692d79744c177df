; Code symbols for Swift (tree-sitter-swift 0.7). Capture conventions: see code_symbols.py.
; `class`, `struct`, `enum`, `actor` and `extension` share one node type, told apart by
; its `declaration_kind`. An extension is a scope, as Rust's `impl`: it qualifies and
; parents what it adds to the type (`ModuleRegistry.count`), a heading but no symbol.
; Properties are no symbols (as Java's and Kotlin's fields).

(class_declaration
  declaration_kind: "extension"
  name: (user_type (type_identifier) @name .)
  body: (_) @body) @scope.impl

(class_declaration
  declaration_kind: "struct"
  name: (type_identifier) @name
  body: (_) @body) @definition.struct

(class_declaration
  declaration_kind: "enum"
  name: (type_identifier) @name
  body: (_) @body) @definition.enum

(class_declaration
  name: (type_identifier) @name
  body: (_) @body) @definition.class

(protocol_declaration
  name: (type_identifier) @name
  body: (_) @body) @definition.interface

(function_declaration
  name: (simple_identifier) @name
  body: (_)? @body) @definition.function

(protocol_function_declaration
  name: (simple_identifier) @name) @definition.function

((init_declaration
  body: (_)? @body) @definition.constructor
  (#set! default-name "init"))

(typealias_declaration
  name: (type_identifier) @name) @definition.type

(enum_entry
  name: (simple_identifier) @name) @definition.enum_member
