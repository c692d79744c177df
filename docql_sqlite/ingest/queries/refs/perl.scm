; References in Perl. Conventions: README.md here and ingest/code_refs.py.
; A name token holds its whole package path (`Foo::Util::helper`, `SUPER::init`):
; code_refs records its last part, the path as its qualifier (`Foo.Util`, `super`).
(function_call_expression function: (function) @name) @reference.call
(ambiguous_function_call_expression function: (function) @name) @reference.call
(method_call_expression method: (method) @name) @reference.call

; `Foo::Other->new(…)`: a use of the package (class) Foo::Other.
(method_call_expression invocant: (bareword) @name) @reference.type

; `use parent 'Foo::Base'`, `use base qw(Foo::Base)` (one name): the class's base.
(use_statement
  module: (package) @_pragma
  [
    (string_literal (string_content) @name)
    (quoted_word_list (string_content) @name)
  ]
  (#match? @_pragma "^(parent|base)$")
  (#match? @name "^[A-Za-z_][A-Za-z_0-9]*(::[A-Za-z_0-9]+)*$")) @reference.inherit

; `use Foo::Bar qw(a b);`, `require Foo::Bar;`: a module (code_refs reads its names).
(use_statement) @import
(require_expression (bareword)) @import
