; References in Ruby. Conventions: README.md here and ingest/code_refs.py.
; `Foo.new(…)` constructs a Foo: a call of the class (as Python's `Foo(…)`), not of a
; method `new`.
(call
  receiver: [(constant) @name (scope_resolution name: (constant) @name)]
  method: (identifier) @_new
  (#eq? @_new "new")) @reference.call
; A call with a receiver, or arguments, or a block (`x.save`, `render json: x`, `each do`).
; A bare word with none (`finish`) is a call or a local variable: the grammar cannot tell,
; and it is left out.
(call
  method: (identifier) @name
  (#not-match? @name "^(new|require|require_relative|load|autoload)$")) @reference.call

; `super`, `super(x)`: a call of the parent's method of the caller's name (code_refs
; records it so, qualifier `super`).
((super) @name @reference.call)

(superclass [(constant) @name (scope_resolution name: (constant) @name)]) @reference.inherit
; A mixin (`include Enumerable`, `extend Forwardable`, `prepend M`) is a base too.
(call
  method: (identifier) @_mixin
  arguments: (argument_list [(constant) @name (scope_resolution name: (constant) @name)])
  (#any-of? @_mixin "include" "extend" "prepend")) @reference.inherit

; A constant used (a class or a module: `Utils.escape`, `rescue ArgumentError`,
; `Rack::Utils`), the last part of a path.
(scope_resolution name: (constant) @name) @reference.type
((constant) @name @reference.type)

; `require 'rack/utils'`, `require_relative 'helper'`: a file loaded, its definitions
; all seen (code_refs reads the string).
(call
  method: (identifier) @_require
  arguments: (argument_list (string))
  (#any-of? @_require "require" "require_relative" "load" "autoload")) @import
