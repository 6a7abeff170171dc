"""QR codes: as SVG, cached (the same link always makes the same code), and as PNG for a
code that its caller keeps (the Wi-Fi join code, which holds a password:
companion/table/wifi_code.py keeps it only while it is the night's). A code that is not
kept is drawn beside the loop, in the client address's turn (``offload.in_turn``): one
costs 7-12 ms of CPU, and a guest asking for new ones again and again held every other
table's answers while it was drawn on the loop."""

import io

import qrcode
import qrcode.image.pil
import qrcode.image.svg

from companion.core.lru import LRU
from companion.web.offload import in_turn

#: Error correction levels: M (15 %) for codes that may be printed, L (7 %) where a code
#: is only ever shown on a screen and every byte makes it denser (docs/bgstats.md).
MEDIUM = qrcode.constants.ERROR_CORRECT_M
LOW = qrcode.constants.ERROR_CORRECT_L


#: The SVG codes drawn so far (a seat's, a host or screen code's, an address's), by
#: their text and correction: about 4 KB each.
_drawn = LRU(512)


def svg(data: str, correction: int = MEDIUM) -> str:
    """An SVG image of a QR code that encodes ``data``: the one kept, or one drawn
    beside the loop (and kept)."""
    key = (data, correction)
    found: str | None = _drawn.get(key)
    if found is None:
        found = in_turn(draw_svg, data, correction)
        _drawn.put(key, found)
    return found


def draw_svg(data: str, correction: int = MEDIUM) -> str:
    """An SVG image of a QR code that encodes ``data``, drawn now."""
    code = qrcode.QRCode(border=2, error_correction=correction,
                         image_factory=qrcode.image.svg.SvgPathImage)
    code.add_data(data)
    out = io.BytesIO()
    code.make_image().save(out)
    return out.getvalue().decode()


def png(data: str, correction: int = MEDIUM) -> bytes:
    """A PNG image of a QR code that encodes ``data``: 10 px a module, with the four
    modules of white around it that a camera wants. Not kept here: ``data`` may be a
    secret that must be gone from the process once it is forgotten (its caller keeps it
    only as long as it may)."""
    code = qrcode.QRCode(border=4, box_size=10, error_correction=correction,
                         image_factory=qrcode.image.pil.PilImage)
    code.add_data(data)
    out = io.BytesIO()
    code.make_image().save(out)
    return out.getvalue()


#: The Wi-Fi code's QR version, whatever the network: the longest join code, a 32-byte
#: name and a 63-character password whose every character is escaped ("H:true" too),
#: is 215 bytes, which version 11 holds at level M (251).
WIFI_VERSION = 11
#: Its pixels a module: 8 × (61 modules and 4 of white each side) = 552 px, shown at
#: 180 px on the table page and 450 on the room's screen.
WIFI_BOX = 8


def wifi_png(data: str) -> bytes:
    """The Wi-Fi join code ``data`` as a PNG of the same bytes whatever the network:
    always :data:`WIFI_VERSION` at level M, stored uncompressed (deflate's output would
    follow the modules). Its size told an eavesdropper without the key how long the
    password is (693 bytes for 8 characters, 1,138 for 63). Raises qrcode's
    ``DataOverflowError`` for a text the version cannot hold (the checks of
    companion/core/wifi.py let none through)."""
    code = qrcode.QRCode(version=WIFI_VERSION, border=4, box_size=WIFI_BOX,
                         error_correction=MEDIUM, image_factory=qrcode.image.pil.PilImage)
    code.add_data(data)
    code.make(fit=False)
    out = io.BytesIO()
    code.make_image().save(out, compress_level=0)
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
