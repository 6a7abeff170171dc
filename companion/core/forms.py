"""Reading numbers from forms: the one parser every game's views use."""

from typing import Any

from companion.core.errors import RuleError


def whole_number(raw: object, message: str, /, **params: Any) -> int:
    """A whole number from a form value: ASCII digits (at most 4) with an optional sign.

    Anything else (missing, text, "²", 10**80) raises RuleError(message, **params), so a
    hostile or mistyped form gets a sentence, never a 500 or a number SQLite cannot hold.
    """
    text = "" if raw is None else str(raw).strip()
    sign, digits = ("", text)
    if text[:1] in ("+", "-"):
        sign, digits = text[0], text[1:]
    if not (digits.isascii() and digits.isdigit()) or len(digits) > 4:
        raise RuleError(message, **params)
    return int(sign + digits)
