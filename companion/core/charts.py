"""Charts as geometry: the numbers an SVG template draws, with no styles in them.

SVG text is neither wrapped nor kept inside the picture by the browser: a label wider than
its room runs off the edge and is cut there. So every label is measured here, generously
(``text_width``: no font on any phone draws it wider), and made to fit: a bar chart's
names go beside the bars when they all fit there, else on one or two lines above each
bar, cut with "…" only past two lines (the template keeps the whole name in a
``<title>``).
"""

import unicodedata
from typing import Any

#: The bar chart in SVG units: about as wide as a phone's screen in CSS pixels, so its
#: 16-unit words are 15 px or more on a 390 px phone (app.css draws them at ``FONT``).
CHART_WIDTH = 360
FONT = 16
LABEL_WIDTH = 112  # the names' column beside the bars, when every name fits in it
GAP = 8  # between a name and its bar, a bar and its value
VALUE_WIDTH = 48  # room right of the longest bar for its value ("-120")
BAR_HEIGHT = 22
ROW_GAP = 12  # between one bar and the next row
LINE = 20  # a line of a name written above its bar
LINES = 2  # the most lines a name above its bar takes
#: A name above its bar starts this far in: a glyph such as "J" reaches left of where it
#: is drawn from, past the picture's edge at 0.
INSET = 2

#: Width in ems of characters, on the wide side of the common sans-serif fonts, bold
#: included (DejaVu Sans Bold "W" is 1.1 em); anything not listed is 1 em.
NARROW = frozenset("fijlrtI!|.,:;'`()[]{}")
WIDEST = frozenset("MWmw@%")
ZWJ = "\u200d"


def char_width(ch: str) -> float:
    """About how wide ``ch`` is drawn, in ems, rounded up."""
    if unicodedata.category(ch) in ("Mn", "Me", "Cf") or "\ufe00" <= ch <= "\ufe0f":
        return 0  # a combining mark, a joiner, a variation selector: no width of its own
    if ord(ch) > 0xFFFF:
        return 1.3  # an emoji (colour emoji are drawn wider than an em)
    if unicodedata.east_asian_width(ch) in ("W", "F"):
        return 1.0  # Hangul, CJK, full-width forms
    if ch == " ":
        return 0.35
    if ch in NARROW:
        return 0.45
    if ch in WIDEST:
        return 1.15
    if ch.isascii():
        return 0.8 if ch.isupper() else 0.72
    return 1.0


def text_width(text: str, font: float = FONT) -> float:
    """About how wide ``text`` is drawn at ``font`` units, never less than it is."""
    return sum(char_width(ch) for ch in text) * font


def _joined(text: str, cut: int) -> bool:
    """Whether cutting ``text`` before index ``cut`` would split one drawn character (an
    emoji sequence with a joiner, a mark or a variation selector after its letter)."""
    return 0 < cut < len(text) and (char_width(text[cut]) == 0 or text[cut - 1] == ZWJ)


def _fitting(text: str, room: float, font: float) -> int:
    """How many of ``text``'s first characters fit in ``room`` (not splitting one drawn
    character; at least one, so a line always moves on)."""
    used, cut = 0.0, 0
    while cut < len(text) and used + char_width(text[cut]) * font <= room:
        used += char_width(text[cut]) * font
        cut += 1
    while _joined(text, cut):
        cut -= 1
    if cut == 0:  # not even one drawn character fits: take one, whole
        cut = 1
        while _joined(text, cut):
            cut += 1
    return cut


def shorten(text: str, room: float, font: float = FONT) -> str:
    """``text`` as it fits in ``room`` units, cut with "…" when it does not."""
    if text_width(text, font) <= room:
        return text
    cut = _fitting(text, room - text_width("…", font), font)
    return text[:cut].rstrip() + "…"


def wrap(text: str, room: float, lines: int = LINES, font: float = FONT) -> list[str]:
    """``text`` on at most ``lines`` lines of ``room`` units (broken at a space when one
    is near, else anywhere, as a name with no space must be), the last cut with "…"."""
    out: list[str] = []
    rest = text.strip()
    while rest and len(out) < lines - 1 and text_width(rest, font) > room:
        cut = _fitting(rest, room, font)
        space = rest.rfind(" ", 0, cut + 1)
        if space > cut // 2:
            cut = space
        out.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    if rest:
        out.append(shorten(rest, room, font))
    return out or [""]


def bar_chart(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Geometry for a horizontal bar chart drawn as SVG (no styles: plain attributes).

    ``rows``: ``[{"label", "value" (int/float), "highlight" (bool, optional), "seat"
    (optional: the player's seat, whose colour the bar takes)}]``.
    Returns ``{"width", "height", "zero", "left", "beside", "bars": [{label, lines,
    cut, value, highlight, x, y, width, height, label_x, label_y, value_x, value_y}]}``:
    ``beside`` says whether the names are drawn right-aligned left of the bars (every
    name fits in :data:`LABEL_WIDTH`) or from the left edge above each bar; ``lines``
    are a name's drawn lines, ``cut`` whether they leave some of it out. Negative values
    grow left of the zero line.
    """
    beside = all(text_width(str(row["label"])) <= LABEL_WIDTH - GAP for row in rows)
    left = LABEL_WIDTH if beside else 0
    values = [row["value"] for row in rows] or [0]
    low, high = min(0, *values), max(0, *values)
    span = (high - low) or 1
    plot = CHART_WIDTH - left - VALUE_WIDTH
    zero = left + round(plot * (0 - low) / span, 1)
    bars, top = [], 0
    for row in rows:
        label, value = str(row["label"]), row["value"]
        lines = [label] if beside else wrap(label, CHART_WIDTH - INSET)
        width = round(plot * abs(value) / span, 1)
        x = zero if value >= 0 else round(zero - width, 1)
        y = top if beside else top + len(lines) * LINE + 4
        middle = y + BAR_HEIGHT / 2 + FONT * 0.35  # a baseline that centres a line
        cut = "".join(lines).replace(" ", "") != label.replace(" ", "")
        bars.append({
            "label": label, "lines": lines, "cut": cut,
            "value": value, "highlight": bool(row.get("highlight")), "seat": row.get("seat"),
            "x": x, "y": y, "width": max(width, 0), "height": BAR_HEIGHT,
            "label_x": LABEL_WIDTH - GAP if beside else INSET,
            "label_y": round(middle, 1) if beside else top + FONT,
            "value_x": round(max(zero, x + width) + GAP, 1), "value_y": round(middle, 1),
        })
        top = y + BAR_HEIGHT + ROW_GAP
    return {"width": CHART_WIDTH, "height": max(top - ROW_GAP, 1), "zero": zero,
            "left": left, "beside": beside, "line": LINE, "bars": bars}


def score_bars(scores: dict[int, Any], names: dict[int, str], winners: list[int]
               ) -> dict[str, Any]:
    """A bar per player of ``scores`` {seat: n}, the winners highlighted."""
    return bar_chart([{"label": names.get(seat, "?"), "value": value, "seat": seat,
                       "highlight": seat in winners} for seat, value in scores.items()])
