"""A night as one file: export to JSON (and CSV rows) and import back, checked.

The export of a night is one JSON document, deterministic (sorted keys, fixed
indentation, no ids, tokens or devices), so export → import → export is byte-for-byte
equal. A game still running never leaves the machine with its secrets: each kind's
``mask`` (companion/core/registry.py) takes them out, and the game is marked
``"secrets_removed": true``:

* Kraken: the setup loses "roles" and "unused_roles". Importing such a game deals fresh
  roles for the same table (the log of reveals is public and replays the same), so the
  game comes back unfinished with new, unseen roles.
* Crazy Time: every "law" event keeps its name (public) but its When/What text becomes
  "?".
* Skull King: every bid for a round whose bids are not revealed becomes 0, with no
  shot and no wager.

A finished game is exported whole. Pure functions: no Flask, no SQL.
"""

import copy
import json
import random
import re
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from companion.core import registry
from companion.core.colours import assign
from companion.core.colours import default as default_colour
from companion.core.errors import N_, RuleError
from companion.core.events import NEW, REDO, UNDO, folded
from companion.core.stats import fold, hides_characters

FORMAT = "companion-night"
FORMAT_VERSION = 1

# The same limits as the roster form (companion.table.nights): 2 to 8 players, 30 characters.
MIN_PLAYERS, MAX_PLAYERS, NAME_LENGTH = 2, 8, 30
MAX_GAMES = 100
# What the app writes it must read back. A game's log has no length limit while it is
# played (a phone may change its bid a thousand times), so the reader takes far more than
# a real night makes (a game is a few hundred events): 8,000 events in a game. Its export
# is at most ~1.9 MB (Skull King's largest bid event is ~230 bytes), within the file
# limit: the upload limit (MAX_CONTENT_LENGTH = 2 MiB, companion/__init__.py) less room
# for the form around the file, so a file the reader would refuse gets its message.
MAX_EVENTS = 8000
MAX_BYTES = 2 * 1024 * 1024 - 16 * 1024
_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
_TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"  # companion.store.connection.now()
_GAME_KEYS = {"number", "kind", "created", "finished", "secrets_removed", "setup", "events"}
_EVENT_KEYS = {"seq", "type", "data", "seat", "created"}


class BadFile(RuleError):
    """An import that is not a night this app exported, or one that cannot have happened.

    The message is an English sentence (marked N_) for the view to translate; the param
    ``game`` (when present) is the number of the game in the file that is wrong."""


NOT_ALLOWED = N_("Its event log is not one the rules allow.")
NO_SUCH_TIME = N_("A date in this file cannot exist (such as 30 February or hour 25).")


def _clean_event(event: dict[str, Any]) -> dict[str, Any]:
    return {"seq": event["seq"], "type": event["type"], "data": event["data"],
            "seat": event["seat"], "created": event["created"]}


def mask_game(kind: str, setup: dict[str, Any], events: list[dict[str, Any]],
              state: dict[str, Any], known: registry.Games
              ) -> tuple[dict[str, Any], list[dict[str, Any]], bool]:
    """(setup, events, secrets_removed) as a game may leave the machine: whole once
    finished, through its kind's ``mask`` while it runs."""
    events = [_clean_event(e) for e in events]
    if state.get("finished"):
        return json.loads(json.dumps(setup)), json.loads(json.dumps(events)), False
    setup, events = known[kind].mask(setup, events, state)
    return setup, events, True


def export_document(night_created: str, players: Iterable[str], games: list[dict[str, Any]],
                    known: registry.Games, colours: Iterable[str] | None = None
                    ) -> dict[str, Any]:
    """The export of a night: ``players`` the names in seat order (``colours`` their
    colours, companion/core/colours.py; left out, an import gives the palette in order),
    ``games`` dicts with
    ``number, kind, created, setup, events`` (the full log, undo/redo included) and
    ``state`` (the replayed state)."""
    out = []
    for game in games:
        setup, events, masked = mask_game(game["kind"], game["setup"], game["events"],
                                          game["state"], known)
        out.append({
            "number": game["number"], "kind": game["kind"], "created": game["created"],
            "finished": bool(game["state"].get("finished")), "secrets_removed": masked,
            "setup": setup, "events": events,
        })
    night: dict[str, Any] = {"created": night_created, "players": list(players)}
    if colours is not None:
        night["colours"] = list(colours)
    return {"format": FORMAT, "version": FORMAT_VERSION, "night": night, "games": out}


def dumps(document: dict[str, Any]) -> bytes:
    """The export's bytes: UTF-8 JSON with sorted keys and fixed indentation."""
    text = json.dumps(document, ensure_ascii=False, sort_keys=True, indent=1,
                      separators=(",", ": "))
    return (text + "\n").encode("utf-8")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_time(value: Any) -> bool:
    """True for a time stamp as the app writes it (``store.connection.now()``); BadFile for one
    written that way that names no real moment ("2026-02-30T10:00:00Z", hour 25)."""
    if not isinstance(value, str) or not _TIME.match(value):
        return False
    try:
        datetime.strptime(value, _TIME_FORMAT)
    except ValueError:
        raise BadFile(NO_SUCH_TIME) from None
    return True


def _canonical_setup(kind: str, setup: Any, players_in_night: int,
                     rng: random.Random, known: registry.Games) -> dict[str, Any]:
    """The setup the rules would make for the file's setup (its kind's ``restore``), or
    BadFile."""
    if not isinstance(setup, dict):
        raise BadFile(N_("Game setup is not readable."))
    players = setup.get("players")
    if not isinstance(players, list) or not all(
            _is_int(s) and 0 <= s < players_in_night for s in players):
        raise BadFile(N_("A game names a seat that is not at this night's table."))
    try:
        return known[kind].restore(setup, players, rng)
    except registry.SetupMismatch as error:
        raise BadFile(error.message) from None


def _check_colours(colours: Any, players: list[str]) -> list[str]:
    """The players' colours: one of the palette each, none twice (the palette in seat
    order for a file that has none)."""
    if colours is None:
        return [default_colour(i) for i in range(len(players))]
    unreadable = BadFile(N_("The players' colours in this file are not readable."))
    if not isinstance(colours, list) or len(colours) != len(players) \
            or not all(isinstance(c, str) and c for c in colours):
        raise unreadable
    try:
        return assign(colours)  # the palette's own check: known colours, none twice
    except ValueError:
        raise unreadable from None


def _check_names(players: Any) -> list[str]:
    if not isinstance(players, list) or not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise BadFile(N_("A night has 2 to 8 players."))
    folded = set()
    for name in players:
        if not isinstance(name, str) or not name.strip() or name != name.strip() \
                or len(name) > NAME_LENGTH or hides_characters(name):
            raise BadFile(N_("A player's name is not readable."))
        folded.add(fold(name))
    if len(folded) != len(players):
        raise BadFile(N_("Two players have the same name."))
    return list(players)


def _is_event_record(index: int, event: Any) -> bool:
    """True when ``event`` is the ``index``-th record of a log as the app exports it:
    exactly its five keys (no other), of their types."""
    return (isinstance(event, dict) and set(event) == _EVENT_KEYS
            and _is_int(event["seq"]) and event["seq"] == index + 1
            and isinstance(event["type"], str) and isinstance(event["data"], dict)
            and _is_time(event["created"]))


def _check_events(kind: str, events: Any, seats: int, known: registry.Games
                  ) -> list[dict[str, Any]]:
    rules = known[kind].rules
    if not isinstance(events, list):
        raise BadFile(N_("A game's event log is not readable."))
    if len(events) > MAX_EVENTS:
        raise BadFile(N_("A game has more than %(most)s events."), most=MAX_EVENTS)
    checked = []
    for index, event in enumerate(events):
        if not _is_event_record(index, event):
            raise BadFile(N_("A game's event log is not readable."))
        seat = event["seat"]
        if seat is not None and (not _is_int(seat) or not 0 <= seat < seats):
            raise BadFile(N_("An event names a seat that is not at this night's table."))
        undo_redo = event["type"] in (UNDO, REDO)
        allowed = rules.HOST_EVENTS if seat is None else rules.SEAT_EVENTS
        if not (event["type"] in allowed or (undo_redo and seat is None)):
            raise BadFile(N_("An event is not part of this game."))
        if undo_redo and event["data"]:
            raise BadFile(N_("A game's event log is not readable."))
        checked.append(dict(event))
    return checked


#: How often the import check keeps a copy of the state it folds: an undo goes back to
#: the nearest copy at or before it and folds at most this many events again.
CHECKPOINT_EVERY = 32


def _replay_each(kind: str, setup: dict[str, Any], log: list[dict[str, Any]],
                 known: registry.Games) -> dict[str, Any]:
    """Replay the log as it was recorded: after every event, the log so far must be one
    the rules allow (as the app checked when it recorded it). Returns the final state.

    A game's ``replay`` folds its events in order and refuses the first one the rules
    forbid, so when a log replays, every prefix of it does too. Only an undo takes an
    event away, and an undo or a redo only goes back to a log the game had before. So
    every log the game ever had is a prefix of the effective log just before an undo that
    follows a new event, or of the last one: those are the logs to check. They are
    checked in one fold (``begin``/``step``/``conclude``, companion/core/registry.py), each
    event stepped as it comes: an undo rewinds to the nearest kept copy and steps the few
    events after it again. Replaying each such log from the start instead cost the square
    of the log's length (18 s of CPU for one 1.4 MB file of marker moves and undos).
    """
    rules = known[kind].rules
    kept: list[tuple[int, dict[str, Any]]] = [(0, rules.begin(setup))]
    state = copy.deepcopy(kept[0][1])
    grown = False  # a new event since the last check
    for what, done in folded(log):
        if what == UNDO:
            if grown:
                rules.conclude(setup, copy.deepcopy(state))
            grown = False
            state = _rewind(rules, setup, done, kept)
            continue
        grown = grown or what == NEW
        rules.step(setup, state, done[-1])
        if len(done) % CHECKPOINT_EVERY == 0 and kept[-1][0] < len(done):
            kept.append((len(done), copy.deepcopy(state)))
    return rules.conclude(setup, state)


def _rewind(rules: registry.Rules, setup: dict[str, Any], done: list[dict[str, Any]],
            kept: list[tuple[int, dict[str, Any]]]) -> dict[str, Any]:
    """The state after ``done``, from the last copy kept at or before its end (copies
    past it are dropped: the events they folded are undone)."""
    while kept[-1][0] > len(done):
        kept.pop()
    length, saved = kept[-1]
    state = copy.deepcopy(saved)
    for event in done[length:]:
        rules.step(setup, state, event)
    return state


def _refuse_lone_surrogates(document: Any) -> None:
    """BadFile if a text anywhere in the document (a name, a key, a law) holds half of a
    UTF-16 pair: JSON can write one ("\\ud800"), but it is no character and cannot be
    stored or shown."""
    try:
        json.dumps(document, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise BadFile(N_("A text in this file holds a broken character (half of a "
                         "surrogate pair), so it cannot be imported.")) from None
    except (RecursionError, ValueError):
        raise BadFile(N_("This file is not a night exported from the companion.")) from None


def _read_document(raw: Any) -> dict[str, Any]:
    """The export's JSON document, if ``raw`` is one of this app's format."""
    if not isinstance(raw, bytes | bytearray) or len(raw) > MAX_BYTES:
        raise BadFile(N_("The file is too large to be a night's export."))
    try:
        document = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise BadFile(N_("This file is not a night exported from the companion "
                         "(it is not JSON).")) from None
    _refuse_lone_surrogates(document)
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise BadFile(N_("This file is not a night exported from the companion."))
    if document.get("version") != FORMAT_VERSION or not _is_int(document.get("version")):
        raise BadFile(N_("This export was made by another version of the companion."))
    if set(document) != {"format", "version", "night", "games"}:
        raise BadFile(N_("This file is not a night exported from the companion."))
    night = document["night"]
    if not isinstance(night, dict) or not {"created", "players"} <= set(night) \
            or not set(night) <= {"created", "players", "colours"} \
            or not _is_time(night["created"]):
        raise BadFile(N_("The night in this file is not readable."))
    if not isinstance(document["games"], list) or len(document["games"]) > MAX_GAMES:
        raise BadFile(N_("The games in this file are not readable."))
    return document


def _check_game(number: int, game: Any, players: list[str], rng: random.Random,
                known: registry.Games) -> dict[str, Any]:
    """Game ``number`` of the file, replayed and checked, ready to store."""
    if not isinstance(game, dict) or set(game) != _GAME_KEYS \
            or game["number"] != number or not _is_int(game["number"]) \
            or not _is_time(game["created"]) \
            or not isinstance(game["finished"], bool) \
            or not isinstance(game["secrets_removed"], bool):
        raise BadFile(N_("This game is not readable."), game=number)
    kind = game["kind"]
    if not isinstance(kind, str) or kind not in known:
        raise BadFile(N_("This companion does not know that kind of game."), game=number)
    try:
        setup = _canonical_setup(kind, game["setup"], len(players), rng, known)
        events = _check_events(kind, game["events"], len(players), known)
        state = _replay_each(kind, setup, events, known)
    except BadFile as error:
        raise BadFile(error.message, **error.params, game=number) from None
    except (RuleError, TypeError, ValueError, KeyError, AttributeError,
            IndexError, RecursionError):
        raise BadFile(NOT_ALLOWED, game=number) from None
    if bool(state.get("finished")) != game["finished"]:
        raise BadFile(NOT_ALLOWED, game=number)
    return {"number": game["number"], "kind": kind, "created": game["created"],
            "setup": setup, "events": events, "state": state}


def parse_import(raw: Any, known: registry.Games, rng: random.Random | None = None
                 ) -> dict[str, Any]:
    """Read an exported night from ``raw`` bytes and check every part of it.

    Returns ``{"created", "players", "colours", "games": [{"number", "kind", "created", "setup",
    "events", "state"}]}`` ready to store (Kraken games exported without roles get a
    fresh deal). Raises BadFile, with a message for a person, for anything that is not a
    night this app exported or that the rules say cannot have happened: nothing of a bad
    file is ever stored.
    """
    document = _read_document(raw)
    night = document["night"]
    players = _check_names(night["players"])
    colours = _check_colours(night.get("colours"), players)
    rng = rng if rng is not None else random.SystemRandom()
    games = [_check_game(index + 1, game, players, rng, known)
             for index, game in enumerate(document["games"])]
    return {"created": night["created"], "players": players, "colours": colours,
            "games": games}
