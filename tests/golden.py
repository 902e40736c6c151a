"""Golden files: exported artefacts compared byte for byte with tests/golden/.

Run with ``EMC_UPDATE_GOLDEN=1`` to rewrite the golden copies after an intended change;
the diff then shows the change in review.
"""

from __future__ import annotations

import difflib
import os
import shutil
from pathlib import Path

GOLDEN = Path(__file__).parent / "golden"


def assert_golden(written: str | os.PathLike, name: str) -> None:
    """``written`` must equal ``tests/golden/<name>`` byte for byte."""
    written = Path(written)
    target = GOLDEN / name
    if os.environ.get("EMC_UPDATE_GOLDEN"):
        import warnings

        target.parent.mkdir(parents=True, exist_ok=True)
        changed = not target.exists() or target.read_bytes() != written.read_bytes()
        shutil.copyfile(written, target)
        if changed:  # the run's warnings list every rewrite (a test may write several files)
            warnings.warn(f"golden file {name} rewritten", stacklevel=2)
        return
    assert target.exists(), f"no golden file {target}; run the test with EMC_UPDATE_GOLDEN=1 to create it"
    got, want = written.read_bytes(), target.read_bytes()
    if got != want:
        try:
            diff = "".join(list(difflib.unified_diff(
                want.decode().splitlines(True), got.decode().splitlines(True), str(target), str(written)))[:60])
        except UnicodeDecodeError:
            diff = f"binary files differ ({len(want)} vs {len(got)} bytes)"
        raise AssertionError(f"{written.name} differs from golden {name}:\n{diff}")
