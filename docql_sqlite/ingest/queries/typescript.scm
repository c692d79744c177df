; Code symbols for TypeScript; also used for TSX. Capture conventions: see code_symbols.py.
; Overload signatures (`function f(a: string): void;`) are declarations, dropped when the
; implementation is in the same file. A method named `constructor` becomes a constructor.

(class_declaration
  name: (type_identifier) @name
  body: (class_body) @body) @definition.class

(abstract_class_declaration
  name: (type_identifier) @name
  body: (class_body) @body) @definition.class

(class
  name: (type_identifier) @name
  body: (class_body) @body) @definition.class

(interface_declaration
  name: (type_identifier) @name
  body: (interface_body) @body) @definition.interface

(enum_declaration
  name: (identifier) @name
  body: (enum_body) @body) @definition.enum

(type_alias_declaration
  name: (type_identifier) @name) @definition.type

(internal_module
  name: [(identifier) (nested_identifier)] @name
  body: (statement_block) @body) @definition.namespace

(module
  name: [(identifier) (nested_identifier)] @name
  body: (statement_block) @body) @definition.namespace

(function_declaration
  name: (identifier) @name
  body: (statement_block) @body) @definition.function

(generator_function_declaration
  name: (identifier) @name
  body: (statement_block) @body) @definition.function

(function_signature
  name: (identifier) @name) @declaration.function

(class_body
  (method_definition
    name: (_) @name
    body: (statement_block) @body) @definition.method)

; Overload signatures inside a class.
(class_body
  (method_signature
    name: (_) @name) @declaration.method)

(class_body
  (abstract_method_signature
    name: (_) @name) @definition.method)

(interface_body
  (method_signature
    name: (_) @name) @definition.method)

(class_body
  (public_field_definition
    name: (_) @name
    value: [
      (arrow_function body: (_) @body)
      (function_expression body: (_) @body)
    ]) @definition.method)

(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [
      (arrow_function body: (_) @body)
      (function_expression body: (_) @body)
      (generator_function body: (_) @body)
    ])) @definition.function

(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [
      (arrow_function body: (_) @body)
      (function_expression body: (_) @body)
      (generator_function body: (_) @body)
    ])) @definition.function

(enum_assignment
  name: (property_identifier) @name) @definition.enum_member

(enum_body
  (property_identifier) @name @definition.enum_member)

; A module's default export that is an object literal (a Vue component's options, also
; inside `defineComponent({…})`): its methods, and those of its groups (`methods`,
; `computed`, `watch`), are the module's methods — other object literals' are not.
(export_statement
  value: [
    (object
      (method_definition
        name: (_) @name
        body: (statement_block) @body) @definition.method)
    (object
      (pair
        value: (object
          (method_definition
            name: (_) @name
            body: (statement_block) @body) @definition.method)))
    (call_expression
      arguments: (arguments
        (object
          (method_definition
            name: (_) @name
            body: (statement_block) @body) @definition.method)))
    (call_expression
      arguments: (arguments
        (object
          (pair
            value: (object
              (method_definition
                name: (_) @name
                body: (statement_block) @body) @definition.method)))))
  ])
