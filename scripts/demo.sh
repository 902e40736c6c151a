#!/usr/bin/env bash
# Install emc (see setup.sh) and run the main job on shipped and generated instances.
# Everything it writes goes to generated/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$PWD/.venv/bin:$PATH"
out=generated/demo
mkdir -p "$out"
set -x
emc info meta-16x16
emc generate 16 16 --frame-colours 5 --inner-colours 17 --seed 1 -o "$out/planted16.txt" --solution "$out/planted16.json"
emc verify "$out/planted16.txt" "$out/planted16.json"
emc render "$out/planted16.txt" "$out/planted16.json" -o "$out/planted16.png" --numbers
emc convert "$out/planted16.json" --puzzle "$out/planted16.txt" --to edges -o "$out/planted16.edges"
