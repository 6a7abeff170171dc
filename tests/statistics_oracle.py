"""The statistics worked out from every night, the oracle the kept sums are checked
against (companion/core/sums.py, companion/store/statistics.py): ``player_stats`` and
``meetings``/``head_to_head`` give, from a host's whole history, what ``sums.figures``
gives from the sums. The app keeps only the sums: worked out from scratch, the first
/stats after a game ends cost 66 ms at 10 nights and 3.1 s at 1,000 (docs/architecture.md,
"Statistics: kept as sums").

``known`` is the app's games, the installed ones when none are given.
"""

from collections.abc import Callable, Iterable
from typing import Any

from companion import store
from companion.core import parts, registry, stats
from companion.core.parts import Part
from companion.store.tallied import tallied


def nights_of(device: str) -> list[dict[str, Any]]:
    """Every night ``device`` hosts, oldest first, as :func:`player_stats` reads them:
    ``{"names": {seat: name}, "games": [...]}``, the games from their kept results
    (companion/store/tallied.py), as the sums read them. In an app's context."""
    ids = [row[0] for row in store.get_db().execute(
        "select n.id from nights n join hosts h on h.night_id = n.id "
        "where h.device = ? order by n.created, n.id", [device])]
    seats = store.rosters(ids)
    games = tallied(ids)
    return [{"names": {s["position"]: s["name"] for s in seats[i]}, "games": games[i]}
            for i in ids]


def player_stats(nights: list[dict[str, Any]], aliases: dict[str, str] | None = None,
                 known: registry.Games | None = None) -> list[dict[str, Any]]:
    """Statistics per player across ``nights`` (oldest first), players matched by name.

    ``nights``: ``[{"names": {seat: name}, "games": [game, ...]}]``. ``aliases``: {folded
    spelling: folded name it was merged into} (the host's merges). Only finished games
    count. Per player (sorted by display name):

    ``key``, ``name`` (the latest spelling of the merged-into name), ``spellings`` (every
    spelling seen), ``nights``, ``games``/``wins`` {kind: n}, ``best`` {kind: the best
    score of a finished game, or None: a kind's stat part ``max`` named ``stats.BEST``},
    ``unfinished``, ``running`` {kind: the games of it not finished (still running, or
    left so) the player is in: counted beside ``games``, never in it},
    ``total_games``, ``total_wins``, and what each kind adds (its ``player_stats`` over
    the player's finished games of that kind, its ``player_night`` figures summed over
    nights): Skull King ``sk_best``/``sk_average``, Kraken ``kraken_roles`` and
    ``series_won``, Crazy Time ``ct_matches_won``.
    """
    aliases = aliases or {}
    known = registry.installed() if known is None else known
    players: dict[str, dict[str, Any]] = {}
    display: dict[str, str] = {}

    def player(name: str) -> dict[str, Any]:
        own = stats.fold(name)
        key = stats.resolve(own, aliases)
        entry = players.get(key)
        if entry is None:  # (not setdefault: it would make a new entry for every name)
            entry = players[key] = _new_player(key, known)
        if name not in entry["spellings"]:
            entry["spellings"].append(name)
        if own == key or key not in display:
            display[key] = name
        return entry

    for night in nights:
        _count_night(night, player, known)
    for key, entry in players.items():
        entry["name"] = display[key]
        so_far = entry.pop("so_far")
        for kind, plays in entry.pop("plays").items():
            game = known[kind]
            summed = over(game.stat_parts, plays)
            entry.update(stats.figures_with_running(game, summed, so_far[kind], entry))
            entry["best"][kind] = summed["max"].get(stats.BEST)
        entry["total_games"] = sum(entry["games"].values())
        entry["total_wins"] = sum(entry["wins"].values())
    return sorted(players.values(), key=lambda e: (stats.fold(e["name"]), e["key"]))


def _new_player(key: str, known: registry.Games) -> dict[str, Any]:
    kinds = tuple(known)
    entry: dict[str, Any] = {"key": key, "name": None, "spellings": [], "nights": 0,
             "games": dict.fromkeys(kinds, 0), "wins": dict.fromkeys(kinds, 0),
             "best": dict.fromkeys(kinds), "unfinished": 0, "running": dict.fromkeys(kinds, 0),
             "plays": {kind: [] for kind in kinds}, "so_far": {kind: {} for kind in kinds}}
    for game in known.values():
        entry.update({k: v for k, v in game.player_night(0, None).items()})
    return entry


def _count_night(night: dict[str, Any], player: Any, known: registry.Games) -> None:
    """Add one night's games to each of its players' entries."""
    names = night["names"]
    tally = stats.night_tally(names, night["games"], known)
    for row in tally["players"]:
        entry = player(names[row["seat"]])
        entry["nights"] += 1
        entry["unfinished"] += row["unfinished"]
        for name, value in row.items():
            if name not in ("seat", "name", "played", "won", "unfinished"):
                entry[name] += value
    for game, result in zip(night["games"], tally["games"], strict=True):
        if not result["finished"]:
            adds = stats.running_of(game["kind"], game["setup"], game["state"], known)
            for seat in result["players"]:
                if seat in names:
                    entry = player(names[seat])
                    entry["running"][result["kind"]] += 1
                    parts.add_into(entry["so_far"][result["kind"]], adds.get(seat, {}))
            continue
        for seat in result["players"]:
            if seat not in names:
                continue
            entry = player(names[seat])
            kind, won = result["kind"], seat in result["winners"]
            entry["games"][kind] += 1
            entry["wins"][kind] += won
            entry["plays"][kind].append(
                {"seat": seat, "game": game, "result": result, "won": won})


def meetings(nights: list[dict[str, Any]], aliases: dict[str, str] | None = None,
             known: registry.Games | None = None) -> dict[tuple[str, str], dict[str, Any]]:
    """Every pair of players who met in a finished game, across ``nights``
    (docs/rules.md#stat-head-to-head): by the pair's folded keys (after the host's
    merges) in sorted order, what :func:`head_to_head` gives for that order."""
    aliases = aliases or {}
    known = registry.installed() if known is None else known
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for night in nights:
        keys = {seat: stats.resolve(stats.fold(name), aliases)
                for seat, name in night["names"].items()}
        stats.count_meetings(found, keys, [
            stats.game_result(game["kind"], game["setup"], game["state"], known)
            for game in night["games"]])
    return found


def head_to_head(nights: list[dict[str, Any]], aliases: dict[str, str] | None,
                 first: str, second: str, known: registry.Games | None = None
                 ) -> dict[str, Any]:
    """Two players (folded keys, after the host's merges) across ``nights``, over the
    finished games both played (docs/rules.md#stat-head-to-head).

    Returns ``{"games", "wins": [first's, second's], "ahead": [first's, second's],
    "level", "kinds": {kind: {"games", "wins": [.., ..]}}}``: ``wins`` counts the games
    each won (both may win one: a Kraken team, a shared first place), ``ahead`` the games
    each finished in a better place than the other, ``level`` those in the same place.
    """
    return stats.between(meetings(nights, aliases, known), first, second)


def over(stat_parts: Callable[[dict[str, Any]], Part], plays: Iterable[dict[str, Any]]
         ) -> Part:
    """One kind's parts of these plays summed, as its ``stat_figures`` reads them:
    ``{"sums": {...}, "max": {name: value}}``."""
    found: Part = {}
    for play in plays:
        one = stat_parts(play)
        found = parts.combine(found, {"sums": one.get("sums", {}), "max": {
            name: [value, 1] for name, value in one.get("max", {}).items()}}, 1) or {}
    return parts.bare(found)
