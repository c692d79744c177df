; Code symbols for Ruby (tree-sitter-ruby 0.23). Capture conventions: see code_symbols.py.
; A module is a symbol of kind `module` (a namespace and a mixin: class-like, it
; qualifies and parents its methods). `def self.x` is a method of the class around it,
; as is a `def` inside `class << self` (that block is no symbol: its methods nest in the
; class). `class A::B` is named `B`. Constants, `attr_accessor` and `alias` define no
; symbol (Python's module constants are none either).

(class
  name: [(constant) @name (scope_resolution name: (_) @name)]
  body: (_)? @body) @definition.class

(module
  name: [(constant) @name (scope_resolution name: (_) @name)]
  body: (_)? @body) @definition.module

(method
  name: (_) @name
  body: (_)? @body) @definition.function

(singleton_method
  name: (_) @name
  body: (_)? @body) @definition.function
