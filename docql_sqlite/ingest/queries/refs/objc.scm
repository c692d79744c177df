; References in Objective-C: C's (`refs/c.scm`), and `#import` as `#include`. A message
; send (`[obj setup]`) names a method by its selector, which no call pattern reads yet.
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression field: (field_identifier) @name)) @reference.call

(type_identifier) @name @reference.type

(preproc_include) @import
