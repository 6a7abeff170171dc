"""Blueprint: the end of the night — tally, history, statistics, export and import.

The numbers come from companion.stats and the file formats from companion.exchange
(pure functions); this module reads the store, renders, and answers.
"""

import csv
import hashlib
import io
import unicodedata
from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    redirect,
    render_template,
    request,
    url_for,
)

from companion import bgstats, exchange, qr, registry, stats, store
from companion.charts import bar_chart
from companion.games import Answer
from companion.lru import LRU
from companion.web import (
    beside_the_loop,
    cacheable,
    costly,
    device,
    hosted_night,
    my_seat,
    unchanged,
)
from companion.web import gettext as _

bp = Blueprint("tally", __name__)


# --- reading a night ------------------------------------------------------------------

def _games(night_id: int) -> list[dict[str, Any]]:
    """The night's games as plain dicts with their logs (what an export carries)."""
    return [g.plain() for g in store.games(night_id)]


def tally_context(night: store.Row, phone: bool = False) -> dict[str, Any]:
    names = store.names(night["id"])
    games = store.night_games(night["id"])  # kept results: no log read, no replay
    tally = stats.night_tally(names, games)
    most = max((p["won"] for p in tally["players"]), default=0)
    wins = bar_chart([{"label": p["name"], "value": p["won"], "seat": p["seat"],
                       "highlight": most > 0 and p["won"] == most}
                      for p in tally["players"]])
    return {"night": night, "names": names, "tally": tally, "wins_chart": wins,
            "games": registry.games(), "bgstats": bgstats_links(night, names, games, phone)}


def bgstats_play(night: store.Row, names: dict[int, str], game: dict[str, Any]
                 ) -> dict[str, Any] | None:
    """A game's BG Stats play in the table's language (None while it runs, or for a kind
    without one): companion/bgstats.py, docs/bgstats.md."""
    result = stats.game_result(game["kind"], game["setup"], game["state"])
    title = str(registry.get(game["kind"]).title)
    return bgstats.play(night, game, result, names, title, _)


def _digest(url: str) -> str:
    """What a QR code's address carries of its link: a change of link is a new address."""
    return hashlib.sha256(url.encode()).hexdigest()[:20]


def bgstats_links(night: store.Row, names: dict[int, str], games: list[dict[str, Any]],
                  phone: bool = False) -> dict[int, dict[str, Any]]:
    """Per finished game's number, its "Log in BG Stats" link and the address of its QR
    code, an image of its own (None when the link is too long for a dependable code:
    docs/bgstats.md#qr-codes). The code is drawn when a browser asks for it, once per
    process, and the browser keeps it: a tally of forty games stays light."""
    links = {}
    for game in games:
        found = bgstats_play(night, names, game)
        if found is not None:
            url = bgstats.link(found)
            image = None
            if bgstats.fits_qr(url):
                number, v = game["number"], _digest(url)
                image = (url_for("tally.my_bgstats_svg", number=number, v=v) if phone else
                         url_for("tally.bgstats_svg", key=night["key"], number=number, v=v))
            links[game["number"]] = {"link": url, "qr": image}
    return links


# --- tonight's tally ------------------------------------------------------------------

@bp.get("/n/<key>/tally")
@costly
def tally(key: str) -> Answer:
    night = hosted_night(key)
    return render_template("tally/tally.html", live_url=url_for("tally.tally_live", key=key),
                           phone=False, **tally_context(night))


@bp.get("/n/<key>/tally/live")
def tally_live(key: str) -> Answer:
    night = hosted_night(key)
    if unchanged(night["version"]):
        return "", 204
    return _tally_region(night, url_for("tally.tally_live", key=key), phone=False)


@costly
def _tally_region(night: store.Row, live_url: str, **viewer: Any) -> str:
    """The tally's live region, once it changed (its one costly part)."""
    return render_template("tally/_live.html", live_url=live_url, **viewer,
                           **tally_context(night, viewer.get("phone", False)))


@bp.get("/me/tally")
@costly
def my_tally() -> Answer:
    """The same tally on a phone of the night: finished games only, never a secret."""
    seat = my_seat()
    if seat is None:
        return render_template("nights/no_seat.html")
    night = store.night(seat["night_id"])
    return render_template("tally/tally.html", live_url=url_for("tally.my_tally_live"),
                           phone=True, me=seat["position"], **tally_context(night, True))


@bp.get("/me/tally/live")
def my_tally_live() -> Answer:
    seat = my_seat()
    if unchanged(seat["night_version"] if seat else -1):
        return "", 204
    if seat is None:
        abort(404)
    night = store.night(seat["night_id"])
    return _tally_region(night, url_for("tally.my_tally_live"), phone=True,
                         me=seat["position"])


# --- history --------------------------------------------------------------------------

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
                           games=registry.games(), error=error, page=page, pages=pages,
                           total=total), status


# --- statistics -----------------------------------------------------------------------

def _statistics(aliases: dict[str, str]) -> dict[str, Any]:
    """The device's statistics, ``{"players", "meetings"}``: as kept for its history as it
    stands (companion/store/statistics.py), else worked out from the kept results of
    every night it hosts, and kept."""
    stamp = store.history_stamp(device(), aliases)
    found = store.kept_statistics(device(), stamp)
    if found is None:
        nights = store.statistics_nights(device())
        found = {"players": stats.player_stats(nights, aliases),
                 "meetings": [[first, second, met] for (first, second), met
                              in sorted(stats.meetings(nights, aliases).items())]}
        store.keep_statistics(device(), stamp, found)
    return found


def _meetings(found: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(first, second): met for first, second, met in found["meetings"]}


def _host_only() -> None:
    if not store.hosts_any(device()):
        abort(403)


def _stat_columns() -> list[tuple[Any, Any]]:
    return [column for game in registry.games().values() for column in game.stat_columns]


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


@bp.get("/stats")
@costly
def statistics(error: str | None = None, status: int = 200) -> Answer:
    _host_only()
    aliases = store.aliases(device())
    found = _statistics(aliases)
    players = found["players"]
    chart = bar_chart([{"label": p["name"], "value": p["total_wins"]} for p in players])
    by_key = {p["key"]: p["name"] for p in players}
    merges = [{"alias": alias, "into": by_key.get(canonical, canonical)}
              for alias, canonical in aliases.items()]
    return render_template("tally/stats.html", players=players, chart=chart, merges=merges,
                           games=registry.games(), columns=_stat_columns(), error=error,
                           versus=_versus(_meetings(found), players)), status


def _csv(rows: list[list[Any]], name: str) -> Response:
    """Rows as a CSV download (a BOM so spreadsheets read Korean names as UTF-8)."""
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerows(rows)
    response = Response(("\ufeff" + out.getvalue()).encode("utf-8"), mimetype="text/csv")
    response.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@bp.get("/stats.csv")
@costly
def statistics_csv() -> Answer:
    """The statistics page's table: one row per player, each game's wins and games, and
    each game's own figures as the page shows them (docs/rules.md#statistics)."""
    _host_only()
    players = _statistics(store.aliases(device()))["players"]
    kinds = registry.games()
    columns = _stat_columns()
    header = [_("player"), _("nights")]
    for game in kinds.values():
        header += [_("%(title)s: games won", title=str(game.title)),
                   _("%(title)s: games played", title=str(game.title))]
    rows = [header + [str(label) for label, _value in columns]]
    for p in players:
        counts = [n for kind in kinds for n in (p["wins"][kind], p["games"][kind])]
        rows.append([_cell(p["name"]), p["nights"], *counts,
                     *(value(p) for _label, value in columns)])
    return _csv(rows, "statistics.csv")


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
        rows.append([_cell(names.get(first, first)), _cell(names.get(second, second)),
                     met["games"], *met["wins"], *met["ahead"], met["level"]])
    return _csv(rows, "head-to-head.csv")


@bp.post("/stats/merge")
def merge() -> Answer:
    """Merge two spellings: from now on ``alias`` counts as ``into`` (both folded keys)."""
    _host_only()
    aliases = store.aliases(device())
    known = {p["key"] for p in _statistics(aliases)["players"]}
    alias = stats.fold(request.form.get("alias", ""))[:64]
    into = stats.fold(request.form.get("into", ""))[:64]
    if alias not in known or into not in known:
        return statistics(error=_("Pick two players from the list."), status=422)
    alias, into = stats.resolve(alias, aliases), stats.resolve(into, aliases)
    if alias == into:
        return statistics(error=_("Those are already the same player."), status=422)
    store.merge_alias(device(), alias, into)
    return redirect(url_for("tally.statistics"), 303)


@bp.post("/stats/unmerge")
def unmerge() -> Answer:
    _host_only()
    store.unmerge_alias(device(), stats.fold(request.form.get("alias", ""))[:64])
    return redirect(url_for("tally.statistics"), 303)


# --- export and import ----------------------------------------------------------------

def export_document(night: store.Row) -> dict[str, Any]:
    seats = store.seats(night["id"])
    return exchange.export_document(night["created"], [s["name"] for s in seats],
                                    _games(night["id"]), [s["colour"] for s in seats])


def _attachment(body: bytes, mimetype: str, night: store.Row, extension: str) -> Response:
    response = Response(body, mimetype=mimetype)
    name = f"night-{night['created'][:10]}.{extension}"
    response.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


#: Exports by night and version: asked again (a second tap, another host device), the
#: same bytes. At most 32 MB of them in a process.
_exports = LRU(64, 32 * 1024 * 1024, len)


@bp.get("/n/<key>/export.json")
@costly
def export_json(key: str) -> Answer:
    night = hosted_night(key)
    cached = (current_app.config["DATABASE"], night["id"], night["version"])
    body: bytes | None = _exports.get(cached)
    if body is None:
        body = exchange.dumps(export_document(night))
        _exports.put(cached, body)
    return _attachment(body, "application/json", night, "json")


def _cell(text: Any) -> str:
    """A name as a spreadsheet cell: never read as a formula, not even behind characters
    a spreadsheet skips or does not show (a byte-order mark, zero-width and direction
    marks, spaces: "\ufeff=SUM(A1)" is a formula to it too)."""
    text = str(text)
    shown = next((c for c in text if unicodedata.category(c) not in ("Cf", "Zs")), "")
    return "'" + text if shown in ("=", "+", "-", "@", "\t", "\r") else text


@bp.get("/n/<key>/export.csv")
@costly
def export_csv(key: str) -> Answer:
    """One row per player per game: game, kind, date, player, result, score, place.

    Result is won/lost, or unfinished (then no score and no place). The score is the
    Skull King total or the Crazy Time final score (hours minus match-4 penalties);
    Kraken has none. The place is the game's result's, by the one ranking rule (1, 1, 3:
    docs/rules.md#ranking)."""
    night = hosted_night(key)
    names = store.names(night["id"])
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow([_("game"), _("kind"), _("date"), _("player"), _("result"), _("score"),
                     _("place")])
    for game in _games(night["id"]):
        result = stats.game_result(game["kind"], game["setup"], game["state"])
        for seat in result["players"]:
            if not result["finished"]:
                outcome, score = _("unfinished"), ""
            else:
                outcome = _("won") if seat in result["winners"] else _("lost")
                score = result["scores"].get(seat, "")
            writer.writerow([game["number"], str(registry.get(game["kind"]).title),
                             game["created"][:10], _cell(names.get(seat, "?")), outcome, score,
                             result["places"].get(seat, "")])
    body = "\ufeff" + out.getvalue()  # a BOM so spreadsheets read Korean names as UTF-8
    return _attachment(body.encode("utf-8"), "text/csv", night, "csv")


def import_message(error: exchange.BadFile) -> str:
    text = _(error.message, **error.params)
    if "game" in error.params:
        return _("Game #%(number)s: %(problem)s", number=error.params["game"], problem=text)
    return text


@bp.post("/import")
def import_night() -> Answer:
    """Restore an exported night; a bad file gets the reason and changes nothing. A night
    already on this machine is never imported twice: the host chooses (import_choice)."""
    upload = request.files.get("file")
    if upload is None or not upload.filename:
        return history(error=_("Choose an exported night (a .json file) to import."),
                       status=422)
    raw = upload.read(exchange.MAX_BYTES + 1)
    try:
        document = beside_the_loop(exchange.parse_import, raw)
    except exchange.BadFile as error:
        return history(error=import_message(error), status=422)
    copies = store.nights_like(document["created"], document["players"])
    if copies:
        mine = [n for n in copies if store.is_host(n, device())]
        if not mine:  # nothing to choose, and nothing of the night here to show
            return _import_question(None, document, copies[0])
        return _import_question(store.keep_import(device(), document), document, mine[0])
    try:
        key = store.import_night(document, device(), request.remote_addr or "", len(raw))
    except store.OverQuota:
        return history(error=_("This device has imported many nights in the last hour. "
                               "Try again later."), status=429)
    return redirect(url_for("tally.tally", key=key), 303)


def _game_lines(games: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A night's games as the import question lists them."""
    return [{"number": g["number"], "kind": g["kind"], "created": g["created"],
             "finished": bool(g["state"].get("finished")), "events": len(g["events"])}
            for g in games]


def _import_question(token: str | None, document: dict[str, Any], copy: store.Row
                     ) -> Answer:
    """The night in the file is already here: its host keeps the copy here, or replaces
    it with the file (``token``: the file kept meanwhile). Anyone else is told so, and
    shown nothing of the night here but what their own file holds."""
    return render_template(
        "tally/import_question.html", token=token, copy=copy, players=document["players"],
        here=_game_lines(_games(copy["id"])) if token else None,
        incoming=_game_lines(document["games"]), can_replace=token is not None)


@bp.post("/import/<token>")
def import_choice(token: str) -> Answer:
    """The host's answer about a night already here: ``replace`` puts the file's games in
    place of the copy's (same night, same seats and codes); anything else keeps the copy
    and forgets the file."""
    document = store.kept_import(token, device())
    if document is None:
        return history(error=_("That upload is no longer waiting: choose the file again."),
                       status=410)
    copies = store.nights_like(document["created"], document["players"])
    mine = [n for n in copies if store.is_host(n, device())]
    store.drop_import(token)
    if request.form.get("choice") == "replace" and mine:
        store.replace_games(mine[0]["id"], document)
        return redirect(url_for("tally.tally", key=mine[0]["key"]), 303)
    if mine:
        return redirect(url_for("tally.tally", key=mine[0]["key"]), 303)
    return redirect(url_for("tally.history"), 303)


# --- BG Stats -----------------------------------------------------------------------

def _bgstats_file(night: store.Row, number: int) -> Answer:
    names = store.names(night["id"])
    game = next((g for g in store.night_games(night["id"]) if g["number"] == number), None)
    found = None if game is None else bgstats_play(night, names, game)
    if found is None:
        abort(404)
    response = Response(bgstats.document(found), mimetype="application/json")
    name = f"bgstats-{night['created'][:10]}-{number}.json"
    response.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


def _bgstats_code(night: store.Row, number: int) -> Answer:
    """A finished game's BG Stats QR code as an SVG image (404 while it runs, for a link
    too long for a code, or a game not there). Its address carries a digest of the link
    (``v``): the browser keeps it for good, and a changed game is a new address."""
    names = store.names(night["id"])
    game = next((g for g in store.night_games(night["id"]) if g["number"] == number), None)
    found = None if game is None else bgstats_play(night, names, game)
    url = None if found is None else bgstats.link(found)
    if url is None or not bgstats.fits_qr(url):
        abort(404)
    response = Response(qr.svg(url, qr.LOW), mimetype="image/svg+xml")
    response.set_etag(_digest(url))
    if request.args.get("v") != _digest(url):
        return response  # an older address: the code as it is now, not kept
    return cacheable(response)


@bp.get("/n/<key>/g/<int:number>/bgstats.svg")
def bgstats_svg(key: str, number: int) -> Answer:
    return _bgstats_code(hosted_night(key), number)


@bp.get("/me/g/<int:number>/bgstats.svg")
def my_bgstats_svg(number: int) -> Answer:
    """The same code on a phone of the night (fetched when the phone opens it)."""
    seat = my_seat()
    if seat is None:
        abort(404)
    return _bgstats_code(store.night(seat["night_id"]), number)


@bp.get("/n/<key>/g/<int:number>/bgstats.json")
def bgstats_json(key: str, number: int) -> Answer:
    """One finished game's BG Stats play as a file (for a link too long for a QR code)."""
    return _bgstats_file(hosted_night(key), number)


@bp.get("/me/g/<int:number>/bgstats.json")
def my_bgstats_json(number: int) -> Answer:
    """The same file on a phone of the night."""
    seat = my_seat()
    if seat is None:
        abort(404)
    return _bgstats_file(store.night(seat["night_id"]), number)
