#!/usr/bin/env bash
# Install everything (see setup.sh), check the code and the layers, and run the whole test
# suite (arguments go to pytest: `bash scripts/test.sh -m "not slow"` is the quick tier).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo "== ruff check"
.venv/bin/ruff check emc tests bench tools
echo "== import layers (lint-imports, the contract in pyproject.toml)"
.venv/bin/lint-imports
echo "== running the test suite"
.venv/bin/python -m pytest -q "$@"
