"""Charts as geometry: the numbers an SVG template draws, with no styles in them."""

from typing import Any

CHART_WIDTH = 600
LABEL_WIDTH = 170
VALUE_WIDTH = 60
ROW_HEIGHT = 40
BAR_HEIGHT = 26


def bar_chart(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Geometry for a horizontal bar chart drawn as SVG (no styles: plain attributes).

    ``rows``: ``[{"label", "value" (int/float), "highlight" (bool, optional)}]``.
    Returns ``{"width", "height", "zero", "bars": [{label, value, highlight, x, y, width,
    height, label_x, label_y, value_x}]}``. Negative values grow left of the zero line.
    """
    values = [row["value"] for row in rows] or [0]
    low, high = min(0, *values), max(0, *values)
    span = (high - low) or 1
    left = LABEL_WIDTH
    plot = CHART_WIDTH - LABEL_WIDTH - VALUE_WIDTH
    zero = left + round(plot * (0 - low) / span, 1)
    bars = []
    for index, row in enumerate(rows):
        value = row["value"]
        width = round(plot * abs(value) / span, 1)
        x = zero if value >= 0 else round(zero - width, 1)
        y = index * ROW_HEIGHT + (ROW_HEIGHT - BAR_HEIGHT) // 2
        bars.append({
            "label": row["label"], "value": value, "highlight": bool(row.get("highlight")),
            "x": x, "y": y, "width": max(width, 0), "height": BAR_HEIGHT,
            "label_x": LABEL_WIDTH - 10, "label_y": y + BAR_HEIGHT // 2 + 6,
            "value_x": round(max(zero, x + width) + 8, 1),
        })
    return {"width": CHART_WIDTH, "height": max(1, len(rows)) * ROW_HEIGHT, "zero": zero,
            "bars": bars}


def score_bars(scores: dict[int, Any], names: dict[int, str], winners: list[int]
               ) -> dict[str, Any]:
    """A bar per player of ``scores`` {seat: n}, the winners highlighted."""
    return bar_chart([{"label": names.get(seat, "?"), "value": value,
                       "highlight": seat in winners} for seat, value in scores.items()])
