"""A SQLite VFS that fails the Nth write: I/O-error injection, SQLite's own way of testing.

`FaultyVFS` is an apsw Python VFS over the default one. Every `xWrite` on any file it
opens (the index, its -wal, a journal) is counted; once armed with `fail_at(n, error)`,
the nth write raises `error` (apsw.IOError: SQLite sees SQLITE_IOERR, "disk I/O error";
apsw.FullError: SQLITE_FULL, a full disk) instead of writing, and so does every later
write (`sticky`, the default, like a disk that has died or filled; `sticky=False` fails
that one write only). The package reaches it through the documented seam `db.VFS`: only
db.py imports apsw, and only `connect` chooses the VFS.

As a script it runs the real CLI with the fault armed, so a test can read what a user
would see:

    python tests/faulty_vfs.py N [full] -- index INDEX.db DOCS...

fails the Nth write (an I/O error, or a full disk with `full`); N = 0 only counts and
prints `writes: K` on stderr after the command.
"""

from __future__ import annotations

import sys
from typing import Any

import apsw

from docql_sqlite.store.sqlite import db

NAME = "docql-faulty"


class FaultyFile(apsw.VFSFile):
    def __init__(self, vfs: FaultyVFS, filename: Any, flags: list[int]) -> None:
        self.vfs = vfs
        super().__init__(vfs.base_name, filename, flags)

    def xWrite(self, data: bytes, offset: int) -> None:  # noqa: N802 - apsw's method name
        self.vfs.before_write()
        super().xWrite(data, offset)


class FaultyVFS(apsw.VFS):
    """Counts writes; fails the armed one (and, sticky, every later one)."""

    def __init__(self, name: str = NAME, base: str = "") -> None:
        self.base_name = base
        self.writes = 0
        self.failures = 0
        self._fail_at = 0
        self._error: type[apsw.Error] = apsw.IOError
        self._sticky = True
        super().__init__(name, base)

    def xOpen(self, name: Any, flags: list[int]) -> FaultyFile:  # noqa: N802
        return FaultyFile(self, name, flags)

    def reset(self) -> None:
        """Count from zero again, and fail nothing."""
        self.writes = self.failures = self._fail_at = 0

    def fail_at(self, n: int, error: type[apsw.Error] = apsw.IOError, sticky: bool = True) -> None:
        self.reset()
        self._fail_at, self._error, self._sticky = n, error, sticky

    def before_write(self) -> None:
        self.writes += 1
        if self._fail_at and (
            self.writes == self._fail_at or (self._sticky and self.writes > self._fail_at)
        ):
            self.failures += 1
            raise self._error(f"injected failure of write {self.writes}")


_registered: FaultyVFS | None = None


def install() -> FaultyVFS:
    """Register the VFS once per process and make `db.connect` open files with it."""
    global _registered
    if _registered is None:
        _registered = FaultyVFS()
    db.VFS = NAME
    return _registered


def uninstall() -> None:
    """New connections use SQLite's default VFS again (the VFS stays registered)."""
    db.VFS = None
    if _registered is not None:
        _registered.reset()


def main(argv: list[str]) -> int:
    split = argv.index("--")
    n, kind = int(argv[0]), argv[1:split]
    vfs = install()
    if n:
        vfs.fail_at(n, apsw.FullError if "full" in kind else apsw.IOError)
    from docql_sqlite.cli import cli

    try:
        cli.main(args=argv[split + 1 :], prog_name="docql-sqlite")
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else 1
    else:
        code = 0
    if not n:
        print(f"writes: {vfs.writes}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
