#!/usr/bin/env bash
# Create .venv with emc and everything its backends and tests need, and install
# MiniZinc + Gecode from Debian when they are missing. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v minizinc >/dev/null 2>&1 || ! command -v fzn-gecode >/dev/null 2>&1; then
    echo "== installing MiniZinc and Gecode (Debian packages minizinc, flatzinc)"
    SUDO=""
    if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get install -y -qq --no-install-recommends minizinc flatzinc >/dev/null 2>&1 || {
        $SUDO apt-get update -qq >/dev/null
        $SUDO apt-get install -y -qq --no-install-recommends minizinc flatzinc >/dev/null
    }
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    echo "== creating .venv"
    "$PY" -m venv .venv
fi
echo "== installing emc with all backends into .venv"
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e ".[all,test]"
