; References in C++. Conventions: README.md here and ingest/code_refs.py.
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression field: (field_identifier) @name)) @reference.call
(call_expression function: (qualified_identifier name: (identifier) @name)) @reference.call
(call_expression function: (template_function name: (identifier) @name)) @reference.call
(call_expression
  function: (qualified_identifier name: (template_function name: (identifier) @name)))
  @reference.call
(new_expression type: (type_identifier) @name) @reference.call

(base_class_clause (type_identifier) @name) @reference.inherit
(base_class_clause (qualified_identifier name: (type_identifier) @name)) @reference.inherit
(base_class_clause (template_type name: (type_identifier) @name)) @reference.inherit

(type_identifier) @name @reference.type

(preproc_include) @import

; A template's type parameter (`template <typename T>`): its uses inside it name no definition.
(type_parameter_declaration (type_identifier) @generic)

; A variable or a parameter declared with a class (`const Normalizer normalizer(spec);`,
; `ExtensionSet* set = …`, `(const Lattice& lattice)`): `normalizer.Normalize(…)` where
; it is seen is a member of that class (`code_refs._go_typed`, as Go's and Java's declared
; names): a local variable to the end of its block, a parameter in its function.
(declaration
  type: [(type_identifier) @type
         (qualified_identifier name: (type_identifier) @type)
         (template_type name: (type_identifier) @type)
         (qualified_identifier name: (template_type name: (type_identifier) @type))]
  declarator: [(identifier) @typed
               (init_declarator declarator: (identifier) @typed)
               (init_declarator declarator: (pointer_declarator declarator: (identifier) @typed))
               (init_declarator declarator: (reference_declarator (identifier) @typed))
               (pointer_declarator declarator: (identifier) @typed)]) @bind
(function_definition
  declarator: (function_declarator
    parameters: (parameter_list
      [(parameter_declaration
         type: [(type_identifier) @type
                (qualified_identifier name: (type_identifier) @type)
                (template_type name: (type_identifier) @type)
                (qualified_identifier name: (template_type name: (type_identifier) @type))]
         declarator: [(identifier) @typed
                      (reference_declarator (identifier) @typed)
                      (pointer_declarator declarator: (identifier) @typed)])
       (optional_parameter_declaration
         type: [(type_identifier) @type
                (qualified_identifier name: (type_identifier) @type)
                (template_type name: (type_identifier) @type)]
         declarator: [(identifier) @typed
                      (reference_declarator (identifier) @typed)
                      (pointer_declarator declarator: (identifier) @typed)])]))) @scope
; `auto p = std::make_unique<Model>(…);`, `auto p = new Model(…);`: the class it makes
(declaration
  type: (placeholder_type_specifier)
  declarator: (init_declarator
    declarator: (identifier) @typed
    value: [(new_expression type: (type_identifier) @type)
            (call_expression
              function: [(template_function
                           name: (identifier) @_make
                           arguments: (template_argument_list
                             . (type_descriptor type: (type_identifier) @type)))
                         (qualified_identifier
                           name: (template_function
                             name: (identifier) @_make
                             arguments: (template_argument_list
                               . (type_descriptor type: (type_identifier) @type))))])])
  (#match? @_make "^make_(unique|shared)$")) @bind
; A class's field declared with a class (`Client client_;`, `Cache* cache_;`): `client_.x`,
; `cache_->x` and `this->client_.x` in the methods written in the class's body are
; members of that class (`code_refs._go_typed`, as Java's fields; a method defined
; outside the body, `void Server::run() { … }`, often in another file, is not seen).
(field_declaration_list (field_declaration
  type: [(type_identifier) @type
         (qualified_identifier name: (type_identifier) @type)
         (template_type name: (type_identifier) @type)
         (qualified_identifier name: (template_type name: (type_identifier) @type))]
  declarator: [(field_identifier) @typed
               (pointer_declarator declarator: (field_identifier) @typed)
               (reference_declarator (field_identifier) @typed)])) @scope
