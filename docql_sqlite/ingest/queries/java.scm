; Code symbols for Java. Capture conventions: see code_symbols.py.
; Annotations are inside the declaration nodes; a symbol's line and signature start
; after them. `@interface` annotation types count as interfaces.

(class_declaration
  name: (identifier) @name
  body: (class_body) @body) @definition.class

(interface_declaration
  name: (identifier) @name
  body: (interface_body) @body) @definition.interface

(annotation_type_declaration
  name: (identifier) @name
  body: (annotation_type_body) @body) @definition.interface

(enum_declaration
  name: (identifier) @name
  body: (enum_body) @body) @definition.enum

(record_declaration
  name: (identifier) @name
  body: (class_body) @body) @definition.record

(method_declaration
  name: (identifier) @name
  body: (block)? @body) @definition.method

(constructor_declaration
  name: (identifier) @name
  body: (constructor_body) @body) @definition.constructor

(compact_constructor_declaration
  name: (identifier) @name
  body: (block) @body) @definition.constructor

(enum_constant
  name: (identifier) @name) @definition.enum_member
