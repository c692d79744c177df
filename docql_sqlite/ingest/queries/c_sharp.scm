; Code symbols for C#. Capture conventions: see code_symbols.py.
; Namespaces are symbols and qualify what they contain; a file-scoped namespace
; (`namespace N;`) has no body and so extends to the end of the file.

(namespace_declaration
  name: (_) @name
  body: (declaration_list) @body) @definition.namespace

((file_scoped_namespace_declaration
  name: (_) @name) @definition.namespace
  (#set! extent "rest-of-file"))

(class_declaration
  name: (identifier) @name
  body: (declaration_list)? @body) @definition.class

(interface_declaration
  name: (identifier) @name
  body: (declaration_list)? @body) @definition.interface

(struct_declaration
  name: (identifier) @name
  body: (declaration_list)? @body) @definition.struct

(enum_declaration
  name: (identifier) @name
  body: (enum_member_declaration_list)? @body) @definition.enum

(record_declaration
  name: (identifier) @name
  body: (declaration_list)? @body) @definition.record

(method_declaration
  name: (identifier) @name
  body: (_)? @body) @definition.method

(constructor_declaration
  name: (identifier) @name
  body: (_)? @body) @definition.constructor

(local_function_statement
  name: (identifier) @name
  body: (_)? @body) @definition.function

(enum_member_declaration
  name: (identifier) @name) @definition.enum_member
