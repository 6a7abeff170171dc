"""Statistics as sums: what each night adds to its players' figures, kept as sums, counts
and maxima that a change to one night adjusts, and the figures the statistics page shows
worked out from them. Pure functions: no Flask, no SQL.

Worked out from every night, the statistics' cost grew with the history (3.1 s for the
first /stats after a game ends at 1,000 nights: docs/architecture.md, "Statistics: kept
as sums"). Here one night's part (:func:`night_parts`) is added to a host's totals once
(:func:`add`), and a night that changes has its old part taken out and its new part put
in (:func:`replace`): the cost of a game's end is one night's. :func:`figures` then gives
the figures from the totals alone, with the host's merges applied as the totals are read
(so a merge changes no totals); tests/statistics_oracle.py works the same figures out
from every night, and the tests hold the two equal.

A player's part is summed as companion/core/parts.py says (sums, and maxima and minima
with how many parts reached them). Taking out a part that held the only maximum leaves
the maximum unknown: :func:`replace` then returns None, and the totals
are added up again from the parts kept per night (rare: a correction that lowers a
player's best, a night taken away).

A game's kind says what one of its finished plays adds (``GameDef.stat_parts``) and
what its figures are from a player's summed parts (``GameDef.stat_figures``);
``GameDef.rules_version`` moves when either (or the game's scoring) changes, and the
totals carry the versions they were worked out under (:func:`versions`).
"""

from collections.abc import Iterable
from typing import Any

from companion.core import parts, registry, stats
from companion.core.parts import Part

#: The version of what the core adds up here: moved with any change to it, so kept
#: totals worked out by older code are worked out again (:func:`versions`).
SUMS_VERSION = 3  # 2: the games not finished, per kind (``running``); 3: what they add

#: The keys of a tally's player row that are not a kind's ``player_night`` figures.
_ROW_KEYS = ("seat", "name", "played", "won", "unfinished")


def versions(known: registry.Games) -> dict[str, int]:
    """The versions kept totals are worked out under: each kind's ``rules_version`` and
    :data:`SUMS_VERSION`. Totals kept under others are stale."""
    found = {kind: game.rules_version for kind, game in known.items()}
    return found | {"": SUMS_VERSION}


def add(totals: dict[str, Any], part: dict[str, Any]) -> dict[str, Any]:
    """Totals ``{"players": {folded name: Part}, "meetings": {pair: sums}}`` with one
    night's part (:func:`night_parts`) added."""
    players = parts.each(totals.get("players", {}), part.get("players", {}), 1)
    assert players is not None  # (adding never leaves an extreme unknown)
    return {"players": players,
            "meetings": parts.add_sums(totals.get("meetings"), part.get("meetings"), 1) or {}}


def replace(totals: dict[str, Any], old: dict[str, Any] | None, new: dict[str, Any] | None
            ) -> dict[str, Any] | None:
    """Totals with a night's ``old`` part (None: it was not counted) taken out and its
    ``new`` one (None: it no longer counts) put in; None when an extreme the old part
    held is left unknown (add the totals up again: :func:`total`)."""
    found = add(totals, new or {})
    if old is None:
        return found
    players = parts.each(found["players"], old.get("players", {}), -1)
    if players is None:
        return None
    return {"players": players,
            "meetings": parts.add_sums(found["meetings"], old.get("meetings"), -1) or {}}


def total(nights: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The totals of these nights' parts (what :func:`add` gives, summed in place: a
    whole history at once)."""
    players: dict[str, Part] = {}
    meetings: dict[str, Any] = {}
    for night in nights:
        for key, one in night.get("players", {}).items():
            held = players.setdefault(key, {"sums": {}, "max": {}, "min": {}})
            parts.add_into(held["sums"], one.get("sums", {}))
            for how, pick in (("max", max), ("min", min)):
                held[how] = parts.extremes(held[how], one.get(how, {}), 1, pick)
        parts.add_into(meetings, night.get("meetings", {}))
    return add({}, {"players": players, "meetings": meetings})


# --- one night's part --------------------------------------------------------------------


def night_parts(night: dict[str, Any], when: list[Any], known: registry.Games
                ) -> dict[str, Any]:
    """What one night adds to its host's totals: per player (by the folded name of a
    seat, before any merge) and per pair of players who met. ``night`` is as
    ``{"names": {seat: name}, "games": [game, ...]}``; ``when`` places it among the
    host's nights (its ``[created, id]``: the statistics name a player by the latest
    spelling of their name)."""
    names = night["names"]
    tally = stats.night_tally(names, night["games"], known)
    players: dict[str, Part] = {}
    for row in tally["players"]:
        spelling = names[row["seat"]]
        at = [*when, row["seat"]]
        players[stats.fold(spelling)] = {
            "sums": {"nights": 1, "unfinished": row["unfinished"], "spellings": {spelling: 1},
                     "night": {k: v for k, v in row.items() if k not in _ROW_KEYS}},
            "max": {"last": [[*at, spelling], 1]}, "min": {f"first:{spelling}": [at, 1]}}
    for game, result in zip(night["games"], tally["games"], strict=True):
        for seat in result["players"]:
            if seat not in names:
                continue
            if result["finished"]:
                _count_play(players[stats.fold(names[seat])], seat, game, result, known)
            else:
                held = players[stats.fold(names[seat])]["sums"]
                running = held.setdefault("running", {})
                running[result["kind"]] = running.get(result["kind"], 0) + 1
                adds = stats.running_of(game["kind"], game["setup"], game["state"],
                                        known).get(seat)
                both = parts.add_sums(held.get("so_far", {}).get(result["kind"]), adds, 1)
                if both:
                    held.setdefault("so_far", {})[result["kind"]] = both
    met: dict[tuple[str, str], dict[str, Any]] = {}
    stats.count_meetings(met, {seat: stats.fold(name) for seat, name in names.items()},
                         tally["games"])
    return {"players": players,
            "meetings": {f"{first}\n{second}": one for (first, second), one in met.items()}}


def _count_play(part: Part, seat: int, game: dict[str, Any], result: dict[str, Any],
                known: registry.Games) -> None:
    kind, won = result["kind"], seat in result["winners"]
    sums = part["sums"]
    sums.setdefault("games", {})[kind] = sums.get("games", {}).get(kind, 0) + 1
    sums.setdefault("wins", {})[kind] = sums.get("wins", {}).get(kind, 0) + won
    one = known[kind].stat_parts({"seat": seat, "game": game, "result": result, "won": won})
    kinds = sums.setdefault("kinds", {})
    kinds[kind] = parts.add_sums(kinds.get(kind), one.get("sums", {}), 1) or {}
    part["max"] = parts.extremes(part["max"], {f"{kind}:{name}": [value, 1] for name, value
                                         in one.get("max", {}).items()}, 1, max) or {}


# --- the figures -------------------------------------------------------------------------


def figures(totals: dict[str, Any], aliases: dict[str, str],
            known: registry.Games) -> dict[str, Any]:
    """What the statistics page shows, from a host's totals and merges: ``{"players": [...],
    "meetings": [[first, second, meeting], ...]}`` (tests/statistics_oracle.py gives the
    same from every night).

    Per player, sorted by display name: ``key``, ``name`` (the latest spelling of the
    merged-into name), ``spellings`` (every spelling seen), ``nights``, ``games``/``wins``
    {kind: n} (finished games only), ``best`` {kind: the best score of a finished game, or
    None: a kind's stat part ``max`` named ``stats.BEST``}, ``unfinished``, ``running``
    {kind: the games of it not finished the player is in: beside ``games``, never in
    it}, ``total_games``, ``total_wins``, and what each kind adds (its ``stat_figures``,
    its ``player_night`` figures summed over nights). Per pair who met in a finished game
    (folded keys after the merges, in sorted order), the meeting ``stats.between`` reads.
    """
    groups: dict[str, list[tuple[str, Part]]] = {}
    for own, part in totals.get("players", {}).items():
        groups.setdefault(stats.resolve(own, aliases), []).append((own, part))
    players = [_player(key, members, known)
               for key, members in groups.items()]
    players.sort(key=lambda e: (stats.fold(e["name"]), e["key"]))
    return {"players": players, "meetings": _meetings(totals.get("meetings", {}), aliases)}


def _player(key: str, members: list[tuple[str, Part]], known: registry.Games
            ) -> dict[str, Any]:
    """One player's figures from the parts of the folded names merged into ``key``."""
    part: Part = {}
    for _own, one in members:
        part = parts.combine(part, one, 1) or {}
    sums, lows = part.get("sums", {}), part.get("min", {})
    spellings = sorted(sums.get("spellings", {}), key=lambda s: lows[f"first:{s}"][0])
    own = dict(members).get(key)
    name = own["max"]["last"][0][-1] if own else spellings[0]
    kinds = tuple(known)
    entry: dict[str, Any] = {
        "key": key, "name": name, "spellings": spellings, "nights": sums.get("nights", 0),
        "games": {kind: sums.get("games", {}).get(kind, 0) for kind in kinds},
        "wins": {kind: sums.get("wins", {}).get(kind, 0) for kind in kinds},
        "unfinished": sums.get("unfinished", 0),
        "running": {kind: sums.get("running", {}).get(kind, 0) for kind in kinds}}
    nightly = sums.get("night", {})
    for game in known.values():
        entry.update({k: v + nightly.get(k, 0) for k, v in game.player_night(0, None).items()})
    entry["best"] = {}
    for kind, game in known.items():
        mine = parts.bare({"sums": sums.get("kinds", {}).get(kind, {}),
                           "max": {name.split(":", 1)[1]: value for name, value
                                   in part.get("max", {}).items()
                                   if name.startswith(f"{kind}:")}})
        entry.update(stats.figures_with_running(
            game, mine, sums.get("so_far", {}).get(kind), entry))
        entry["best"][kind] = mine["max"].get(stats.BEST)
    entry["total_games"] = sum(entry["games"].values())
    entry["total_wins"] = sum(entry["wins"].values())
    return entry


def latest_seats(totals: dict[str, Any], aliases: dict[str, str]
                 ) -> dict[str, tuple[int, int]]:
    """Per player (folded key, merges applied), the night and seat they last played at,
    ``(night id, seat)``: the statistics draw each player in the colour of that seat."""
    found: dict[str, list[Any]] = {}
    for own, part in totals.get("players", {}).items():
        last = part.get("max", {}).get("last")
        key = stats.resolve(own, aliases)
        if last and (key not in found or last[0] > found[key]):
            found[key] = last[0]
    return {key: (int(at[1]), int(at[2])) for key, at in found.items()}


def _meetings(kept: dict[str, Any], aliases: dict[str, str]) -> list[list[Any]]:
    """The head-to-heads of the kept pairs of folded names, merges applied: a pair whose
    names became one player is dropped, one whose order turned has its sides turned."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for pair, met in kept.items():
        first, second = (stats.resolve(own, aliases) for own in pair.split("\n"))
        if first == second:
            continue
        if first > second:
            first, second = second, first
            met = _turned(met)
        found[(first, second)] = parts.add_sums(found.get((first, second)), met, 1)
    return [[first, second, _whole(met)] for (first, second), met in sorted(found.items())]


def _turned(met: dict[str, Any]) -> dict[str, Any]:
    turned = {k: v[::-1] if isinstance(v, list) else v for k, v in met.items()}
    turned["kinds"] = {kind: {k: v[::-1] if isinstance(v, list) else v for k, v in one.items()}
                       for kind, one in met.get("kinds", {}).items()}
    return turned


def _whole(met: dict[str, Any]) -> dict[str, Any]:
    """A meeting with the zeros the sums dropped put back (the shape
    ``stats.count_meetings`` gives)."""
    return {"games": met.get("games", 0), "wins": met.get("wins", [0, 0]),
            "ahead": met.get("ahead", [0, 0]), "level": met.get("level", 0),
            "kinds": {kind: {"games": one.get("games", 0), "wins": one.get("wins", [0, 0])}
                      for kind, one in met.get("kinds", {}).items()}}
