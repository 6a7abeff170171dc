"""Skull King's score table, its per-player view and the line chart of the running totals,
as plain data the templates only draw. Pure functions: no Flask, no SQL.

Bids appear only for revealed rounds: before "Yo-ho-ho!" a cell says who has bid, never
what (docs/rules.md#skull-king).
"""

from collections.abc import Sequence
from typing import Any

from companion.core.charts import shorten, text_width
from companion.skullking.scoring import is_int

#: The chart's lines: Okabe and Ito's colour-blind-safe palette (with the text colour and
#: an olive for the seventh and eighth), one marker shape each and, from the fifth, a
#: dashed stroke, so no line is told apart by its colour alone. The colours are classes
#: (.sk-line-0 … .sk-line-7 in skullking.css): no inline style under the CSP.
LINE_COUNT = 8
SHAPES = ("circle", "square", "triangle", "diamond")

#: Chart geometry in SVG units. The viewBox is about as wide as a phone's screen in CSS
#: pixels, so a 14-unit label is 12 px or more on a 390 px phone.
WIDTH, HEIGHT = 360, 250
LEFT, TOP, BOTTOM = 40, 14, 28
LABELS = 104  # room on the right for the names at the lines' ends
FONT = 14
GAP = 16  # the least distance between two end labels

#: The room's screen draws the chart in a column about 430 px wide at 1920×1080: its
#: labels are 26 units there, 30 px or more (read from the sofa), so it is taller, with
#: less room for the names (the standings beside it name everyone in full).
SCREEN = {"font": 26, "height": 282, "left": 64, "bottom": 40, "labels": 124, "gap": 27,
          "xstep": 2}


def score_table(state: dict[str, Any], setup: dict[str, Any], names: dict[int, str]
                ) -> dict[str, Any]:
    """Everything the score table, the per-player view, the standings and the chart show,
    from the replayed state. A round's points and totals include the house rule's
    adjustments; ``adjustments`` lists them with their reasons."""
    players = setup["players"]
    rows = [_row(rnd, players) for rnd in state["rounds"]]
    standings = [{"seat": seat, "name": names.get(seat, "?"),
                  "total": state["totals"][str(seat)], "rank": state["ranks"][str(seat)],
                  "leader": seat in state["leader"]} for seat in players]
    by_player = []
    for i, standing in enumerate(standings):
        cells = [{"round": row["round"], "scored": row["scored"], **row["cells"][i]}
                 for row in rows if row["scored"] or row["cells"][i]["has_bid"]]
        by_player.append({**standing, "cells": cells})
    scored = sum(1 for row in rows if row["scored"])
    # The house rule's adjustments, in round and seat order, with their reasons
    # (docs/rules.md#skull-king-house-rules): the cells show only the amount.
    adjustments = [{"round": rnd["number"], "seat": seat, "name": names.get(seat, "?"),
                    **rnd["adjust"][str(seat)]}
                   for rnd in state["rounds"] if rnd.get("adjust") and rnd["results"]
                   for seat in players if str(seat) in rnd["adjust"]]
    return {"rows": rows, "scored": scored, "standings": standings, "players": by_player,
            "adjustments": adjustments,
            "leaders": [names.get(seat, "?") for seat in state["leader"]],
            "by_rank": sorted(standings, key=lambda s: (s["rank"], players.index(s["seat"]))),
            "chart": chart(state, players, names)}


def _row(rnd: dict[str, Any], players: Sequence[int]) -> dict[str, Any]:
    """One round of the table: a cell per player, its bid only once revealed."""
    cells = []
    for seat in players:
        key = str(seat)
        cell = {"seat": seat, "has_bid": seat in rnd["bid_done"], "bid": None,
                "final_bid": None, "won": None, "points": None, "total": None,
                "adjust": None}
        if rnd["revealed"]:
            cell["bid"] = rnd["bids"].get(key)
        if rnd["results"] is not None:
            cell.update(won=rnd["results"][key]["won"], final_bid=rnd["final_bids"][key],
                        points=rnd["points"][key], total=rnd["totals"][key],
                        adjust=rnd.get("adjust", {}).get(key))
        cells.append(cell)
    return {"round": rnd, "cells": cells, "scored": rnd["results"] is not None}


# --------------------------------------------------------------------------- the chart


def chart(state: dict[str, Any], players: Sequence[int], names: dict[int, str], *,
          font: int = FONT, height: int = HEIGHT, left: int = LEFT, bottom: int = BOTTOM,
          labels: int = LABELS, gap: int = GAP, xstep: int = 1) -> dict[str, Any]:
    """An SVG line chart of the running totals by round: each line with its own colour,
    marker and stroke, its player's name at its end (moved apart when two ends meet), and
    the leader's line marked (★, thicker). The geometry's defaults are a phone's;
    :data:`SCREEN` is the room's screen's (a round number every ``xstep`` rounds, and
    the last)."""
    count = len(state["rounds"])
    series = {str(seat): [0] for seat in players}
    for rnd in state["rounds"]:
        if rnd["totals"] is None:
            break
        for key in series:
            series[key].append(rnd["totals"][key])
    values = [v for line in series.values() for v in line]
    low, high = min(min(values), 0), max(max(values), 10)
    right = WIDTH - labels

    def x(i: int) -> float:
        return round(left + (right - left) * i / max(count, 1), 1)

    def y(v: int) -> float:
        return round(TOP + (height - TOP - bottom) * (high - v) / (high - low), 1)

    step = _nice_step(high - low)
    ticks = [v for v in range(low - low % step, high + step, step) if low <= v <= high]
    leaders = set(state["leader"])
    lines = []
    for i, seat in enumerate(players):
        line = series[str(seat)]
        points = [(x(j), y(v)) for j, v in enumerate(line)]
        lines.append({
            "seat": seat, "name": names.get(seat, "?"), "total": line[-1],
            "cls": f"sk-line-{i % LINE_COUNT}", "dashed": i % LINE_COUNT >= len(SHAPES),
            "leader": seat in leaders,
            "points": " ".join(f"{px},{py}" for px, py in points),
            "markers": [marker(SHAPES[i % len(SHAPES)], px, py, 3.5) for px, py in points],
            "swatch": marker(SHAPES[i % len(SHAPES)], 16, 8, 5),
            "last": points[-1],
        })
    _place_labels(lines, x(len(series[str(players[0])]) - 1), font, height - bottom, gap)
    return {"width": WIDTH, "height": height, "left": left, "right": right, "top": TOP,
            "bottom": height - bottom, "zero": y(0), "font": font,
            "xticks": [{"x": x(i), "label": i} for i in range(count + 1)
                       if i % xstep == 0 or i == count],
            "yticks": [{"y": y(v), "label": v} for v in ticks], "lines": lines}


def _place_labels(lines: list[dict[str, Any]], end: float, font: int, bottom: float,
                  gap: int) -> None:
    """Each line's name beside its last point, at least ``gap`` apart from the next
    (pushed down, then back up from the bottom), shortened to the room on the right."""
    order = sorted(lines, key=lambda line: (line["last"][1], line["seat"]))
    top = TOP + font / 2
    spots: list[float] = []
    for line in order:
        spots.append(max(line["last"][1], spots[-1] + gap if spots else top))
    for i in range(len(spots) - 1, -1, -1):
        ceiling = bottom if i == len(spots) - 1 else spots[i + 1] - gap
        spots[i] = round(max(min(spots[i], ceiling), top), 1)
    room = WIDTH - end - 14
    for line, spot in zip(order, spots, strict=True):
        prefix = "★ " if line["leader"] else ""
        name = shorten(line["name"], room - text_width(prefix, font), font)
        line["label"] = {"x": round(end + 10, 1), "y": spot, "text": prefix + name}


def marker(shape: str, x: float, y: float, r: float) -> str:
    """The SVG path of a marker of ``shape`` centred on (x, y)."""
    if shape == "square":
        return f"M{x - r:g},{y - r:g}h{2 * r:g}v{2 * r:g}h{-2 * r:g}Z"
    if shape == "triangle":
        return f"M{x:g},{y - r:g}L{x + r:g},{y + r:g}L{x - r:g},{y + r:g}Z"
    if shape == "diamond":
        return f"M{x:g},{y - r:g}L{x + r:g},{y:g}L{x:g},{y + r:g}L{x - r:g},{y:g}Z"
    return f"M{x - r:g},{y:g}a{r:g},{r:g} 0 1,0 {2 * r:g},0a{r:g},{r:g} 0 1,0 {-2 * r:g},0"


def _nice_step(span: int) -> int:
    for step in (10, 20, 50, 100, 200, 500):
        if span / step <= 5:
            return step
    return 1000


def signed(amount: object) -> str:
    """A number of points with its sign, as the score table shows them: +10, −20, 0."""
    if not is_int(amount):
        return str(amount)
    return f"+{amount}" if amount > 0 else f"−{-amount}" if amount < 0 else "0"
