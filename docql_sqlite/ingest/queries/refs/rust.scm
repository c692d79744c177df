; References in Rust. Conventions: README.md here and ingest/code_refs.py.
; One pattern per node kind with the forms as alternatives: the same matches as a pattern
; per form, and a third less to compile (the query is compiled once per process).
(call_expression
  function: [
    (identifier) @name
    (field_expression field: (field_identifier) @name)
    (scoped_identifier name: (identifier) @name)
    (generic_function function: (identifier) @name)
    (generic_function function: (scoped_identifier name: (identifier) @name))
    (generic_function function: (field_expression field: (field_identifier) @name))
  ]) @reference.call
(macro_invocation
  macro: [
    (identifier) @name
    (scoped_identifier name: (identifier) @name)
  ]) @reference.call
; A call inside a macro's tokens (`assert_eq!(parse(x), 1)`, `vec![Foo::new()]`, the
; bodies of `macro_rules!`): a name right before a `( … )` group. The grammar leaves
; macro arguments as token trees, where keywords (`if (a)`) and `$x` are no identifiers.
(token_tree
  (identifier) @name
  .
  (token_tree) @arguments
  (#match? @arguments "^[(]")) @reference.call
; An attribute's argument tokens hold no call (`#[cfg_attr(test, derive(Debug))]`; a
; value, `#[doc = concat!(…)]`, is an expression whose macros are calls).
(attribute arguments: (token_tree) @attribute)

(impl_item
  trait: [
    (type_identifier) @name
    (scoped_type_identifier name: (type_identifier) @name)
    (generic_type type: (type_identifier) @name)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
  ]) @reference.inherit

(type_identifier) @name @reference.type

(use_declaration) @import
(extern_crate_declaration) @import

; A type parameter (`<A: Allocator>`): its uses inside its declaration name no definition.
(type_parameter name: (type_identifier) @generic)
; The name a type binding or an associated type gives (`Item` of `Iterator<Item = T>`,
; `type Item;` in a trait): no use of a type (`code_refs._OWN_NAMES_OUTLINED`).
(type_binding name: (type_identifier) @own)
(associated_type name: (type_identifier) @own)

; A parameter or a variable declared with a type (`cmd: &'cmd Command`, `mut p:
; Parser<'a>`, `let s: Box<Styled> = …`), or bound to a struct literal or a type's
; associated function (`let s = Styled { … }`, `let cmd = Command::new("git")`: a
; constructor's `Self`, as `code_refs._chained` takes it): `cmd.x` where it is seen is a
; member of that type (`code_refs._go_typed`, as Go's declared names; the type as
; `code_refs._rust_type` reads it): a parameter in its function or closure, a variable
; to the end of its block. `impl Trait`, `dyn Trait`, tuples and slices name no type.
([
  (function_item parameters: (parameters (parameter
    pattern: [(identifier) @typed (mut_pattern (identifier) @typed)]
    type: [(reference_type) (generic_type) (scoped_type_identifier) (type_identifier)] @type)))
  (closure_expression parameters: (closure_parameters (parameter
    pattern: [(identifier) @typed (mut_pattern (identifier) @typed)]
    type: [(reference_type) (generic_type) (scoped_type_identifier) (type_identifier)] @type)))
]) @scope
(let_declaration
  pattern: [(identifier) @typed (mut_pattern (identifier) @typed)]
  type: [(reference_type) (generic_type) (scoped_type_identifier) (type_identifier)] @type) @bind
(let_declaration
  pattern: [(identifier) @typed (mut_pattern (identifier) @typed)]
  !type
  value: [
    (struct_expression name: [(type_identifier) @type
                              (scoped_type_identifier name: (type_identifier) @type)])
    (call_expression function: (scoped_identifier
      path: [(identifier) @type (scoped_identifier name: (identifier) @type)]))]
  (#match? @type "^[A-Z]")) @bind
; A struct's field and its type (`cmd: &'cmd Command`): `self.cmd.x` in the methods of
; its `impl` is a member of that type (`code_refs._rust_fields`).
(struct_item
  name: (type_identifier) @struct
  body: (field_declaration_list (field_declaration
    name: (field_identifier) @field
    type: [(reference_type) (generic_type) (scoped_type_identifier) (type_identifier)] @type)))
