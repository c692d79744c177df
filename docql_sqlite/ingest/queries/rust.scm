; Code symbols for Rust. Capture conventions: see code_symbols.py.
; An `impl` block is a scope: it qualifies and parents the functions inside it
; (`Point.new`, parent `Point`) and is a heading, but is not a symbol itself.
; Functions inside a trait or impl become methods in code. Only inline modules
; (`mod m { ... }`) are symbols; `mod m;` has nothing to show.

(struct_item
  name: (type_identifier) @name
  body: (_)? @body) @definition.struct

(enum_item
  name: (type_identifier) @name
  body: (_) @body) @definition.enum

(union_item
  name: (type_identifier) @name
  body: (_) @body) @definition.union

(trait_item
  name: (type_identifier) @name
  body: (_) @body) @definition.trait

(function_item
  name: (identifier) @name
  body: (_) @body) @definition.function

(function_signature_item
  name: (identifier) @name) @definition.function

(mod_item
  name: (identifier) @name
  body: (declaration_list) @body) @definition.module

(type_item
  name: (type_identifier) @name) @definition.type

(impl_item
  type: [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
    (scoped_type_identifier name: (type_identifier) @name)
    (reference_type type: (type_identifier) @name)
    (reference_type type: (generic_type type: (type_identifier) @name))
  ]
  body: (declaration_list) @body) @scope.impl

(enum_variant
  name: (identifier) @name) @definition.enum_member

; `macro_rules! select { … }`: a macro of the crate's API (`tokio::select!`), named as
; its uses are written, `select!` (code_symbols)
(macro_definition
  name: (identifier) @name) @definition.macro
