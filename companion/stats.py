"""The end of the night, as pure functions: results, tallies and statistics (issue 6).

No Flask, no SQL. Everything here reads games the way the rest of the app does: a game is
its setup and the state ``rules.replay(setup, effective events)`` gives. A game is a dict
``{"number", "kind", "setup", "state"}`` (``created`` optional); players are seat numbers.

A game left unfinished is never a result: it is listed as unfinished, with no winner and
no score, and it counts in no total, series or statistic.

Public names:

- ``game_result(kind, setup, state)``: one game's outcome (winners, scores, places).
- ``night_tally(names, games)``: tonight's tally (games in order, Kraken token series,
  Skull King totals, Crazy Time hours and standings, a summary per player).
- ``fold(name)``: the key that matches a player's name across nights.
- ``player_stats(nights, aliases)``: statistics per player across nights.
- ``bar_chart(rows)``: the geometry of a simple horizontal bar chart (for an SVG).
"""

import json
import random
import re
import unicodedata

from companion import log
from companion.crazytime import rules as crazytime_rules
from companion.errors import N_, RuleError
from companion.kraken import rules as kraken_rules
from companion.skullking import rules as skullking_rules

KINDS = ("kraken", "skullking", "crazytime")
ROLES = ("explorer", "skeleton")


def _seat_map(mapping):
    """{str(seat): v} → {seat: v} (the rules key dicts by str(seat) for JSON)."""
    return {int(key): value for key, value in (mapping or {}).items()}


def game_result(kind, setup, state):
    """What one game came to.

    Returns ``{"kind", "finished", "players", "winners", "scores", "places"}`` plus, per
    kind: Kraken ``outcome``, ``reason``, ``roles`` {seat: role} (revealed at the end);
    Skull King nothing more (``scores`` are the final totals, ``places`` the shared ranks);
    Crazy Time ``hours`` {seat: hours won in matches 1–3}, ``last_penalties`` {seat:
    penalties in match 4} and ``standings`` [[seat, ...], ...] (first place first).

    An unfinished game has ``finished`` False, no winners, scores or places, and none of
    the kind's details: its running state is not a result (and may hold secrets).
    """
    players = list(setup["players"])
    result = {"kind": kind, "finished": bool(state.get("finished")), "players": players,
              "winners": [], "scores": {}, "places": {}}
    if not result["finished"]:
        return result
    if kind == "kraken":
        result.update(
            winners=list(state["winners"]), outcome=state["outcome"],
            reason=state["reason"], roles=_seat_map(state["roles"]),
            places={s: 1 if s in state["winners"] else 2 for s in players},
        )
    elif kind == "skullking":
        scores = _seat_map(state["totals"])
        places = _seat_map(state["ranks"])
        result.update(scores=scores, places=places,
                      winners=[s for s in players if places[s] == 1])
    elif kind == "crazytime":
        standings = [list(place) for place in state["standings"]]
        places = {}
        for index, place in enumerate(standings):
            for seat in place:
                places[seat] = 1 + sum(len(p) for p in standings[:index])
        last = state["penalties"][str(len(state["match_results"]))]
        result.update(
            scores=_seat_map(state["scores"]), places=places,
            winners=list(standings[0]) if standings else [],
            standings=standings, hours=_seat_map(state["hours"]),
            last_penalties=_seat_map(last),
            matches=[{"match": m["match"], "winners": list(m["winners"]),
                      "hours": m["hours"]} for m in state["match_results"]],
        )
    else:
        raise ValueError(kind)
    return result


def _series_id(game):
    if game["kind"] != "kraken":
        return None
    return (game["setup"].get("options") or {}).get("series")


def kraken_series(games):
    """The Kraken token series among ``games`` (RULES.md §1 Token series).

    Kraken games that share ``setup["options"]["series"]`` form one series, in game order.
    Only finished games give tokens (``kraken.rules.series_tokens``); an unfinished one is
    listed in ``unfinished``. A finished game recorded after the series was already over
    gives no token and is listed in ``ignored``.

    Returns ``[{"id", "players", "games" [numbers counted], "unfinished" [numbers],
    "ignored" [numbers], "tokens" {seat: n}, "over", "winners"}]`` in order of each
    series' first game.
    """
    groups = {}
    for game in games:
        series = _series_id(game)
        if series is not None:
            groups.setdefault(series, []).append(game)
    out = []
    for series, members in groups.items():
        players = sorted({s for g in members for s in g["setup"]["players"]})
        counted, unfinished, ignored, results = [], [], [], []
        for game in members:
            if not game["state"].get("finished"):
                unfinished.append(game["number"])
                continue
            try:
                kraken_rules.series_tokens(players, results + [
                    {"losers": list(game["state"]["losers"])}])
            except RuleError:
                ignored.append(game["number"])
                continue
            results.append({"losers": list(game["state"]["losers"])})
            counted.append(game["number"])
        tally = kraken_rules.series_tokens(players, results)
        out.append({
            "id": series, "players": players, "games": counted, "unfinished": unfinished,
            "ignored": ignored, "tokens": _seat_map(tally["tokens"]), "over": tally["over"],
            "winners": list(tally["winners"]),
        })
    return out


def night_tally(names, games):
    """Tonight's tally, from the night's names {seat: name} and its games in order.

    Returns a dict:

    - ``games``: per game ``{"number", "kind", "series", **game_result(...)}``;
    - ``series``: ``kraken_series(games)``;
    - ``skullking``: the finished Skull King games ``{"number", "scores", "places",
      "winners"}``;
    - ``crazytime``: the finished Crazy Time games ``{"number", "hours",
      "last_penalties", "scores", "standings", "winners", "matches"}``;
    - ``players``: per seat in seat order ``{"seat", "name", "played", "won",
      "unfinished", "series_won"}`` — ``played``/``won`` count finished games only,
      ``unfinished`` the games still running (or abandoned) the seat is in.
    - ``finished``, ``unfinished``: how many games ended / did not.
    """
    results = []
    for game in games:
        result = game_result(game["kind"], game["setup"], game["state"])
        result.update(number=game["number"], series=_series_id(game))
        results.append(result)
    series = kraken_series(games)
    players = []
    for seat in sorted(names):
        mine = [r for r in results if seat in r["players"]]
        players.append({
            "seat": seat, "name": names[seat],
            "played": sum(1 for r in mine if r["finished"]),
            "won": sum(1 for r in mine if r["finished"] and seat in r["winners"]),
            "unfinished": sum(1 for r in mine if not r["finished"]),
            "series_won": sum(1 for s in series if s["over"] and seat in s["winners"]),
        })
    keys = {"skullking": ("number", "scores", "places", "winners"),
            "crazytime": ("number", "hours", "last_penalties", "scores", "places",
                          "standings", "winners", "matches")}
    return {
        "games": results,
        "series": series,
        "skullking": [{k: r[k] for k in keys["skullking"]} for r in results
                      if r["kind"] == "skullking" and r["finished"]],
        "crazytime": [{k: r[k] for k in keys["crazytime"]} for r in results
                      if r["kind"] == "crazytime" and r["finished"]],
        "players": players,
        "finished": sum(1 for r in results if r["finished"]),
        "unfinished": sum(1 for r in results if not r["finished"]),
    }


# --- across nights ---------------------------------------------------------------------


def fold(name):
    """The key a name is matched by across nights: trimmed, NFC, case-folded."""
    return unicodedata.normalize("NFC", str(name)).strip().casefold()


def resolve(key, aliases):
    """The player a folded name stands for after the host's merges (follows chains,
    stops at a loop)."""
    seen = {key}
    while key in aliases and aliases[key] not in seen:
        key = aliases[key]
        seen.add(key)
    return key


def _new_player(key):
    return {
        "key": key, "name": None, "spellings": [], "nights": 0,
        "games": dict.fromkeys(KINDS, 0), "wins": dict.fromkeys(KINDS, 0),
        "unfinished": 0, "sk_best": None, "sk_average": None, "sk_scores": [],
        "kraken_roles": {role: {"games": 0, "wins": 0} for role in ROLES},
        "ct_matches_won": 0, "series_won": 0,
    }


def player_stats(nights, aliases=None):
    """Statistics per player across ``nights`` (oldest first), players matched by name.

    ``nights``: ``[{"names": {seat: name}, "games": [game, ...]}]``. ``aliases``: {folded
    spelling: folded name it was merged into} (the host's merges). Only finished games
    count. Per player (sorted by display name):

    ``key``, ``name`` (the latest spelling of the merged-into name), ``spellings`` (every
    spelling seen), ``nights``, ``games``/``wins`` {kind: n}, ``unfinished``,
    ``sk_best`` and ``sk_average`` (final Skull King totals; None without a finished
    game; the average to one decimal), ``kraken_roles`` {role: {"games", "wins"}}
    (the role dealt, from the setup of finished games), ``ct_matches_won`` (matches of
    finished Crazy Time games in which the player had the fewest penalties),
    ``series_won`` (Kraken token series over and won).
    """
    aliases = aliases or {}
    players = {}
    display = {}

    def player(name):
        own = fold(name)
        key = resolve(own, aliases)
        entry = players.setdefault(key, _new_player(key))
        if name not in entry["spellings"]:
            entry["spellings"].append(name)
        if own == key or key not in display:
            display[key] = name
        return entry

    for night in nights:
        names = night["names"]
        tally = night_tally(names, night["games"])
        for row in tally["players"]:
            entry = player(names[row["seat"]])
            entry["nights"] += 1
            entry["series_won"] += row["series_won"]
            entry["unfinished"] += row["unfinished"]
        for game, result in zip(night["games"], tally["games"], strict=True):
            if not result["finished"]:
                continue
            for seat in result["players"]:
                if seat not in names:
                    continue
                entry = player(names[seat])
                kind = result["kind"]
                won = seat in result["winners"]
                entry["games"][kind] += 1
                entry["wins"][kind] += won
                if kind == "skullking":
                    entry["sk_scores"].append(result["scores"][seat])
                elif kind == "kraken":
                    role = game["setup"]["roles"].get(str(seat))
                    if role in ROLES:
                        entry["kraken_roles"][role]["games"] += 1
                        entry["kraken_roles"][role]["wins"] += won
                elif kind == "crazytime":
                    entry["ct_matches_won"] += sum(
                        1 for m in result["matches"] if seat in m["winners"])
    for key, entry in players.items():
        entry["name"] = display[key]
        scores = entry.pop("sk_scores")
        if scores:
            entry["sk_best"] = max(scores)
            entry["sk_average"] = round(sum(scores) / len(scores), 1)
        entry["total_games"] = sum(entry["games"].values())
        entry["total_wins"] = sum(entry["wins"].values())
    return sorted(players.values(), key=lambda e: (fold(e["name"]), e["key"]))


# --- charts ----------------------------------------------------------------------------

CHART_WIDTH = 600
LABEL_WIDTH = 170
VALUE_WIDTH = 60
ROW_HEIGHT = 40
BAR_HEIGHT = 26


def bar_chart(rows):
    """Geometry for a horizontal bar chart drawn as SVG (no styles: plain attributes).

    ``rows``: ``[{"label", "value" (int/float), "highlight" (bool, optional)}]``.
    Returns ``{"width", "height", "zero", "bars": [{label, value, highlight, x, y, width,
    height, label_x, label_y, value_x}]}``. Negative values grow left of the zero line.
    """
    values = [row["value"] for row in rows] or [0]
    low, high = min(0, *values), max(0, *values)
    span = (high - low) or 1
    left = LABEL_WIDTH
    plot = CHART_WIDTH - LABEL_WIDTH - VALUE_WIDTH
    zero = left + round(plot * (0 - low) / span, 1)
    bars = []
    for index, row in enumerate(rows):
        value = row["value"]
        width = round(plot * abs(value) / span, 1)
        x = zero if value >= 0 else round(zero - width, 1)
        y = index * ROW_HEIGHT + (ROW_HEIGHT - BAR_HEIGHT) // 2
        bars.append({
            "label": row["label"], "value": value, "highlight": bool(row.get("highlight")),
            "x": x, "y": y, "width": max(width, 0), "height": BAR_HEIGHT,
            "label_x": LABEL_WIDTH - 10, "label_y": y + BAR_HEIGHT // 2 + 6,
            "value_x": round(max(zero, x + width) + 8, 1),
        })
    return {"width": CHART_WIDTH, "height": max(1, len(rows)) * ROW_HEIGHT, "zero": zero,
            "bars": bars}


# --- export and import -----------------------------------------------------------------
#
# The export of a night is one JSON document, deterministic (sorted keys, fixed
# indentation, no ids, tokens or devices), so export → import → export is byte-for-byte
# equal. A game still running never leaves the machine with its secrets:
#
# * Kraken: the setup loses "roles" and "unused_roles". Importing such a game deals fresh
#   roles for the same table (the log of reveals is public and replays the same), so the
#   game comes back unfinished with new, unseen roles.
# * Crazy Time: every "law" event keeps its name (public) but its When/What text becomes
#   "?" (MASK).
# * Skull King: every bid for a round whose bids are not revealed becomes 0, with no
#   shot and no wager.
#
# Such a game is marked "secrets_removed": true. A finished game is exported whole.

FORMAT = "companion-night"
FORMAT_VERSION = 1
MASK = "?"
RULES = {"kraken": kraken_rules, "skullking": skullking_rules, "crazytime": crazytime_rules}

# The same limits as the roster form (companion.nights): 3 to 8 players, 30 characters.
MIN_PLAYERS, MAX_PLAYERS, NAME_LENGTH = 3, 8, 30
MAX_GAMES = 100
MAX_EVENTS = 1000
MAX_BYTES = 2 * 1024 * 1024
_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
_GAME_KEYS = {"number", "kind", "created", "finished", "secrets_removed", "setup", "events"}
_EVENT_KEYS = {"seq", "type", "data", "seat", "created"}


class BadFile(RuleError):
    """An import that is not a night this app exported, or one that cannot have happened.

    The message is an English sentence (marked N_) for the view to translate; the param
    ``game`` (when present) is the number of the game in the file that is wrong."""


NOT_ALLOWED = N_("Its event log is not one the rules allow.")


def _clean_event(event):
    return {"seq": event["seq"], "type": event["type"], "data": event["data"],
            "seat": event["seat"], "created": event["created"]}


def mask_game(kind, setup, events, state):
    """(setup, events, secrets_removed) as a running game may leave the machine."""
    setup = json.loads(json.dumps(setup))
    events = [_clean_event(json.loads(json.dumps(e))) for e in events]
    if state.get("finished"):
        return setup, events, False
    if kind == "kraken":
        setup.pop("roles", None)
        setup.pop("unused_roles", None)
    elif kind == "crazytime":
        for event in events:
            if event["type"] == "law" and isinstance(event["data"], dict):
                for key in ("when", "what"):
                    if key in event["data"]:
                        event["data"][key] = MASK
    elif kind == "skullking":
        hidden = {r["number"] for r in state["rounds"] if not r["revealed"]}
        for event in events:
            data = event["data"]
            if event["type"] == "bid" and isinstance(data, dict) \
                    and data.get("round") in hidden:
                data["bid"] = 0
                for key in ("shot", "wager"):
                    if key in data:
                        data[key] = None
    return setup, events, True


def export_document(night_created, players, games):
    """The export of a night: ``players`` the names in seat order, ``games`` dicts with
    ``number, kind, created, setup, events`` (the full log, undo/redo included) and
    ``state`` (the replayed state)."""
    out = []
    for game in games:
        setup, events, masked = mask_game(game["kind"], game["setup"], game["events"],
                                          game["state"])
        out.append({
            "number": game["number"], "kind": game["kind"], "created": game["created"],
            "finished": bool(game["state"].get("finished")), "secrets_removed": masked,
            "setup": setup, "events": events,
        })
    return {"format": FORMAT, "version": FORMAT_VERSION,
            "night": {"created": night_created, "players": list(players)},
            "games": out}


def dumps(document):
    """The export's bytes: UTF-8 JSON with sorted keys and fixed indentation."""
    text = json.dumps(document, ensure_ascii=False, sort_keys=True, indent=1,
                      separators=(",", ": "))
    return (text + "\n").encode("utf-8")


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _same(a, b):
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _canonical_setup(kind, setup, players_in_night, rng):
    """The setup the rules would make for these options, or BadFile.

    The options are read back from the setup and given to ``rules.start`` again; the
    result must equal the file's setup (Kraken: apart from the dealt roles, which must be
    a deal of that table's role cards; a setup without roles gets a fresh deal)."""
    if not isinstance(setup, dict):
        raise BadFile(N_("Game setup is not readable."))
    players = setup.get("players")
    if not isinstance(players, list) or not all(
            _is_int(s) and 0 <= s < players_in_night for s in players):
        raise BadFile(N_("A game names a seat that is not at this night's table."))
    rules = RULES[kind]
    if kind == "kraken":
        fresh = rules.start(players, setup.get("options"), rng=rng)
        bare = {k: v for k, v in setup.items() if k not in ("roles", "unused_roles")}
        if not _same(bare, {k: v for k, v in fresh.items()
                            if k not in ("roles", "unused_roles")}):
            raise BadFile(N_("A game's setup does not match its rules."))
        if "roles" not in setup and "unused_roles" not in setup:
            return fresh
        roles, unused = setup.get("roles"), setup.get("unused_roles")
        if not isinstance(roles, dict) or not isinstance(unused, list) \
                or set(roles) != {str(s) for s in players} \
                or not all(isinstance(r, str) for r in [*roles.values(), *unused]) \
                or sorted([*roles.values(), *unused]) != sorted(
                    [*fresh["roles"].values(), *fresh["unused_roles"]]):
            raise BadFile(N_("A game's setup does not match its rules."))
        return {**fresh, "roles": dict(roles), "unused_roles": list(unused)}
    if kind == "skullking":
        options = {key: setup.get(key) for key in
                   ("edition", "scoring", "way", "loot", "kraken", "white_whale",
                    "abilities", "first_dealer")}
        if setup.get("way") == skullking_rules.CUSTOM:
            options["rounds"] = setup.get("rounds")
        fresh = rules.start(players, options)
    else:
        fresh = rules.start(players, {"side": setup.get("side"),
                                      "starting_law": setup.get("starting_law")})
    if not _same(fresh, setup):
        raise BadFile(N_("A game's setup does not match its rules."))
    return fresh


def _check_names(players):
    if not isinstance(players, list) or not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise BadFile(N_("A night has 3 to 8 players."))
    folded = set()
    for name in players:
        if not isinstance(name, str) or not name.strip() or name != name.strip() \
                or len(name) > NAME_LENGTH:
            raise BadFile(N_("A player's name is not readable."))
        folded.add(fold(name))
    if len(folded) != len(players):
        raise BadFile(N_("Two players have the same name."))
    return list(players)


def _check_events(kind, events, seats):
    rules = RULES[kind]
    if not isinstance(events, list):
        raise BadFile(N_("A game's event log is not readable."))
    if len(events) > MAX_EVENTS:
        raise BadFile(N_("A game has more than %(most)s events."), most=MAX_EVENTS)
    checked = []
    for index, event in enumerate(events):
        if not isinstance(event, dict) or set(event) != _EVENT_KEYS \
                or event["seq"] != index + 1 or not _is_int(event["seq"]) \
                or not isinstance(event["type"], str) or not isinstance(event["data"], dict) \
                or not isinstance(event["created"], str) or not _TIME.match(event["created"]):
            raise BadFile(N_("A game's event log is not readable."))
        seat = event["seat"]
        if seat is not None and (not _is_int(seat) or not 0 <= seat < seats):
            raise BadFile(N_("An event names a seat that is not at this night's table."))
        undo_redo = event["type"] in (log.UNDO, log.REDO)
        allowed = rules.HOST_EVENTS if seat is None else rules.SEAT_EVENTS
        if not (event["type"] in allowed or (undo_redo and seat is None)):
            raise BadFile(N_("An event is not part of this game."))
        if undo_redo and event["data"]:
            raise BadFile(N_("A game's event log is not readable."))
        checked.append(dict(event))
    return checked


def _replay_each(kind, setup, events):
    """Replay the log as it was recorded: after every event, the log so far must be one
    the rules allow (as the app checked when it recorded it). Returns the final state."""
    rules = RULES[kind]
    state = rules.replay(setup, [])
    for end in range(1, len(events) + 1):
        state = rules.replay(setup, log.effective(events[:end]))
    return state


def parse_import(raw, rng=None):
    """Read an exported night from ``raw`` bytes and check every part of it.

    Returns ``{"created", "players", "games": [{"number", "kind", "created", "setup",
    "events", "state"}]}`` ready to store (Kraken games exported without roles get a
    fresh deal). Raises BadFile, with a message for a person, for anything that is not a
    night this app exported or that the rules say cannot have happened: nothing of a bad
    file is ever stored.
    """
    if not isinstance(raw, bytes | bytearray) or len(raw) > MAX_BYTES:
        raise BadFile(N_("The file is too large to be a night's export."))
    try:
        document = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise BadFile(N_("This file is not a night exported from the companion "
                         "(it is not JSON).")) from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise BadFile(N_("This file is not a night exported from the companion."))
    if document.get("version") != FORMAT_VERSION or not _is_int(document.get("version")):
        raise BadFile(N_("This export was made by another version of the companion."))
    if set(document) != {"format", "version", "night", "games"}:
        raise BadFile(N_("This file is not a night exported from the companion."))
    night, games = document["night"], document["games"]
    if not isinstance(night, dict) or set(night) != {"created", "players"} \
            or not isinstance(night["created"], str) or not _TIME.match(night["created"]):
        raise BadFile(N_("The night in this file is not readable."))
    players = _check_names(night["players"])
    if not isinstance(games, list) or len(games) > MAX_GAMES:
        raise BadFile(N_("The games in this file are not readable."))
    rng = rng if rng is not None else random.SystemRandom()
    out = []
    for index, game in enumerate(games):
        if not isinstance(game, dict) or set(game) != _GAME_KEYS \
                or game["number"] != index + 1 or not _is_int(game["number"]) \
                or not isinstance(game["created"], str) or not _TIME.match(game["created"]) \
                or not isinstance(game["finished"], bool) \
                or not isinstance(game["secrets_removed"], bool):
            raise BadFile(N_("This game is not readable."), game=index + 1)
        kind = game["kind"]
        if kind not in RULES:
            raise BadFile(N_("This companion does not know that kind of game."),
                          game=index + 1)
        try:
            setup = _canonical_setup(kind, game["setup"], len(players), rng)
            events = _check_events(kind, game["events"], len(players))
            state = _replay_each(kind, setup, events)
        except BadFile as error:
            raise BadFile(error.message, **error.params, game=index + 1) from None
        except (RuleError, TypeError, ValueError, KeyError, AttributeError,
                IndexError, RecursionError):
            raise BadFile(NOT_ALLOWED, game=index + 1) from None
        if bool(state.get("finished")) != game["finished"]:
            raise BadFile(NOT_ALLOWED, game=index + 1)
        out.append({"number": game["number"], "kind": kind, "created": game["created"],
                    "setup": setup, "events": events, "state": state})
    return {"created": night["created"], "players": players, "games": out}
