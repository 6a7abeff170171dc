"""Blueprint: the recap pictures — the night's and each finished game's, as PNG.

A picture is for the night's host and the phones that hold a seat in it (anyone else
gets the same plain 404 as for the tally), in the request's language. Its content comes
from companion/core/recap.py (finished games only) and its pixels from
companion/pictures/drawing.py.

Rendering takes a tenth of a second or more (docs/measurements/2026-11-30/README.md, "Recap
pictures"), so each
process keeps the last pictures it drew, keyed by a digest of what they show (the text in
this language, the games' numbers, the players' colours). The key changes with the
night's version only when something the picture shows changed: a move in a running game
leaves it the same, and the picture is not drawn again. Nothing in the cache is ever the
truth: a worker that misses draws it again.
"""

import hashlib
import json
from typing import Any

from flask import Blueprint, Response, abort, current_app
from flask_babel import get_locale

from companion import store
from companion.core import colours, recap
from companion.core.lru import LRU
from companion.pictures import drawing
from companion.web.http import Answer
from companion.web.i18n import gettext as _
from companion.web.i18n import local_date, ngettext
from companion.web.identity import hosted_night_or_404, my_night_or_404, viewed_night
from companion.web.offload import costly

bp = Blueprint("pictures", __name__)

_pictures = LRU(32, 32 * 1024 * 1024, len)  # at most 32 MB of PNG


WORDS = recap.Words(_, ngettext, local_date)


def _png(night: store.Row, content: dict[str, Any] | None) -> bytes:
    """The picture of ``content`` (404 when there is none), drawn once per process."""
    if content is None:
        abort(404)
    hexes = {seat: colours.HEX.get(key, "#999999")
             for seat, key in store.colours(night["id"]).items()}
    shown = {k: v for k, v in content.items() if k != "more"}
    digest = hashlib.sha256(json.dumps(
        [current_app.config["DATABASE"], str(get_locale()), shown, sorted(hexes.items())],
        sort_keys=True, ensure_ascii=False, default=str).encode()).hexdigest()
    png: bytes | None = _pictures.get(digest)
    if png is None:
        png = drawing.render(content, hexes)
        _pictures.put(digest, png)
    return png


def _answer(png: bytes, name: str) -> Response:
    """A PNG shown in the page (a phone saves it with a long-press), named for a save."""
    response = Response(png, mimetype="image/png")
    response.headers["Content-Disposition"] = f'inline; filename="{name}.png"'
    return response


def night_picture(night: store.Row) -> Response:
    names = store.names(night["id"])
    games = store.night_games(night["id"])  # kept results: no log read, no replay
    content = recap.night(night["created"], names, games, WORDS, store.known_games())
    return _answer(_png(night, content), f"night-{night['created'][:10]}")


def game_picture(night: store.Row, number: int) -> Response:
    """One finished game's picture; 404 for a game that runs or is not there."""
    game = store.night_game(night["id"], number)
    content = None if game is None else recap.game(
        night["created"], store.names(night["id"]), game, WORDS, store.known_games())
    return _answer(_png(night, content), f"night-{night['created'][:10]}-game-{number}")


@bp.get("/n/<key>/recap.png")
@costly
def night_png(key: str) -> Answer:
    return night_picture(hosted_night_or_404(key))


@bp.get("/n/<key>/g/<int:number>/recap.png")
@costly
def game_png(key: str, number: int) -> Answer:
    return game_picture(hosted_night_or_404(key), number)


@bp.get("/n/<key>/screen/recap.png")
@costly
def screen_night_png(key: str) -> Answer:
    """The night's picture on the room's screen (between games and at the end): the
    same picture every phone of the night has, for the room to see."""
    return night_picture(viewed_night(key))


@bp.get("/me/recap.png")
@costly
def my_night_png() -> Answer:
    """The night's picture on a phone that holds a seat in it."""
    return night_picture(my_night_or_404())


@bp.get("/me/g/<int:number>/recap.png")
@costly
def my_game_png(number: int) -> Answer:
    return game_picture(my_night_or_404(), number)
