"""A night as a file: the export (JSON with a running game's secrets masked, and CSV) and
the import, with the host's choice when the night is here already."""

from typing import Any

from flask import (
    Blueprint,
    current_app,
    redirect,
    render_template,
    request,
    url_for,
)

from companion import store
from companion.core import exchange, stats
from companion.core.lru import LRU
from companion.tally.statistics import history
from companion.web.downloads import attachment, cell, csv_file
from companion.web.http import Answer
from companion.web.i18n import gettext as _
from companion.web.identity import device, hosted_night_or_404
from companion.web.offload import beside_the_loop, costly

bp = Blueprint("exchange", __name__)

#: Exports by night and version: asked again (a second tap, another host device), the
#: same bytes. At most 32 MB of them in a process.
_exports = LRU(64, 32 * 1024 * 1024, len)


def _games(night_id: int) -> list[dict[str, Any]]:
    """The night's games as plain dicts with their logs (what an export carries)."""
    return [g.plain() for g in store.games(night_id)]


def export_document(night: store.Row) -> dict[str, Any]:
    seats = store.seats(night["id"])
    return exchange.export_document(night["created"], [s["name"] for s in seats],
                                    _games(night["id"]), store.known_games(),
                                    [s["colour"] for s in seats])


def _file_name(night: store.Row, extension: str) -> str:
    return f"night-{night['created'][:10]}.{extension}"


@bp.get("/n/<key>/export.json")
@costly
def export_json(key: str) -> Answer:
    night = hosted_night_or_404(key)
    cached = (current_app.config["DATABASE"], night["id"], night["version"])
    body: bytes | None = _exports.get(cached)
    if body is None:
        body = exchange.dumps(export_document(night))
        _exports.put(cached, body)
    return attachment(body, "application/json", _file_name(night, "json"))


@bp.get("/n/<key>/export.csv")
@costly
def export_csv(key: str) -> Answer:
    """One row per player per game: game, kind, date, player, result, score, place.

    Result is won/lost, or unfinished (then no score and no place). The score is the
    Skull King total or the Crazy Time final score (hours minus match-4 penalties);
    Kraken has none. The place is the game's result's, by the one ranking rule (1, 1, 3:
    docs/rules.md#ranking)."""
    night = hosted_night_or_404(key)
    names = store.names(night["id"])
    rows = [[_("game"), _("kind"), _("date"), _("player"), _("result"), _("score"),
             _("place")]]
    for game in _games(night["id"]):
        result = stats.game_result(game["kind"], game["setup"], game["state"], store.known_games())
        for seat in result["players"]:
            if not result["finished"]:
                outcome, score = _("unfinished"), ""
            else:
                outcome = _("won") if seat in result["winners"] else _("lost")
                score = result["scores"].get(seat, "")
            rows.append([game["number"], str(store.known_games()[game["kind"]].title),
                         game["created"][:10], cell(names.get(seat, "?")), outcome, score,
                         result["places"].get(seat, "")])
    return csv_file(rows, _file_name(night, "csv"))


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
        document = beside_the_loop(exchange.parse_import, raw, store.known_games())
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
    return redirect(url_for("statistics.history"), 303)
