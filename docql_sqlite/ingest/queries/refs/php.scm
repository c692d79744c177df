; References in PHP. Conventions: README.md here and ingest/code_refs.py.
; `new Foo(…)` constructs a Foo: a call of the class (`new static`, `new self`: the
; class around it, no name of the index).
(object_creation_expression
  [(name) @name (qualified_name (name) @name)]
  (#not-match? @name "^(static|self|parent)$")) @reference.call

(function_call_expression
  function: [(name) @name (qualified_name (name) @name)]) @reference.call
(member_call_expression name: (name) @name) @reference.call
(nullsafe_member_call_expression name: (name) @name) @reference.call
(scoped_call_expression name: (name) @name) @reference.call

(base_clause [(name) @name (qualified_name (name) @name)]) @reference.inherit
(class_interface_clause [(name) @name (qualified_name (name) @name)]) @reference.inherit
; A trait used in a class body (`use LoggerAwareTrait;`) is a base too.
(use_declaration [(name) @name (qualified_name (name) @name)]) @reference.inherit

; Type uses: declarations' types, `Foo::bar()`, `Foo::class`, `Foo::CONST`, `instanceof`.
(named_type [(name) @name (qualified_name (name) @name)]) @reference.type
(scoped_call_expression
  scope: [(name) @name (qualified_name (name) @name)]) @reference.type
(class_constant_access_expression
  . [(name) @name (qualified_name (name) @name)]
  (#not-match? @name "^(static|self|parent)$")) @reference.type
(binary_expression
  operator: "instanceof"
  right: [(name) @name (qualified_name (name) @name)]) @reference.type

(namespace_use_declaration) @import
