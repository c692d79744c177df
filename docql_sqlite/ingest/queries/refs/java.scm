; References in Java. Conventions: README.md here and ingest/code_refs.py.
(method_invocation name: (identifier) @name) @reference.call
(object_creation_expression type: (type_identifier) @name) @reference.call
(object_creation_expression type: (generic_type (type_identifier) @name)) @reference.call
(object_creation_expression
  type: (scoped_type_identifier (type_identifier) @name .)) @reference.call

(superclass (type_identifier) @name) @reference.inherit
(superclass (generic_type (type_identifier) @name)) @reference.inherit
(super_interfaces (type_list (type_identifier) @name)) @reference.inherit
(super_interfaces (type_list (generic_type (type_identifier) @name))) @reference.inherit
(extends_interfaces (type_list (type_identifier) @name)) @reference.inherit
(extends_interfaces (type_list (generic_type (type_identifier) @name))) @reference.inherit

(type_identifier) @name @reference.type

(import_declaration) @import

; A type parameter (`<T extends X>`): its uses inside its declaration name no definition.
(type_parameter . (type_identifier) @generic)

; A variable, a field or a parameter declared with a class (`Node<K,V> e = …`, `private
; final Logger logger;`, `(Spliterator<T> s)`, `var f = new Foo()`): `e.x` where it is
; seen is a member of that class (`code_refs._go_typed`, as Go's declared names): a local
; variable to the end of its block, a field in its class's body, a parameter in its
; method. `var` is no class: its `new Foo()` names it.
(local_variable_declaration
  type: [(type_identifier) @type
         (generic_type . (type_identifier) @type)
         (scoped_type_identifier (type_identifier) @type .)
         (generic_type . (scoped_type_identifier (type_identifier) @type .))]
  declarator: (variable_declarator name: (identifier) @typed)) @bind
(local_variable_declaration
  declarator: (variable_declarator
    name: (identifier) @typed
    value: (object_creation_expression
      type: [(type_identifier) @type (generic_type . (type_identifier) @type)]))) @bind
(class_body
  (field_declaration
    type: [(type_identifier) @type
           (generic_type . (type_identifier) @type)
           (scoped_type_identifier (type_identifier) @type .)
           (generic_type . (scoped_type_identifier (type_identifier) @type .))]
    declarator: (variable_declarator name: (identifier) @typed))) @scope
([
  (method_declaration parameters: (formal_parameters (formal_parameter
    type: [(type_identifier) @type
           (generic_type . (type_identifier) @type)
           (scoped_type_identifier (type_identifier) @type .)
           (generic_type . (scoped_type_identifier (type_identifier) @type .))]
    name: (identifier) @typed)))
  (constructor_declaration parameters: (formal_parameters (formal_parameter
    type: [(type_identifier) @type
           (generic_type . (type_identifier) @type)
           (scoped_type_identifier (type_identifier) @type .)
           (generic_type . (scoped_type_identifier (type_identifier) @type .))]
    name: (identifier) @typed)))
]) @scope
