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
              params: dict) -> tuple[Puzzle, Board]:
    """Draw until the pieces are distinct (with ``distinct``); ``params`` go into the
    provenance, after the size."""
    if not isinstance(distinct, (bool, np.bool_)):  # "no" would count as true
        raise InputError(f"distinct is True or False, not {distinct!r}")
    rng = StableRng(seed)
    for attempt in range(max_tries if distinct else 1):
        pieces, planted = _draw(width, height, F, I, rng)
        prov = {
            "generator": "emc.generate",
            "width": width,
            "height": height,
            **params,
            "seed": seed,
            "distinct": distinct,
            "attempt": attempt,
        }
        puzzle = Puzzle(width, height, pieces, (), name, prov)
        if not distinct or not puzzle.duplicate_pieces():
            return puzzle, planted
    what = (f"{params['colours']} colours" if "colours" in params
            else f"now {F} frame, {I} inner")
    raise InputError(f"no puzzle without duplicate pieces in {max_tries} draws; use more colours ({what})")


def _draw(W: int, H: int, F: int, I: int, rng: StableRng) -> tuple[np.ndarray, Board]:
    # Colours shown on each side of each cell of the planted board.
    sides = np.zeros((H, W, 4), dtype=np.int64)
    def colour(along_frame: bool) -> int:
        if F > 0 and along_frame:
            return 1 + rng.below(F)
        return F + 1 + rng.below(I)

    for r in range(H):
        for c in range(W - 1):  # horizontal edges, row-major
            col = colour(_along_frame(r, c, r, c + 1, W, H))
            sides[r, c, 1] = sides[r, c + 1, 3] = col
    for r in range(H - 1):
        for c in range(W):  # vertical edges
            col = colour(_along_frame(r, c, r + 1, c, W, H))
            sides[r, c, 2] = sides[r + 1, c, 0] = col
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


def _along_frame(r1: int, c1: int, r2: int, c2: int, W: int, H: int) -> bool:
    """The edge between two cells runs along the frame: both cells on the same frame side."""
    if r1 == r2:
        return r1 == 0 or r1 == H - 1
    return c1 == 0 or c1 == W - 1
