"""One player's statistic parts as sums, counts and maxima, and their arithmetic: what
companion/core/sums.py keeps. Pure.

A part is a dict ``{"sums": ..., "max": {name: [value, count]}, "min": {...}}``: ``sums``
nests dicts of numbers (and lists of numbers, added item by item), and ``max``/``min``
keep a value with how many parts reached it, so that one taken out again either leaves
the extreme known or says it is not (:func:`combine` gives None).
"""

from typing import Any

Part = dict[str, Any]


def add_sums(a: Any, b: Any, sign: int) -> Any:
    """``a + sign * b`` for numbers, lists of numbers and dicts of them (a missing key
    is nothing); zeros, all-zero lists and empty dicts are dropped, so equal totals are
    equal dicts however they were reached."""
    if isinstance(a, dict) or isinstance(b, dict):
        a, b = a or {}, b or {}
        found = {k: add_sums(a.get(k), b.get(k), sign) for k in a.keys() | b.keys()}
        return {k: v for k, v in found.items() if v is not None} or None
    if isinstance(a, list) or isinstance(b, list):
        a = a or [0] * len(b)
        b = b or [0] * len(a)
        items = [x + sign * y for x, y in zip(a, b, strict=True)]
        return items if any(items) else None
    total = (a or 0) + sign * (b or 0)
    return total if total else None


def add_into(into: dict[str, Any], more: dict[str, Any]) -> None:
    """``into`` += ``more``, in place (sums only; zeros are kept: :func:`add_sums` drops
    them): many parts summed without a copy each."""
    for key, value in more.items():
        if isinstance(value, dict):
            add_into(into.setdefault(key, {}), value)
        elif isinstance(value, list):
            held = into.get(key)
            into[key] = [x + y for x, y in zip(held, value, strict=True)] if held else list(value)
        else:
            into[key] = into.get(key, 0) + value


def extremes(a: dict[str, list[Any]], b: dict[str, list[Any]], sign: int, pick: Any
             ) -> dict[str, list[Any]] | None:
    """``a`` with ``b``'s extremes added (sign 1) or taken out (-1); None when one taken
    out was the only part at the extreme (the extreme is then unknown)."""
    found = dict(a)
    for name, (value, count) in b.items():
        held = found.get(name)
        if sign > 0:
            if held is None or pick(value, held[0]) != held[0]:
                found[name] = [value, count]
            elif value == held[0]:
                found[name] = [value, held[1] + count]
        elif held is None or pick(value, held[0]) != held[0]:
            return None  # a part taken out that was never in
        elif value == held[0]:
            if held[1] <= count:
                return None
            found[name] = [value, held[1] - count]
    return found


def combine(a: Part, b: Part, sign: int) -> Part | None:
    """``a`` with ``b`` added (sign 1) or taken out (-1); None when an extreme is left
    unknown, ``{}`` when nothing is left of it."""
    sums = add_sums(a.get("sums"), b.get("sums"), sign)
    if not sums and sign < 0:  # nothing left of it (every night it counted in taken
        return {}  # out): nor of its extremes
    high = extremes(a.get("max", {}), b.get("max", {}), sign, max)
    low = extremes(a.get("min", {}), b.get("min", {}), sign, min)
    if high is None or low is None:
        return None
    return {k: v for k, v in (("sums", sums), ("max", high), ("min", low)) if v}


def each(a: dict[str, Part], b: dict[str, Part], sign: int) -> dict[str, Part] | None:
    """:func:`combine` key by key; None when any extreme is left unknown."""
    found = dict(a)
    for key, part in b.items():
        combined = combine(found.get(key, {}), part, sign)
        if combined is None:
            return None
        if combined:
            found[key] = combined
        else:
            found.pop(key, None)
    return found


def bare(part: Part) -> Part:
    """A part as a kind's ``stat_figures`` reads it: its maxima without their counts."""
    return {"sums": part.get("sums", {}),
            "max": {name: value for name, (value, _count) in part.get("max", {}).items()}}
