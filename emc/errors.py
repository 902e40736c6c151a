"""Errors that reach the user as one line, never as a traceback.

Every problem with user input is raised as :class:`InputError`, which carries the file,
the line (when there is one) and the reason. The command line turns it into
``emc: error: FILE:LINE: reason`` and exit status 2.
"""

from __future__ import annotations

import os


class EmcError(Exception):
    """Base class of every error emc reports to the user as one line."""

    exit_code = 2


class InputError(EmcError):
    """Bad input: a file, an instance name or an option value that cannot be used.

    Args:
        reason: what is wrong, in a few words.
        path: the file (or instance name) the problem is in, if any.
        line: the 1-based line number, if the problem sits on a line.
    """

    def __init__(self, reason: str, path: str | os.PathLike | None = None, line: int | None = None,
                 about: object = None):
        self.reason = reason
        self.path = None if path is None else os.fspath(path)
        self.line = line
        self.about = about  # the value at fault (a literal, a vertex, a column name), for finding its line
        super().__init__(str(self))

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = self.path + (f":{self.line}" if self.line is not None else "") + ": "
        elif self.line is not None:
            where = f"line {self.line}: "
        return where + self.reason


class UnknownNameError(InputError):
    """A name (instance, format, backend, encoder, ...) that is not registered."""

    def __init__(self, kind: str, name: str, valid: list[str] | tuple[str, ...]):
        import difflib

        # a name from JSON (-O variant=1) may be a number or a list: no suggestions then, no TypeError
        close = difflib.get_close_matches(name, list(valid), n=3) if isinstance(name, str) else []
        hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        shown = ", ".join(valid) if len(valid) <= 12 else ", ".join(list(valid)[:12]) + ", ..."
        super().__init__(f"unknown {kind} {name!r}{hint} (choose from: {shown})")
        self.kind = kind
        self.name = name
        self.valid = list(valid)


class SolverUnavailableError(EmcError):
    """A solver backend whose software is not installed; the message names the install command."""


MAX_DIGITS = 30
"""Longest whole number emc reads from text (Python refuses to convert ones over 4300 digits)."""


def parse_whole(text: str, max_digits: int = MAX_DIGITS) -> int:
    """``text`` as a whole number written with ASCII digits and an optional minus.

    ``int()`` alone would also take ``1_000``, ``+5``, spaces and other scripts' digits, and
    raises an unhelpful error past 4300 digits. Raises ValueError with a short reason.
    """
    digits = text[1:] if text.startswith("-") else text
    if not digits or not digits.isascii() or not digits.isdigit():
        raise ValueError(f"{shorten(text)!r} is not a whole number")
    if len(digits) > max_digits:
        raise ValueError(f"{text[:12]}... ({len(digits)} digits) is too large")
    return int(text)


def read_whole(text: str, where: str, path: str | os.PathLike | None = None, line: int | None = None) -> int:
    """:func:`parse_whole`, its reason raised as ``InputError("where: reason", path, line)``."""
    try:
        return parse_whole(text)
    except ValueError as exc:
        raise InputError(f"{where}: {exc}", path, line) from None


def shorten(s: str, n: int = 40) -> str:
    """``s`` cut to about ``n`` characters for an error message."""
    return s if len(s) <= n else s[: n - 3] + "..."
