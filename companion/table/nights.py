"""Blueprint: the night — roster, seats and their QR codes, the phone pages, hosts.

The host device creates a night and shows one QR per seat. The first phone that opens a
seat's link claims it (the device cookie); the seat page is then that phone's for the
whole night: its live region polls its own URL with the version it shows, and is
re-rendered only when the night's version has moved on."""

import unicodedata
from typing import Any, cast

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

from companion import store
from companion.core import colours, stats
from companion.laptop import doctor
from companion.pictures import qr
from companion.play import seen
from companion.play.actions import seat_context
from companion.web.errors import keeps_typed
from companion.web.http import Answer
from companion.web.i18n import gettext as _
from companion.web.identity import device, form_token, hosted_night_or_404, is_htmx, unchanged
from companion.web.sealed import stored

bp = Blueprint("nights", __name__)


MIN_PLAYERS, MAX_PLAYERS = 2, 8


NAME_LENGTH = 30


def parse_names(values: list[str]) -> tuple[list[str] | None, str | None]:
    """The player names typed in seat order, or a message saying what is wrong."""
    names = [unicodedata.normalize("NFC", v).strip() for v in values if v.strip()]
    long = next((n for n in names if len(n) > NAME_LENGTH), None)
    if long is not None:
        # Said, never cut: the fields have no maxlength (templates/_name_count.html).
        return None, _("“%(name)s” has %(count)s characters: a name has at most %(n)s. "
                       "Shorten it.", name=long, count=len(long), n=NAME_LENGTH)
    if any(stats.hides_characters(n) for n in names):
        return None, _("A name cannot hold invisible characters (direction marks, "
                       "zero-width spaces): type it again.")
    if len(names) < MIN_PLAYERS:
        return None, _("A night needs at least %(n)s players.", n=MIN_PLAYERS)
    if len(names) > MAX_PLAYERS:
        return None, _("A night can have at most %(n)s players.", n=MAX_PLAYERS)
    folded = [stats.fold(n) for n in names]
    for n, f in zip(names, folded, strict=True):
        if folded.count(f) > 1:
            return None, _("Two players are called “%(name)s”: make the names different.",
                           name=n)
    return names, None


def parse_colours(typed: list[str], chosen: list[str]) -> tuple[list[str] | None, str | None]:
    """Each named seat's colour from the roster's choices (a blank row's choice goes
    with it), or a message saying what is wrong."""
    picked = [c for name, c in zip(typed, chosen, strict=False) if name.strip()]
    picked += [""] * (len([n for n in typed if n.strip()]) - len(picked))
    same = colours.twice(picked)
    if same is not None:
        return None, _("Two players have the colour %(colour)s: choose another for one "
                       "of them.", colour=_(colours.NAMES[same]))
    try:
        return colours.assign(picked), None
    except ValueError:
        return None, _("Choose each player's colour from the list.")


def public_url(path: str) -> str:
    """The address a phone on the same Wi-Fi uses (the LAN address, not localhost)."""
    base = current_app.config.get("PUBLIC_URL") or request.host_url
    return base.rstrip("/") + path


#: The roster starts with this many name fields; "add a seat" shows one more, up to 8.
FIRST_SEATS = 4


def _seats_shown(typed: list[str], asked: int = 0) -> int:
    """How many name fields the roster shows: at least FIRST_SEATS, as many as asked (the
    "add a seat" of a browser without JavaScript), and every field that holds a name."""
    filled = max((i + 1 for i, name in enumerate(typed) if name.strip()), default=0)
    return min(MAX_PLAYERS, max(FIRST_SEATS, asked, filled))


#: How many earlier nights the start page lists (the history has them all).
EARLIER_SHOWN = 5


@bp.get("/")
def index(error: str | None = None, status: int = 200, typed: list[str] | None = None,
          asked: int = 0, chosen: list[str] | None = None) -> Answer:
    """The start page: the latest night this device hosts first (to continue it), then
    the roster of a new night, then the earlier nights."""
    # The latest first (by sequence, not clock), and only the few latest: the history
    # pages the rest, so the start page costs the same after a thousand nights.
    nights = store.hosted_page(device(), 1, size=EARLIER_SHOWN + 2)
    seats = store.rosters([n["id"] for n in nights])
    rosters = {i: [s["name"] for s in found] for i, found in seats.items()}
    latest = nights[0] if nights else None
    typed = typed or []
    return render_template(
        "table/index.html", latest=latest, nights=nights[1:EARLIER_SHOWN + 1],
        more_nights=len(nights) > EARLIER_SHOWN + 1, rosters=rosters,
        latest_games=len(store.games(latest["id"])) if latest else 0, error=error,
        typed=typed, shown=_seats_shown(typed, asked), max_players=MAX_PLAYERS,
        name_length=NAME_LENGTH, form_token=form_token(),
        chosen=_roster_colours(chosen or []),
    ), status


def _roster_colours(chosen: list[str]) -> list[str]:
    """The colour each roster row shows: what was chosen, else the palette in order."""
    return [chosen[i] if i < len(chosen) and chosen[i] in colours.HEX
            else colours.default(i) for i in range(MAX_PLAYERS)]


def _typed() -> list[str]:
    """The names typed in the roster, in seat order (blank fields kept in place)."""
    return request.form.getlist("name")[:MAX_PLAYERS + 4]


def _chosen() -> list[str]:
    """The colours chosen in the roster, one per name field."""
    return request.form.getlist("colour")[:MAX_PLAYERS + 4]


def _asked() -> int:
    """The number of name fields the roster showed when it was sent."""
    try:
        return int(request.form.get("shown", ""))
    except ValueError:
        return 0


@keeps_typed("nights.create")
def _roster_again(message: str) -> Answer:
    """A roster refused for its form token (a page open too long): the names typed come
    back with the reason, and nothing is made."""
    return index(error=message, status=400, typed=_typed(), asked=_asked(),
                 chosen=_chosen())


@bp.post("/nights")
def create() -> Answer:
    names: list[str] | None
    hues: list[str] | None
    same_as = request.form.get("same_as")
    if same_as:
        earlier = store.seats(hosted_night_or_404(same_as)["id"])
        names, hues = [s["name"] for s in earlier], [s["colour"] for s in earlier]
    else:
        typed = _typed()
        if request.form.get("add_seat"):
            # "add a seat" without JavaScript: the roster again, one field longer
            return index(typed=typed, asked=_asked() + 1, chosen=_chosen())
        names, error = parse_names(typed)
        hues, error = (None, error) if error else parse_colours(typed, _chosen())
        if error:
            return index(error=error, status=422, typed=typed, asked=_asked(),
                         chosen=_chosen())
    # parse_names gives names whenever it gives no error
    try:
        night = store.create_night(cast(list[str], names), device(), form_token(), hues,
                                   request.remote_addr or "")
    except store.FormUsed:
        return index(error=_("This form was already sent. Reload the page and try again."),
                     status=409, typed=names, chosen=hues)
    except store.OverQuota:
        return index(error=_("This device has started many nights in the last hour. "
                             "Continue one of them, or try again later."),
                     status=429, typed=names, chosen=hues)
    return redirect(url_for("nights.night", key=night["key"]), 303)


def other_urls() -> list[str]:
    """The laptop's other base URLs (``OTHER_URLS``: a list, whatever the environment
    gave)."""
    found = current_app.config["OTHER_URLS"]
    return [u for u in found if isinstance(u, str)] if isinstance(found, list) else []


def reach_context(night: store.Row, seats: list[store.Row],
                  screens: list[store.Row]) -> dict[str, Any]:
    """What "Phones can't open it?" shows (templates/table/_reach.html): the laptop's
    other addresses, the steps for its OS and network, and whether a device other than
    the host's has reached the night yet (a seat's code opened or claimed, a screen)."""
    reached = bool(night["reached"] or screens or any(s["device"] for s in seats))
    port = int(request.environ.get("SERVER_PORT") or 80)
    return {
        "others": other_urls(),
        "steps": doctor.advice(doctor.page_facts(port)),
        "waiting": not reached and any(not s["tablet"] for s in seats),
    }


def phones_joined(seats: list[store.Row]) -> tuple[int, int]:
    """How many of the seats that need a phone (not on the tablet, not gone) have one,
    and how many need one: the table page shows the seat codes first until they match."""
    wanted = [s for s in seats if not s["tablet"] and not s["left"]]
    return sum(1 for s in wanted if s["device"]), len(wanted)


def ended_game(shown: store.Game | None) -> dict[str, Any] | None:
    """The game the phones show, once it is over: its number, kind and public result
    (``stats.game_result``: the winners), for the table page's "… won · pick the next
    game"; None while it runs or before any game."""
    if shown is None or not shown.finished:
        return None
    return {"game": shown, "result": stats.game_result(shown.kind, shown.setup, shown.state,
                                                        store.known_games())}


def night_context(night: store.Row) -> dict[str, Any]:
    seats, screens = store.seats(night["id"]), store.screens(night["id"])
    shown = store.current_game(night["id"])
    # An end held back (a Kraken end, "Game over — Undo") names no winner here either
    # until every screen shows it.
    shown = seen.as_shown(shown) if shown is not None else None
    joined, wanted = phones_joined(seats)
    games = store.games(night["id"])
    return {
        "night": night, "seats": seats, "games": games,
        "names": {s["position"]: s["name"] for s in seats},
        # The seat codes come first until every phone joined, before the first game only:
        # a latecomer added later gets their code in the form's answer, and the running
        # game keeps its place at the top.
        "shown": shown, "joined": joined, "wanted": wanted,
        "seating": joined < wanted and not games,
        # the game on the phones, while it runs: the page's big card
        "running": shown if shown is not None and not shown.finished else None,
        # the game just ended on the phones: its winners, and the next game to pick
        "ended": ended_game(shown),
        "standing": (stats.standing(shown.kind, shown.setup, shown.state, store.known_games())
                     if shown is not None and not shown.finished else None),
        "games_known": store.known_games(), "hosts": store.hosts(night["id"]),
        "screens": screens, "reach": reach_context(night, seats, screens),
        "this_device": device(), "max_players": MAX_PLAYERS, "name_length": NAME_LENGTH,
        "wifi": store.night_wifi(night["id"]),  # never its password (wifi_code.py)
        "tv_at": public_url(url_for("screen.lobby")),
    }


@bp.get("/n/<key>")
def night(key: str) -> Answer:
    night = hosted_night_or_404(key)
    return render_template("table/night.html", **night_context(night))


@bp.get("/n/<key>/live")
def night_live(key: str) -> Answer:
    night = hosted_night_or_404(key)
    if unchanged(night["version"]):
        return "", 204
    return render_template("table/_night.html", **night_context(night))


def hosted_seat(key: str, position: int) -> tuple[store.Row, store.Row]:
    """The host's night and one of its seats; anyone else, or no such seat: a plain 404."""
    night = hosted_night_or_404(key)
    seat = next((s for s in store.seats(night["id"]) if s["position"] == position), None)
    if seat is None:
        abort(404)
    return night, seat


@bp.get("/n/<key>/qr/<int:position>.svg")
def seat_qr(key: str, position: int) -> Answer:
    _night, seat = hosted_seat(key, position)
    if seat["tablet"]:
        abort(404)
    return Response(qr.svg(public_url(url_for("phones.claim", token=seat["token"]))),
                    mimetype="image/svg+xml")


@bp.get("/n/<key>/reach/<int:index>.svg")
def reach_qr(key: str, index: int) -> Answer:
    """The QR code of one of the laptop's other addresses (``OTHER_URLS``, by its
    place: never a text from the request), for the host's page only."""
    hosted_night_or_404(key)
    others = other_urls()
    if index >= len(others):
        abort(404)
    return Response(qr.svg(others[index] + "/"), mimetype="image/svg+xml")


def note_arrival(night: store.Row) -> None:
    """A device opened one of the night's codes: unless it is a host of the night, it
    reached the laptop (recorded once a night: store.note_reached)."""
    if not night["reached"] and not store.is_host(night, device()):
        store.note_reached(night["id"])


@bp.get("/n/<key>/sheet")
def sheet(key: str) -> Answer:
    night = hosted_night_or_404(key)
    return render_template("table/sheet.html", night=night, seats=store.seats(night["id"]))


@bp.post("/n/<key>/seats")
def join(key: str) -> Answer:
    """A latecomer takes a seat after the last one, with a code and a colour of their
    own; they play from the next game on (a running game keeps its players)."""
    night = hosted_night_or_404(key)
    name = unicodedata.normalize("NFC", request.form.get("name", "")).strip()
    if not name:
        return night_answer(key, error=_("Type the new player's name."), status=422)
    _names, error = parse_names([*(s["name"] for s in store.seats(night["id"])), name])
    added = None if error else store.add_seat(night["id"], name)
    if error is None and added is None:
        # Another host device added the same name (or the last seat) just before.
        error = _("Two players are called “%(name)s”: make the names different.",
                  name=name) if len(store.seats(night["id"])) < MAX_PLAYERS else \
            _("A night can have at most %(n)s players.", n=MAX_PLAYERS)
    if error:
        return night_answer(key, error=error, status=422)
    # The answer shows the new seat's code in the form that was sent (templates/table/_join.html).
    return night_answer(key, added=added)


@bp.post("/n/<key>/seats/<int:position>/name")
def rename(key: str, position: int) -> Answer:
    """Give a player another name, checked as the roster's names are (at most 30
    characters, none twice); every page, export, tally and statistic follows."""
    night, _seat = hosted_seat(key, position)
    name = unicodedata.normalize("NFC", request.form.get("name", "")).strip()
    if not name:
        return night_answer(key, error=_("Type the player's name."), status=422)
    roster = [name if s["position"] == position else s["name"]
              for s in store.seats(night["id"])]
    _names, error = parse_names(roster)
    if error is None and not store.rename_seat(night["id"], position, name):
        # Another host device gave that name to another seat just before.
        error = _("Two players are called “%(name)s”: make the names different.", name=name)
    if error:
        return night_answer(key, error=error, status=422)
    return night_answer(key)


@bp.post("/n/<key>/seats/<int:position>/leave")
def leave(key: str, position: int) -> Answer:
    """A player leaves the night, or comes back: a seat that left is not offered for
    the next game; its games and its place in the tally stay."""
    night, _seat = hosted_seat(key, position)
    store.set_left(night["id"], position, request.form.get("on") == "1")
    return night_answer(key)


@bp.post("/n/<key>/seats/<int:position>/release")
def release(key: str, position: int) -> Answer:
    """Free a seat so it can be claimed again (a new phone, cleared cookies)."""
    night = hosted_night_or_404(key)
    store.release_seat(night["id"], position)
    return night_answer(key)


def night_answer(key: str, error: str | None = None, status: int = 200,
                 **answer: Any) -> Answer:
    """The table's fresh live region for htmx, the table page otherwise (with the
    reason when something was refused, which the form that was sent shows:
    templates/_refusal.html). ``answer``: what the form's own answer shows besides (the
    latecomer's new seat)."""
    if error is None and not is_htmx():
        return redirect(url_for("nights.night", key=key), 303)
    page = "table/_night.html" if is_htmx() else "table/night.html"
    return render_template(page, **night_context(hosted_night_or_404(key)), error=error,
                           **answer), status


@bp.post("/n/<key>/seats/<int:position>/code")
def new_code(key: str, position: int) -> Answer:
    """A new code for a seat: photos and printed sheets of the old one stop working."""
    night, _seat = hosted_seat(key, position)
    store.reissue_code(night["id"], position)
    return night_answer(key)


@bp.post("/n/<key>/seats/<int:position>/tablet")
def tablet(key: str, position: int) -> Answer:
    """Mark a seat as played on the host's tablet (its code opens nothing), or give it
    back to a phone with a new code."""
    night, _seat = hosted_seat(key, position)
    store.set_tablet(night["id"], position, request.form.get("on") == "1")
    return night_answer(key)


@bp.post("/n/<key>/seats/<int:position>/colour")
def colour(key: str, position: int) -> Answer:
    """Give a player another colour; the player who had it takes theirs."""
    night, _seat = hosted_seat(key, position)
    chosen = request.form.get("colour", "")
    if chosen not in colours.HEX:
        return night_answer(key, error=_("Choose a colour from the list."), status=422)
    store.set_colour(night["id"], position, chosen)
    return night_answer(key)


@bp.post("/n/<key>/felt")
def felt(key: str) -> Answer:
    """Turn the felt reveal on or off: phones vibrate at the count's last word, the
    room's screen may beep the count (static/js/clock.js). The host's only."""
    night = hosted_night_or_404(key)
    on = request.form.get("on")
    if on not in ("0", "1"):
        return night_answer(key, error=_("Vibration and sound are either on or off: "
                                          "reload the page and tap the button again."),
                             status=422)
    store.set_felt(night["id"], on == "1")
    return night_answer(key)


@bp.post("/n/<key>/pass/<int:position>")
def pass_to(key: str, position: int) -> Answer:
    """Hand the tablet to a player with no phone: the only way a host shows a secret."""
    night, seat = hosted_seat(key, position)
    game = store.current_game(night["id"])
    store.note(night["id"], game.id if game else None, position, "pass")
    # "Done" goes back to the game while one runs, else to the table.
    done = (url_for("play.page", key=key, number=game.number)
            if game is not None and not game.finished else url_for("nights.night", key=key))
    seen_url = url_for("nights.pass_seen", key=key, position=position)
    return render_template("table/pass.html", done_url=done,
                           **seat_context(seat, game, seen_url=stored(seen_url)))


@bp.post("/n/<key>/pass/<int:position>/seen")
def pass_seen(key: str, position: int) -> Answer:
    """The player the tablet was passed to revealed their secret on it: the host sees
    “seen ✓”, as for a phone (never the secret)."""
    night, _seat = hosted_seat(key, position)
    game = store.current_game(night["id"])
    if game is None:
        abort(404)
    if position not in store.noted(game.id, "seen"):
        store.note(night["id"], game.id, position, "seen")
    return "", 204
