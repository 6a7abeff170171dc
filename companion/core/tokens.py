"""Random tokens for links and cookies, and the hashes the database keeps."""

import hashlib
import json
import secrets
from collections.abc import Iterable


def new_token() -> str:
    """A long random token for a URL or a cookie: it cannot be guessed or counted. Never
    one that begins with "-": a night's key is typed after an option on the command line
    (``companion host-link --night KEY``), where such a key reads as another option (one
    token in 64 did; the six bits the first letter loses leave 250)."""
    while True:
        token = secrets.token_urlsafe(32)
        if not token.startswith("-"):
            return token


def device_id(cookie: str) -> str:
    """What the database keeps of a device's cookie: its SHA-256, so the file alone does
    not let anyone present themselves as a seat or a host."""
    return hashlib.sha256(cookie.encode()).hexdigest()


def night_fingerprint(created: str, players: Iterable[str]) -> str:
    """What tells one night from another on any machine: the moment it was made and its
    players in seat order. An export of the night, made at any point of it (before or
    after its last game), has the night's fingerprint, so an import sees that the night
    is already here (its games may differ: the host chooses what to keep)."""
    text = json.dumps([created, list(players)], ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
