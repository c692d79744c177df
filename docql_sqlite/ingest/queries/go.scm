; Code symbols for Go. Capture conventions: see code_symbols.py.
; Methods are qualified by their receiver's type (`Stack.Push`, parent `Stack`) even
; though Go declares them outside the type. A lone `type X ...` declaration is the
; symbol itself (so the signature keeps `type`); in a `type ( ... )` group each spec is.
; Earlier patterns win, so the specific forms come before the general ones.

(function_declaration
  name: (identifier) @name
  body: (block)? @body) @definition.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @receiver
        (pointer_type (type_identifier) @receiver)
        (generic_type type: (type_identifier) @receiver)
        (pointer_type (generic_type type: (type_identifier) @receiver))
      ]))
  name: (field_identifier) @name
  body: (block)? @body) @definition.method

(type_declaration .
  (type_spec
    name: (type_identifier) @name
    type: (struct_type (field_declaration_list) @body)) .) @definition.struct

(type_spec
  name: (type_identifier) @name
  type: (struct_type (field_declaration_list) @body)) @definition.struct

(type_declaration .
  (type_spec
    name: (type_identifier) @name
    type: (interface_type) @body) .) @definition.interface

(type_spec
  name: (type_identifier) @name
  type: (interface_type) @body) @definition.interface

(type_declaration .
  [
    (type_spec name: (type_identifier) @name)
    (type_alias name: (type_identifier) @name)
  ] .) @definition.type

(type_spec
  name: (type_identifier) @name) @definition.type

(type_alias
  name: (type_identifier) @name) @definition.type

(interface_type
  (method_elem
    name: (field_identifier) @name) @definition.method)
