"""Blueprint: the end of the night — tally, history, statistics, export and import (issue 6).

The numbers come from companion.stats (pure functions); this module reads the database,
renders, and writes the two things it owns: an imported night, and the host's merges of
two spellings of a player's name (the ``aliases`` table, one set per host device).
"""

import csv
import io
import json

from flask import Blueprint, Response, abort, redirect, render_template, request, url_for
from flask_babel import lazy_gettext as _l

from companion import db as database
from companion import stats, store
from companion.db import get_db, now, write
from companion.games import TITLES
from companion.web import device, new_token, unchanged
from companion.web import gettext as _

bp = Blueprint("tally", __name__)


@database.migrations()
def create_aliases(db):
    """The host's merges: on ``device``, the folded name ``alias`` is the player whose
    folded name is ``canonical``."""
    db["aliases"].create(
        {"device": str, "alias": str, "canonical": str, "created": str},
        pk=("device", "alias"), not_null={"device", "alias", "canonical", "created"},
    )


@bp.record_once
def _migrate(state):
    """create_app migrates before this module is imported: apply this module's table."""
    database.migrate(state.app.config["DATABASE"])


OUTCOMES = {
    "explorers": _l("The Explorers won"),
    "skeletons": _l("The Skeletons won"),
    "nobody": _l("Nobody won"),
}
REASONS = {
    "all_treasure": _l("every treasure was found"),
    "kraken": _l("the Kraken was revealed"),
    "curse_first": _l("a Curse came before any Treasure"),
    "rounds_over": _l("the four rounds ran out"),
}
ROLES = {"explorer": _l("Explorer"), "skeleton": _l("Skeleton")}


# --- reading a night ------------------------------------------------------------------

def _games(night_id):
    """The night's games as plain dicts (the shape companion.stats reads)."""
    return [{"number": g.number, "kind": g.kind, "setup": g.setup, "state": g.state,
             "created": g.created, "events": g.events} for g in store.games(night_id)]


def _chart(rows):
    return stats.bar_chart(rows)


def tally_context(night):
    names = store.names(night["id"])
    tally = stats.night_tally(names, _games(night["id"]))
    most = max((p["won"] for p in tally["players"]), default=0)
    charts = {
        "wins": _chart([{"label": p["name"], "value": p["won"],
                         "highlight": most > 0 and p["won"] == most}
                        for p in tally["players"]]),
        "series": [_chart([{"label": names.get(s, "?"), "value": n,
                            "highlight": s in series["winners"]}
                           for s, n in series["tokens"].items()])
                   for series in tally["series"]],
        "skullking": [_chart([{"label": names.get(s, "?"), "value": n,
                               "highlight": s in game["winners"]}
                              for s, n in game["scores"].items()])
                      for game in tally["skullking"]],
        "crazytime": [_chart([{"label": names.get(s, "?"), "value": n,
                               "highlight": s in game["winners"]}
                              for s, n in game["scores"].items()])
                      for game in tally["crazytime"]],
    }
    return {"night": night, "names": names, "tally": tally, "charts": charts,
            "titles": TITLES, "outcomes": OUTCOMES, "reasons": REASONS, "roles": ROLES}


# --- tonight's tally ------------------------------------------------------------------

@bp.get("/n/<key>/tally")
def tally(key):
    night = store.hosted_night(key)
    return render_template("tally/tally.html", live_url=url_for("tally.tally_live", key=key),
                           phone=False, **tally_context(night))


@bp.get("/n/<key>/tally/live")
def tally_live(key):
    if unchanged(store.host_version(key)):
        return "", 204
    night = store.hosted_night(key)
    return render_template("tally/_live.html", live_url=url_for("tally.tally_live", key=key),
                           phone=False, **tally_context(night))


@bp.get("/me/tally")
def my_tally():
    """The same tally on a phone of the night: finished games only, never a secret."""
    seat = store.my_seat()
    if seat is None:
        return render_template("nights/no_seat.html")
    night = store.night(seat["night_id"])
    return render_template("tally/tally.html", live_url=url_for("tally.my_tally_live"),
                           phone=True, me=seat["position"], **tally_context(night))


@bp.get("/me/tally/live")
def my_tally_live():
    if unchanged(store.seat_version()):
        return "", 204
    seat = store.my_seat()
    if seat is None:
        abort(404)
    night = store.night(seat["night_id"])
    return render_template("tally/_live.html", live_url=url_for("tally.my_tally_live"),
                           phone=True, me=seat["position"], **tally_context(night))


# --- history --------------------------------------------------------------------------

def _history_rows():
    rows = []
    for night in store.hosted_nights():
        names = store.names(night["id"])
        games = [stats.game_result(g.kind, g.setup, g.state) | {"number": g.number}
                 for g in store.games(night["id"])]
        rows.append({"night": night, "players": list(names.values()), "games": games,
                     "names": names})
    return rows


@bp.get("/history")
def history(error=None, status=200):
    return render_template("tally/history.html", rows=_history_rows(), titles=TITLES,
                           error=error), status


# --- statistics -----------------------------------------------------------------------

def _aliases():
    return {r["alias"]: r["canonical"] for r in get_db().query(
        "select alias, canonical from aliases where device = ? order by alias", [device()])}


def _all_nights():
    nights = sorted(store.hosted_nights(), key=lambda n: (n["created"], n["id"]))
    return [{"names": store.names(n["id"]), "games": _games(n["id"])} for n in nights]


def _host_only():
    if not store.hosted_nights():
        abort(403)


@bp.get("/stats")
def statistics(error=None, status=200):
    _host_only()
    aliases = _aliases()
    players = stats.player_stats(_all_nights(), aliases)
    chart = stats.bar_chart([{"label": p["name"], "value": p["total_wins"]}
                             for p in players])
    by_key = {p["key"]: p["name"] for p in players}
    merges = [{"alias": alias, "into": by_key.get(canonical, canonical)}
              for alias, canonical in aliases.items()]
    return render_template("tally/stats.html", players=players, chart=chart, merges=merges,
                           titles=TITLES, roles=ROLES, error=error), status


@bp.post("/stats/merge")
def merge():
    """Merge two spellings: from now on ``alias`` counts as ``into`` (both folded keys)."""
    _host_only()
    aliases = _aliases()
    known = {p["key"] for p in stats.player_stats(_all_nights(), aliases)}
    alias = stats.fold(request.form.get("alias", ""))[:64]
    into = stats.fold(request.form.get("into", ""))[:64]
    if alias not in known or into not in known:
        return statistics(error=_("Pick two players from the list."), status=422)
    alias, into = stats.resolve(alias, aliases), stats.resolve(into, aliases)
    if alias == into:
        return statistics(error=_("Those are already the same player."), status=422)
    db = get_db()
    with write(db):
        db.execute("update aliases set canonical = ? where device = ? and canonical = ?",
                   [into, device(), alias])
        db.execute("insert or replace into aliases (device, alias, canonical, created) "
                   "values (?, ?, ?, ?)", [device(), alias, into, now()])
    return redirect(url_for("tally.statistics"), 303)


@bp.post("/stats/unmerge")
def unmerge():
    _host_only()
    alias = stats.fold(request.form.get("alias", ""))[:64]
    db = get_db()
    with write(db):
        db.execute("delete from aliases where device = ? and alias = ?", [device(), alias])
    return redirect(url_for("tally.statistics"), 303)


# --- export and import ----------------------------------------------------------------

def export_document(night):
    return stats.export_document(
        night["created"], [s["name"] for s in store.seats(night["id"])], _games(night["id"]))


def _attachment(body, mimetype, night, extension):
    response = Response(body, mimetype=mimetype)
    name = f"night-{night['created'][:10]}.{extension}"
    response.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@bp.get("/n/<key>/export.json")
def export_json(key):
    night = store.hosted_night(key)
    return _attachment(stats.dumps(export_document(night)), "application/json", night, "json")


def _cell(text):
    """A name as a spreadsheet cell: never read as a formula."""
    text = str(text)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


@bp.get("/n/<key>/export.csv")
def export_csv(key):
    """One row per player per game: game, kind, date, player, result, score.

    Result is won/lost, or unfinished (then no score). The score is the Skull King total
    or the Crazy Time final score (hours minus match-4 penalties); Kraken has none."""
    night = store.hosted_night(key)
    names = store.names(night["id"])
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow([_("game"), _("kind"), _("date"), _("player"), _("result"), _("score")])
    for game in _games(night["id"]):
        result = stats.game_result(game["kind"], game["setup"], game["state"])
        for seat in result["players"]:
            if not result["finished"]:
                outcome, score = _("unfinished"), ""
            else:
                outcome = _("won") if seat in result["winners"] else _("lost")
                score = result["scores"].get(seat, "")
            writer.writerow([game["number"], str(TITLES[game["kind"]]), game["created"][:10],
                             _cell(names.get(seat, "?")), outcome, score])
    body = "\ufeff" + out.getvalue()  # a BOM so spreadsheets read Korean names as UTF-8
    return _attachment(body.encode("utf-8"), "text/csv", night, "csv")


def import_message(error):
    text = _(error.message, **error.params)
    if "game" in error.params:
        return _("Game %(number)s: %(problem)s", number=error.params["game"], problem=text)
    return text


def store_import(document):
    """Write a checked night (stats.parse_import) in one transaction; this device hosts
    it and every seat gets a new link. Returns the new night's key."""
    db = get_db()
    key = new_token()
    with write(db):
        night_id = db["nights"].insert(
            {"key": key, "created": document["created"], "version": 0}).last_pk
        for position, name in enumerate(document["players"]):
            db["seats"].insert({"night_id": night_id, "position": position, "name": name,
                                "token": new_token(), "device": None, "claimed_at": None})
        db["hosts"].insert({"night_id": night_id, "device": device(), "created": now()})
        for game in document["games"]:
            game_id = db["games"].insert({
                "night_id": night_id, "number": game["number"], "kind": game["kind"],
                "setup": json.dumps(game["setup"], ensure_ascii=False, sort_keys=True),
                "created": game["created"],
            }).last_pk
            for event in game["events"]:
                db["events"].insert({
                    "game_id": game_id, "seq": event["seq"], "type": event["type"],
                    "data": json.dumps(event["data"], ensure_ascii=False, sort_keys=True),
                    "seat": event["seat"], "device": None, "created": event["created"],
                })
    return key


@bp.post("/import")
def import_night():
    """Restore an exported night; a bad file gets the reason and changes nothing."""
    upload = request.files.get("file")
    if upload is None or not upload.filename:
        return history(error=_("Choose an exported night (a .json file) to import."),
                       status=422)
    raw = upload.read(stats.MAX_BYTES + 1)
    try:
        document = stats.parse_import(raw)
    except stats.BadFile as error:
        return history(error=import_message(error), status=422)
    key = store_import(document)
    return redirect(url_for("tally.tally", key=key), 303)

