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
  receiver: (parameter_list (parameter_declaration name: (identifier) @receiver))) @method

; A parameter declared with a named type (`c *Context`) and the function it is seen in
; (`@scope`): `c.x` there is a member of that type (`code_refs._go_typed`).
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
; A variable (`var b bytes.Buffer`, `w := &Writer{…}`, `x := T{…}`, `x := new(T)`, `r :=
; New()`, `req, err := http.NewRequest(…)`: the first result): seen from its name to the
; end of the innermost block around it (the file for a package's variable), which
; `code_refs._go_typed` asks the tree for when the name is used as a receiver. Matched
; where it stands: a pattern nesting the variable in its block doubled the query's time,
; and one matching every block cost more than asking for the few that are needed.
(var_spec
  name: (identifier) @typed
  type: [(type_identifier) (qualified_type)
         (pointer_type [(type_identifier) (qualified_type)])] @type) @bind
(short_var_declaration
  left: (expression_list . (identifier) @typed)
  right: (expression_list . [
    (composite_literal type: [(type_identifier) (qualified_type)] @type)
    (unary_expression
      operand: (composite_literal type: [(type_identifier) (qualified_type)] @type))
    (call_expression function: (identifier) @new
      arguments: (argument_list . [(type_identifier) (qualified_type)] @type .))
    (call_expression
      function: [(identifier) (selector_expression operand: (identifier))] @result)])) @bind
; A struct's field and its type (`client *Client` in `type Server struct`): `s.client.x`
; in a method whose receiver is `s *Server` is a member of that type
; (`code_refs._field_members`).
(type_spec
  name: (type_identifier) @struct
  type: (struct_type (field_declaration_list (field_declaration
    name: (field_identifier) @field
    type: [(type_identifier) (qualified_type)
           (pointer_type [(type_identifier) (qualified_type)])] @type))))
