; Code symbols for JavaScript (and JSX). Capture conventions: see code_symbols.py.
; A method named `constructor` becomes a constructor in code. Functions assigned to a
; variable are symbols named after the variable; object-literal methods are not.

(class_declaration
  name: (identifier) @name
  body: (class_body) @body) @definition.class

(class
  name: (identifier) @name
  body: (class_body) @body) @definition.class

(function_declaration
  name: (identifier) @name
  body: (statement_block) @body) @definition.function

(generator_function_declaration
  name: (identifier) @name
  body: (statement_block) @body) @definition.function

(class_body
  (method_definition
    name: (_) @name
    body: (statement_block) @body) @definition.method)

; `handler = () => {}` class fields are methods in all but syntax.
(class_body
  (field_definition
    property: (_) @name
    value: [
      (arrow_function body: (_) @body)
      (function_expression body: (_) @body)
    ]) @definition.method)

; `const f = () => {}`: the declaration is the symbol, so the signature keeps `const`.
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
