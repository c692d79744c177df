; Code symbols for Perl (tree-sitter-perl 2.0). Capture conventions: see code_symbols.py.
; A package is a class (Perl's objects are packages' blessed data): `package Foo::Bar;`
; runs to the next `package` statement or the end of the file, `package Foo::Bar { … }`
; to its brace; named `Bar` in `Foo` (qualified `Foo.Bar`). Its subs are methods; a
; `sub Foo::Bar::baz` is named `baz` in `Foo::Bar`.

(package_statement
  name: (package) @name
  (block) @body) @definition.class

((package_statement
  name: (package) @name) @definition.class
  (#set! extent "rest-of-file"))

(subroutine_declaration_statement
  name: (bareword) @name
  body: (block) @body) @definition.function

; An attribute of Moose, Moo or Mojo::Base (`has request_timeout => sub { 0 };`,
; `has 'name' => (is => 'rw')`) is an accessor method the class defines: what
; `$ua->request_timeout(5)` calls; one line each, no section of its own. (`has [qw(a
; b)] => …` names several: not read.)
(expression_statement
  (ambiguous_function_call_expression
    function: (function) @_has
    (list_expression
      . [(autoquoted_bareword) @name (string_literal (string_content) @name)]))
  (#eq? @_has "has")
  (#set! section "none")) @definition.function
