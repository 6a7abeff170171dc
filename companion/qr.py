"""QR codes as SVG (no Pillow needed), cached: the same link always makes the same code."""

import io
from functools import lru_cache

import qrcode
import qrcode.image.svg


@lru_cache(maxsize=512)
def svg(data: str) -> str:
    """An SVG image of a QR code that encodes ``data``."""
    code = qrcode.QRCode(border=2, image_factory=qrcode.image.svg.SvgPathImage)
    code.add_data(data)
    out = io.BytesIO()
    code.make_image().save(out)
    return out.getvalue().decode()


def text(data: str) -> str:
    """The QR code drawn with block characters, for a terminal."""
    code = qrcode.QRCode(border=1)
    code.add_data(data)
    out = io.StringIO()
    code.print_ascii(out=out, invert=True)
    return out.getvalue()
