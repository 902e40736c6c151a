"""An installed wheel finds the data it ships (instances, templates) without the source tree."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(ROOT)]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0 and "hatchling" in (res.stderr + res.stdout):
        pytest.skip("hatchling is not installed in this environment (pip install hatchling)")
    assert res.returncode == 0, res.stderr
    (whl,) = out.glob("emc-*.whl")
    return whl


@pytest.mark.slow
def test_wheel_contains_the_data(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert "emc/_data/instances/manifest.json" in names
    assert "emc/_data/instances/eternity2/e2pieces.txt" in names
    assert sum(n.startswith("emc/_data/instances/set2/") for n in names) == 171
    assert any(n.startswith("emc/_data/templates/") for n in names)


def test_unpacked_wheel_works_outside_the_source_tree(wheel, tmp_path):
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    code = (
        "import emc, emc.instances as I, pathlib;"
        "p = emc.load('meta-10x10'); e = emc.load('eternity2');"
        "assert p.size == '10x10' and e.hints;"
        "d = I.data_dir('instances'); assert '_data' in str(d), d;"
        "t = I.data_dir('templates'); assert '_data' in str(t), t;"
        "print(len(I.names(False)))"
    )
    env = dict(os.environ, PYTHONPATH=str(site))
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "177"


@pytest.mark.slow
@pytest.mark.parametrize("first", ["ortools", "highspy"])
def test_ortools_and_highspy_load_in_one_process(first):
    # Both ship libhighs.so.1; mismatched releases break whichever loads second.
    pytest.importorskip("ortools")
    pytest.importorskip("highspy")
    cp = "from ortools.sat.python import cp_model; m = cp_model.CpModel(); m.NewBoolVar('x'); cp_model.CpSolver().Solve(m)"
    hi = "import highspy; h = highspy.Highs(); h.setOptionValue('output_flag', False); h.run()"
    code = ";".join([cp, hi] if first == "ortools" else [hi, cp])
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-500:]


def test_numba_cache_falls_back_to_temp_when_nothing_else_can_be_written(monkeypatch):
    """A read-only install without a home folder made numba refuse to compile ("no locator
    available"); emc then points NUMBA_CACHE_DIR at a folder under the system's temp."""
    import tempfile

    import emc

    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setattr(emc._os, "access", lambda path, mode: False)
    emc._numba_cache_fallback()
    assert emc._os.environ["NUMBA_CACHE_DIR"].startswith(tempfile.gettempdir())
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    monkeypatch.setattr(emc._os, "access", lambda path, mode: True)
    emc._numba_cache_fallback()  # a writable place: numba's own choice stands
    assert "NUMBA_CACHE_DIR" not in emc._os.environ


def test_the_version_is_written_once():
    """pyproject.toml takes the version from emc/__init__.py: the installed metadata, `emc
    --version` and the exported headers agree."""
    import importlib.metadata
    from pathlib import Path

    import emc

    assert importlib.metadata.version("emc") == emc.__version__
    pyproject = (Path(__file__).parent.parent / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in pyproject and "\nversion =" not in pyproject



def test_the_readme_names_files_that_exist():
    # pictures, bench scripts and shell scripts the README points to (a renamed script or a
    # picture never committed would leave the README pointing at nothing)
    import re

    text = (ROOT / "README.md").read_text()
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    scripts = set(re.findall(r"\b((?:bench|scripts)/[\w.]+\.(?:py|sh))\b", text))
    assert images and scripts
    missing = [p for p in [*images, *sorted(scripts)] if not (ROOT / p).is_file()]
    assert not missing, missing
    for p in images:  # real PNG pictures, not pointers or empty files
        assert (ROOT / p).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
