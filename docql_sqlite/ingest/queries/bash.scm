; Code symbols for Bash and POSIX sh (tree-sitter-bash 0.25). Capture conventions: see
; code_symbols.py. A script's functions (`build() { … }`, `function build { … }`); its
; variables are no symbols.

(function_definition
  name: (word) @name
  body: (_) @body) @definition.function
