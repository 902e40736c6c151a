"""Draw the curves of docs/hardness.md from the sweeps kept beside it, and print their tables.

Each sweep is the ``--json`` output of an ``emc hardness`` run, kept as
``docs/hardness/WxH-MODEL-MEASURE.json``; this script draws ``WxH-MODEL-MEASURE.png`` next to it
(the same picture ``emc hardness -o`` draws) and prints one Markdown table per sweep, to paste
into the page. Run from the repository root: ``python tools/hardness_docs.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from emc.hardness import plot  # noqa: E402


def table(d: dict) -> str:
    one = "colours" in d["points"][0]["params"]
    head = "| K |" if one else "| F | I |"
    unit = "nodes" if d["cost"] == "nodes" else "s"
    lines = [f"{head} median {unit} | min | max | stopped | log10 E[sol] |",
             "|" + "---|" * (head.count("|") - 1 + 5)]
    for p in d["points"]:
        cols = [str(p["params"]["colours"])] if one else [str(p["params"]["frame_colours"]),
                                                          str(p["params"]["inner_colours"])]
        med = ("≥ " if p["median_is_lower_bound"] else "") + f"{p['median']:.3g}"
        if p["params"] == d["peak"]["params"]:
            med = f"**{med}** (peak)"
        lines.append("| " + " | ".join(cols + [med, f"{min(p['costs']):.3g}", f"{max(p['costs']):.3g}",
                                             f"{p['timeouts']}/{p['instances']}",
                                             f"{p['log10_expected_solutions']:.1f}"]) + " |")
    return "\n".join(lines)


def main() -> None:
    for path in sorted((ROOT / "docs" / "hardness").glob("*.json")):
        d = json.loads(path.read_text())
        plot(d, path.with_suffix(".png"))
        print(f"### {path.stem}\n\n{table(d)}\n")


if __name__ == "__main__":
    main()
