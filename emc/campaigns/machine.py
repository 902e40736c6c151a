"""What machine a run ran on, recorded with every run (the idea of benchopt's ``sys_info``):
the CPU model and its widest vector extension, cores, memory, the operating system, Python and
the versions of the libraries that set the speed of emc's kernels, and emc's own version.

Runs of one campaign may come from several machines (a Dask cluster); the store keeps each
distinct record once (by :func:`fingerprint`) and every run points at its own.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import socket


def _cpu() -> tuple[str, str]:
    model, flags = None, set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name") and model is None:
                    model = line.split(":", 1)[1].strip()
                elif line.startswith("flags") and not flags:
                    flags = set(line.split(":", 1)[1].split())
    except OSError:
        pass
    if model is None:  # not Linux, or an ARM /proc/cpuinfo without "model name"
        import subprocess

        try:
            out = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=5).stdout
            model = next((ln.split(":", 1)[1].strip() for ln in out.splitlines() if ln.startswith("Model name")), None)
        except (OSError, subprocess.SubprocessError):
            pass
    vector = next((name for flag, name in (("avx512f", "AVX-512"), ("avx2", "AVX2"), ("neon", "NEON")) if flag in flags),
                  "")
    return model or platform.processor() or "unknown", vector


def _memory_gib() -> float | None:
    try:
        with open("/proc/meminfo") as f:
            return round(int(f.readline().split()[1]) / 1024 / 1024, 1)
    except (OSError, ValueError, IndexError):
        return None


def _version(module: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(module)
    except metadata.PackageNotFoundError:
        return None


@functools.lru_cache(maxsize=1)
def machine() -> dict:
    """This machine, as a JSON-ready record (computed once per process)."""
    from .. import __version__

    cpu, vector = _cpu()
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = os.cpu_count()
    return {
        "host": socket.gethostname(),
        "cpu": cpu,
        "vector": vector,
        "cores": os.cpu_count(),
        "usable_cores": usable,
        "memory_gib": _memory_gib(),
        "os": platform.platform(),
        "python": platform.python_version(),
        "numpy": _version("numpy"),
        "numba": _version("numba"),
        "highspy": _version("highspy"),
        "ortools": _version("ortools"),
        "emc": __version__,
    }


def fingerprint(record: dict) -> str:
    return hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()[:16]


def describe(record: dict) -> str:
    """One line: CPU (vector extension), cores, memory, Python, libraries, host."""
    cpu = record.get("cpu", "unknown CPU") + (f" ({record['vector']})" if record.get("vector") else "")
    parts = [cpu, f"{record.get('cores')} cores"]
    if record.get("memory_gib"):
        parts.append(f"{record['memory_gib']:g} GiB")
    parts.append(f"Python {record.get('python')}")
    parts += [f"{k} {record[k]}" for k in ("numpy", "numba") if record.get(k)]
    parts.append(f"emc {record.get('emc')}")
    parts.append(f"host {record.get('host')}")
    return ", ".join(parts)
