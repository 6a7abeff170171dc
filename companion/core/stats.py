"""The end of the night, as pure functions: results, tallies and statistics.

No Flask, no SQL. Everything here reads games the way the rest of the app does: a game is
its setup and the state ``rules.replay(setup, effective events)`` gives. A game is a dict
``{"number", "kind", "setup", "state"}`` (``created`` optional); players are seat numbers.
What a kind of game adds to its result, tally and statistics comes from its package
(companion/core/registry.py): nothing here names a game.

Where a function asks a kind of game, it takes ``known``: the app's games (the web layer
and the store pass them, ``store.known_games``; a test, ``registry.installed()``).

A game left unfinished is never a result: it is listed as unfinished, with no winner and
no score, and it counts in no total, series or statistic.

Public names:

- ``game_result(kind, setup, state)``: one game's outcome (winners, scores, places).
- ``kept(kind, setup, state)``: what of a game is kept beside its log (finished games'
  results and the part of their state the tallies read; nothing of a running game).
- ``standing(kind, setup, state)``: a running game's public standing, ranked.
- ``night_tally(names, games)``: tonight's tally (games in order, each kind's own part,
  a summary per player).
- ``fold(name)``: the key that matches a player's name across nights.
- ``night_awards(names, games)``: tonight's awards, each kind's own.
- ``leaderboards(players)``: per game, the players most wins first.
- ``between(found, first, second)``: how two players fared in the finished games both
  played, from every pair's meetings (``count_meetings``).

The statistics across nights are kept as sums (companion/core/sums.py); the derivation
from every night they are checked against is the tests' (tests/statistics_oracle.py).
"""

import unicodedata
from fractions import Fraction
from typing import Any

from companion.core import awards, parts, registry
from companion.core.ranking import competition_ranks

Game = dict[str, Any]


def game_result(kind: str, setup: dict[str, Any], state: dict[str, Any],
                known: registry.Games) -> dict[str, Any]:
    """What one game came to (``known``: the app's games).

    Returns ``{"kind", "finished", "players", "winners", "scores", "places"}`` plus the
    details its kind adds (``registry.GameDef.result``): Kraken ``outcome``, ``reason``,
    ``roles``; Crazy Time ``hours``, ``last_penalties``, ``standings``, ``matches``.

    An unfinished game has ``finished`` False, no winners, scores or places, and none of
    the kind's details: its running state is not a result (and may hold secrets).
    """
    game = known[kind]
    result = {"kind": kind, "finished": bool(state.get("finished")),
              "players": list(setup["players"]), "winners": [], "scores": {}, "places": {}}
    if result["finished"]:
        result.update(game.result(setup, state))
    return result


def standing(kind: str, setup: dict[str, Any], state: dict[str, Any],
             known: registry.Games) -> dict[str, Any] | None:
    """A running game's standing as every screen may show it (docs/rules.md#standings),
    from its kind's ``standings`` and its live state: ``{"progress", "label", "rows"}``,
    ``rows`` each ``{"seat", "value", "place"}`` best first (places by the game's own
    ranking, else the competition ranks of the numbers: docs/rules.md#ranking), empty
    when there is no number per player yet. None for a finished game, or a kind with
    nothing to say."""
    if state.get("finished"):
        return None
    found = known[kind].standings(setup, state)
    if found is None:
        return None
    scores = found.get("scores") or {}
    places = found.get("places") or competition_ranks(
        scores, highest_wins=found.get("highest_wins", True))
    rows = [{"seat": seat, "value": value, "place": places[seat]}
            for seat, value in scores.items()]
    rows.sort(key=lambda row: (row["place"], row["seat"]))
    return {"progress": found.get("progress"), "label": found.get("label"), "rows": rows}


#: The name of the ``max`` of a kind's stat parts that is its best score: the
#: statistics' leaderboards show it (Skull King's final total; a kind without one, none).
BEST = "score"


#: The state a running game is tallied with when its kept result is read instead of its
#: log (companion/store/results.py): only that it is not finished (and, for a kind that
#: has them, the parts it adds to statistics so far: :func:`running_of`). The tallies give
#: a running game no result, and its state may hold secrets.
RUNNING: dict[str, Any] = {"finished": False}


def running_of(kind: str, setup: dict[str, Any], state: dict[str, Any],
               known: registry.Games) -> dict[int, dict[str, Any]]:
    """What a game not finished adds to each of its players' statistics so far (its
    kind's ``running_parts``), by seat: from its kept state (``running``, seats as JSON
    text) or its live state; nothing for a finished game, a kind without them, or a
    running game read with nothing kept (:data:`RUNNING` alone)."""
    if state.get("finished"):
        return {}
    if "running" in state:
        return {int(seat): sums for seat, sums in state["running"].items()}
    parts_of = known[kind].running_parts
    if parts_of is None or set(state) <= set(RUNNING):
        return {}
    return parts_of(setup, state)


def kept(kind: str, setup: dict[str, Any], state: dict[str, Any],
         known: registry.Games) -> dict[str, Any]:
    """What of a game is kept beside its log: ``finished``, and for a finished game its
    ``result`` (:func:`game_result`) and the ``state`` the tallies, statistics, awards,
    BG Stats and pictures read (its kind's ``kept_state``: all of it by default). A
    running game keeps no ``result``, and as ``state`` only what it adds to statistics
    so far (``{"running": …}``: its kind's ``running_parts``, never a secret), or None
    for a kind without them."""
    if not state.get("finished"):
        running = known[kind].running_parts
        return {"finished": False, "result": None,
                "state": None if running is None else {"running": running(setup, state)}}
    part = known[kind].kept_state
    return {"finished": True, "result": game_result(kind, setup, state, known),
            "state": part(setup, state) if part is not None else state}


def night_tally(names: dict[int, str], games: list[Game], known: registry.Games
                ) -> dict[str, Any]:
    """Tonight's tally, from the night's names {seat: name} and its games in order.

    Returns a dict:

    - ``games``: per game ``{"number", "kind", **game_result(...)}``;
    - ``kinds``: per kind played tonight, what its tally shows (its ``night_tally``:
      Kraken's token series, Skull King's totals, Crazy Time's hours and standings);
    - ``players``: per seat in seat order ``{"seat", "name", "played", "won",
      "unfinished"}`` and each kind's per-player figures (e.g. ``series_won``) —
      ``played``/``won`` count finished games only, ``unfinished`` the games still
      running (or abandoned) the seat is in;
    - ``awards``: tonight's awards (:func:`night_awards`);
    - ``finished``, ``unfinished``: how many games ended / did not.
    """
    results = [game_result(g["kind"], g["setup"], g["state"], known) | {"number": g["number"]}
               for g in games]
    kinds: dict[str, Any] = {}
    for kind, game in known.items():
        mine = [g for g in games if g["kind"] == kind]
        view = game.night_tally(mine, [r for r in results if r["kind"] == kind], names)
        if view is not None:
            kinds[kind] = view
    players = []
    for seat in sorted(names):
        mine = [r for r in results if seat in r["players"]]
        row = {
            "seat": seat, "name": names[seat],
            "played": sum(1 for r in mine if r["finished"]),
            "won": sum(1 for r in mine if r["finished"] and seat in r["winners"]),
            "unfinished": sum(1 for r in mine if not r["finished"]),
        }
        for kind, game in known.items():
            row.update(game.player_night(seat, kinds.get(kind)))
        players.append(row)
    return {
        "games": results,
        "kinds": kinds,
        "players": players,
        "awards": night_awards(names, games, known),
        "finished": sum(1 for r in results if r["finished"]),
        "unfinished": sum(1 for r in results if not r["finished"]),
    }


def night_awards(names: dict[int, str], games: list[Game], known: registry.Games
                 ) -> list[dict[str, Any]]:
    """Tonight's awards (docs/rules.md#awards): each kind's own (its ``awards``), from its
    finished games only — a game still running gives none, since its secrets (roles,
    bids) are not out yet. In the registry's order of kinds, each award with its
    ``kind``."""
    found: list[dict[str, Any]] = []
    for kind, game in known.items():
        done = [g for g in games if g["kind"] == kind and g["state"].get("finished")]
        if done:
            found += [{**one, "kind": kind} for one in game.awards(done, names)]
    return found


# --- across nights ---------------------------------------------------------------------


def fold(name: str) -> str:
    """The key a name is matched by across nights: trimmed, NFC, case-folded. The
    roster, an import, the statistics and the merges all match names by it."""
    return unicodedata.normalize("NFC", str(name)).strip().casefold()


def hides_characters(name: str) -> bool:
    """Whether a name holds characters that are not shown but change what is: direction
    overrides and marks (which can reorder the rest of a line), zero-width spaces, a
    byte-order mark, control characters. The zero-width joiner and the tag characters
    stay allowed: emoji are made of them (👨‍👩‍👧, 🏴󠁧󠁢󠁳󠁣󠁴󠁿)."""
    return any(unicodedata.category(c) in ("Cf", "Cc") and c != "\u200d"
               and not "\U000e0020" <= c <= "\U000e007f" for c in name)


def resolve(key: str, aliases: dict[str, str]) -> str:
    """The player a folded name stands for after the host's merges (follows chains,
    stops at a loop)."""
    seen = {key}
    while key in aliases and aliases[key] not in seen:
        key = aliases[key]
        seen.add(key)
    return key


def figures_with_running(game: Any, finished: dict[str, Any], so_far: dict[str, Any] | None,
                         entry: dict[str, Any]) -> dict[str, Any]:
    """A kind's figures of one player (its ``stat_figures``) from their finished plays'
    parts summed, with what their games not finished add so far (``so_far``, sums of its
    ``running_parts``) counted in; the figures of finished games alone are noted in
    ``entry["finished_figures"]``, so a page can mark a figure the running games
    changed."""
    alone = game.stat_figures(finished)
    entry.setdefault("finished_figures", {}).update(alone)
    if not so_far:
        return dict(alone)
    return dict(game.stat_figures({**finished, "sums": parts.add_sums(
        finished.get("sums"), so_far, 1) or {}}))


def leaderboards(players: list[dict[str, Any]], known: registry.Games
                 ) -> dict[str, list[dict[str, Any]]]:
    """Per kind of game, its leaderboard across nights (docs/rules.md#stat-leaderboards):
    every player with a finished game of it, most wins first, then the better win
    rate, then more games played, then by name. Each row ``{"key", "name", "wins",
    "games", "rate" (a whole percentage), "best" (the best score, or None)}``; a kind
    nobody finished has an empty board."""
    boards: dict[str, list[dict[str, Any]]] = {}
    for kind in known:
        rows = [{"key": p["key"], "name": p["name"], "wins": p["wins"][kind],
                 "games": p["games"][kind], "rate": awards.percent(p["wins"][kind],
                                                                  p["games"][kind]),
                 "best": p.get("best", {}).get(kind)}
                for p in players if p["games"][kind]]
        rows.sort(key=lambda r: (-r["wins"], -Fraction(r["wins"], r["games"]), -r["games"],
                                 fold(r["name"]), r["key"]))
        boards[kind] = rows
    return boards


def _empty_meeting() -> dict[str, Any]:
    return {"games": 0, "wins": [0, 0], "ahead": [0, 0], "level": 0, "kinds": {}}


def count_meetings(found: dict[tuple[str, str], dict[str, Any]], keys: dict[int, str],
                   results: list[dict[str, Any]]) -> None:
    """Add to ``found`` {(key, key): meeting, the keys in sorted order} the pairs who met
    in the finished games of these results of one night, each seat known by ``keys``
    {seat: key}."""
    for result in results:
        if not result["finished"]:
            continue
        seats = sorted((keys[s], s) for s in result["players"] if s in keys)
        for index, (key, seat) in enumerate(seats):
            for other, other_seat in seats[index + 1:]:
                if key != other:
                    meeting = found.setdefault((key, other), _empty_meeting())
                    _count_meeting(meeting, result, (seat, other_seat))


def between(found: dict[tuple[str, str], dict[str, Any]], first: str, second: str
            ) -> dict[str, Any]:
    """Two players (folded keys, after the host's merges) over the finished games both
    played (docs/rules.md#stat-head-to-head), from every pair's meetings (as
    :func:`count_meetings` adds them up).

    Returns ``{"games", "wins": [first's, second's], "ahead": [first's, second's],
    "level", "kinds": {kind: {"games", "wins": [.., ..]}}}``: ``wins`` counts the games
    each won (both may win one: a Kraken team, a shared first place), ``ahead`` the games
    each finished in a better place than the other, ``level`` those in the same place.
    """
    meeting = found.get((min(first, second), max(first, second)))
    if meeting is None:
        return _empty_meeting()
    if first <= second:
        return meeting
    return {"games": meeting["games"], "wins": meeting["wins"][::-1],
            "ahead": meeting["ahead"][::-1], "level": meeting["level"],
            "kinds": {kind: {"games": k["games"], "wins": k["wins"][::-1]}
                      for kind, k in meeting["kinds"].items()}}


def _count_meeting(found: dict[str, Any], result: dict[str, Any], pair: tuple[int, int]
                   ) -> None:
    """Add one finished game both players of ``pair`` played to a head-to-head."""
    kind = found["kinds"].setdefault(result["kind"], {"games": 0, "wins": [0, 0]})
    found["games"] += 1
    kind["games"] += 1
    for side, seat in enumerate(pair):
        won = int(seat in result["winners"])
        found["wins"][side] += won
        kind["wins"][side] += won
    places = [result["places"][seat] for seat in pair]
    if places[0] == places[1]:
        found["level"] += 1
    else:
        found["ahead"][places.index(min(places))] += 1
