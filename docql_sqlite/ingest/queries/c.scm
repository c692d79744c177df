; Code symbols for C. Capture conventions: see code_symbols.py.
; Function names come from unwrapping the declarator (`char **f(void)` → `f`).
; Prototypes are declarations: kept for headers, dropped when the definition is in the
; same file. `typedef struct { ... } Name;` is the struct `Name`.

(function_definition
  declarator: (_) @name
  body: (compound_statement) @body) @definition.function

(declaration
  declarator: [(function_declarator) (pointer_declarator)] @name) @declaration.function

(struct_specifier
  name: (type_identifier) @name
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
  type: (union_specifier !name body: (field_declaration_list) @body)
  declarator: (type_identifier) @name) @definition.union

(type_definition
  type: (enum_specifier !name body: (enumerator_list) @body)
  declarator: (type_identifier) @name) @definition.enum
