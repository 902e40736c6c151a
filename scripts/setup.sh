#!/usr/bin/env bash
# Create .venv with emc and everything its backends, tests and documentation need, and install
# MiniZinc + Gecode and Chromium (the browser the HTML page's tests drive) from Debian when
# they are missing. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

# apt_install "what it is" PACKAGE...: install Debian packages, updating the package lists
# only when the first try cannot find them.
apt_install() {
    local what=$1
    shift
    echo "== installing $what (Debian packages $*)"
    SUDO=""
    if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1 || {
        $SUDO apt-get update -qq >/dev/null
        $SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null
    }
}

if ! command -v minizinc >/dev/null 2>&1 || ! command -v fzn-gecode >/dev/null 2>&1; then
    apt_install "MiniZinc and Gecode" minizinc flatzinc
fi
if ! command -v chromium >/dev/null 2>&1; then
    apt_install "Chromium, for the tests of the HTML board page" chromium
fi

# pip on this kind of machine warns about every unreachable local index; show only real output,
# and everything when pip fails.
run_pip() {
    local log
    log=$(mktemp)
    if ! "$@" >"$log" 2>&1; then cat "$log"; rm -f "$log"; return 1; fi
    grep -v -E "WARNING: (Location '|Running pip as)|^\s*$|warnings/venv" "$log" || true
    rm -f "$log"
}

PY=${PYTHON:-python3}
# A .venv left broken (no pip: python3-venv missing when it was made) or made by another Python
# than the one asked for is made again.
if [ -x .venv/bin/python ] && { ! .venv/bin/python -m pip --version >/dev/null 2>&1 \
        || [ "$(.venv/bin/python -c 'import sys; print(sys.version_info[:2])')" != "$("$PY" -c 'import sys; print(sys.version_info[:2])')" ]; }; then
    echo "== .venv has no pip or another Python: making it again"
    rm -rf .venv
fi
if [ ! -x .venv/bin/python ]; then
    echo "== creating .venv"
    "$PY" -m venv .venv || { echo "python -m venv failed: on Debian/Ubuntu, apt-get install python3-venv"; exit 1; }
fi
echo "== installing emc with all backends, test and documentation tools into .venv"
run_pip .venv/bin/python -m pip install -q --upgrade pip
run_pip .venv/bin/python -m pip install -q -e ".[all,test,docs]"
