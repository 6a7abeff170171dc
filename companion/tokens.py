"""Random tokens for links and cookies."""

import hashlib
import secrets


def new_token() -> str:
    """A long random token for a URL or a cookie: it cannot be guessed or counted."""
    return secrets.token_urlsafe(32)


def device_id(cookie: str) -> str:
    """What the database keeps of a device's cookie: its SHA-256, so the file alone does
    not let anyone present themselves as a seat or a host."""
    return hashlib.sha256(cookie.encode()).hexdigest()
