; References in TypeScript (and TSX). Conventions: README.md here and ingest/code_refs.py.
(call_expression function: (identifier) @name) @reference.call
(call_expression
  function: (member_expression property: (property_identifier) @name)) @reference.call
(new_expression constructor: (identifier) @name) @reference.call
(new_expression
  constructor: (member_expression property: (property_identifier) @name)) @reference.call

(extends_clause value: (identifier) @name) @reference.inherit
(extends_clause value: (member_expression property: (property_identifier) @name))
  @reference.inherit
(implements_clause (type_identifier) @name) @reference.inherit
(implements_clause (generic_type name: (type_identifier) @name)) @reference.inherit
(extends_type_clause type: (type_identifier) @name) @reference.inherit
(extends_type_clause type: (generic_type name: (type_identifier) @name)) @reference.inherit

(type_identifier) @name @reference.type

(import_statement) @import
(export_statement source: (string)) @import
((call_expression
   function: (identifier) @_require
   arguments: (arguments . (string) .)) @import
 (#eq? @_require "require"))

; A type parameter (`<T extends X>`): its uses inside its declaration name no definition.
(type_parameter name: (type_identifier) @generic)
