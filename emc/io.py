"""Atomic file writing: a reader never sees a half-written file."""

from __future__ import annotations

import contextlib
import gzip
import os
import stat
import tempfile
from pathlib import Path
from typing import IO, Iterator

from .errors import EmcError


def gzip_name(path: str | os.PathLike) -> bool:
    """Whether a file name asks for gzip: it ends in ``.gz``, in any case (``.GZ`` too)."""
    return os.fspath(path).lower().endswith(".gz")


def is_special(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a device, FIFO, socket or standard stream (``/dev/stdout``), which
    :func:`atomic_write` writes into rather than replacing: a second write adds to the first."""
    path = Path(path)
    if path.exists() and not path.is_file() and not path.is_dir():  # follows links
        return True
    # /dev/stdout and the like lead into /proc: what they stand for is written into
    return path.is_symlink() and (os.path.realpath(path).startswith("/proc/") or str(path.absolute()).startswith("/dev/"))


def drop_output(fd: int) -> None:
    """Point descriptor ``fd`` at /dev/null (a standard stream whose reader has gone: what is
    still written to it goes nowhere, as in any shell tool, instead of failing again)."""
    with contextlib.suppress(OSError):
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, fd)
        finally:
            os.close(null)


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "w", compress: bool | None = None) -> Iterator[IO]:
    """Open a temporary file beside ``path``; on success rename it over ``path``.

    If the block raises (including KeyboardInterrupt) the temporary file is removed and
    ``path`` is left as it was. ``compress`` (default: ``path`` ends in ``.gz``) writes gzip
    with a zero timestamp so the bytes are deterministic.
    """
    path = Path(path)
    if compress is None:
        compress = gzip_name(path)
    special = is_special(path)
    if path.is_symlink() and not special:
        path = Path(os.path.realpath(path))  # replace the file it points to, keep the link
    if special:
        # a device (/dev/null), a FIFO, a socket, a standard stream: write into it; renaming a
        # file over it would replace the special file itself
        yield from _write_into(path, mode, compress)
        return
    try:
        if path.parent and not path.parent.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise _cannot_write(path, exc) from exc
    try:
        with _layers(os.fdopen(fd, "wb"), mode, compress) as f:
            yield f
        os.chmod(tmp, _mode_for(path))
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and exc.filename in (None, tmp, str(path)):
            raise _cannot_write(path, exc) from exc  # disk full, replaced by a folder, ...
        raise


def _mode_for(path: Path) -> int:
    """The permissions of the file written: those of the file it replaces, or what the umask
    gives a new file (mkstemp's temporary file is private, 0600)."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return 0o666 & ~_umask()


def _umask() -> int:
    """The process's umask, read without changing it where Linux shows it (setting and restoring
    it would race with other threads creating files)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    umask = os.umask(0o022)
    os.umask(umask)
    return umask


def _write_into(path: Path, mode: str, compress: bool) -> Iterator[IO]:
    """Write straight into an existing special file (no temporary file, no rename)."""
    try:
        stream = _standard_stream(path)
        if stream is not None:
            # our own stdout or stderr (/dev/stdout, say): write at the stream's place, after
            # what it holds so far, through a copy of its descriptor
            stream.flush()
            raw = os.fdopen(os.dup(stream.fileno()), "wb")
        else:
            raw = open(path, "wb")
    except OSError as exc:
        raise _cannot_write(path, exc) from exc
    try:
        with _layers(raw, mode, compress) as f:
            yield f
    except OSError as exc:
        if exc.filename in (None, str(path)):
            raise _cannot_write(path, exc) from exc
        raise


def _standard_stream(path: Path) -> IO | None:
    """``sys.stdout`` or ``sys.stderr`` when ``path`` is the file it writes to, else None."""
    import sys

    try:
        st = os.stat(path)
    except OSError:
        return None
    for stream in (sys.stdout, sys.stderr):
        try:
            fst = os.fstat(stream.fileno())
        except (OSError, ValueError, AttributeError):
            continue  # replaced by an object without a descriptor (pytest's capture, ...)
        if (st.st_dev, st.st_ino) == (fst.st_dev, fst.st_ino):
            return stream
    return None


@contextlib.contextmanager
def _layers(raw: IO, mode: str, compress: bool) -> Iterator[IO]:
    """``raw`` (a binary file) as the caller writes to it: through gzip (zero timestamp, so
    the bytes are deterministic) and/or a text layer; everything is closed at the end."""
    try:
        gz = gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=6) if compress else None
        inner: IO = gz if gz is not None else raw
        f: IO = inner if "b" in mode else _text(inner)
        try:
            yield f
        finally:
            f.close()
            if gz is not None and f is not gz:
                gz.close()
    finally:
        raw.close()


def _cannot_write(path: Path, exc: OSError):
    from .errors import InputError

    if isinstance(exc, BrokenPipeError):  # `-o /dev/stdout | head`: the reader has had enough, no error
        return BrokenPipeError(exc.errno, exc.strerror)
    return InputError(f"cannot write ({exc.strerror or exc})", path)


def _text(binary: IO) -> IO:
    import io

    return io.TextIOWrapper(binary, encoding="utf-8", newline="\n", write_through=False)


def write_text(path: str | os.PathLike, text: str) -> None:
    with atomic_write(path) as f:
        f.write(text)


def write_bytes(path: str | os.PathLike, data: bytes) -> None:
    with atomic_write(path, "wb") as f:
        f.write(data)


def data_dir(kind: str) -> Path:
    """Folder of shipped data (``instances`` or ``templates``), installed or in the source tree."""
    here = Path(__file__).resolve().parent
    for cand in (here / "_data" / kind, here.parent / kind):
        if cand.is_dir():
            return cand
    raise EmcError(f"emc's {kind} folder is missing from this installation (looked in {here / '_data'} and {here.parent})")


def templates(autoescape: bool):
    """The jinja2 environment of emc's shipped templates (the MiniZinc model and data, the HTML
    board page): a missing variable is an error, lines are kept as written. ``autoescape`` for
    HTML, whose text (a puzzle's name) is the user's."""
    import jinja2

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(data_dir("templates"))),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=autoescape,
    )
