; References in TypeScript (and TSX). Conventions: README.md here and ingest/code_refs.py.
(call_expression function: (identifier) @name) @reference.call
; `f.call(…)` and `f.apply(…)` call `f` (Function.prototype's invokers: axios'
; `dispatchRequest.call(this, config)` is its one call); the member pattern below records
; `call` too.
((call_expression
   function: (member_expression
     object: (identifier) @name
     property: (property_identifier) @_invoker)) @reference.call
 (#match? @_invoker "^(call|apply)$"))
(call_expression
  function: (member_expression property: (property_identifier) @name)) @reference.call
(new_expression constructor: (identifier) @name) @reference.call
(new_expression
  constructor: (member_expression property: (property_identifier) @name)) @reference.call

(extends_clause value: (identifier) @name) @reference.inherit
(extends_clause value: (member_expression property: (property_identifier) @name))
  @reference.inherit
(implements_clause (type_identifier) @name) @reference.inherit
(implements_clause (generic_type name: (type_identifier) @name)) @reference.inherit
(extends_type_clause type: (type_identifier) @name) @reference.inherit
(extends_type_clause type: (generic_type name: (type_identifier) @name)) @reference.inherit

(type_identifier) @name @reference.type

(import_statement) @import
(export_statement source: (string)) @import
((call_expression
   function: (identifier) @_require
   arguments: (arguments . (string) .)) @import
 (#eq? @_require "require"))

; A type parameter (`<T extends X>`): its uses inside its declaration name no definition.
(type_parameter name: (type_identifier) @generic)

; A name bound where its class is written: a parameter annotated with one (`sub:
; Subscriber<T>`), a variable annotated or made by `new` (`const s = new Subject<number>()`;
; any other variable binds a value of no known class): `s.next(…)` after it, in the same
; function (or anywhere, for the module's), is that class's member (`code_refs._js_bound`).
(required_parameter pattern: (identifier) @typed type: (type_annotation) @type) @bind
(optional_parameter pattern: (identifier) @typed type: (type_annotation) @type) @bind
(variable_declarator name: (identifier) @typed) @bind
; A class's field and its type (`private client: HttpClient`, a constructor's parameter
; property `constructor(private cache: Cache)`): `this.client.x` in its methods is a
; member of that type (`code_refs._field_members`).
(class_declaration
  name: (type_identifier) @struct
  body: (class_body (public_field_definition
    name: (property_identifier) @field
    type: (type_annotation [(type_identifier) @type
                            (generic_type name: (type_identifier) @type)]))))
(class_declaration
  name: (type_identifier) @struct
  body: (class_body (method_definition
    name: (property_identifier) @_constructor
    parameters: (formal_parameters (required_parameter
      (accessibility_modifier)
      pattern: (identifier) @field
      type: (type_annotation [(type_identifier) @type
                              (generic_type name: (type_identifier) @type)]))))
  (#eq? @_constructor "constructor")))
