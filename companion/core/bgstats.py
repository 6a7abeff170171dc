"""A finished game as a BG Stats play, and the link that opens BG Stats' import with it.

Pure: no Flask, no SQL. BG Stats takes one play per link,
``https://app.bgstatsapp.com/createPlay.html?data=<URL-encoded JSON>``; the fields, the
sources they were checked against and what is left out are in docs/bgstats.md.

What each kind of game adds (its BoardGameGeek id, whether the highest score wins, each
player's score, rank, role, whether they started) comes from its package, through the registry's
``GameDef.bgstats``: nothing here names a game. A kind without it has no BG Stats play.

A game still running has no play at all: its result holds no secret, but a link made
from it would outlive the game, and Kraken's roles are secret until the end
(docs/security.md).

Public names:

- ``play(night, game, result, names, title, gettext)``: the play as a dict, or None.
- ``link(play)``: the import link; ``fits_qr(link)``: whether a QR code of it is dependable.
- ``document(play)``: the same play as a JSON file's bytes.
"""

import hashlib
import json
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any
from urllib.parse import quote

from companion.core import registry
from companion.core.stats import fold

#: Who made the play, for BG Stats: with ``sourcePlayerId`` and ``sourceGameId`` it is
#: the key BG Stats remembers its matches by, so it never changes (docs/bgstats.md).
SOURCE_NAME = "Companion"
#: The import page; the play follows, URL-encoded (docs/bgstats.md#the-link).
CREATE_PLAY = "https://app.bgstatsapp.com/createPlay.html?data="
#: The longest link (in bytes) shown as a QR code: at error correction L, QR version 28
#: at most, 129 modules a side (docs/bgstats.md#qr-codes).
QR_LIMIT = 1500
#: How the store writes a time (UTC, companion/store/connection.py ``now``).
STORED = "%Y-%m-%dT%H:%M:%SZ"
#: How BG Stats reads a play's date (docs/bgstats.md#fields).
PLAY_DATE = "%Y-%m-%d %H:%M:%S"

Gettext = Callable[[str], str]


def play_date(stamp: str) -> str:
    """A stored UTC time as BG Stats' ``playDate``: ``2024-05-01T19:30:00Z`` gives
    ``2024-05-01 19:30:00`` (docs/bgstats.md#fields)."""
    return datetime.strptime(stamp, STORED).strftime(PLAY_DATE)


def minutes(start: str, end: str) -> int:
    """Whole minutes from one stored time to a later one (never below 0)."""
    span = datetime.strptime(end, STORED) - datetime.strptime(start, STORED)
    return max(0, round(span.total_seconds() / 60))


def ended(game: Mapping[str, Any]) -> str:
    """When a game ended: the time of its log's last event (its start when it has none);
    a game read from its kept result carries it as ``ended``."""
    if game.get("ended"):
        return str(game["ended"])
    events = game.get("events") or []
    last: str = events[-1]["created"] if events else game["created"]
    return last


def source_play_id(night: Mapping[str, Any], game: Mapping[str, Any]) -> str:
    """A play's id for BG Stats, the same each time the play is sent (BG Stats finds a
    play sent twice by it): the night's start time and the game's number. Never the
    night's key, which is the host's link (docs/bgstats.md#fields)."""
    return f"{night['created']}#{game['number']}"


def player_id(name: str) -> str:
    """The id BG Stats matches a player by across nights: the same for every spelling the
    statistics take for one name (trimmed, case-folded: ``stats.fold``), and short, so a
    Korean name is not sent twice in the link (docs/bgstats.md#fields)."""
    return hashlib.sha256(fold(name).encode()).hexdigest()[:10]


#: What BG Stats is told of every game unless its kind says otherwise: whether it has
#: points and which way they win. ``cooperative`` is left to BG Stats' default (false,
#: as none of the three is): a QR code has no byte to spare (docs/bgstats.md#fields).
GAME_DEFAULTS = {"highestWins": True, "noPoints": False}


def _player(seat: int, names: Mapping[int, str], result: Mapping[str, Any],
            extra: Mapping[str, Any]) -> dict[str, Any]:
    """One player of the play: the name, the id BG Stats matches them by across nights
    (:func:`player_id`), then ``winner`` and ``startPlayer`` on every player, ``true`` or
    ``false``: BG Stats' Android app refuses a play whose players lack either
    (docs/bgstats.md#fields). The game's part may set ``startPlayer`` and adds the rest."""
    name = names.get(seat, "?")
    found = {"name": name, "sourcePlayerId": player_id(name),
             "winner": seat in result["winners"], "startPlayer": False, **extra}
    found["startPlayer"] = found["startPlayer"] is True
    return found


def play(night: Mapping[str, Any], game: Mapping[str, Any], result: Mapping[str, Any],
         names: Mapping[int, str], title: str, gettext: Gettext,
         known: registry.Games) -> dict[str, Any] | None:
    """A finished game as a BG Stats play (docs/bgstats.md#fields), or None for a game
    still running or of a kind with no BG Stats export.

    ``night`` needs ``created``; ``game`` is the plain game (``number``, ``kind``,
    ``setup``, ``state``, ``created``, ``events``); ``result`` is its
    ``stats.game_result``; ``title`` the game's name in the table's language; ``gettext``
    translates the words the game adds (a Kraken role).
    """
    kind = known[game["kind"]]
    if not result["finished"] or kind.bgstats is None:
        return None
    part = kind.bgstats(game["setup"], game["state"], result, gettext)
    end = ended(game)
    found: dict[str, Any] = {
        "sourceName": SOURCE_NAME,
        "sourcePlayId": source_play_id(night, game),
        "playDate": play_date(end),
        "durationMin": minutes(game["created"], end),
        "game": {"name": title, "sourceGameId": game["kind"], **GAME_DEFAULTS,
                 **part["game"]},
        "players": [_player(seat, names, result, part["players"].get(seat, {}))
                    for seat in result["players"]],
    }
    for key in ("board", "comments"):
        if part.get(key):
            found[key] = part[key]
    return found


def compact(found: Mapping[str, Any]) -> str:
    """The play as compact JSON text (UTF-8 kept as is: the link encodes it)."""
    return json.dumps(found, ensure_ascii=False, separators=(",", ":"))


def link(found: Mapping[str, Any]) -> str:
    """The link that opens BG Stats' import with this play filled in: the import page and
    the compact JSON, every byte outside the unreserved characters percent-encoded as
    JavaScript's ``encodeURIComponent`` does (docs/bgstats.md#the-link)."""
    return CREATE_PLAY + quote(compact(found), safe="-_.!~*'()")


def fits_qr(url: str) -> bool:
    """Whether a QR code of ``url`` is dependable: at most :data:`QR_LIMIT` bytes
    (docs/bgstats.md#qr-codes). A longer link still works when tapped."""
    return len(url.encode()) <= QR_LIMIT


def document(found: Mapping[str, Any]) -> bytes:
    """The play as a JSON file, indented for a person to read."""
    return json.dumps(found, ensure_ascii=False, indent=2).encode()
