; References in Kotlin. Conventions: README.md here and ingest/code_refs.py.
(call_expression . (identifier) @name) @reference.call
(call_expression . (navigation_expression (identifier) @name .)) @reference.call

(delegation_specifier (constructor_invocation (user_type (identifier) @name .)))
  @reference.inherit
(delegation_specifier (user_type (identifier) @name .)) @reference.inherit

(user_type (identifier) @name .) @reference.type

(import) @import

; A type parameter (`<T : X>`): its uses inside its declaration name no definition.
(type_parameter . (identifier) @generic)

; A value declared with a class (`val reg: Registry`, `val x = Foo(1)`, `(j: Journal)`, a
; primary constructor's `val ctx: AppContext`): `x.go()` where it is seen is a member of
; that class (`code_refs._go_typed`): a local to the end of its block, a property in its
; class's body, a parameter in its function or class. A call makes a class's value only
; when capitalised (`make()` returns anything).
(property_declaration (variable_declaration
  (identifier) @typed
  [(user_type (identifier) @type .) (user_type (identifier) @type . (type_arguments) .)]))
  @bind
((property_declaration (variable_declaration (identifier) @typed .)
  (call_expression . (identifier) @type))
  (#match? @type "^[A-Z]")) @bind
(class_body (property_declaration (variable_declaration
  (identifier) @typed
  [(user_type (identifier) @type .) (user_type (identifier) @type . (type_arguments) .)])))
  @scope
((class_body (property_declaration (variable_declaration (identifier) @typed .)
  (call_expression . (identifier) @type)))
  (#match? @type "^[A-Z]")) @scope
([
  (class_declaration (primary_constructor (class_parameters (class_parameter
    (identifier) @typed
    [(user_type (identifier) @type .) (user_type (identifier) @type . (type_arguments) .)]))))
  (function_declaration (function_value_parameters (parameter
    (identifier) @typed
    [(user_type (identifier) @type .) (user_type (identifier) @type . (type_arguments) .)])))
]) @scope
