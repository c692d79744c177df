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
