; Code symbols for Objective-C (tree-sitter-objc 3): its classes, categories, protocols
; and methods; C's symbols come from `c.scm`, which the query appends (the grammar reads C
; as tree-sitter-c does: `code_symbols._QUERY_EXTENDS`). A method is named by the first part of its selector
; (`performSynchronouslyOnMainThread` of `performSynchronouslyOnMainThread:`); its
; signature is the whole declaration. An `@implementation`, a category (`@interface
; EXFoo (Private)`) and a class extension (`@interface EXFoo ()`) are scopes, as Rust's
; `impl`: they parent their methods under the
; class, headings but no symbols; a method an `@interface` declares and the file also
; defines is one symbol, the definition.

(class_interface . (identifier) @name "(") @scope.impl

(class_interface . (identifier) @name) @definition.class

(class_implementation . (identifier) @name) @scope.impl

(protocol_declaration . (identifier) @name) @definition.interface

(method_declaration (identifier) @name) @declaration.method

(method_definition (identifier) @name (compound_statement) @body) @definition.method
