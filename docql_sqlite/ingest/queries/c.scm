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

; Other typedefs are named types (`typedef uint32_t brotli_reg_t;`, `typedef struct S
; *SP;`, `typedef void (*cb_func)(void*);`); a typedef of a struct with a body is that
; struct (above).
(type_definition
  type: [(primitive_type) (type_identifier) (sized_type_specifier)
         (struct_specifier !body) (union_specifier !body) (enum_specifier !body)]
  declarator: [(type_identifier) @name
               (pointer_declarator declarator: (type_identifier) @name)
               (function_declarator
                 declarator: (parenthesized_declarator
                   (pointer_declarator declarator: (type_identifier) @name)))]) @definition.type

; Macros with a value or parameters (`#define MIN(a, b) …`, `#define API extern`); a
; bare `#define X_H_` (an include guard, a feature flag) is none. The signature ends
; where the value begins.
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
