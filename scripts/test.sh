#!/usr/bin/env bash
# Install everything (see setup.sh) and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo "== running the test suite"
.venv/bin/python -m pytest -q "$@"
