; References in C. Conventions: README.md here and ingest/code_refs.py.
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression field: (field_identifier) @name)) @reference.call

(type_identifier) @name @reference.type

(preproc_include) @import
