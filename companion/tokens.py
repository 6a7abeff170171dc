"""Random tokens for links and cookies."""

import secrets


def new_token() -> str:
    """A long random token for a URL or a cookie: it cannot be guessed or counted."""
    return secrets.token_urlsafe(32)
