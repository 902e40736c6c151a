#!/usr/bin/env bash
# Redraw the README's pictures in docs/ (about 25 s): set 2's 8x8 solved by the scan-row
# search (seed 8 answers in 12 to 20 s on two cores) and Eternity II after the greedy
# construction with HiGHS (about 8 s), its unmatched edges marked red.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.venv/bin:$PATH"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
emc solve set2-8x8 --seed 8 -o "$tmp/set2-8x8.json"
emc render set2-8x8 "$tmp/set2-8x8.json" -o docs/set2-8x8-solved.png --numbers
emc construct eternity2 -b highs -o "$tmp/eternity2.json"
emc render eternity2 "$tmp/eternity2.json" -o docs/eternity2-greedy.png --cell-pixels 28
