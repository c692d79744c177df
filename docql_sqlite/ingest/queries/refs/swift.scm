; References in Swift. Conventions: README.md here and ingest/code_refs.py.
; A call has arguments in parentheses or a trailing closure: `registry[key]`, which
; tree-sitter-swift parses as a call too, is a subscript, no call of `registry`.
(call_expression
  . [
    (simple_identifier) @name
    (navigation_expression suffix: (navigation_suffix suffix: (simple_identifier) @name))
  ]
  . (call_suffix [(value_arguments "(") (lambda_literal)])) @reference.call

(inheritance_specifier inherits_from: (user_type (type_identifier) @name .)) @reference.inherit

(user_type (type_identifier) @name) @reference.type

(import_declaration) @import

; A type parameter (`<T: Equatable>`): its uses inside its declaration name no definition.
(type_parameter . (type_identifier) @generic)

; A value declared with a class (`let x: Bar`, `let x = Foo(1)`, `(j: Journal)`):
; `x.go()` where it is seen is a member of that class (`code_refs._go_typed`): a local to
; the end of its function's statements, a property in its class's body, a parameter in
; its function. A call makes a class's value only when capitalised.
(property_declaration
  name: (pattern bound_identifier: (simple_identifier) @typed)
  (type_annotation (user_type (type_identifier) @type))) @bind
((property_declaration
  name: (pattern bound_identifier: (simple_identifier) @typed)
  value: (call_expression . (simple_identifier) @type))
  (#match? @type "^[A-Z]")) @bind
(class_body (property_declaration
  name: (pattern bound_identifier: (simple_identifier) @typed)
  (type_annotation (user_type (type_identifier) @type)))) @scope
((class_body (property_declaration
  name: (pattern bound_identifier: (simple_identifier) @typed)
  value: (call_expression . (simple_identifier) @type)))
  (#match? @type "^[A-Z]")) @scope
(function_declaration
  (parameter (simple_identifier) @typed . (user_type (type_identifier) @type)))
  @scope
