"""Skull King's score table, its per-player view and the line chart of the running totals,
as plain data the templates only draw. Pure functions: no Flask, no SQL.

Bids appear only for revealed rounds: before "Yo-ho-ho!" a cell says who has bid, never
what (docs/rules.md#skull-king).
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from companion.core.charts import ZWJ, char_width, shorten, text_width, wrap
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
MARKER = 3.5  # a marker's radius

#: The room's screen draws the chart in its own column (static/skullking.css, "The room's
#: screen"), one unit a pixel at 1920×1080 (the sizes follow the width): 912 × 810 beside
#: the round while the game runs, 1344 × 810 beside the final standings at its end. Its
#: words are 32 px there, read from the sofa, and a name at a line's end takes as many
#: lines as the chart has room for (``lines`` at most), so it is seldom cut; a name that
#: is cut still tells its player from every other.
SCREEN = {"width": 912, "height": 810, "font": 32, "left": 112, "top": 20, "bottom": 52,
          "labels": 340, "gap": 36, "spacing": 18, "lines": 4, "lift": 16, "radius": 7,
          "xstep": 2}
SCREEN_END = {**SCREEN, "width": 1344, "labels": 500, "xstep": 1}


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
          width: int = WIDTH, font: int = FONT, height: int = HEIGHT, left: int = LEFT,
          top: int = TOP, bottom: int = BOTTOM, labels: int = LABELS, gap: int = GAP,
          spacing: int = 0, lines: int = 1, lift: int = 0, radius: float = MARKER,
          xstep: int = 1) -> dict[str, Any]:
    """An SVG line chart of the running totals by round: each line with its own colour,
    marker and stroke, its player's name at its end (moved apart when two ends meet), and
    the leader's line marked (★, thicker). The geometry's defaults are a phone's, a name
    on one line; :data:`SCREEN` and :data:`SCREEN_END` are the room's screen's (a name on
    up to ``lines`` lines ``gap`` apart, ``spacing`` more between two names, the lowest
    ``lift`` above the x axis and its numbers, markers of ``radius``, a round number
    every ``xstep`` rounds, and the last, or every one where they have room)."""
    count = len(state["rounds"])
    series = {str(seat): [0] for seat in players}
    for rnd in state["rounds"]:
        if rnd["totals"] is None:
            break
        for key in series:
            series[key].append(rnd["totals"][key])
    values = [v for line in series.values() for v in line]
    low, high = min(min(values), 0), max(max(values), 10)
    right = width - labels

    def x(i: int) -> float:
        return round(left + (right - left) * i / max(count, 1), 1)

    def y(v: int) -> float:
        return round(top + (height - top - bottom) * (high - v) / (high - low), 1)

    step = _nice_step(high - low)
    ticks = [v for v in range(low - low % step, high + step, step) if low <= v <= high]
    leaders = set(state["leader"])
    drawn = []
    for i, seat in enumerate(players):
        line = series[str(seat)]
        points = [(x(j), y(v)) for j, v in enumerate(line)]
        drawn.append({
            "seat": seat, "name": names.get(seat, "?"), "total": line[-1],
            "cls": f"sk-line-{i % LINE_COUNT}", "dashed": i % LINE_COUNT >= len(SHAPES),
            "leader": seat in leaders,
            "points": " ".join(f"{px},{py}" for px, py in points),
            "markers": [marker(SHAPES[i % len(SHAPES)], px, py, radius)
                        for px, py in points],
            "swatch": marker(SHAPES[i % len(SHAPES)], 16, 8, 5),
            "last": points[-1],
        })
    _place_labels(drawn, Labels(end=x(len(series[str(players[0])]) - 1), width=width,
                                font=font, top=top, bottom=height - bottom - lift, gap=gap,
                                spacing=spacing, lines=lines))
    # Every round numbered where the numbers have room (a game of a few rounds).
    if (right - left) / max(count, 1) >= 1.3 * text_width(str(count), font):
        xstep = 1
    return {"width": width, "height": height, "left": left, "right": right, "top": top,
            "bottom": height - bottom, "zero": y(0), "font": font,
            "xticks": [{"x": x(i), "label": i} for i in range(count + 1)
                       if i % xstep == 0 or i == count],
            "yticks": [{"y": y(v), "label": v} for v in ticks], "lines": drawn}


@dataclass(frozen=True)
class Labels:
    """Where the names at the lines' ends go: right of ``end`` (the last round's x) up to
    ``width``, between ``top`` and ``bottom`` (above the x axis's numbers); ``font`` units
    high, a name's lines ``gap`` apart and two names ``gap + spacing`` apart, a name on
    ``lines`` lines at most."""

    end: float
    width: int
    font: int
    top: float
    bottom: float
    gap: int
    spacing: int
    lines: int

    @property
    def room(self) -> float:
        """How wide a line of a name may be."""
        return self.width - self.end - 14

    def capacity(self, names: int) -> int:
        """How many lines ``names`` names have in all, stacked from the top to the
        bottom with their spacing."""
        span = self.bottom - (self.top + self.font / 2) - (names - 1) * self.spacing
        return max(names, int(span // self.gap) + 1)


def _place_labels(lines: list[dict[str, Any]], at: Labels) -> None:
    """Each line's name beside its last point, at least ``gap`` (and ``spacing``) apart
    from the next (pushed down, then back up from the bottom), on as many lines as the
    room allows (:func:`_label_lines`)."""
    texts = _label_lines(lines, at)
    order = sorted(range(len(lines)), key=lambda i: (lines[i]["last"][1], lines[i]["seat"]))
    # From a name's middle to the middle of its first (or last) line.
    half = [(len(texts[i]) - 1) * at.gap / 2 for i in order]
    first = at.top + at.font / 2
    spots: list[float] = []
    for k, i in enumerate(order):
        least = first + half[k] if not spots else \
            spots[-1] + half[k - 1] + at.gap + at.spacing + half[k]
        spots.append(max(lines[i]["last"][1], least))
    for k in range(len(spots) - 1, -1, -1):
        ceiling = at.bottom - half[k] if k == len(spots) - 1 else \
            spots[k + 1] - half[k + 1] - at.gap - at.spacing - half[k]
        spots[k] = round(max(min(spots[k], ceiling), first + half[k]), 1)
    for k, i in enumerate(order):
        rows = texts[i]
        lines[i]["label"] = {
            "x": round(at.end + 10, 1), "y": spots[k], "text": " ".join(rows),
            "rows": [{"text": row, "y": round(spots[k] - half[k] + n * at.gap, 1)}
                     for n, row in enumerate(rows)]}


def _label_lines(lines: list[dict[str, Any]], at: Labels) -> list[list[str]]:
    """Each line's name ("★ " first for a leader) on the lines it is drawn on: whole
    when the chart has room for every name's lines, else the longest ones given fewer
    (broken at a space when one is near, cut with "…" on their last line). Two names cut
    alike get more lines while there is room, then keep their ends ("Bartholomew the…
    Pir", "…Sam"), so each player is told apart."""
    texts = [("★ " if line["leader"] else "") + line["name"] for line in lines]
    whole = [len(wrap(text, at.room, len(text), at.font)) for text in texts]
    allowed = [min(n, at.lines) for n in whole]
    capacity = at.capacity(len(lines))
    while sum(allowed) > capacity and max(allowed) > 1:
        allowed[allowed.index(max(allowed))] -= 1
    while True:
        drawn = [wrap(text, at.room, n, at.font) for text, n in zip(texts, allowed, strict=True)]
        alike = _alike(texts, drawn, allowed, whole)
        if not alike:
            return drawn
        if sum(allowed) + len(alike) > capacity:
            for i in alike:
                drawn[i] = _with_its_end(texts[i], drawn[i], at)
            return drawn
        for i in alike:
            allowed[i] += 1


def _alike(texts: list[str], drawn: list[list[str]], allowed: list[int],
           whole: list[int]) -> list[int]:
    """The names drawn the same as another name, cut (so more of them tells them apart)."""
    seen = [" ".join(rows) for rows in drawn]
    return [i for i, text in enumerate(seen) if allowed[i] < whole[i]
            and any(seen[j] == text and texts[j] != texts[i] for j in range(len(seen)))]


def _with_its_end(text: str, rows: list[str], at: Labels) -> list[str]:
    """``rows`` of a cut name with the last one ending as the name does: its start, "…"
    and as much of its end as fits ("Barthol…able Sam")."""
    before = len("".join(rows[:-1]).replace(" ", ""))
    start = 0
    for _ in range(before):  # past the characters the lines before draw (not the spaces)
        while text[start] == " ":
            start += 1
        start += 1
    rest = text[start:].strip()
    half = (at.room - text_width("…", at.font)) / 2
    head = shorten(rest, half + text_width("…", at.font), at.font).removesuffix("…")
    tail = _tail(rest[len(head):], at.room - text_width(head + "…", at.font), at.font)
    return [*rows[:-1], head.rstrip() + "…" + tail.lstrip()]


def _tail(text: str, room: float, font: float) -> str:
    """As many of ``text``'s last characters as fit in ``room`` (not splitting one drawn
    character)."""
    used, cut = 0.0, len(text)
    while cut > 0 and used + char_width(text[cut - 1]) * font <= room:
        used += char_width(text[cut - 1]) * font
        cut -= 1
    while 0 < cut < len(text) and (char_width(text[cut]) == 0 or text[cut - 1] == ZWJ):
        cut += 1
    return text[cut:]


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
