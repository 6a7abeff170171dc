"""Each player's colour: one of eight a colour-blind table tells apart.

The palette is Okabe and Ito's (*Color Universal Design*, 2008), made to stay distinct
for the common forms of colour blindness, with grey in place of its black (black
vanishes on a dark screen). Eight colours for at most eight seats: a night gives each
seat its own, the first free one by seat order unless the host picks another. A colour
is never the only sign of a player: every place that shows it shows the name beside it.

The hex values live here and in ``static/app.css`` (``.pc-<key>``): a test keeps them
the same (``tests/test_colours.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from companion.core.errors import N_

#: (key, hex, name) in the order a new roster hands them out.
PALETTE: tuple[tuple[str, str, Any], ...] = (
    ("orange", "#E69F00", N_("Orange")),
    ("sky", "#56B4E9", N_("Sky blue")),
    ("green", "#009E73", N_("Green")),
    ("yellow", "#F0E442", N_("Yellow")),
    ("blue", "#0072B2", N_("Blue")),
    ("red", "#D55E00", N_("Vermilion")),
    ("pink", "#CC79A7", N_("Pink")),
    ("grey", "#999999", N_("Grey")),
)

KEYS: tuple[str, ...] = tuple(key for key, _hex, _name in PALETTE)
HEX: dict[str, str] = {key: value for key, value, _name in PALETTE}
NAMES: dict[str, Any] = {key: name for key, _hex, name in PALETTE}


def default(position: int) -> str:
    """The colour a seat gets when nobody chose one: the palette in seat order."""
    return KEYS[position % len(KEYS)]


def assign(chosen: Sequence[str | None]) -> list[str]:
    """Every seat's colour from what the roster chose (None or "" for no choice): a
    chosen colour is kept, and each seat without one gets the first colour nobody has.

    Raises ValueError for a key that is not in the palette, or one chosen twice."""
    picked = [c or None for c in chosen]
    for colour in picked:
        if colour is not None and colour not in HEX:
            raise ValueError(colour)
    taken = [c for c in picked if c is not None]
    if len(set(taken)) != len(taken):
        raise ValueError("the same colour twice")
    free = iter(k for k in KEYS if k not in taken)
    return [c if c is not None else next(free, default(i)) for i, c in enumerate(picked)]


def twice(chosen: Sequence[str | None]) -> str | None:
    """The first colour chosen for two seats, or None."""
    seen: set[str] = set()
    for colour in chosen:
        if colour and colour in seen:
            return colour
        if colour:
            seen.add(colour)
    return None
