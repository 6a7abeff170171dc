"""Blueprint: the end of the night — tally, history, statistics, export and import.

The numbers come from companion.core.stats and the file formats from companion.core.exchange
(pure functions); this module reads the store, renders, and answers."""

import hashlib
from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    render_template,
    request,
    url_for,
)

from companion import store
from companion.core import bgstats, stats
from companion.core.charts import bar_chart
from companion.pictures import qr
from companion.web.http import Answer, cacheable
from companion.web.i18n import gettext as _
from companion.web.identity import hosted_night_or_404, my_night_or_404, my_seat, unchanged
from companion.web.offload import costly

bp = Blueprint("tally", __name__)


def tally_context(night: store.Row, phone: bool = False) -> dict[str, Any]:
    names = store.names(night["id"])
    games = store.night_games(night["id"])  # kept results: no log read, no replay
    tally = stats.night_tally(names, games, store.known_games())
    most = max((p["won"] for p in tally["players"]), default=0)
    wins = bar_chart([{"label": p["name"], "value": p["won"], "seat": p["seat"],
                       "highlight": most > 0 and p["won"] == most}
                      for p in tally["players"]])
    return {"night": night, "names": names, "tally": tally, "wins_chart": wins,
            "running": running_standings(night, games),
            "games": store.known_games(), "bgstats": bgstats_links(night, names, games, phone)}


def running_standings(night: store.Row, games: list[dict[str, Any]]
                      ) -> dict[int, dict[str, Any] | None]:
    """Per game still running, by number, its standing so far (stats.standing, from its
    live state: what every screen may show, docs/rules.md#standings). Only the running
    games are replayed; the finished ones stay read from their kept results."""
    numbers = {g["number"] for g in games if not g["finished"]}
    if not numbers:
        return {}
    return {g.number: stats.standing(g.kind, g.setup, g.state, store.known_games())
            for g in store.games(night["id"]) if g.number in numbers}


def bgstats_play(night: store.Row, names: dict[int, str], game: dict[str, Any]
                 ) -> dict[str, Any] | None:
    """A game's BG Stats play in the table's language (None while it runs, or for a kind
    without one): companion/core/bgstats.py, docs/bgstats.md."""
    result = stats.game_result(game["kind"], game["setup"], game["state"], store.known_games())
    title = str(store.known_games()[game["kind"]].title)
    return bgstats.play(night, game, result, names, title, _, store.known_games())


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


@bp.get("/n/<key>/tally")
@costly
def tally(key: str) -> Answer:
    night = hosted_night_or_404(key)
    return render_template("tally/tally.html", live_url=url_for("tally.tally_live", key=key),
                           phone=False, **tally_context(night))


@bp.get("/n/<key>/tally/live")
def tally_live(key: str) -> Answer:
    night = hosted_night_or_404(key)
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
        return render_template("table/no_seat.html")
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


def _bgstats_file(night: store.Row, number: int) -> Answer:
    names = store.names(night["id"])
    game = store.night_game(night["id"], number)
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
    game = store.night_game(night["id"], number)
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
    return _bgstats_code(hosted_night_or_404(key), number)


@bp.get("/me/g/<int:number>/bgstats.svg")
def my_bgstats_svg(number: int) -> Answer:
    """The same code on a phone of the night (fetched when the phone opens it)."""
    return _bgstats_code(my_night_or_404(), number)


@bp.get("/n/<key>/g/<int:number>/bgstats.json")
def bgstats_json(key: str, number: int) -> Answer:
    """One finished game's BG Stats play as a file (for a link too long for a QR code)."""
    return _bgstats_file(hosted_night_or_404(key), number)


@bp.get("/me/g/<int:number>/bgstats.json")
def my_bgstats_json(number: int) -> Answer:
    """The same file on a phone of the night."""
    return _bgstats_file(my_night_or_404(), number)
