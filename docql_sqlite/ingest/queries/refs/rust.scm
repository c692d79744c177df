; References in Rust. Conventions: README.md here and ingest/code_refs.py.
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression field: (field_identifier) @name)) @reference.call
(call_expression function: (scoped_identifier name: (identifier) @name)) @reference.call
(call_expression function: (generic_function function: (identifier) @name)) @reference.call
(call_expression
  function: (generic_function
    function: (scoped_identifier name: (identifier) @name))) @reference.call
(call_expression
  function: (generic_function
    function: (field_expression field: (field_identifier) @name))) @reference.call
(macro_invocation macro: (identifier) @name) @reference.call
(macro_invocation macro: (scoped_identifier name: (identifier) @name)) @reference.call

(impl_item trait: (type_identifier) @name) @reference.inherit
(impl_item trait: (scoped_type_identifier name: (type_identifier) @name)) @reference.inherit
(impl_item trait: (generic_type type: (type_identifier) @name)) @reference.inherit
(impl_item
  trait: (generic_type type: (scoped_type_identifier name: (type_identifier) @name)))
  @reference.inherit

(type_identifier) @name @reference.type

(use_declaration) @import
(extern_crate_declaration) @import
