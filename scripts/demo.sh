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
emc solve set2-7x7 -o "$out/set2-7x7.json" --render "$out/set2-7x7.png"
emc verify set2-7x7 "$out/set2-7x7.json"
emc export set2-6x6 --format clq -o "$out/set2-6x6.clq"
emc matheuristic meta-10x10 --time-limit 60 --seed 1 -o "$out/meta10.json" --result "$out/meta10-run.json" --render "$out/meta10.png"
