; References in Objective-C: C's (`refs/c.scm`, appended: calls, types, `#import` as
; `#include`), and a message
; send (`[registry registerModule:m withName:n]`) as a call of its selector's first part,
; as a method is named (`objc.scm`); its receiver is no qualifier (the pass decides by
; the name: the file's own method, an import's, the index's one of that name).
(message_expression receiver: (_) . method: (identifier) @name) @reference.call
