; Code symbols for C++. Capture conventions: see code_symbols.py.
; Out-of-line definitions (`int Widget::size() {...}`) are qualified by their scope
; (`Widget.size`, parent `Widget`); a function named like its class is a constructor.
; In-class declarations and prototypes are dropped when the definition is in the file.

(namespace_definition
  name: (_) @name
  body: (declaration_list) @body) @definition.namespace

(class_specifier
  name: [(type_identifier) (template_type)] @name
  body: (field_declaration_list) @body) @definition.class

(struct_specifier
  name: [(type_identifier) (template_type)] @name
  body: (field_declaration_list) @body) @definition.struct

(union_specifier
  name: (type_identifier) @name
  body: (field_declaration_list) @body) @definition.union

(enum_specifier
  name: (type_identifier) @name
  body: (enumerator_list) @body) @definition.enum

(type_definition
  type: (struct_specifier !name body: (field_declaration_list) @body)
  declarator: (type_identifier) @name) @definition.struct

(type_definition
  type: (class_specifier !name body: (field_declaration_list) @body)
  declarator: (type_identifier) @name) @definition.class

(function_definition
  declarator: (_) @name
  body: (_) @body) @definition.function

(declaration
  declarator: [(function_declarator) (pointer_declarator) (reference_declarator)] @name) @declaration.function

(field_declaration
  declarator: [(function_declarator) (pointer_declarator) (reference_declarator)] @name) @declaration.function
