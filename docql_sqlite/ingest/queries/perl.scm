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
