"""The games this app knows (its ``GAMES`` setting), as ``create_app`` loaded them into
``app.extensions`` (companion/core/registry.py, ``APP_KEY``): what every page, tally,
statistic and file of this app reads, and passes to the pure code it calls."""

from flask import current_app

from companion.core.registry import APP_KEY, GameKind, Games


def games() -> Games:
    """The current app's games, by kind, in its menu's order."""
    found: Games = current_app.extensions[APP_KEY]
    return found


def game(kind: str) -> GameKind:
    """The game of this kind; KeyError for a kind the app does not know."""
    return games()[kind]


def kinds() -> tuple[str, ...]:
    return tuple(games())
