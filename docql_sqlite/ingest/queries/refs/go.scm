; References in Go. Conventions: README.md here and ingest/code_refs.py.
; One pattern per node kind with the forms as alternatives: the same matches as a pattern
; per form, and less to compile (the query is compiled once per process).
(call_expression
  function: [
    (identifier) @name
    (selector_expression field: (field_identifier) @name)
    (parenthesized_expression (identifier) @name)
    (parenthesized_expression (selector_expression field: (field_identifier) @name))
    (index_expression operand: (identifier) @name)
    (index_expression operand: (selector_expression field: (field_identifier) @name))
  ]) @reference.call

; an embedded field or interface: Go's inheritance
(field_declaration
  .
  type: [
    (type_identifier) @name
    (qualified_type name: (type_identifier) @name)
    (pointer_type (type_identifier) @name)
  ] .) @reference.inherit
(interface_type (type_elem (type_identifier) @name)) @reference.inherit

(type_identifier) @name @reference.type

(import_declaration) @import

; A type parameter (`[T any]`): its uses inside its declaration name no definition.
(type_parameter_declaration name: (identifier) @generic)

; A method's receiver name (`func (b *Buffer) grow()`): `b.x` inside it is the method's own
; object, any other value's `.x` another object's (`code_refs._qualifiers`).
(method_declaration
  receiver: (parameter_list (parameter_declaration name: (identifier) @receiver)))
