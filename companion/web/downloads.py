"""Files a host downloads: an attachment with its name, and CSV that spreadsheets open
as UTF-8 (Korean names included) without reading a name as a formula."""

import csv
import io
import unicodedata
from collections.abc import Iterable
from typing import Any

from flask import Response


def attachment(body: bytes, mimetype: str, filename: str) -> Response:
    """``body`` as a download named ``filename``."""
    response = Response(body, mimetype=mimetype)
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def csv_file(rows: Iterable[Iterable[Any]], filename: str) -> Response:
    """Rows as a CSV download: CRLF lines, and a byte-order mark so that spreadsheets
    read Korean names as UTF-8."""
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerows(rows)
    return attachment(("\ufeff" + out.getvalue()).encode("utf-8"), "text/csv", filename)


def cell(text: Any) -> str:
    """A name as a spreadsheet cell: never read as a formula, not even behind characters
    a spreadsheet skips or does not show (a byte-order mark, zero-width and direction
    marks, spaces: "\ufeff=SUM(A1)" is a formula to it too)."""
    text = str(text)
    shown = next((c for c in text if unicodedata.category(c) not in ("Cf", "Zs")), "")
    return "'" + text if shown in ("=", "+", "-", "@", "\t", "\r") else text
