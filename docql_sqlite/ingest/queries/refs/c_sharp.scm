; References in C#. Conventions: README.md here and ingest/code_refs.py.
(invocation_expression function: (identifier) @name) @reference.call
(invocation_expression
  function: (member_access_expression name: (identifier) @name)) @reference.call
(invocation_expression function: (generic_name (identifier) @name)) @reference.call
(invocation_expression
  function: (member_access_expression name: (generic_name (identifier) @name))) @reference.call
(object_creation_expression type: (identifier) @name) @reference.call
(object_creation_expression type: (generic_name (identifier) @name)) @reference.call
(object_creation_expression type: (qualified_name name: (identifier) @name)) @reference.call

(base_list (identifier) @name) @reference.inherit
(base_list (generic_name (identifier) @name)) @reference.inherit
(base_list (qualified_name name: (identifier) @name)) @reference.inherit

(parameter type: (identifier) @name) @reference.type
(variable_declaration type: (identifier) @name) @reference.type
(method_declaration returns: (identifier) @name) @reference.type
(property_declaration type: (identifier) @name) @reference.type
(generic_name (identifier) @name) @reference.type
(type_argument_list (identifier) @name) @reference.type

(using_directive) @import

; A type parameter (`<T>`): its uses inside its declaration name no definition.
(type_parameter name: (identifier) @generic)

; A variable, a field or a parameter declared with a class (`Foo x = …`, `private readonly
; Logger logger;`, `(Journal j)`, `var y = new Bar<int>()`): `x.M()` where it is seen is a
; member of that class (`code_refs._go_typed`, as Go's and Java's declared names).
(local_declaration_statement (variable_declaration
  type: [(identifier) @type
         (generic_name . (identifier) @type)
         (qualified_name name: [(identifier) @type (generic_name . (identifier) @type)])]
  (variable_declarator name: (identifier) @typed))) @bind
(local_declaration_statement (variable_declaration
  type: (implicit_type)
  (variable_declarator
    name: (identifier) @typed
    (object_creation_expression
      type: [(identifier) @type (generic_name . (identifier) @type)])))) @bind
(declaration_list
  (field_declaration (variable_declaration
    type: [(identifier) @type
           (generic_name . (identifier) @type)
           (qualified_name name: [(identifier) @type (generic_name . (identifier) @type)])]
    (variable_declarator name: (identifier) @typed)))) @scope
([
  (method_declaration parameters: (parameter_list (parameter
    type: [(identifier) @type
           (generic_name . (identifier) @type)
           (qualified_name name: [(identifier) @type (generic_name . (identifier) @type)])]
    name: (identifier) @typed)))
  (constructor_declaration parameters: (parameter_list (parameter
    type: [(identifier) @type
           (generic_name . (identifier) @type)
           (qualified_name name: [(identifier) @type (generic_name . (identifier) @type)])]
    name: (identifier) @typed)))
]) @scope
