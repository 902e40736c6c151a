"""Planted-solution puzzles, like the benchmark sets of the literature.

A colour is drawn for every internal edge of a W x H board; sides on the frame get the border
colour 0. Cutting the board into pieces gives a puzzle with a known perfect solution (the
*planted* board); the pieces are then turned and shuffled at random. How the edge colours are
drawn is the *model* (:data:`MODELS`, ``emc generate --model``):

* ``frame-inner`` (the default, :func:`generate`): one of ``frame_colours`` for the edges
  between two frame cells, one of ``inner_colours`` for every other internal edge, numbered
  ``1..F`` for the frame and ``F+1..F+I`` inside. With ``frame_colours == 0`` every edge draws
  from the ``inner_colours``.
* ``uniform`` (:func:`generate_uniform`): every internal edge, frame and inner alike, one of
  ``colours`` colours ``1..K`` drawn uniformly: the generator of Benoist and Bourreau (seed
  002, section 6), whose benchmark ``emc suite --generate WxH:uniform:K:SEEDS`` rebuilds. It
  draws what ``frame-inner`` draws with no frame colours and K inner ones (the same pieces
  for the same seed), under its own name and provenance.
* ``frame-inner-balanced`` (:func:`generate_balanced`) and ``uniform-balanced``
  (:func:`generate_uniform_balanced`): the same two colour layouts, but each colour of a set is
  put on as many edges as every other one, give or take one (which colours get the one more is
  drawn), and the colours are then dealt to the edges in a random order. Eternity II itself is
  balanced so (12 edges for each of its 5 frame colours, 24 or 25 for each of its 17 inner
  ones), and so are set 2's puzzles; the edge-matching papers of Ansotegui, Bejar, Fernandez
  and Mateu (CP 2008; Constraints 18(1), 2013) cite their study of balancing and problem
  hardness (with Gomes, AAAI 2006). At 6x6 emc measured the balanced two-set model hardest
  (docs/hardness.md).

``frame-inner`` is the generator of Heule's ``em_N_F_I`` benchmarks (F frame colours between
two frame cells, I inner colours elsewhere) and the *two-set* framed model of Ansotegui et al.;
``uniform`` is their *one-set* framed model. :func:`hardest_peak` reads the colour counts where
the solving cost peaked in emc's own measurements (``instances/hardness/peaks.json``, written
by ``emc hardness``), and :func:`generate_hardest` draws a puzzle there.

The random stream is :class:`emc.rng.StableRng`, so a seed gives the same bytes on every
machine. A new model is one more entry of :data:`MODELS` and a function drawing it.
"""

from __future__ import annotations

import numpy as np

from dataclasses import dataclass
from typing import Callable

from .errors import InputError
from .model import BORDER, MAX_COLOUR, Board, Puzzle
from .rng import StableRng


def generate(
    width: int,
    height: int,
    frame_colours: int,
    inner_colours: int,
    seed: int = 0,
    distinct: bool = False,
    max_tries: int = 1000,
    name: str | None = None,
) -> tuple[Puzzle, Board]:
    """A random puzzle with a planted solution.

    Args:
        width: board width, in columns (at least 2).
        height: board height, in rows (at least 2).
        frame_colours: colours for edges between two frame cells (0: use the inner colours).
        inner_colours: colours for every other internal edge (at least 1).
        seed: random seed; the same arguments always give the same puzzle.
        distinct: redraw until no two pieces are equal up to rotation.
        max_tries: redraws allowed with ``distinct`` before giving up.
        name: puzzle name (default ``gen-WxH-fF-iI-sSEED``, with ``-distinct`` after it for
            ``distinct``, which draws another puzzle from the same seed).

    Returns:
        ``(puzzle, planted_board)``: the planted board scores the maximum.

    Raises:
        InputError: on impossible parameters, or when ``distinct`` cannot be met.
    """
    _check_whole(width=width, height=height, frame_colours=frame_colours, inner_colours=inner_colours, seed=seed,
                 max_tries=max_tries)
    if inner_colours < 1 or frame_colours < 0:
        raise InputError("need at least 1 inner colour and a non-negative number of frame colours")
    if frame_colours + inner_colours > MAX_COLOUR:
        raise InputError(f"{frame_colours} frame and {inner_colours} inner colours: at most {MAX_COLOUR} in all")
    # distinct gives another puzzle from the same seed (a later draw), so another name
    name = name or f"gen-{width}x{height}-f{frame_colours}-i{inner_colours}-s{seed}" + ("-distinct" if distinct else "")
    return _generate(width, height, frame_colours, inner_colours, seed, distinct, max_tries, name,
                     {"frame_colours": frame_colours, "inner_colours": inner_colours})


def generate_uniform(
    width: int,
    height: int,
    colours: int,
    seed: int = 0,
    distinct: bool = False,
    max_tries: int = 1000,
    name: str | None = None,
) -> tuple[Puzzle, Board]:
    """A random puzzle of the ``uniform`` model: every internal edge one of ``colours`` colours
    ``1..K``, drawn uniformly, on the frame as inside (Benoist and Bourreau's generator, seed
    002 section 6), with its planted solution.

    Args as for :func:`generate`, with ``colours`` (at least 1) for the two colour counts; the
    default name is ``gen-WxH-uK-sSEED`` (``-distinct`` after it for ``distinct``). The pieces
    are those ``generate(width, height, 0, colours, seed, distinct)`` draws.
    """
    _check_whole(width=width, height=height, colours=colours, seed=seed, max_tries=max_tries)
    if colours < 1:
        raise InputError(f"need at least 1 colour, not {colours}")
    if colours > MAX_COLOUR:
        raise InputError(f"{colours} colours: at most {MAX_COLOUR}")
    name = name or f"gen-{width}x{height}-u{colours}-s{seed}" + ("-distinct" if distinct else "")
    return _generate(width, height, 0, colours, seed, distinct, max_tries, name,
                     {"model": "uniform", "colours": colours})


def generate_balanced(
    width: int,
    height: int,
    frame_colours: int,
    inner_colours: int,
    seed: int = 0,
    distinct: bool = False,
    max_tries: int = 1000,
    name: str | None = None,
) -> tuple[Puzzle, Board]:
    """A puzzle of the ``frame-inner-balanced`` model: as :func:`generate`, but each of the
    ``frame_colours`` is on as many frame edges as every other one, give or take one, and so is
    each of the ``inner_colours`` on the other internal edges.

    Args as for :func:`generate`; both counts at least 1 (one colour set is ``uniform-balanced``),
    and each set no larger than the edges it colours (every colour is shown). Default name
    ``gen-WxH-fF-iI-bal-sSEED``.
    """
    _check_whole(width=width, height=height, frame_colours=frame_colours, inner_colours=inner_colours, seed=seed,
                 max_tries=max_tries)
    if frame_colours < 1:
        raise InputError(f"model frame-inner-balanced needs at least 1 frame colour, not {frame_colours} "
                         "(one colour set, balanced: --model uniform-balanced)")
    if inner_colours < 1:
        raise InputError(f"need at least 1 inner colour, not {inner_colours}")
    if frame_colours + inner_colours > MAX_COLOUR:
        raise InputError(f"{frame_colours} frame and {inner_colours} inner colours: at most {MAX_COLOUR} in all")
    n_frame, n_inner = edge_counts(width, height)
    for what, k, n in (("frame", frame_colours, n_frame), ("inner", inner_colours, n_inner)):
        if k > n:
            raise InputError(f"a {width}x{height} board has {n} {what} edge{'s' if n != 1 else ''}: it cannot show "
                             f"each of {k} {what} colours (balanced models show every colour)")
    name = name or f"gen-{width}x{height}-f{frame_colours}-i{inner_colours}-bal-s{seed}" + (
        "-distinct" if distinct else "")
    return _generate(width, height, frame_colours, inner_colours, seed, distinct, max_tries, name,
                     {"model": "frame-inner-balanced", "frame_colours": frame_colours,
                      "inner_colours": inner_colours}, balanced=True)


def generate_uniform_balanced(
    width: int,
    height: int,
    colours: int,
    seed: int = 0,
    distinct: bool = False,
    max_tries: int = 1000,
    name: str | None = None,
) -> tuple[Puzzle, Board]:
    """A puzzle of the ``uniform-balanced`` model: every internal edge one of ``colours``
    colours ``1..K``, on the frame as inside, each colour on as many edges as every other one,
    give or take one. Args as for :func:`generate_uniform`; ``colours`` at most the number of
    internal edges. Default name ``gen-WxH-uK-bal-sSEED``."""
    _check_whole(width=width, height=height, colours=colours, seed=seed, max_tries=max_tries)
    if colours < 1:
        raise InputError(f"need at least 1 colour, not {colours}")
    if colours > MAX_COLOUR:
        raise InputError(f"{colours} colours: at most {MAX_COLOUR}")
    n = sum(edge_counts(width, height))
    if colours > n:
        raise InputError(f"a {width}x{height} board has {n} internal edges: it cannot show each of {colours} colours "
                         "(balanced models show every colour)")
    name = name or f"gen-{width}x{height}-u{colours}-bal-s{seed}" + ("-distinct" if distinct else "")
    return _generate(width, height, 0, colours, seed, distinct, max_tries, name,
                     {"model": "uniform-balanced", "colours": colours}, balanced=True)


def edge_counts(width: int, height: int) -> tuple[int, int]:
    """``(frame, other)``: the internal edges between two cells of one frame side, and all the
    other internal edges, of a ``width x height`` board."""
    frame = sum(_along_frame(*e, width, height) for e in _edges(width, height))
    return frame, width * (height - 1) + height * (width - 1) - frame


@dataclass(frozen=True)
class Model:
    """A random model of ``emc generate --model``: its colour parameters (keyword arguments of
    ``draw``, spelt with ``-`` as command-line options) and the function drawing a puzzle and its
    planted board (``draw(width, height, *params, seed=, distinct=, max_tries=, name=)``)."""

    name: str
    summary: str
    params: tuple[str, ...]
    draw: Callable[..., tuple[Puzzle, Board]]


#: The models, the default first.
MODELS: dict[str, Model] = {m.name: m for m in (
    Model("frame-inner", "frame colours between two frame cells, inner colours on every other internal edge",
          ("frame_colours", "inner_colours"), generate),
    Model("uniform", "every internal edge one of K colours, on the frame as inside (Benoist and Bourreau)",
          ("colours",), generate_uniform),
    Model("frame-inner-balanced", "as frame-inner, each colour of a set on as many edges as every other, give or "
          "take one", ("frame_colours", "inner_colours"), generate_balanced),
    Model("uniform-balanced", "as uniform, each colour on as many edges as every other, give or take one",
          ("colours",), generate_uniform_balanced),
)}
DEFAULT_MODEL = "frame-inner"


def generate_model(model: str, width: int, height: int, seed: int = 0, distinct: bool = False,
                   max_tries: int = 1000, name: str | None = None, **params: int) -> tuple[Puzzle, Board]:
    """A puzzle of the model named ``model`` (see :data:`MODELS`), with its colour parameters
    given by name (``frame_colours=3, inner_colours=5``; ``colours=7``)."""
    from .errors import UnknownNameError

    if model not in MODELS:
        raise UnknownNameError("generator model", model, list(MODELS))
    m = MODELS[model]
    missing = [k for k in m.params if params.get(k) is None]
    extra = sorted(k for k, v in params.items() if k not in m.params and v is not None)
    if missing or extra:
        def opts(keys) -> str:
            return ", ".join("--" + k.replace("_", "-") for k in keys)

        raise InputError(f"model {model} takes {opts(m.params)}"
                         + (f"; missing {opts(missing)}" if missing else "")
                         + (f"; {opts(extra)} belong{'s' if len(extra) == 1 else ''} to another model" if extra else ""))
    return m.draw(width, height, *(params[k] for k in m.params), seed=seed, distinct=distinct, max_tries=max_tries,
                  name=name)


def _check_whole(**values) -> None:
    for what, v in values.items():
        # a float or a string would name the puzzle after a seed it did not use ("s1.5")
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
            raise InputError(f"{what} must be a whole number, not {v!r}")
    if values["seed"] < 0:
        raise InputError(f"seed must be 0 or more, not {values['seed']}")
    if values["max_tries"] < 1:
        raise InputError(f"max_tries must be at least 1, not {values['max_tries']}")
    width, height = values["width"], values["height"]
    if width < 2 or height < 2:
        raise InputError(f"board size {width}x{height} is too small (both sides at least 2)")
    if width * height > 100_000:
        raise InputError(f"board {width}x{height} is too large (at most 100000 cells)")


def _generate(width: int, height: int, F: int, I: int, seed: int, distinct: bool, max_tries: int, name: str,
              params: dict, balanced: bool = False, extra: dict | None = None) -> tuple[Puzzle, Board]:
    """Draw until the pieces are distinct (with ``distinct``); ``params`` go into the
    provenance, after the size, and ``extra`` at its end."""
    if not isinstance(distinct, (bool, np.bool_)):  # "no" would count as true
        raise InputError(f"distinct is True or False, not {distinct!r}")
    rng = StableRng(seed)
    for attempt in range(max_tries if distinct else 1):
        pieces, planted = _draw(width, height, F, I, rng, balanced)
        prov = {
            "generator": "emc.generate",
            "width": width,
            "height": height,
            **params,
            "seed": seed,
            "distinct": distinct,
            "attempt": attempt,
            **(extra or {}),
        }
        puzzle = Puzzle(width, height, pieces, (), name, prov)
        if not distinct or not puzzle.duplicate_pieces():
            return puzzle, planted
    what = (f"{params['colours']} colours" if "colours" in params
            else f"now {F} frame, {I} inner")
    raise InputError(f"no puzzle without duplicate pieces in {max_tries} draws; use more colours ({what})")


def _draw(W: int, H: int, F: int, I: int, rng: StableRng, balanced: bool = False) -> tuple[np.ndarray, Board]:
    edges = _edges(W, H)
    along = [_along_frame(*e, W, H) for e in edges]
    if balanced:
        colours = _balanced_colours(along, F, I, rng)
    else:
        # one draw per edge in the order of `edges`: the stream every seed has always given
        colours = [1 + rng.below(F) if F > 0 and a else F + 1 + rng.below(I) for a in along]
    # Colours shown on each side of each cell of the planted board.
    sides = np.zeros((H, W, 4), dtype=np.int64)
    for (r1, c1, r2, c2), col in zip(edges, colours):
        if r1 == r2:  # a horizontal neighbour: right side of the first cell, left of the second
            sides[r1, c1, 1] = sides[r2, c2, 3] = col
        else:
            sides[r1, c1, 2] = sides[r2, c2, 0] = col
    sides[0, :, 0] = sides[-1, :, 2] = sides[:, 0, 3] = sides[:, -1, 1] = BORDER

    n = W * H
    shown = sides.reshape(n, 4)
    order = rng.permutation(n)  # order[k] = cell whose piece becomes piece k
    turns = np.array([rng.below(4) for _ in range(n)])
    # The stored piece is the shown piece turned back by `turns`; placing it with rotation
    # `turns` shows `shown` again.
    pieces = np.empty((n, 4), dtype=np.int64)
    piece_of_cell = np.empty(n, dtype=np.int64)
    rot_of_cell = np.empty(n, dtype=np.int64)
    for k, cell in enumerate(order):
        t = int(turns[k])
        pieces[k] = np.roll(shown[cell], -t)
        piece_of_cell[cell] = k
        rot_of_cell[cell] = t
    return pieces, Board(W, H, piece_of_cell, rot_of_cell)


def _edges(W: int, H: int) -> list[tuple[int, int, int, int]]:
    """The internal edges as pairs of cells ``(r1, c1, r2, c2)``: the horizontal neighbours row
    by row, then the vertical ones (the order the colours are drawn in)."""
    return ([(r, c, r, c + 1) for r in range(H) for c in range(W - 1)]
            + [(r, c, r + 1, c) for r in range(H - 1) for c in range(W)])


def _balanced_colours(along: list[bool], F: int, I: int, rng: StableRng) -> list[int]:
    """Colours for the edges (``along[k]``: edge ``k`` runs along the frame) with every colour of
    a set used equally often, give or take one: frame colours ``1..F`` on the frame edges (all
    edges one set when ``F == 0``), ``F+1..F+I`` on the others."""
    out = [0] * len(along)
    sets = [([k for k, a in enumerate(along) if a], 1, F), ([k for k, a in enumerate(along) if not a], F + 1, I)] \
        if F > 0 else [(list(range(len(along))), 1, I)]
    for where, first, k in sets:
        base, rest = divmod(len(where), k)
        counts = np.full(k, base)
        counts[rng.permutation(k)[:rest]] += 1  # which colours show once more: drawn, not the first ones
        pool = np.repeat(np.arange(first, first + k), counts)
        for e, j in zip(where, rng.permutation(len(where))):
            out[e] = int(pool[j])
    return out


def _along_frame(r1: int, c1: int, r2: int, c2: int, W: int, H: int) -> bool:
    """The edge between two cells runs along the frame: both cells on the same frame side."""
    if r1 == r2:
        return r1 == 0 or r1 == H - 1
    return c1 == 0 or c1 == W - 1


# ----------------------------------------------------------------------------- the hardest draw
#: Where the measured peaks are shipped, inside emc's ``instances`` data folder.
PEAKS_PATH = ("hardness", "peaks.json")


def hardness_peaks() -> list[dict]:
    """The measured hardness peaks shipped with emc: one entry per board size and model, each
    with the colour parameters where the median solving cost was highest (``params``) and how
    that was measured (backend, solver, cost, median, instances, time limit, machine, date and
    the ``emc hardness`` command that reproduces it). Written by ``emc hardness --record``."""
    import json

    from .errors import EmcError
    from .io import data_dir

    path = data_dir("instances").joinpath(*PEAKS_PATH)
    try:
        data = json.loads(path.read_text())
        return list(data["peaks"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise EmcError(f"emc's measured hardness peaks cannot be read ({exc})", path) from None


def hardest_peak(width: int, height: int, model: str | None = None) -> dict:
    """The shipped peak for a ``width x height`` board: of ``model`` when named, else the one
    with the highest median over the measured models (all measured with one backend and cost;
    ties broken by :func:`_hardness_rank`).

    Raises:
        InputError: no peak was measured for that size (or that model at that size).
    """
    from .errors import UnknownNameError

    if model is not None and model not in MODELS:
        raise UnknownNameError("generator model", model, list(MODELS))
    peaks = hardness_peaks()
    here = [p for p in peaks if (p["width"], p["height"]) == (width, height)]
    if model is not None:
        here = [p for p in here if p["model"] == model]
    if not here:
        sizes = sorted({(p["width"], p["height"]) for p in peaks if model is None or p["model"] == model})
        known = ", ".join(f"{w}x{h}" for w, h in sizes) or "none"
        raise InputError(f"no measured hardness peak for {width}x{height}" + (f" under model {model}" if model else "")
                         + f" (measured sizes: {known}; `emc hardness {width} {height}` measures one)")
    return max(here, key=_hardness_rank)


#: Among peaks whose medians tie (all stopped at one limit), the order of preference: the
#: two-set models first, the hardest at 6x6 and 7x7 where the models could be told apart, the
#: balanced one before the other as Eternity II and set 2 are drawn.
TIE_ORDER = ("frame-inner-balanced", "frame-inner", "uniform-balanced", "uniform")


def _hardness_rank(peak: dict) -> tuple:
    """Sort key of the hardest peak of a size: its median, then the share of its solves the limit
    stopped (the more, the harder it is known to be), then :data:`TIE_ORDER`."""
    order = TIE_ORDER.index(peak["model"]) if peak["model"] in TIE_ORDER else len(TIE_ORDER)
    return peak["median"], peak["timeouts"] / max(peak["instances"], 1), -order


def generate_hardest(width: int, height: int, seed: int = 0, model: str | None = None, distinct: bool = False,
                     max_tries: int = 1000, name: str | None = None) -> tuple[Puzzle, Board]:
    """A puzzle drawn at the shipped hardness peak of its size (:func:`hardest_peak`): the
    peak's model and colour counts, recorded in the provenance as for any draw of that model,
    with the measurement under ``hardest``. The pieces are those of :func:`generate_model` with
    the same model, counts and seed."""
    peak = hardest_peak(width, height, model)
    puzzle, planted = generate_model(peak["model"], width, height, seed, distinct=distinct, max_tries=max_tries,
                                     name=name, **peak["params"])
    prov = dict(puzzle.provenance)
    prov["hardest"] = peak_record(peak)
    return Puzzle(puzzle.width, puzzle.height, puzzle.pieces, puzzle.hints, puzzle.name, prov), planted


def peak_record(peak: dict) -> dict:
    """What a puzzle drawn at a peak records of its measurement (provenance, suite manifest)."""
    keys = ("backend", "solver", "cost", "median", "median_is_lower_bound", "instances", "time_limit", "measured",
            "command")
    return {"source": "/".join(("instances",) + PEAKS_PATH), **{k: peak[k] for k in keys if k in peak}}
