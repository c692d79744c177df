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

; A name declared with a named type (a parameter `c *Context`, `var b bytes.Buffer`,
; `w := &Writer{…}`, `x := T{…}`, `x := new(T)`, `x := NewT()`), and where it is seen (`@scope`: the
; function of a parameter; the block of a variable, from its name on; the file of a
; package's variable): `c.x` there is a member of that type (`code_refs._go_typed`).
([
  (function_declaration parameters: (parameter_list (parameter_declaration
    name: (identifier) @typed
    type: [(type_identifier) (qualified_type)
             (pointer_type [(type_identifier) (qualified_type)])] @type)))
  (method_declaration parameters: (parameter_list (parameter_declaration
    name: (identifier) @typed
    type: [(type_identifier) (qualified_type)
             (pointer_type [(type_identifier) (qualified_type)])] @type)))
  (func_literal parameters: (parameter_list (parameter_declaration
    name: (identifier) @typed
    type: [(type_identifier) (qualified_type)
             (pointer_type [(type_identifier) (qualified_type)])] @type)))
]) @scope
([
  (block (statement_list (var_declaration [
    (var_spec name: (identifier) @typed type: [(type_identifier) (qualified_type)
             (pointer_type [(type_identifier) (qualified_type)])] @type)
    (var_spec_list (var_spec name: (identifier) @typed type: [(type_identifier) (qualified_type)
             (pointer_type [(type_identifier) (qualified_type)])] @type))])))
  (source_file (var_declaration [
    (var_spec name: (identifier) @typed type: [(type_identifier) (qualified_type)
             (pointer_type [(type_identifier) (qualified_type)])] @type)
    (var_spec_list (var_spec name: (identifier) @typed type: [(type_identifier) (qualified_type)
             (pointer_type [(type_identifier) (qualified_type)])] @type))]))
  (block (statement_list (short_var_declaration
    left: (expression_list . (identifier) @typed .)
    right: (expression_list . [
      (composite_literal type: [(type_identifier) (qualified_type)] @type)
      (unary_expression
        operand: (composite_literal type: [(type_identifier) (qualified_type)] @type))
      (call_expression function: (identifier) @new
        arguments: (argument_list . [(type_identifier) (qualified_type)] @type .))] .))))
  ; `r := New()`, `req, err := http.NewRequest(…)`: the first result of the function
  (block (statement_list (short_var_declaration
    left: (expression_list . (identifier) @typed)
    right: (expression_list .
      (call_expression
        function: [(identifier) (selector_expression operand: (identifier))] @result) .))))
]) @scope
