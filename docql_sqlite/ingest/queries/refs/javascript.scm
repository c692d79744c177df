; References in JavaScript. Conventions: README.md here and ingest/code_refs.py.
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

(class_heritage (identifier) @name) @reference.inherit
(class_heritage (member_expression property: (property_identifier) @name)) @reference.inherit

(import_statement) @import
(export_statement source: (string)) @import
((call_expression
   function: (identifier) @_require
   arguments: (arguments . (string) .)) @import
 (#eq? @_require "require"))

; A variable made by `new` (`const s = new Subject()`; any other binds a value of no known
; class): `s.next(…)` after it, in the same function (or anywhere, for the module's), is
; that class's member (`code_refs._js_bound`).
(variable_declarator name: (identifier) @typed) @bind
