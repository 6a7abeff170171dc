"""The recap pictures drawn as PNG with Pillow and the fonts shipped in companion/fonts.

Pure: no Flask, no SQL. It draws what companion/core/recap.py says (a title, a subtitle and
sections of blocks) in the players' colours, at :data:`WIDTH` pixels wide and at most
:data:`MAX_HEIGHT` high: sections that do not fit are left out, and a last line says how
many (docs/architecture.md#recap-pictures).

Every string is drawn with NanumSquare (Hangul and Latin) and, for the characters that
font lacks, Noto Emoji (companion/fonts/README.md), so a name looks the same on every
machine. Fonts are opened once per thread: a FreeType face is not shared by threads."""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PIL import Image, ImageDraw

from companion.pictures.lettering import fit, font, measure, runs

#: A phone's screen and a chat preview: 1080 px wide (a phone shows it at its full
#: width), at most five times as high (a chat's preview shows the top; the rest scrolls
#: when it is opened).
WIDTH = 1080


MAX_HEIGHT = 5400


MARGIN, PAD, GAP = 40, 28, 20


INNER = WIDTH - 2 * MARGIN - 2 * PAD


SIZES = {"title": 60, "heading": 38, "body": 34, "small": 28, "caption": 26}


INK, MUTED, PAPER, CARD, RULE = "#1F2328", "#59636E", "#F3F1EC", "#FFFFFF", "#D0D7DE"


BAND, BAND_INK = "#1F2A44", "#FFFFFF"


SHAPES = ("circle", "square", "triangle", "diamond")



Block = dict[str, Any]


def _hex(colour: str) -> tuple[int, int, int]:
    value = colour.lstrip("#")
    return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)


def _luminance(colour: str) -> float:
    def channel(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(c) for c in _hex(colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def ink_on(colour: str) -> str:
    """Black or white, whichever reads better on ``colour`` (WCAG contrast)."""
    light = _luminance(colour)
    return INK if (light + 0.05) / 0.05 >= 1.05 / (light + 0.05) else "#FFFFFF"


@dataclass
class Pen:
    """Draws on ``draw``, or with ``draw`` None only measures (the layout's first pass)."""

    draw: ImageDraw.ImageDraw | None
    colours: dict[int, str]

    def colour(self, seat: int | None) -> str:
        return self.colours.get(seat, "#999999") if seat is not None else MUTED

    def text(self, x: float, baseline: float, text: str, size: int, bold: bool = False,
             fill: str = INK) -> float:
        """Draw ``text`` from (x, baseline); returns its width."""
        start = x
        for part, emoji in runs(text):
            face = font(size, bold, emoji)
            if self.draw is not None:
                self.draw.text((x, baseline), part, font=face, fill=fill, anchor="ls")
            x += face.getlength(part)
        return x - start

    def box(self, xy: tuple[float, float, float, float], fill: str, radius: float = 0,
            outline: str | None = None) -> None:
        if self.draw is not None:
            self.draw.rounded_rectangle(xy, radius=radius, fill=fill, outline=outline,
                                        width=2 if outline else 0)

    def pill(self, x: float, top: float, name: str, seat: int | None, size: int,
             room: float) -> float:
        """A player's name on their colour; returns its width."""
        height = size + 18
        label = fit(name, size, room - 28, bold=True)
        width = measure(label, size, bold=True) + 28
        colour = self.colour(seat)
        self.box((x, top, x + width, top + height), colour, radius=height / 2)
        self.text(x + 14, top + height / 2 + size * 0.36, label, size, True, ink_on(colour))
        return width


def _line_height(size: int) -> int:
    return size + 22


def _words(spans: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Spans as the pieces a line may break between: a name whole, text word by word."""
    pieces: list[dict[str, Any]] = []
    for span in spans:
        if span.get("seat") is not None:
            pieces.append(span)
            continue
        words = str(span["text"]).split(" ")
        for i, word in enumerate(words):
            text = word + (" " if i < len(words) - 1 else "")
            if text:
                pieces.append({**span, "text": text})
    return pieces


def _piece_width(piece: dict[str, Any], size: int) -> float:
    bold = bool(piece.get("bold"))
    if piece.get("seat") is not None:
        return min(measure(str(piece["text"]), size, True) + 28, INNER) + 10
    return measure(str(piece["text"]), size, bold)


def draw_line(pen: Pen, x: float, top: float, block: Block) -> float:
    """Text with players' names on their colours, wrapped at :data:`INNER`."""
    size = SIZES[block.get("size", "body")]
    step = _line_height(size)
    cx, cy = x, top
    for piece in _words(block["spans"]):
        width = _piece_width(piece, size)
        if cx > x and cx + width > x + INNER:
            cx, cy = x, cy + step
        if piece.get("seat") is not None:
            cx += pen.pill(cx, cy + 2, str(piece["text"]), piece["seat"], size - 4,
                           INNER) + 10
        else:
            fill = INK if block.get("size", "body") != "caption" else MUTED
            cx += pen.text(cx, cy + size * 0.95, str(piece["text"]), size,
                           bool(piece.get("bold")), fill)
    return cy + step - top


def draw_bars(pen: Pen, x: float, top: float, block: Block) -> float:
    """A horizontal bar per player in their colour: the name on its colour, the value
    at the bar's end; the highlighted (winning) bars outlined."""
    rows = block["rows"]
    size, bar = SIZES["small"], 40
    labels = min(max((measure(str(r["label"]), size - 2, True) + 38 for r in rows),
                     default=0), 340)
    values = [r["value"] for r in rows] or [0]
    low, high = min(0, *values), max(0, *values)
    plot = INNER - labels - 100
    zero = x + labels + plot * (0 - low) / ((high - low) or 1)
    y = top
    for row in rows:
        pen.pill(x, y, str(row["label"]), row.get("seat"), size - 2, labels - 10)
        width = plot * abs(row["value"]) / ((high - low) or 1)
        left = zero if row["value"] >= 0 else zero - width
        pen.box((left, y + 2, left + max(width, 3), y + bar), pen.colour(row.get("seat")),
                radius=6, outline=INK if row.get("highlight") else None)
        pen.text(max(zero, left + width) + 12, y + bar * 0.75, str(row["value"]), size,
                 True)
        y += bar + 14
    if pen.draw is not None:
        pen.draw.line((zero, top, zero, y - 14), fill=RULE, width=2)
    return y - top - 14


def _nice_step(span: float) -> int:
    """A tick step giving at most five ticks over ``span``."""
    for step in (1, 2, 5, 10, 20, 50, 100, 200, 500):
        if span / step <= 5:
            return step
    return 1000


def _marker(pen: Pen, shape: str, x: float, y: float, r: float, fill: str) -> None:
    if pen.draw is None:
        return
    if shape == "square":
        pen.draw.rectangle((x - r, y - r, x + r, y + r), fill=fill, outline=INK)
    elif shape == "triangle":
        pen.draw.polygon([(x, y - r), (x + r, y + r), (x - r, y + r)], fill=fill, outline=INK)
    elif shape == "diamond":
        pen.draw.polygon([(x, y - r), (x + r, y), (x, y + r), (x - r, y)], fill=fill,
                         outline=INK)
    else:
        pen.draw.ellipse((x - r, y - r, x + r, y + r), fill=fill, outline=INK)


def _polyline(pen: Pen, points: list[tuple[float, float]], fill: str, width: int,
              dashed: bool) -> None:
    """A line through ``points``, dashed (18 on, 10 off) when asked."""
    if pen.draw is None or len(points) < 2:
        return
    if not dashed:
        pen.draw.line(points, fill=fill, width=width, joint="curve")
        return
    for (x1, y1), (x2, y2) in zip(points, points[1:], strict=False):
        length = max(((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5, 1)
        done = 0.0
        while done < length:
            end = min(done + 18, length)
            pen.draw.line((x1 + (x2 - x1) * done / length, y1 + (y2 - y1) * done / length,
                           x1 + (x2 - x1) * end / length, y1 + (y2 - y1) * end / length),
                          fill=fill, width=width)
            done = end + 10


def _spread(wanted: list[float], low: float, high: float, gap: float) -> list[float]:
    """Positions as near ``wanted`` (sorted) as can be, ``gap`` apart, within the range."""
    spots: list[float] = []
    for value in wanted:
        spots.append(max(value, spots[-1] + gap if spots else low))
    for i in range(len(spots) - 1, -1, -1):
        ceiling = high if i == len(spots) - 1 else spots[i + 1] - gap
        spots[i] = max(min(spots[i], ceiling), low)
    return spots


def draw_lines(pen: Pen, x: float, top: float, block: Block) -> float:
    """Running totals: a line per player in their colour, with its own marker shape (and
    dashed from the fifth), the names at the lines' ends, the leaders' lines thicker."""
    series, height, labels = block["series"], 480, 230
    count = max((len(s["values"]) for s in series), default=1) - 1
    values = [v for s in series for v in s["values"]] or [0]
    low, high = min(0, *values), max(10, *values)
    step = _nice_step(high - low)
    left, right, ceil, floor = x + 70, x + INNER - labels, top + 14, top + height - 40

    def px(i: int) -> float:
        return left + (right - left) * i / max(count, 1)

    def py(v: float) -> float:
        return floor - (floor - ceil) * (v - low) / ((high - low) or 1)

    for tick in range(low - low % step, high + 1, step):
        if low <= tick <= high and pen.draw is not None:
            pen.draw.line((left, py(tick), right, py(tick)), fill=INK if tick == 0 else RULE,
                          width=2 if tick == 0 else 1)
            pen.text(x, py(tick) + 9, str(tick), SIZES["caption"], fill=MUTED)
    for i in range(count + 1):
        pen.text(px(i) - 7, floor + 34, str(i), SIZES["caption"], fill=MUTED)
    ends = []
    for i, line in enumerate(series):
        colour = pen.colour(line.get("seat"))
        points = [(px(j), py(v)) for j, v in enumerate(line["values"])]
        _polyline(pen, points, colour, 9 if line.get("leader") else 5, i % 8 >= len(SHAPES))
        for point in points:
            _marker(pen, SHAPES[i % len(SHAPES)], *point, 7, colour)
        ends.append((points[-1][1], line))
    ends.sort(key=lambda end: end[0])
    spots = _spread([e[0] - 22 for e in ends], top, floor - 22, 46)
    for (_y, line), spot in zip(ends, spots, strict=True):
        name = ("★ " if line.get("leader") else "") + str(line["name"])
        pen.pill(right + 16, spot, name, line.get("seat"), SIZES["caption"], labels - 20)
    return height


DRAWERS: dict[str, Callable[[Pen, float, float, Block], float]] = {
    "line": draw_line, "bars": draw_bars, "lines": draw_lines,
}


def _section_body(pen: Pen, top: float, section: dict[str, Any]) -> float:
    """A card's heading and blocks. Returns the card's height."""
    x = MARGIN + PAD
    y = top + PAD
    if section.get("heading"):
        size = SIZES["heading"]
        pen.text(x, y + size * 0.9, fit(str(section["heading"]), size, INNER, True), size,
                 True)
        y += size + 18
    for block in section["blocks"]:
        y += DRAWERS[block["kind"]](pen, x, y, block) + 14
    return y - top + PAD - 14


def draw_section(pen: Pen, top: float, section: dict[str, Any]) -> float:
    """One card: measured first, its background drawn, then its heading and blocks.
    Returns its height."""
    height = _section_body(Pen(None, pen.colours), top, section)
    pen.box((MARGIN, top, WIDTH - MARGIN, top + height), CARD, radius=24, outline=RULE)
    if pen.draw is not None:
        _section_body(pen, top, section)
    return height


def _header(pen: Pen, title: str, subtitle: str) -> float:
    """The band at the top: the title and the subtitle (date, how many games)."""
    height = 200
    pen.box((0, 0, WIDTH, height), BAND)
    pen.text(MARGIN + PAD, 96, fit(title, SIZES["title"], INNER, True), SIZES["title"],
             True, BAND_INK)
    pen.text(MARGIN + PAD, 156, fit(subtitle, SIZES["small"], INNER), SIZES["small"],
             fill=BAND_INK)
    return height


def layout(content: dict[str, Any], colours: dict[int, str]) -> tuple[list[Any], int]:
    """The sections that fit in :data:`MAX_HEIGHT` (the first always does), with the
    note of those left out, and the picture's height."""
    pen = Pen(None, colours)
    sections, top = list(content["sections"]), _header(pen, "", "") + GAP
    kept: list[Any] = []
    note_room = 120
    for i, section in enumerate(sections):
        height = draw_section(pen, 0, section)
        last = i == len(sections) - 1
        if kept and top + height + GAP + (0 if last else note_room) > MAX_HEIGHT:
            kept.append(content["more"](len(sections) - i))
            top += draw_section(pen, 0, kept[-1]) + GAP
            break
        kept.append(section)
        top += height + GAP
    return kept, min(int(top + MARGIN - GAP), MAX_HEIGHT)


def render(content: dict[str, Any], colours: dict[int, str]) -> bytes:
    """The PNG of ``content`` (``{"title", "subtitle", "sections": [{"heading",
    "blocks"}], "more": n -> section}``) with players drawn in ``colours`` {seat: hex}."""
    sections, height = layout(content, colours)
    image = Image.new("RGB", (WIDTH, height), PAPER)
    pen = Pen(ImageDraw.Draw(image), colours)
    top = _header(pen, str(content["title"]), str(content["subtitle"])) + GAP
    for section in sections:
        top += draw_section(pen, top, section) + GAP
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=6)
    return out.getvalue()
