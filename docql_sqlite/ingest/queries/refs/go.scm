; References in Go. Conventions: README.md here and ingest/code_refs.py.
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (selector_expression field: (field_identifier) @name)) @reference.call
(call_expression function: (parenthesized_expression (identifier) @name)) @reference.call
(call_expression
  function: (parenthesized_expression
    (selector_expression field: (field_identifier) @name))) @reference.call
(call_expression function: (index_expression operand: (identifier) @name)) @reference.call
(call_expression
  function: (index_expression
    operand: (selector_expression field: (field_identifier) @name))) @reference.call

; an embedded field or interface: Go's inheritance
(field_declaration . type: (type_identifier) @name .) @reference.inherit
(field_declaration . type: (qualified_type name: (type_identifier) @name) .) @reference.inherit
(field_declaration . type: (pointer_type (type_identifier) @name) .) @reference.inherit
(interface_type (type_elem (type_identifier) @name)) @reference.inherit

(type_identifier) @name @reference.type

(import_declaration) @import
