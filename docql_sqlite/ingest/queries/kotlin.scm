; Code symbols for Kotlin (tree-sitter-kotlin 1.x). Capture conventions: see code_symbols.py.
; `class`, `interface` and `enum class` share one node type, so the specific patterns
; come first (earlier patterns win). Nameless nodes get their name from `default-name`.

(class_declaration
  "interface"
  name: (identifier) @name
  (class_body)? @body) @definition.interface

(class_declaration
  (modifiers (class_modifier "enum"))
  name: (identifier) @name
  (enum_class_body)? @body) @definition.enum

(class_declaration
  name: (identifier) @name
  [(class_body) (enum_class_body)]? @body) @definition.class

(object_declaration
  name: (identifier) @name
  (class_body)? @body) @definition.object

((companion_object
  name: (identifier)? @name
  (class_body)? @body) @definition.object
  (#set! default-name "Companion"))

(function_declaration
  name: (identifier) @name
  (function_body)? @body) @definition.function

((secondary_constructor
  (block)? @body) @definition.constructor
  (#set! default-name "constructor"))

(enum_entry
  (identifier) @name) @definition.enum_member
