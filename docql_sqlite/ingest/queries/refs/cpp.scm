; References in C++. Conventions: README.md here and ingest/code_refs.py.
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression field: (field_identifier) @name)) @reference.call
(call_expression function: (qualified_identifier name: (identifier) @name)) @reference.call
(call_expression function: (template_function name: (identifier) @name)) @reference.call
(call_expression
  function: (qualified_identifier name: (template_function name: (identifier) @name)))
  @reference.call
(new_expression type: (type_identifier) @name) @reference.call

(base_class_clause (type_identifier) @name) @reference.inherit
(base_class_clause (qualified_identifier name: (type_identifier) @name)) @reference.inherit
(base_class_clause (template_type name: (type_identifier) @name)) @reference.inherit

(type_identifier) @name @reference.type

(preproc_include) @import

; A template's type parameter (`template <typename T>`): its uses inside it name no definition.
(type_parameter_declaration (type_identifier) @generic)
