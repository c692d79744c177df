; Code symbols for Objective-C (tree-sitter-objc 3): its classes, categories, protocols
; and methods, then C's symbols (the grammar reads C as C's does; the patterns after the
; first blank line are `c.scm`'s). A method is named by the first part of its selector
; (`performSynchronouslyOnMainThread` of `performSynchronouslyOnMainThread:`); its
; signature is the whole declaration. An `@implementation`, a category (`@interface
; EXFoo (Private)`) and a class extension (`@interface EXFoo ()`) are scopes, as Rust's
; `impl`: they parent their methods under the
; class, headings but no symbols; a method an `@interface` declares and the file also
; defines is one symbol, the definition.

(class_interface . (identifier) @name "(") @scope.impl

(class_interface . (identifier) @name) @definition.class

(class_implementation . (identifier) @name) @scope.impl

(protocol_declaration . (identifier) @name) @definition.interface

(method_declaration (identifier) @name) @declaration.method

(method_definition (identifier) @name (compound_statement) @body) @definition.method

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
