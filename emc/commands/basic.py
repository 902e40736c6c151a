"""The foundation commands: info, instances, convert, generate, verify, score, render, show."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from .. import instances as inst
from ..errors import InputError
from ..formats import (
    BOARD_FORMATS,
    PUZZLE_FORMATS,
    detect_board_format,
    format_board,
    format_puzzle,
    write_board,
    write_puzzle,
    _read_text,
)
from ..model import Board, Puzzle
from ..render import MAX_CELL_PIXELS, MIN_CELL_PIXELS, cell_pixels_for_digits
from ..score import verify
from .common import (
    add_command,
    board_url,
    check_board_letters,
    check_format_suffix,
    check_output_path,
    check_outputs,
    check_url,
    console,
    load_board,
    load_puzzle,
    non_negative_int,
    positive_int,
    print_url,
    puzzle_arg,
    seed_arg,
    styled,
    url_arg,
    whole_number,
)


def register(sub) -> None:
    p = add_command(
        sub, "info", "describe a puzzle: size, pieces, colours, hints, checks",
        "Print what a puzzle is made of and whether it passes the structural checks.",
        """
  emc info meta-16x16
  emc info eternity2 --json
  emc info my_puzzle.txt
""", cmd_info)
    puzzle_arg(p)
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")

    p = add_command(
        sub, "instances", "list the shipped instances",
        "List every puzzle shipped with emc, with size, colour counts and maximum score.\n"
        "Any NAME listed here works wherever a PUZZLE is asked for.",
        """
  emc instances
  emc instances --family set2 --min-size 10
  emc instances --json
""", cmd_instances)
    p.add_argument("--family", help="only this family (set2, eternity2, clues)")
    p.add_argument("--min-size", type=positive_int, default=0, metavar="N", help="only boards with both sides at least N")
    p.add_argument("--max-size", type=positive_int, default=10**9, metavar="N", help="only boards with both sides at most N")
    p.add_argument("--json", action="store_true", help="print JSON")

    p = add_command(
        sub, "convert", "convert a puzzle or a board between formats",
        "Convert a puzzle between the heule, wh and json formats, or (with --puzzle) a board\n"
        "between json, edges (the board_edges string of the online viewers) and url (a link to\n"
        "the community viewer at e2.bucas.name). A board INPUT may be such a link itself: put it\n"
        "in quotes, the shell reads '&' and '#'.",
        """
  emc convert eternity2 --to heule -o e2.txt
  emc convert meta-10x10 --to json -o meta10.json
  emc convert board.json --puzzle meta-10x10 --to edges
  emc convert board.edges --puzzle meta-10x10 --to json -o board.json
  emc convert board.json --puzzle eternity2 --to url
  emc convert 'https://e2.bucas.name/#board_w=16&board_h=16&board_edges=...' --puzzle eternity2 --to json -o board.json
""", cmd_convert)
    p.add_argument("input", metavar="INPUT", help="puzzle (file or instance name), or board (file or viewer link) "
                                                   "with --puzzle")
    p.add_argument("--puzzle", metavar="PUZZLE", help="INPUT is a board of this puzzle")
    p.add_argument("--to", required=True, metavar="FORMAT", help=f"puzzle: {', '.join(PUZZLE_FORMATS)}; board: {', '.join(BOARD_FORMATS)}")
    p.add_argument("-o", "--output", metavar="PATH", help="write here (default: print)")
    url_arg(p)
    p.add_argument("--json", action="store_true",
                   help="print what was converted, to which format and where as JSON (the text itself without -o)")

    p = add_command(
        sub, "generate", "generate a puzzle with a planted solution",
        "Draw a colour for every internal edge, cut the board into pieces, turn and shuffle them.\n"
        "How the colours are drawn is the model (--model): frame-inner (the default) draws frame\n"
        "colours between two frame cells and inner colours elsewhere (--frame-colours 0 draws\n"
        "every edge from the inner colours); uniform draws every edge from --colours K colours,\n"
        "frame and inner alike (Benoist and Bourreau's generator); frame-inner-balanced and\n"
        "uniform-balanced put each colour of a set on as many edges as every other, give or take\n"
        "one. --hardest draws at the colour counts where emc measured the solving cost of this\n"
        "size to peak (`emc hardness`), with --model the peak of that model. The same arguments\n"
        "give the same bytes on every machine.",
        """
  emc generate 8 8 --frame-colours 3 --inner-colours 5 --seed 1 -o p8.txt --solution p8-planted.json
  emc generate 16 16 --frame-colours 5 --inner-colours 17 --seed 7 --distinct -o e2like.json
  emc generate 12 6 --frame-colours 0 --inner-colours 6 --seed 3 -o wide.txt
  emc generate 9 9 --model uniform --colours 10 --seed 4 -o e9.json --solution e9-planted.json
  emc generate 8 8 --model frame-inner-balanced --frame-colours 3 --inner-colours 8 -o b8.json
  emc generate 7 7 --hardest --seed 1 -o hard7.json --solution hard7-planted.json
""", cmd_generate)
    from ..generate import DEFAULT_MODEL, MODELS

    p.add_argument("width", type=board_side, metavar="W", help="board width in cells (at least 2)")
    p.add_argument("height", type=board_side, metavar="H", help="board height in cells (at least 2)")
    p.add_argument("--model", choices=list(MODELS), default=None,
                   help="how the edge colours are drawn: " + "; ".join(f"{m.name}: {m.summary}" for m in MODELS.values())
                   + f" (default {DEFAULT_MODEL}; with --hardest, the hardest measured model)")
    p.add_argument("--hardest", action="store_true",
                   help="draw at the measured hardness peak of this size (the model and colour counts shipped with emc, "
                        "written into the file's provenance); takes no colour options")
    p.add_argument("--frame-colours", "--frame-colors", type=non_negative_int, default=None, metavar="F",
                   help="frame-inner models: colours between two frame cells (frame-inner: 0 draws the inner colours "
                        "everywhere)")
    p.add_argument("--inner-colours", "--inner-colors", type=positive_int, default=None, metavar="I",
                   help="frame-inner models: colours of every other internal edge")
    p.add_argument("--colours", "--colors", type=positive_int, default=None, metavar="K",
                   help="uniform models: colours of every internal edge")
    seed_arg(p, "the same seed and sizes give the same puzzle on every machine")
    p.add_argument("--distinct", action="store_true", help="redraw until no two pieces are equal up to rotation")
    p.add_argument("--name", help="puzzle name (default gen-WxH-fF-iI-sSEED, -distinct added with --distinct)")
    p.add_argument("-o", "--output", required=True, metavar="PUZZLE", help="puzzle file (.json, else the 'W H' text format)")
    p.add_argument("--format", choices=PUZZLE_FORMATS, help="puzzle format (default from the suffix)")
    p.add_argument("--solution", metavar="BOARD", help="also write the planted board (certificate)")
    p.add_argument("--url", action="store_true", help="also print the planted board's link to the community viewer "
                                                       "(e2.bucas.name)")
    p.add_argument("--json", action="store_true",
                   help="print the puzzle's summary (as `emc info --json`), the files written and the planted board's "
                        "score as JSON")

    for name, helptext in (("verify", "check a board completely; exit 0 only if valid"), ("score", "print every objective of a board")):
        p = add_command(
            sub, name, helptext,
            ("Check that BOARD is a valid placement for PUZZLE (size, each piece at most once,\n"
             "rotations, every cell filled, border colour exactly on the frame, hints) and print\n"
             "its scores: obj1 matched edges, obj2 complete 2x2 blocks, obj3 perfect pieces,\n"
             "obj4/obj5 complete 3x3/4x4 blocks.\n"
             "Exit status: 0 valid, 1 invalid, 2 bad input." if name == "verify" else
             "Print the scores of BOARD for PUZZLE, valid or not: obj1 matched edges, obj2 complete\n"
             "2x2 blocks, obj3 perfect pieces, obj4/obj5 complete 3x3/4x4 blocks (`emc verify`\n"
             "checks validity; here --json also has a 'valid' field, which --partial and --no-hints\n"
             "relax).\n"
             "Exit status: 0 whenever the board could be read, 2 bad input."),
            f"""
  emc {name} meta-10x10 board.json
  emc {name} set2-8x8 board.edges --json
  emc {name} eternity2 board.json --no-hints
""", cmd_verify if name == "verify" else cmd_score)
        puzzle_arg(p)
        p.add_argument("board", metavar="BOARD", help="board file (emc JSON or board_edges string) or viewer link")
        p.add_argument("--partial", action="store_true", help="allow empty cells")
        p.add_argument("--no-hints", action="store_true", help="do not require the puzzle's hints")
        p.add_argument("--json", action="store_true", help="print JSON")
        p.add_argument("--any-puzzle", action="store_true", help="skip the check that the board was made for this puzzle")

    p = add_command(
        sub, "render", "draw a board (PNG, SVG, PDF, an HTML page or the terminal)",
        "Draw each piece as four triangles in its edge colours, with unmatched edges marked red\n"
        "and hint cells marked by a dashed square. Without BOARD, draws the pieces in file order,\n"
        "unturned. An .html file is one page that needs nothing else: piece numbers at a click,\n"
        "each cell's piece, turn and colours under the pointer, and a button that copies the\n"
        "board_edges string.",
        """
  emc render meta-10x10 board.json -o board.png
  emc render meta-10x10 board.json -o board.svg --numbers
  emc render eternity2 board.json -o board.html
  emc render set2-6x6 board.json --terminal
  emc render clue1 -o clue1-pieces.png --numbers
""", cmd_render)
    puzzle_arg(p)
    p.add_argument("board", nargs="?", metavar="BOARD", help="board file or viewer link (default: the pieces in order)")
    p.add_argument("-o", "--output", metavar="PATH", help="picture file: .png, .svg or .pdf, or .html for a page")
    p.add_argument("--numbers", action="store_true", help="print piece numbers on the pieces (on a page: at first)")
    p.add_argument("--terminal", action="store_true", help="draw in the terminal (default when no -o)")
    p.add_argument("--no-marks", action="store_true", help="do not mark unmatched edges")
    p.add_argument("--cell-pixels", type=cell_pixels, default=40, metavar="N",
                   help=f"cell size in the PNG, and on a page as it opens, {MIN_CELL_PIXELS} to {MAX_CELL_PIXELS} "
                        f"(default 40; a picture with --numbers needs at least {cell_pixels_for_digits(2)} for "
                        f"two-digit piece numbers, {cell_pixels_for_digits(3)} for three)")
    p.add_argument("--any-puzzle", action="store_true", help="skip the check that the board was made for this puzzle")
    p.add_argument("--json", action="store_true",
                   help="print a summary as JSON instead of the terminal drawing: the file and its format, the "
                        "board's score, its unmatched edges and hint cells")


# ------------------------------------------------------------------ handlers
def puzzle_summary(p: Puzzle) -> dict:
    counts = p.class_counts()
    d = {
        "name": p.name,
        "width": p.width,
        "height": p.height,
        "pieces": p.n_pieces,
        "corner_pieces": counts["corner"],
        "edge_pieces": counts["edge"],
        "inner_pieces": counts["inner"],
        "colours": p.n_colours,
        "frame_colours": list(p.frame_colours),
        "inner_colours": list(p.inner_colours),
        "shared_colours": list(p.shared_colours),
        "max_score": p.max_score,
        "hints": [[h.cell // p.width + 1, h.cell % p.width + 1, h.piece + 1, h.rotation] for h in p.hints],
        "duplicate_pieces": [[a + 1, b + 1] for a, b in p.duplicate_pieces()],  # (first of its group, a copy)
        "duplicate_groups": [[x + 1 for x in g] for g in p.duplicate_groups()],
        "sha256": p.sha256,
        "problems": p.structure_problems(),
        "provenance": p.provenance,
    }
    return d


def cmd_info(args) -> int:
    p = load_puzzle(args.puzzle)
    d = puzzle_summary(p)
    if args.json:
        console.print_json(json.dumps(d))
        return 0
    from rich.table import Table

    t = Table(title=f"{p.name}", show_header=False, box=None, pad_edge=False)
    t.add_column(style="bold")
    t.add_column()
    t.add_row("board", f"{p.width} x {p.height} ({p.n_cells} cells)")
    t.add_row("pieces", f"{d['corner_pieces']} corner, {d['edge_pieces']} edge, {d['inner_pieces']} inner")
    shared = f"; {len(p.shared_colours)} of them both: {list(p.shared_colours)}" if p.shared_colours else ""
    t.add_row("colours", f"{len(p.frame_colours)} frame {list(p.frame_colours)}, {len(p.inner_colours)} inner{shared}")
    t.add_row("max score", f"{p.max_score} internal edges")
    if p.hints:
        t.add_row("hints", "; ".join(f"piece {h[2]} on row {h[0]} col {h[1]}, rotation {h[3]}" for h in d["hints"]))
    else:
        t.add_row("hints", "none")
    groups = d["duplicate_groups"]
    copies = sum(len(g) - 1 for g in groups)
    def group_text(g: list[int]) -> str:  # a group of thousands of copies is cut short too
        return " = ".join(map(str, g)) if len(g) <= 8 else " = ".join(map(str, g[:6])) + f" = ... ({len(g):,} pieces)"

    shown = ", ".join(group_text(g) for g in groups[:12]) + (", ..." if len(groups) > 12 else "")
    t.add_row("duplicates", "none" if not groups else
              f"{len(groups)} group{'s' if len(groups) != 1 else ''} of pieces equal up to rotation ({copies} extra "
              f"cop{'ies' if copies != 1 else 'y'}): {shown}")
    t.add_row("sha256", p.sha256)
    for k in ("instance", "repository", "path", "commit", "licence", "file", "generator", "seed"):
        if k in p.provenance:
            t.add_row(k, str(p.provenance[k]))
    t.add_row("checks", "passed" if not d["problems"] else "; ".join(d["problems"]))
    if console.is_terminal:
        console.print(t)
    else:  # piped: no run of spaces after each line (rich pads the last column to its widest value)
        with console.capture() as cap:
            console.print(t)
        console.file.write("".join(line.rstrip() + "\n" for line in cap.get().splitlines()))
    return 0


def cmd_instances(args) -> int:
    if args.min_size > args.max_size:
        raise InputError(f"--min-size {args.min_size} is above --max-size {args.max_size}: no board fits both")
    rows = []
    for name in inst.names(include_aliases=False):
        i = inst.info(name)
        if args.family and i.family != args.family:
            continue
        if min(i.width, i.height) < args.min_size or max(i.width, i.height) > args.max_size:
            continue
        rows.append(i)
    if args.family and not rows and args.family not in {inst.info(n).family for n in inst.names(False)}:
        from ..errors import UnknownNameError

        raise UnknownNameError("family", args.family, sorted({inst.info(n).family for n in inst.names(False)}))
    if args.json:
        console.print_json(json.dumps([
            {"name": i.name, "aliases": list(i.aliases), "width": i.width, "height": i.height, "pieces": i.n_pieces,
             "frame_colours": i.frame_colours, "inner_colours": i.inner_colours, "max_score": i.max_score,
             "hints": len(i.hints), "known": i.known, "family": i.family, "file": i.file} for i in rows]))
        return 0
    from rich.table import Table

    t = Table(title=f"{len(rows)} shipped instances", header_style="bold")
    for col, just in (("name", "left"), ("aliases", "left"), ("size", "right"), ("pieces", "right"), ("frame col.", "right"),
                      ("inner col.", "right"), ("max score", "right"), ("hints", "right"), ("answer", "left")):
        t.add_column(col, justify=just)
    for i in rows:
        t.add_row(i.name, ", ".join(i.aliases), i.size, str(i.n_pieces), str(i.frame_colours), str(i.inner_colours),
                  str(i.max_score), str(len(i.hints)) if i.hints else "", i.known)
    console.print(t)
    return 0


def board_side(text: str) -> int:
    import argparse

    v = whole_number(text)
    if v < 2:
        raise argparse.ArgumentTypeError(f"{v} must be at least 2")
    return v


def cell_pixels(text: str) -> int:
    import argparse

    v = whole_number(text)
    if not MIN_CELL_PIXELS <= v <= MAX_CELL_PIXELS:
        raise argparse.ArgumentTypeError(f"{v} is not {MIN_CELL_PIXELS} to {MAX_CELL_PIXELS}")
    return v


def cmd_convert(args) -> int:
    if args.output:
        check_output_path(args.output)
        check_format_suffix(args.output, args.to, "--to")
    if args.puzzle:
        puzzle = load_puzzle(args.puzzle)
        if args.to not in BOARD_FORMATS:
            from ..errors import UnknownNameError

            raise UnknownNameError("board format", args.to, BOARD_FORMATS)
        if args.to in ("edges", "url"):  # named here: the puzzle has the colours past 'z', not the board
            from ..formats import EDGES_MAX_COLOUR

            if puzzle.max_colour > EDGES_MAX_COLOUR:
                what = "board_edges has" if args.to == "edges" else "the viewer's links have"
                raise InputError(f"{what} letters for colours 0 to {EDGES_MAX_COLOUR} ('a' to 'z') and this "
                                 f"puzzle has colour {puzzle.max_colour}: convert its boards --to json", args.puzzle)
        check_url(args, puzzle)
        if not _is_link(args.input):  # a link is read as it is, a file's text must be a board
            text = _read_text(args.input)
            if detect_board_format(text) is None:
                raise InputError("unknown board format: expected emc JSON, a board_edges letter string or a viewer "
                                 "link", args.input, 1)
        board = load_board(args.input, puzzle)
        text = None
        if args.output:
            write_board(board, puzzle, args.output, args.to)
        else:
            text = format_board(board, puzzle, args.to)
        if args.json:
            _print_json(_converted(args, "board", puzzle, text) | ({"url": board_url(args, puzzle, board)}
                                                                     if args.url else {}))
            return 0
        if args.output:
            console.print(f"wrote {args.output} ({args.to})")
        else:
            print(text, end="")
        if args.output or args.to != "url":  # else the link is what was printed
            print_url(args, puzzle, board)
        return 0
    if args.url:
        raise InputError("--url prints a board's link: to convert a board, give its puzzle with --puzzle")
    if _is_link(args.input):
        raise InputError("this is a viewer link to a board, not a puzzle: give the board's puzzle with --puzzle")
    if args.to not in PUZZLE_FORMATS:
        from ..errors import UnknownNameError

        if args.to in BOARD_FORMATS:
            raise InputError(f"{args.to!r} is a board format: to convert a board, give its puzzle with --puzzle "
                             f"(puzzle formats: {', '.join(PUZZLE_FORMATS)})")
        raise UnknownNameError("puzzle format", args.to, PUZZLE_FORMATS)
    try:
        puzzle = load_puzzle(args.input)
    except InputError:
        from pathlib import Path

        if Path(args.input).is_file() and detect_board_format(_read_text(args.input)) is not None:
            raise InputError("this is a board, not a puzzle: give its puzzle with --puzzle to convert it",
                             args.input) from None
        raise
    text = None
    if args.output:
        write_puzzle(puzzle, args.output, args.to)
    else:
        text = format_puzzle(puzzle, args.to)
    if args.json:
        _print_json(_converted(args, "puzzle", puzzle, text))
    elif args.output:
        console.print(f"wrote {args.output} ({args.to}, {puzzle.size}, {puzzle.n_pieces} pieces)")
    else:
        print(text, end="")
    return 0


def _converted(args, kind: str, puzzle: Puzzle, text: str | None) -> dict:
    """`emc convert --json`: what was converted, to which format, and where (or the text)."""
    return {"kind": kind, "input": args.input, "puzzle": puzzle.name, "to": args.to,
            "files": [args.output] if args.output else [], "text": text}


def _print_json(d: dict) -> None:
    console.print_json(json.dumps(d))


def _is_link(text: str) -> bool:
    """Whether a board argument is a viewer link rather than a file name."""
    from ..formats import looks_like_url

    return looks_like_url(text) and not Path(text).exists()


def cmd_generate(args) -> int:
    from ..generate import DEFAULT_MODEL, generate_hardest, generate_model

    check_outputs((args.output, "puzzle"), (args.solution, "solution"))
    check_format_suffix(args.output, args.format)
    if args.hardest:
        given = [o for o, v in (("--frame-colours", args.frame_colours), ("--inner-colours", args.inner_colours),
                                ("--colours", args.colours)) if v is not None]
        if given:
            raise InputError(f"--hardest takes its colour counts from the measured peak: drop {', '.join(given)}")
        puzzle, planted = generate_hardest(args.width, args.height, args.seed, args.model, distinct=args.distinct,
                                           name=args.name)
        model = puzzle.provenance.get("model", DEFAULT_MODEL)
        asked = {k: puzzle.provenance[k] for k in ("frame_colours", "inner_colours", "colours") if k in puzzle.provenance}
    else:
        model = args.model or DEFAULT_MODEL
        asked = {"frame_colours": args.frame_colours, "inner_colours": args.inner_colours, "colours": args.colours}
        puzzle, planted = generate_model(model, args.width, args.height, args.seed, distinct=args.distinct,
                                         name=args.name, **asked)
    if args.name is not None:  # checked as a name first, by generate()
        from ..formats import puzzle_format_for

        if puzzle_format_for(puzzle, args.output, args.format) != "json":
            raise InputError("--name: the 'W H' and Heule formats hold no name (a puzzle read from them is named "
                             "after its file): write .json (or --format json) to keep it", args.output)
    check_board_letters(puzzle, args.solution, "solution")  # before the puzzle is written
    check_url(args, puzzle)
    fmt = write_puzzle(puzzle, args.output, args.format)
    plural = "s" if puzzle.n_colours != 1 else ""
    fewer = False
    if model == "uniform":
        colours = (f"{puzzle.n_colours} colour{plural}, drawn uniformly on the frame "
                   "and inside alike (uniform model)")
        if puzzle.n_colours < asked["colours"]:
            colours += f" (asked for {asked['colours']}: a {puzzle.size} board shows no more)"
    elif model == "uniform-balanced":
        colours = (f"{puzzle.n_colours} colour{plural}, each on as many edges as the others give or take one, on the "
                   "frame and inside alike (uniform-balanced model)")
    elif model == "frame-inner-balanced":
        colours = (f"{len(puzzle.frame_colours)} frame + {len(puzzle.inner_colours)} inner colours, each on as many "
                   "edges as the others of its set give or take one (frame-inner-balanced model)")
    elif asked["frame_colours"] == 0:
        colours = f"{puzzle.n_colours} colour{plural}, on the frame and inside alike"
        fewer = puzzle.n_colours < asked["inner_colours"]
    else:
        colours = f"{len(puzzle.frame_colours)} frame + {len(puzzle.inner_colours)} inner colours"
        fewer = (len(puzzle.frame_colours), len(puzzle.inner_colours)) != (asked["frame_colours"],
                                                                          asked["inner_colours"])
    if fewer:  # the board has fewer edges of a kind than colours were asked for
        colours += (f" (asked for {asked['frame_colours']} + {asked['inner_colours']}: a {puzzle.size} board shows "
                    "no more)")
    if args.hardest:
        h = puzzle.provenance["hardest"]
        at_least = "at least " if h.get("median_is_lower_bound") else ""  # most of its solves hit the limit
        colours += (f"; the measured hardness peak of {puzzle.size} ({model}: median {at_least}{h['median']:.3g} "
                    f"{h['cost']} with {h.get('solver') or h['backend']})")
    if args.solution:
        write_board(planted, puzzle, args.solution, extra={"certificate": "planted solution"})
    from ..score import score

    planted_score = score(puzzle, planted)  # the maximum, unless the generator is wrong
    if args.json:
        _print_json({"puzzle": puzzle_summary(puzzle), "format": fmt, "seed": args.seed,
                     "files": [args.output] + ([args.solution] if args.solution else []),
                     "solution": args.solution, "planted_score": planted_score, "max_score": puzzle.max_score,
                     **({"url": board_url(args, puzzle, planted)} if args.url else {})})
        return 0
    console.print(f"wrote {args.output} ({fmt}): {puzzle.size}, {colours}, seed {args.seed}")
    if args.solution:
        console.print(f"wrote {args.solution}: planted solution, score {planted_score}/{puzzle.max_score}")
    print_url(args, puzzle, planted)
    return 0


def _report(args, puzzle: Puzzle, board: Board):
    return verify(puzzle, board, allow_partial=args.partial, check_hints=not args.no_hints)


def _print_report(args, puzzle: Puzzle, board: Board, rep, show_validity: bool) -> None:
    s = rep.scores
    if args.json:
        console.print_json(json.dumps({
            "puzzle": puzzle.name, "valid": rep.valid, "complete": rep.complete, "solved": rep.solved,
            "problems": rep.problems, **s}))
        return
    if show_validity:
        status = ("valid", "bold green") if rep.valid else ("INVALID", "bold red")
        console.print(styled(f"{puzzle.name} {puzzle.size}: ", status, " and solved" if rep.solved else ""))
        for prob in rep.problems[:20]:
            console.print(f"  - {prob}")
        if len(rep.problems) > 20:
            console.print(f"  ... {len(rep.problems) - 20} more problems")
    if s:
        console.print(f"score {s['score']}/{s['max_score']} ({s['mismatches']} unmatched)  "
                      f"obj2 {s['obj2']}  obj3 {s['obj3']}  obj4 {s['obj4']}  obj5 {s['obj5']}")


def cmd_verify(args) -> int:
    puzzle = load_puzzle(args.puzzle)
    board = load_board(args.board, puzzle, check_puzzle=not args.any_puzzle, repeats=True)
    rep = _report(args, puzzle, board)
    _print_report(args, puzzle, board, rep, True)
    return 0 if rep.valid else 1


def cmd_score(args) -> int:
    puzzle = load_puzzle(args.puzzle)
    board = load_board(args.board, puzzle, check_puzzle=not args.any_puzzle, repeats=True)
    rep = _report(args, puzzle, board)
    _print_report(args, puzzle, board, rep, False)
    return 0


def cmd_render(args) -> int:
    from ..render import render, terminal_view

    puzzle = load_puzzle(args.puzzle)
    if args.board:
        board = load_board(args.board, puzzle, check_puzzle=not args.any_puzzle)
        marks = not args.no_marks
        title = None
    else:
        board = Board(puzzle.width, puzzle.height, np.arange(puzzle.n_cells), np.zeros(puzzle.n_cells))
        marks = False
        title = f"{puzzle.name}: the {puzzle.n_pieces} pieces in file order"
    hints = bool(args.board)  # the pieces in file order stand on no hint's cell
    if args.output:
        check_output_path(args.output, "picture")
        render(puzzle, board, args.output, numbers=args.numbers, mark_mismatches=marks, title=title,
               cell_pixels=args.cell_pixels, mark_hints=hints)
    if args.json:  # instead of the terminal drawing, which would break it (--terminal is refused with it)
        _print_json(_render_summary(args, puzzle, board if args.board else None, marks))
        return 0
    if args.output:
        console.print(f"wrote {args.output}")
    if args.terminal or not args.output:
        console.print(terminal_view(puzzle, board, numbers=args.numbers, marks=marks, hints=hints))
    return 0


def _render_summary(args, puzzle: Puzzle, board: Board | None, marks: bool) -> dict:
    """`emc render --json`: the picture written (if any), and what it shows of the board: its
    score, the red bars (unmatched edges, and frame sides not showing the border) and the hint
    cells, each with whether the board keeps its hint."""
    from ..drawing import mismatch_bars, picture_format
    from ..score import scores

    s = scores(puzzle, board) if board is not None else None
    return {
        "puzzle": puzzle.name, "board": args.board,
        "files": [args.output] if args.output else [],
        "format": picture_format(args.output) if args.output else None,
        "score": s["score"] if s else None, "max_score": puzzle.max_score,
        "mismatches": s["mismatches"] if s else None,
        "complete": bool(board.is_complete) if board is not None else None,
        "marked_edges": [words for _, _, words in mismatch_bars(puzzle, board)] if board is not None and marks else [],
        "hints": [{"cell": puzzle.cell_label(h.cell), "piece": h.piece + 1, "rotation": h.rotation,
                   "kept": board is not None and int(board.piece[h.cell]) == h.piece
                   and int(board.rotation[h.cell]) == h.rotation}
                  for h in puzzle.hints] if board is not None else [],
    }
