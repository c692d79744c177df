; References in Bash. Conventions: README.md here and ingest/code_refs.py.
; Every command is a call (a function of the index, else a program or a builtin:
; unresolved); `source FILE` and `. FILE` import the file (code_refs reads its path).
(command
  name: (command_name (word) @name)
  (#not-match? @name "^(source|\\.)$")) @reference.call

(command
  name: (command_name (word) @_source)
  argument: [(word) (string) (raw_string)]
  (#match? @_source "^(source|\\.)$")) @import
