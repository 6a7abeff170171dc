"""A host's nights across time: the history in pages, the statistics by player and head to
head (and as CSV), and merging two spellings of one name."""

import re
from collections.abc import Mapping
from typing import Any

from flask import (
    Blueprint,
    abort,
    redirect,
    render_template,
    request,
    url_for,
)

from companion import store
from companion.core import stats, sums
from companion.core.charts import bar_chart
from companion.web.downloads import cell, csv_file
from companion.web.http import Answer
from companion.web.i18n import gettext as _
from companion.web.identity import device
from companion.web.offload import costly

bp = Blueprint("statistics", __name__)


def _page() -> int:
    """The history page asked for (``?page=``, from 1; anything else is the first)."""
    asked = request.args.get("page", "1")
    return int(asked) if asked.isdigit() and 0 < int(asked) < 10**6 else 1


def _history_rows(nights: list[store.Row]) -> list[dict[str, Any]]:
    ids = [n["id"] for n in nights]
    seats, games = store.rosters(ids), store.outcomes(ids)
    rows = []
    for night in nights:
        names = {s["position"]: s["name"] for s in seats[night["id"]]}
        rows.append({"night": night, "players": list(names.values()),
                     "games": games[night["id"]], "names": names})
    return rows


@bp.get("/history")
def history(error: str | None = None, status: int = 200) -> Answer:
    """The nights this device hosted, the latest first, a page of ``HISTORY_PAGE`` at a
    time (each page says the dates it covers); the import form below."""
    page = _page()
    total = store.hosted_count(device())
    pages = max(1, -(-total // store.HISTORY_PAGE))
    page = min(page, pages)
    nights = store.hosted_page(device(), page)
    return render_template("tally/history.html", rows=_history_rows(nights),
                           games=store.known_games(), error=error, page=page, pages=pages,
                           total=total), status


def _statistics(aliases: dict[str, str]) -> dict[str, Any]:
    """The device's statistics, ``{"players", "meetings"}``: from the sums kept of every
    night it hosts (companion/store/statistics.py), the host's merges applied."""
    return sums.figures(store.statistics_totals(device()), aliases, store.known_games())


def _meetings(found: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(first, second): met for first, second, met in found["meetings"]}


def _host_only() -> None:
    if not store.hosts_any(device()):
        abort(403)


def _stat_columns() -> list[tuple[Any, Any]]:
    return [column for game in store.known_games().values() for column in game.stat_columns]


def _versus(met: dict[tuple[str, str], dict[str, Any]],
            players: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The head-to-head the statistics page was asked for (``?a=&b=``, two players'
    keys), or None when it was not (docs/rules.md#stat-head-to-head)."""
    if "a" not in request.args and "b" not in request.args:
        return None
    first, second = request.args.get("a", ""), request.args.get("b", "")
    by_key = {p["key"]: p for p in players}
    if first not in by_key or second not in by_key:
        return {"error": _("Pick two players from the list."), "a": first, "b": second}
    if first == second:
        return {"error": _("Pick two different players."), "a": first, "b": second}
    return {"error": None, "a": first, "b": second,
            "players": (by_key[first], by_key[second]),
            "result": stats.between(met, first, second)}


def _player_colours(totals: dict[str, Any], aliases: dict[str, str],
                    players: list[dict[str, Any]]) -> dict[int, str]:
    """Each player's colour on the statistics page, by their place in ``players``: the
    colour of the seat they last played at (``hue`` reads it as a page's ``colours``)."""
    latest = sums.latest_seats(totals, aliases)
    rosters = store.rosters(sorted({night for night, _seat in latest.values()}))
    worn = {(night, s["position"]): s["colour"] for night, seats in rosters.items()
            for s in seats}
    return {index: worn[latest[p["key"]]] for index, p in enumerate(players)
            if latest.get(p["key"]) in worn}


def _boards(players: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per game played, its leaderboard (stats.leaderboards) and a chart of its wins,
    each bar in its player's colour (their place in ``players``), the leaders marked."""
    index = {p["key"]: i for i, p in enumerate(players)}
    boards = {}
    for kind, rows in stats.leaderboards(players, store.known_games()).items():
        if rows:
            most = rows[0]["wins"]
            boards[kind] = {"rows": [{**r, "seat": index[r["key"]]} for r in rows],
                            "chart": bar_chart([{"label": r["name"], "value": r["wins"],
                                                 "seat": index[r["key"]],
                                                 "highlight": most > 0 and r["wins"] == most}
                                                for r in rows])}
    return boards


#: What a figure shows when a player has none (no game of its kind): a blank cell, so a
#: row says what a player did and nothing else (a "—" in most cells made a wall).
NONE_SHOWN = ("—", "", None)


def sort_key(shown: Any) -> float | str | None:
    """The order of a figure as shown: a record ("7 / 10 (70%)") by its rate, a number
    by its value, any other text as it reads; None for a blank cell (always last)."""
    if shown in NONE_SHOWN:
        return None
    text = str(shown)
    rate = re.search(r"\((\d+)\s*%\)", text)
    number = rate or re.match(r"\s*(-?\d+(?:\.\d+)?)", text)
    return float(number.group(1)) if number else stats.fold(text)


def _cell(shown: Any, key: Any = None, running: int = 0, so_far: bool = False
          ) -> dict[str, Any]:
    """A cell: what it shows, the games not finished beside it (``running``), whether
    they changed it (``so_far``), and its sort key (None: blank)."""
    blank = shown in NONE_SHOWN
    return {"text": "" if blank else shown, "running": running, "so_far": so_far and not blank,
            "key": (sort_key(shown) if key is None else key) if not blank or running else None}


def _figure(value: Any, p: dict[str, Any], kind: str) -> dict[str, Any]:
    """A game's own figure of player ``p``: blank for a player who never sat at it (its
    "0" says nothing the blank "played" beside it does not); marked when the games not
    finished changed it (a figure of finished games alone would read otherwise)."""
    if not (p["games"][kind] or p["running"][kind]):
        return _cell(None)
    shown = value(p)
    return _cell(shown, so_far=shown != value({**p, **p.get("finished_figures", {})}))


def _columns(games: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The statistics table's columns: the nights, then per game its games played (with
    the games not finished beside them), won, and each figure of its own."""
    columns: list[dict[str, Any]] = [{"id": "nights", "label": _("Nights"), "kind": None,
                                      "cell": lambda p: _cell(p["nights"])}]
    for kind, game in games.items():
        columns += [
            {"id": f"{kind}-played", "label": _("Played"), "kind": kind,
             "cell": lambda p, k=kind: _cell(p["games"][k] if p["games"][k] or p["running"][k]
                                             else None, (p["games"][k], p["running"][k]),
                                             p["running"][k])},
            {"id": f"{kind}-won", "label": _("Won"), "kind": kind,
             "cell": lambda p, k=kind: _cell(p["wins"][k] if p["games"][k] else None)}]
        columns += [{"id": f"{kind}-{i}", "label": label, "kind": kind,
                     "cell": lambda p, value=value, k=kind: _figure(value, p, k)}
                    for i, (label, value) in enumerate(game.stat_columns)]
    return columns


def players_table(players: list[dict[str, Any]], games: Mapping[str, Any], sort: str,
                  descending: bool) -> dict[str, Any]:
    """The statistics' one table of every player: a row a player (their place in
    ``players`` names their colour), a column a figure, blank where a player has none,
    a column nobody has a figure in left out; sorted by the column ``sort`` ("name", or
    a column's id; blanks last either way)."""
    columns = _columns(games)
    rows: list[dict[str, Any]] = [
        {"player": p, "seat": index, "cells": [c["cell"](p) for c in columns]}
        for index, p in enumerate(players)]
    kept = [i for i, c in enumerate(columns) if any(r["cells"][i]["key"] is not None
                                                    for r in rows)]
    columns = [columns[i] for i in kept]
    for row in rows:
        row["cells"] = [row["cells"][i] for i in kept]
    ids = [c["id"] for c in columns]
    rows.sort(key=lambda r: stats.fold(r["player"]["name"]), reverse=sort not in ids and descending)
    if sort in ids:
        at = ids.index(sort)
        filled = [r for r in rows if r["cells"][at]["key"] is not None]
        # (a stable sort: players level on the figure stay in the order of their names)
        filled.sort(key=lambda r: r["cells"][at]["key"], reverse=descending)
        rows = filled + [r for r in rows if r["cells"][at]["key"] is None]
    else:
        sort = "name"
    groups: list[list[Any]] = []
    for column in columns:
        if groups and groups[-1][0] == column["kind"]:
            groups[-1][1] += 1
        else:
            groups.append([column["kind"], 1])
    return {"columns": columns, "rows": rows, "groups": groups, "sort": sort,
            "descending": descending,
            "running": any(cell["running"] or cell["so_far"]
                           for row in rows for cell in row["cells"])}


def _sorting() -> tuple[str, bool]:
    """The column the table is sorted by (``?sort=``) and whether most first
    (``?order=desc``)."""
    return request.args.get("sort", "name")[:64], request.args.get("order") == "desc"


@bp.get("/stats")
@costly
def statistics(error: str | None = None, status: int = 200) -> Answer:
    _host_only()
    aliases = store.aliases(device())
    totals = store.statistics_totals(device())
    found = sums.figures(totals, aliases, store.known_games())
    players = found["players"]
    by_key = {p["key"]: p["name"] for p in players}
    merges = [{"alias": alias, "into": by_key.get(canonical, canonical)}
              for alias, canonical in aliases.items()]
    sort, descending = _sorting()
    return render_template("tally/stats.html", players=players, boards=_boards(players),
                           colours=_player_colours(totals, aliases, players), merges=merges,
                           games=store.known_games(), error=error,
                           table=players_table(players, store.known_games(), sort, descending),
                           versus=_versus(_meetings(found), players)), status


@bp.get("/stats.csv")
@costly
def statistics_csv() -> Answer:
    """The statistics page's table: one row per player, each game's wins and games, and
    each game's own figures as the page shows them (docs/rules.md#statistics)."""
    _host_only()
    players = _statistics(store.aliases(device()))["players"]
    kinds = store.known_games()
    columns = _stat_columns()
    header = [_("player"), _("nights")]
    for game in kinds.values():
        header += [_("%(title)s: games won", title=str(game.title)),
                   _("%(title)s: games played", title=str(game.title))]
    rows = [header + [str(label) for label, _value in columns]]
    for p in players:
        counts = [n for kind in kinds for n in (p["wins"][kind], p["games"][kind])]
        rows.append([cell(p["name"]), p["nights"], *counts,
                     *(value(p) for _label, value in columns)])
    return csv_file(rows, "statistics.csv")


@bp.get("/stats/head-to-head.csv")
@costly
def head_to_head_csv() -> Answer:
    """Every pair of players who met in a finished game: games together, wins of each,
    who finished ahead (docs/rules.md#stat-head-to-head)."""
    _host_only()
    found = _statistics(store.aliases(device()))
    names = {p["key"]: p["name"] for p in found["players"]}
    rows: list[list[Any]] = [[_("player"), _("opponent"), _("games together"),
                              _("player's wins"), _("opponent's wins"),
                              _("player ahead"), _("opponent ahead"), _("same place")]]
    for (first, second), met in sorted(_meetings(found).items()):
        rows.append([cell(names.get(first, first)), cell(names.get(second, second)),
                     met["games"], *met["wins"], *met["ahead"], met["level"]])
    return csv_file(rows, "head-to-head.csv")


@bp.post("/stats/merge")
def merge() -> Answer:
    """Merge two spellings: from now on ``alias`` counts as ``into`` (both folded keys)."""
    _host_only()
    aliases = store.aliases(device())
    keys = {p["key"] for p in _statistics(aliases)["players"]}
    alias = stats.fold(request.form.get("alias", ""))[:64]
    into = stats.fold(request.form.get("into", ""))[:64]
    if alias not in keys or into not in keys:
        return statistics(error=_("Pick two players from the list."), status=422)
    alias, into = stats.resolve(alias, aliases), stats.resolve(into, aliases)
    if alias == into:
        return statistics(error=_("Those are already the same player."), status=422)
    store.merge_alias(device(), alias, into)
    return redirect(url_for("statistics.statistics"), 303)


@bp.post("/stats/unmerge")
def unmerge() -> Answer:
    _host_only()
    store.unmerge_alias(device(), stats.fold(request.form.get("alias", ""))[:64])
    return redirect(url_for("statistics.statistics"), 303)
