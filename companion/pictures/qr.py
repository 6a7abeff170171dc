"""QR codes: as SVG, cached (the same link always makes the same code), and as PNG for a
code that must not stay in memory (the Wi-Fi join code, which holds a password)."""

import io
from functools import lru_cache

import qrcode
import qrcode.image.pil
import qrcode.image.svg

#: Error correction levels: M (15 %) for codes that may be printed, L (7 %) where a code
#: is only ever shown on a screen and every byte makes it denser (docs/bgstats.md).
MEDIUM = qrcode.constants.ERROR_CORRECT_M
LOW = qrcode.constants.ERROR_CORRECT_L


@lru_cache(maxsize=512)
def svg(data: str, correction: int = MEDIUM) -> str:
    """An SVG image of a QR code that encodes ``data``."""
    code = qrcode.QRCode(border=2, error_correction=correction,
                         image_factory=qrcode.image.svg.SvgPathImage)
    code.add_data(data)
    out = io.BytesIO()
    code.make_image().save(out)
    return out.getvalue().decode()


def png(data: str, correction: int = MEDIUM) -> bytes:
    """A PNG image of a QR code that encodes ``data``: 10 px a module, with the four
    modules of white around it that a camera wants. Never cached: ``data`` may be a
    secret that must be gone from the process once it is forgotten."""
    code = qrcode.QRCode(border=4, box_size=10, error_correction=correction,
                         image_factory=qrcode.image.pil.PilImage)
    code.add_data(data)
    out = io.BytesIO()
    code.make_image().save(out)
    return out.getvalue()


#: The characters :func:`text` draws with (qrcode's, from cp437): a terminal that cannot
#: print them all gets the ASCII code instead.
BLOCKS = "\xa0\u2580\u2584\u2588"


def text(data: str, plain: bool = False) -> str:
    """The QR code drawn with block characters, for a terminal; with ``plain``, in ASCII
    (two ``#`` a light module, a line a row: twice as tall, for output in a code page
    without block characters, as Windows gives a pipe)."""
    code = qrcode.QRCode(border=1)
    code.add_data(data)
    if plain:
        code.make()
        rows = [[False] * (len(code.modules) + 2)]
        rows += [[False, *(bool(m) for m in row), False] for row in code.modules]
        rows.append(rows[0])
        return "".join("".join("  " if dark else "##" for dark in row) + "\n"
                       for row in rows)
    out = io.StringIO()
    code.print_ascii(out=out, invert=True)
    return out.getvalue()
