"""Which language a script without an extension is written in, by its `#!` line.

`bin/rake`, `scripts/release`, `git-jump`: repositories keep their commands without an
extension, and a walk that chose formats by extension alone left them out ("not a
document format"). A first line `#!/usr/bin/env python3` (or `#!/bin/sh`, `#!/usr/bin/ruby
-w`, `#!/usr/bin/env -S node --flags`) names the interpreter, and the interpreter the
language. Imports nothing heavy: the walk asks it for every file without an extension.
"""

from __future__ import annotations

import re

# How many bytes the walk reads of a file without an extension to find its `#!` line.
HEAD_BYTES = 256

# An interpreter's name (versions stripped: `python3.11`, `ruby2.7`, `lua5.4`) → language.
_INTERPRETERS = {
    "python": "python",
    "pypy": "python",
    "sh": "bash",
    "bash": "bash",
    "dash": "bash",
    "ksh": "bash",
    "zsh": "bash",
    "ruby": "ruby",
    "php": "php",
    "lua": "lua",
    "luajit": "lua",
    "node": "javascript",
    "nodejs": "javascript",
    "perl": "perl",
}
# Files named without an extension whose language their name says: Ruby's DSLs (Bundler,
# Rake, Vagrant, Guard, CocoaPods, fastlane, Homebrew bundles, Capistrano).
NAMED_SCRIPTS = {
    "rakefile": "ruby",
    "gemfile": "ruby",
    "vagrantfile": "ruby",
    "guardfile": "ruby",
    "podfile": "ruby",
    "fastfile": "ruby",
    "brewfile": "ruby",
    "capfile": "ruby",
}
_FIRST_LINE = re.compile(rb"#![ \t]*(\S+)(?:[ \t]+(\S+))?(?:[ \t]+(\S+))?")
_VERSION = re.compile(r"[\d.]+$")


def script_language(head: bytes) -> str | None:
    """The language of a script whose text begins with `head`, by its `#!` line; None
    when there is none or its interpreter is none of ours (`#!/usr/bin/make -f`)."""
    if not head.startswith(b"#!"):
        return None
    found = _FIRST_LINE.match(head)
    if found is None:
        return None
    words = [w.decode("utf-8", "replace") for w in found.groups() if w is not None]
    program = words[0].rpartition("/")[2]
    if program == "env":  # `#!/usr/bin/env python3`, `#!/usr/bin/env -S node --x`
        rest = [w for w in words[1:] if not w.startswith("-")]
        if not rest:
            return None
        program = rest[0].rpartition("/")[2]
    return _INTERPRETERS.get(_VERSION.sub("", program))


def file_language(path: str) -> str | None:
    """`script_language` of the file at `path` (None when it cannot be read)."""
    try:
        with open(path, "rb") as handle:
            return script_language(handle.read(HEAD_BYTES))
    except OSError:
        return None
