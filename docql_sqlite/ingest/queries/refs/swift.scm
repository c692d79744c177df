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
