; References in Java. Conventions: README.md here and ingest/code_refs.py.
(method_invocation name: (identifier) @name) @reference.call
(object_creation_expression type: (type_identifier) @name) @reference.call
(object_creation_expression type: (generic_type (type_identifier) @name)) @reference.call
(object_creation_expression
  type: (scoped_type_identifier (type_identifier) @name .)) @reference.call

(superclass (type_identifier) @name) @reference.inherit
(superclass (generic_type (type_identifier) @name)) @reference.inherit
(super_interfaces (type_list (type_identifier) @name)) @reference.inherit
(super_interfaces (type_list (generic_type (type_identifier) @name))) @reference.inherit
(extends_interfaces (type_list (type_identifier) @name)) @reference.inherit
(extends_interfaces (type_list (generic_type (type_identifier) @name))) @reference.inherit

(type_identifier) @name @reference.type

(import_declaration) @import

; A type parameter (`<T extends X>`): its uses inside its declaration name no definition.
(type_parameter . (type_identifier) @generic)
