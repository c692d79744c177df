; References in Python. Conventions: README.md here and ingest/code_refs.py.
(call function: (identifier) @name) @reference.call
(call function: (attribute attribute: (identifier) @name)) @reference.call

(class_definition superclasses: (argument_list (identifier) @name)) @reference.inherit
(class_definition
  superclasses: (argument_list (attribute attribute: (identifier) @name))) @reference.inherit

(type (identifier) @name) @reference.type
(type (attribute attribute: (identifier) @name)) @reference.type
(type (generic_type (identifier) @name)) @reference.type

(import_statement) @import
(import_from_statement) @import
(future_import_statement) @import
