"""The one error the rules raise: a move the table cannot make.

Rules modules stay free of Flask, so a message is kept untranslated here (marked with
``N_`` for the catalog extractor) together with its parameters; the view translates it
with ``gettext(err.message, **err.params)`` when it shows it to a person.
"""

from typing import Any


def N_(message: str) -> str:
    """Mark ``message`` for translation without translating it (for pybabel extract)."""
    return message


class RuleError(ValueError):
    """A rule forbids this: the message is fit to show a person, and nothing is recorded."""

    def __init__(self, message: str, **params: Any) -> None:
        self.message = message
        self.params = params
        super().__init__(message % params if params else message)
