; Code symbols for JavaScript (and JSX). Capture conventions: see code_symbols.py.
; A method named `constructor` becomes a constructor in code. Functions assigned to a
; variable are symbols named after the variable; object-literal methods are not, but
; those of a module's default export (see the end).
; Functions assigned to members (CommonJS and prototype style) are symbols: see the end.

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

; CommonJS and prototype style (Express, most npm packages before classes): a function
; assigned to a member is a symbol named after the member.
; `Route.prototype.dispatch = function dispatch(req, res) {…}`: a method of `Route`.
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (member_expression
        object: (identifier) @receiver
        property: (property_identifier) @_prototype)
      property: (property_identifier) @name)
    right: [
      (function_expression body: (_) @body)
      (arrow_function body: (_) @body)
      (generator_function body: (_) @body)
    ])
  (#eq? @_prototype "prototype")) @definition.method

; `exports.etag = function (…) {…}`, `module.exports.x = …`: a function of the module.
(expression_statement
  (assignment_expression
    left: (member_expression
      object: [
        (identifier) @_exports
        (member_expression
          object: (identifier) @_module
          property: (property_identifier) @_exports)
      ]
      property: (property_identifier) @name)
    right: [
      (function_expression body: (_) @body)
      (arrow_function body: (_) @body)
      (generator_function body: (_) @body)
    ])
  (#eq? @_exports "exports")) @definition.function

; `module.exports = function serveStatic(root) {…}`: the function, by its own name (an
; anonymous one has none to give).
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (identifier) @_module
      property: (property_identifier) @_exports)
    right: [
      (function_expression name: (identifier) @name body: (_) @body)
      (generator_function name: (identifier) @name body: (_) @body)
    ])
  (#eq? @_module "module")
  (#eq? @_exports "exports")) @definition.function

; `var proto = module.exports = function (options) {…}` (Express's router): named after
; the variable, as `var f = function …` is.
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: (assignment_expression
      right: [
        (arrow_function body: (_) @body)
        (function_expression body: (_) @body)
        (generator_function body: (_) @body)
      ]))) @definition.function

(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: (assignment_expression
      right: [
        (arrow_function body: (_) @body)
        (function_expression body: (_) @body)
        (generator_function body: (_) @body)
      ]))) @definition.function

; `res.send = function send(body) {…}`, `app.use = …` at the top of a module: a method
; of that object. Only top-level statements: inside a function, such assignments are
; mostly callbacks being wired (`req.onerror = function …`).
(program
  (expression_statement
    (assignment_expression
      left: (member_expression
        object: (identifier) @receiver
        property: (property_identifier) @name)
      right: [
        (function_expression body: (_) @body)
        (arrow_function body: (_) @body)
        (generator_function body: (_) @body)
      ])
    (#not-eq? @receiver "module")) @definition.method)

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
