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

; Other typedefs and `using X = …;` are named types; a typedef of a struct or class with
; a body is that struct or class (above).
(type_definition
  type: [(primitive_type) (type_identifier) (sized_type_specifier) (qualified_identifier)
         (template_type) (struct_specifier !body) (union_specifier !body)
         (enum_specifier !body) (class_specifier !body)]
  declarator: [(type_identifier) @name
               (pointer_declarator declarator: (type_identifier) @name)
               (function_declarator
                 declarator: (parenthesized_declarator
                   (pointer_declarator declarator: (type_identifier) @name)))]) @definition.type

(alias_declaration
  name: (type_identifier) @name) @definition.type

; Macros with a value or parameters; a bare `#define X_H_` is none (c.scm).
(preproc_function_def
  name: (identifier) @name
  value: (preproc_arg) @body) @definition.macro

(preproc_function_def
  name: (identifier) @name
  !value) @definition.macro

(preproc_def
  name: (identifier) @name
  value: (preproc_arg) @body) @definition.macro

(enumerator
  name: (identifier) @name) @definition.enum_member
