; References in Python. Conventions: README.md here and ingest/code_refs.py.
(call function: (identifier) @name) @reference.call
(call function: (attribute attribute: (identifier) @name)) @reference.call

(class_definition superclasses: (argument_list (identifier) @name)) @reference.inherit
(class_definition
  superclasses: (argument_list (attribute attribute: (identifier) @name))) @reference.inherit
; A generic base (`ImmutableMultiDict[str, str]`, `typing.Mapping[K, V]`, `Generic[T]`):
; the class it names; its type arguments are type uses.
(class_definition superclasses: (argument_list (subscript
  value: [(identifier) @name (attribute attribute: (identifier) @name)]))) @reference.inherit

(type (identifier) @name) @reference.type
(type (attribute attribute: (identifier) @name)) @reference.type
(type (generic_type (identifier) @name)) @reference.type

(import_statement) @import
(import_from_statement) @import
(future_import_statement) @import

; A name bound by an assignment (`client = TestClient(app)`, `t: Router = …`, `n = 3`) or
; a `with` item (`with TestClient(app) as client`): `client.get(…)` after it, in the same
; function (or anywhere, for a binding of the module), is a member of the class a
; capitalised call or the annotation names (`code_refs._py_bound`).
(assignment left: (identifier) @typed) @bind
(with_item
  value: (as_pattern
    (call function: (_) @ctor)
    alias: (as_pattern_target (identifier) @typed))) @bind
; `self.session = Session()` in a method: `self.session.get(…)` in any method of the class
; is a member of that class (`code_refs._py_attributes`).
(assignment
  left: (attribute object: (identifier) @self attribute: (identifier) @attr)) @bind
