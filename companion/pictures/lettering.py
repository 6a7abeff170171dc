"""Text in a picture: the shipped fonts (NanumSquare, and Noto Emoji for what it lacks),
each opened once per thread; a text cut into the clusters a reader sees and the runs
each font draws; widths measured, and a text fitted to its room with "…"."""

from __future__ import annotations

import threading
import unicodedata
from functools import lru_cache
from pathlib import Path
from typing import Any

from PIL import ImageFont

FONTS = Path(__file__).resolve().parent.parent / "fonts"  # companion/fonts


REGULAR = FONTS / "NanumSquareR.ttf"


BOLD = FONTS / "NanumSquareB.ttf"


EMOJI = FONTS / "NotoEmoji-Regular.ttf"


#: Characters that join the one before them into one drawn emoji.
JOINERS = frozenset("\u200d\ufe0f\u20e3")


MISSING = "\U0010fffd"  # a private-use code point no shipped font draws


# Each thread's fonts: a FreeType face is not safe to share between threads.
_local = threading.local()


def font(size: int, bold: bool = False, emoji: bool = False) -> ImageFont.FreeTypeFont:
    """The font at ``size`` px, opened once per thread."""
    cache: dict[tuple[int, bool, bool], ImageFont.FreeTypeFont] = _local.__dict__.setdefault(
        "fonts", {})
    key = (size, bold, emoji)
    if key not in cache:
        path = EMOJI if emoji else BOLD if bold else REGULAR
        cache[key] = ImageFont.truetype(str(path), size)
    return cache[key]


def _signature(face: ImageFont.FreeTypeFont, text: str) -> tuple[Any, bytes]:
    mask = face.getmask(text)
    return mask.size, bytes(bytearray(mask))


@lru_cache(maxsize=4096)
def has_glyph(char: str, emoji: bool = False) -> bool:
    """Whether the text font (or the emoji font) draws ``char`` as itself, not as its
    missing-glyph box (told apart by drawing both)."""
    face = font(24, emoji=emoji)
    return char.isspace() or _signature(face, char) != _signature(face, MISSING)


def _joins(char: str) -> bool:
    return (char in JOINERS or "\U0001f3fb" <= char <= "\U0001f3ff"
            or "\U000e0020" <= char <= "\U000e007f")


def clusters(text: str) -> list[str]:
    """``text`` cut into drawn characters: a letter with its marks, an emoji with its
    joiners, skin tone and variation selector, a pair of regional-indicator flags."""
    out: list[str] = []
    for char in text:
        flag = "\U0001f1e6" <= char <= "\U0001f1ff"
        if out and (_joins(char) or out[-1].endswith("\u200d")
                    or unicodedata.combining(char)
                    or (flag and len(out[-1]) == 1 and "\U0001f1e6" <= out[-1] <= "\U0001f1ff")):
            out[-1] += char
        else:
            out.append(char)
    return out


def _is_emoji(cluster: str) -> bool:
    if len(cluster) > 1 and any(_joins(c) or ord(c) >= 0x1F000 for c in cluster[1:]):
        return True
    base = cluster[0]
    return not has_glyph(base) and has_glyph(base, emoji=True)


#: Stand-ins for punctuation neither font has (NanumSquare lacks the minus sign).
STAND_INS = {"\u2212": "-", "\u2012": "-", "\u2010": "-", "\u2011": "-"}


def _drawable(cluster: str) -> str:
    """``cluster``, or its stand-in (or compatibility form) when neither font has it."""
    if len(cluster) > 1 or has_glyph(cluster) or has_glyph(cluster, emoji=True):
        return cluster
    other = STAND_INS.get(cluster) or unicodedata.normalize("NFKC", cluster)
    return other if all(has_glyph(c) for c in other) else cluster


def runs(text: str) -> list[tuple[str, bool]]:
    """``text`` as runs of ``(text, is_emoji)``: each run drawn with one font."""
    out: list[tuple[str, bool]] = []
    for cluster in map(_drawable, clusters(text)):
        emoji = _is_emoji(cluster)
        if out and out[-1][1] == emoji:
            out[-1] = (out[-1][0] + cluster, emoji)
        else:
            out.append((cluster, emoji))
    return out


def measure(text: str, size: int, bold: bool = False) -> float:
    """How wide ``text`` is drawn at ``size`` px."""
    return sum(font(size, bold, emoji).getlength(part) for part, emoji in runs(text))


def fit(text: str, size: int, room: float, bold: bool = False) -> str:
    """``text`` as it fits in ``room`` px, cut with "…" between drawn characters."""
    if measure(text, size, bold) <= room:
        return text
    parts = clusters(text)
    while parts and measure("".join(parts) + "…", size, bold) > room:
        parts.pop()
    return "".join(parts).rstrip() + "…"
