"""Responses whose size tells nothing of the secret they carry.

A phone's page may hold a secret (a Kraken role, a Crazy Time law's cards, a Skull King
bid before "Yo-ho-ho!"). Over Wi-Fi the page's size is visible to anyone, even without
the password, and a compressed page's size depends on its text: a Skeleton's page was
a few bytes longer than an Explorer's. So a template marks each secret with
``{% call secret(width) %}…{% endcall %}``: the secret is padded with spaces to exactly
``width`` bytes, and the response is compressed around it, never through it — the segments
before and after are deflated on their own (no back-reference reaches into the secret),
and the secret goes into the gzip stream as stored, uncompressed bytes. Every variant of
a page then has the same size, byte for byte (tests/test_sealed.py).
"""

import secrets
import struct
import zlib
from collections.abc import Callable

from markupsafe import Markup

# Random per process, so no text typed at the table can forge or break a marker.
_OPEN = f"<!--secret-{secrets.token_hex(8)}-->"
_CLOSE = f"<!--/secret-{secrets.token_hex(8)}-->"


class SecretTooLong(ValueError):
    """A secret longer than the width its template gave it (a template's mistake)."""


def secret(width: int, caller: Callable[[], str]) -> Markup:
    """The secret the ``call`` block renders, padded to ``width`` bytes and marked."""
    text = str(caller())
    size = len(text.encode())
    if size > width:
        raise SecretTooLong(f"a secret of {size} bytes in a slot of {width}")
    return Markup(_OPEN + text + " " * (width - size) + _CLOSE)


def stored(value: str) -> Markup:
    """A value kept out of compression as it is (no padding): a random token, whose
    compressed size would vary from page to page and blur the sizes that must match."""
    text = str(value)
    return secret(len(text.encode()), lambda: text)


def has_secret(body: bytes) -> bool:
    return _OPEN.encode() in body


def segments(body: bytes) -> list[tuple[bytes, bool]]:
    """The body cut into (bytes, is it a secret) without the markers."""
    out: list[tuple[bytes, bool]] = []
    rest = body
    opening, closing = _OPEN.encode(), _CLOSE.encode()
    while opening in rest:
        before, rest = rest.split(opening, 1)
        inside, rest = rest.split(closing, 1)
        out += [(before, False), (inside, True)]
    out.append((rest, False))
    return out


def plain(body: bytes) -> bytes:
    """The body without its markers (for a client that takes no gzip)."""
    return b"".join(data for data, _ in segments(body))


_GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"  # deflate, no name, mtime 0
_LAST_BLOCK = b"\x01\x00\x00\xff\xff"  # an empty stored block marked final


def _stored(data: bytes) -> bytes:
    """``data`` as stored (uncompressed) deflate blocks: 5 bytes of header per 65,535."""
    out = []
    for start in range(0, len(data), 0xFFFF):
        chunk = data[start:start + 0xFFFF]
        out.append(b"\x00" + struct.pack("<HH", len(chunk), len(chunk) ^ 0xFFFF) + chunk)
    return b"".join(out)


def gzip(body: bytes, level: int = 6) -> bytes:
    """The body as one gzip stream: its public segments compressed, its secrets stored.

    One compressor deflates the public segments, with a full flush after each: the flush
    ends on a byte boundary and forgets everything before it, so no later segment refers
    back across a secret (which the compressor never sees), and a segment compresses the
    same whatever came before it.
    """
    compressor = zlib.compressobj(level, zlib.DEFLATED, -15)
    crc, size, out = 0, 0, [_GZIP_HEADER]
    for data, is_secret in segments(body):
        crc = zlib.crc32(data, crc)
        size += len(data)
        if is_secret:
            out.append(_stored(data))
        else:
            out.append(compressor.compress(data) + compressor.flush(zlib.Z_FULL_FLUSH))
    out += [_LAST_BLOCK, struct.pack("<II", crc & 0xFFFFFFFF, size & 0xFFFFFFFF)]
    return b"".join(out)
