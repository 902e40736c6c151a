"""Shared fixtures: small real puzzles (shipped and generated) and a CLI runner."""

from __future__ import annotations

import signal

import pytest
from hypothesis import settings

import emc
from emc.cli import main

# A test run started in the background (`cmd &` in a script) inherits SIGINT ignored, and so
# would the processes the Ctrl-C tests start: Python keeps an inherited SIG_IGN, and those tests
# would wait for a KeyboardInterrupt that never comes. Handled here, SIGINT reaches every child
# with its default disposition (exec resets handlers, not an ignore).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# The property tests draw the same examples on every run (CI stays green or red for a reason,
# as the project's runs are reproducible); `pytest --hypothesis-profile=explore` draws new ones.
settings.register_profile("default", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile("default")


@pytest.fixture(scope="session")
def set2_3x3():
    return emc.load("set2-3x3")


@pytest.fixture(scope="session")
def planted_6x5():
    return emc.generate(6, 5, 2, 4, seed=11)


class CliResult:
    def __init__(self, code: int, out: str, err: str):
        self.code, self.out, self.err = code, out, err

    def __repr__(self) -> str:
        return f"CliResult(code={self.code}, err={self.err!r}, out={self.out[:200]!r})"


@pytest.fixture
def cli(capsys):
    """Run `emc ARGS...` in-process; returns exit code, stdout and stderr."""

    def run(*args: str) -> CliResult:
        capsys.readouterr()
        try:
            code = main([str(a) for a in args])
        except SystemExit as exc:  # argparse errors and --help
            code = exc.code if isinstance(exc.code, int) else 2
        cap = capsys.readouterr()
        return CliResult(code, cap.out, cap.err)

    return run
