"""Figures every game's awards and statistics share: who leads a count, ties included,
and a rate as a whole percentage. Pure: no Flask, no SQL, no game named.

An award is a plain dict ``{"id", "title", "text", "params", "seats"}``: ``title`` and
``text`` are ``N_`` messages the page translates (``text`` with ``params``), ``seats``
the players who share it (docs/rules.md#awards).
"""

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

Award = dict[str, Any]


def leaders(values: Mapping[int, Fraction | int], *, most: bool = True,
            at_least: int = 0) -> list[int]:
    """The seats that share the best value (the most, or with ``most=False`` the fewest),
    in seat order; none when nobody stands out (docs/rules.md#awards): no seat at all,
    a best value below ``at_least`` (with ``most``), or a best value that most of the
    players share (more than half of ``values``: 2 of 3, 3 of 5), an award for the
    table rather than for anyone in it. A lone player of those games stands out alone."""
    if not values:
        return []
    best = max(values.values()) if most else min(values.values())
    if most and best < at_least:
        return []
    found = sorted(seat for seat, value in values.items() if value == best)
    return [] if len(found) > 1 and 2 * len(found) > len(values) else found


def award(award_id: str, title: str, text: str, seats: list[int],
          **params: Any) -> list[Award]:
    """One award as a list of one, or an empty list when nobody earned it (an award with
    nobody qualifying is not shown: docs/rules.md#awards)."""
    if not seats:
        return []
    return [{"id": award_id, "title": title, "text": text, "params": params,
             "seats": list(seats)}]


def percent(hits: int, total: int) -> int | None:
    """``hits`` of ``total`` as a whole percentage, halves rounded up (1 of 8: 13), or
    None when there is nothing to count (docs/rules.md#statistics)."""
    if total <= 0:
        return None
    return (200 * hits + total) // (2 * total)


def record(hits: int, total: int) -> str:
    """A count and its rate as the statistics show them: "7 / 10 (70%)", or "—" before
    anything was counted (docs/rules.md#statistics)."""
    rate = percent(hits, total)
    return "—" if rate is None else f"{hits} / {total} ({rate}%)"


def decimal(value: Fraction | int) -> str:
    """A per-game figure as the awards show it: to one decimal place, halves rounded up,
    without a trailing ".0" (2: "2", 3/2: "1.5", 4/3: "1.3", 5/4: "1.3")."""
    tenths = (Fraction(value) * 20 + 1) // 2
    return str(tenths // 10) if tenths % 10 == 0 else f"{tenths // 10}.{tenths % 10}"
