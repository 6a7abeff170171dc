"""Blueprint: the room's big screen — a TV or spare laptop showing the night's public
board in large type. A TV opens ``/screen`` and shows a number and its QR; the host's
tablet types the number on the table page, or scans the QR and answers its question,
and the TV, which asks every few seconds, becomes the night's screen. (A laptop can
still open a one-time screen code the host shows instead.)

A screen reads; it never writes. It sees what every phone of the table sees alike: the
lobby before the first game, the game's public board (no role before the end, no bid
before "Yo-ho-ho!", law names only), and between games and at the end the finished
board taking turns with tonight's tally and picture (:func:`tonight`). Its device
cannot record anything, become a host or take a seat: every form it sends is refused
(:func:`screens_record_nothing`) before any view runs.
"""

from typing import Any

from flask import Blueprint, Response, abort, redirect, render_template, request, url_for

from companion import store
from companion.core import stats
from companion.pictures import qr
from companion.play import seen
from companion.play.actions import title, view_model
from companion.table.nights import note_arrival, public_url
from companion.web.errors import error_page
from companion.web.http import Answer
from companion.web.i18n import gettext as _
from companion.web.identity import device, hosted_night_or_404, is_htmx, unchanged, viewed_night

bp = Blueprint("screen", __name__)

#: The forms a screen device may still send:
#: the language switch (a cookie of its own, nothing recorded), answering another screen
#: code, and asking for a number to show (both only move the screen).
OPEN_TO_SCREENS = frozenset({"web.set_language", "screen.use_code", "screen.offer"})


@bp.before_app_request
def screens_record_nothing() -> Answer | None:
    """A screen device's form is refused, whatever it is and before its view runs: a
    screen cannot record, become a host, take a seat or start a night."""
    if request.method in ("GET", "HEAD", "OPTIONS"):
        return None
    if request.endpoint in OPEN_TO_SCREENS or request.endpoint == "static":
        return None
    if store.is_screen(device()):
        return error_page(_("This device is the room's screen: it shows the table and "
                            "records nothing. On the host's table page, remove it from "
                            "the screens to use it otherwise."), 403)
    return None


def screen_context(night: store.Row) -> dict[str, Any]:
    """What the big screen shows: before the first game, the lobby (each seat and
    whether its phone has joined); then the current game's public board (the host's
    view of it, which never holds a secret) and, once it is over, who won."""
    board = store.board(night["id"], night["version"])
    game = board.current_game()
    game = seen.as_shown(game) if game is not None else None  # an end held: before it
    names = board.names
    context: dict[str, Any] = {"view": None, "seats": [], "winners": [], "tonight": None}
    shown = None
    if game is None:
        context["seats"] = [{"seat": s["position"], "name": s["name"],
                             "joined": bool(s["device"] or s["tablet"])}
                            for s in store.seats(night["id"]) if not s["left"]]
    else:
        # Drawn from what the game gives the room (its for_screen), never from the whole
        # game: the host's view of it, over what the screen may see.
        spec, shown = store.known_games()[game.kind], seen.for_screen(game)
        context |= view_model(board, game, "screen", lambda: {
            "view": spec.host_view(shown, names)})
        if game.finished:
            context["winners"] = spec.result(game.setup, game.state)["winners"]
            context["tonight"] = tonight(night, names)
    return {
        "night": night, "game": shown,
        "state": shown.state if shown else None, "setup": shown.setup if shown else None,
        "names": names, "colours": board.colours,
        "running": game is not None and not game.finished,
        "title": title(game.kind) if game else None,
        "wifi": store.night_wifi(night["id"]), **context,
    }


def tonight(night: store.Row, names: dict[int, str]) -> dict[str, Any]:
    """Tonight's tally as the room's screen shows it between games and at the end: each
    finished game with its winners, the players by games won (most first, then seat
    order), the night's picture and a code a phone scans to take it home. Only what every
    phone's tally shows: finished games' results, never a running game's state."""
    tally = stats.night_tally(names, store.night_games(night["id"]), store.known_games())
    games = [{"number": g["number"], "kind": g["kind"], "title": title(g["kind"]),
              "winners": g["winners"]} for g in tally["games"] if g["finished"]]
    players = sorted(({"seat": p["seat"], "won": p["won"]} for p in tally["players"]),
                     key=lambda p: (-p["won"], p["seat"]))
    home = public_url(url_for("pictures.my_night_png"))
    return {"games": games, "players": players, "home_qr": qr.svg(home),
            "picture": url_for("pictures.screen_night_png", key=night["key"],
                               v=night["version"])}


@bp.get("/n/<key>/screen")
def page(key: str) -> Answer:
    """The screen's page. A TV paired by its number says for a minute or two whose
    night it now shows, with "Not our table? New number": whoever typed the number
    first paired it, and the room sees at once when that was not its host."""
    night = viewed_night(key)
    return render_template("screen/screen.html", **screen_context(night),
                           joined=store.joined_lately(night["id"], device()))


@bp.get("/n/<key>/screen/live")
def live(key: str) -> Answer:
    night = viewed_night(key)
    if unchanged(night["version"]):
        return "", 204
    return render_template("screen/_screen.html", **screen_context(night))


# --- the host: showing a code, the list of screens -------------------------------------

@bp.post("/n/<key>/screens")
def invite(key: str) -> Answer:
    """A one-time screen code a laptop opens: a QR and its address."""
    night = hosted_night_or_404(key)
    code = store.invite_screen(night["id"], device())
    link = public_url(url_for("screen.code", token=code["token"]))
    return render_template("screen/invite.html", night=night, qr_svg=qr.svg(link),
                           link=link, tv_at=public_url(url_for("screen.lobby")),
                           minutes=store.SCREEN_CODE_MINUTES)


@bp.post("/n/<key>/screens/<int:screen_id>/remove")
def remove(key: str, screen_id: int) -> Answer:
    """Take a screen away: it reads the night no more."""
    night = hosted_night_or_404(key)
    store.remove_screen(night["id"], screen_id)
    return redirect(url_for("nights.night", key=key), 303)


# --- the screen's side: answering a code ------------------------------------------------

def _refused(token: str | None) -> Answer:
    """A used, expired or cancelled code says so; one never shown is a plain 404."""
    if token is None or not store.screen_invite_known(token):
        abort(404)
    return render_template("screen/code_gone.html"), 410


def _cannot_be_a_screen(night: store.Row) -> Answer | None:
    """A device of a table (a host, a seat, of this night or any other) stays what it
    is: a screen records nothing, and would stop the host's controls or the player's
    phone. The night's own host is shown the screen as a host."""
    if store.is_host(night, device()):
        return redirect(url_for("screen.page", key=night["key"]), 303)
    role = store.table_role(device())
    if role is not None:
        return render_template("screen/seat_device.html", role=role), 409
    return None


@bp.get("/t/<token>")
def code(token: str) -> Answer:
    """A screen code opens a question, never a change: a link previewer or a photo
    cannot use it up. The device becomes a screen only by answering it (a POST)."""
    invite = store.screen_invite(token)
    if invite is None:
        return _refused(token)
    night = store.night(invite["night_id"])
    note_arrival(night)
    refusal = _cannot_be_a_screen(night)
    if refusal is not None:
        return refusal
    return render_template("screen/question.html", night=night, token=token)


@bp.post("/t/<token>")
def use_code(token: str) -> Answer:
    return _answer(token)


def _answer(token: str) -> Answer:
    invite = store.screen_invite(token)
    if invite is None:
        return _refused(token)
    refusal = _cannot_be_a_screen(store.night(invite["night_id"]))
    if refusal is not None:
        return refusal
    night = store.use_screen_invite(token, device())
    if night is None:
        return _refused(token)
    return redirect(url_for("screen.page", key=night["key"]), 303)


# --- the TV's number: the TV shows it, the host types it or scans its QR -----------------

def _shown(offer: store.Row) -> dict[str, Any]:
    """What the TV draws of its number: the digits in two halves, the QR of the host's
    question."""
    number = str(offer["number"])
    link = public_url(url_for("screen.pair_question", token=offer["token"]))
    return {"offer": offer, "number": f"{number[:3]} {number[3:]}", "qr_svg": qr.svg(link),
            "minutes": store.SCREEN_NUMBER_MINUTES}


@bp.get("/screen")
def lobby() -> Answer:
    """The short address a TV opens: its number and QR if it shows one, else a form that
    asks for one (htmx sends it as the page loads; without scripts it is a button), so a
    GET, a link previewer's or a prefetch's, makes nothing."""
    role = store.table_role(device())
    if role is not None:
        return render_template("screen/seat_device.html", role=role), 409
    offer = store.screen_number(device())
    return render_template("screen/number.html", **(_shown(offer) if offer else {}))


@bp.post("/screen")
def offer() -> Answer:
    """The TV asks for a number to show (the one it shows already, if it lives)."""
    role = store.table_role(device())
    if role is not None:
        return render_template("screen/seat_device.html", role=role), 409
    if store.is_screen(device()):  # "Not our table? New number": it leaves that night
        store.leave_screen(device())
    try:
        shown = _shown(store.offer_screen(device(), _address()))
    except store.OverQuota:
        return error_page(_("This address asked for too many screen numbers this hour. "
                            "Wait a while, or ask the host to show a screen code."), 429)
    if not is_htmx():
        return redirect(url_for("screen.lobby"), 303)
    return render_template("screen/_number.html", **shown)


@bp.get("/screen/<token>")
def waiting(token: str) -> Answer:
    """The TV asks whether a host made it a screen: then it goes to the night's screen;
    while its number lives, nothing changes (204); once it ended unpaired, the form that
    asks for a new one."""
    offer = store.offered(token, device())
    if offer is None:
        abort(404)
    if offer["night_id"] is not None:
        night = store.screen_night(store.night(offer["night_id"])["key"], device())
        if night is not None:
            target = url_for("screen.page", key=night["key"])
            if not is_htmx():
                return redirect(target, 303)
            return Response("", headers={"HX-Redirect": target})
    elif store.screen_number(device()) is not None:
        return "", 204
    return render_template("screen/_number.html")


def _pair_form(night: store.Row, error: str | None = None, status: int = 200) -> Answer:
    return render_template("screen/pair.html", night=night, error=error,
                           tv_at=public_url(url_for("screen.lobby"))), status


def _address() -> str:
    return request.remote_addr or ""


@bp.get("/n/<key>/screens/number")
def pair_page(key: str) -> Answer:
    """Where the host types the number the TV shows."""
    return _pair_form(hosted_night_or_404(key))


@bp.post("/n/<key>/screens/number")
def pair_number(key: str) -> Answer:
    """A typed number: the TV showing it becomes the night's screen. A wrong, ended or
    used number pairs nothing and counts as a guess; after a few the host waits."""
    night = hosted_night_or_404(key)
    if store.wrong_numbers_left(device(), _address()) == 0:
        return _pair_form(night, _("Too many wrong numbers: wait a quarter of an hour, "
                                   "or scan the QR on the screen instead."), 429)
    typed = "".join(c for c in request.form.get("number", "") if not c.isspace())
    if len(typed) != store.NUMBER_DIGITS or not typed.isdigit():
        # not a number a screen shows: said so, and not counted as a guess
        return _pair_form(night, _("A screen's number has %(n)s digits, like 123 456.",
                                   n=store.NUMBER_DIGITS), 422)
    try:
        paired = store.pair_screen(night["id"], device(), _address(), number=typed)
    except store.PairedLately:
        return _pair_form(night, _paired_lately(), 429)
    if paired is None:
        if store.taken_lately(night["id"], number=typed):
            return _pair_form(night, _taken(), 422)
        return _pair_form(night, _("No screen shows that number now. Check the number "
                                   "on the screen and type it again."), 422)
    return redirect(url_for("nights.night", key=key), 303)


def _paired_lately() -> str:
    return _("This device paired a screen a moment ago. Wait a minute, then try again.")


def _taken() -> str:
    """A number (or QR) someone else paired first: the host is told so, and how the TV
    gets a new one."""
    return _("Another device paired that screen a moment ago. If it shows another "
             "table's night, choose \"Not our table? New number\" on it, and type the "
             "new number.")


def _asked_night() -> store.Row:
    """The night a host device scanning a TV's QR would show on it: the one it hosts
    and made last (or asked for by key). A device that hosts none gets a message."""
    nights = store.hosted_nights(device())
    if not nights:
        abort(404)
    key = request.form.get("key") or request.args.get("key")
    return next((n for n in nights if n["key"] == key), nights[0])


@bp.get("/tv/<token>")
def pair_question(token: str) -> Answer:
    """The TV's QR opens a question on the host's tablet, never a change."""
    offer = store.offer_by_token(token)
    night = _asked_night()
    if offer is None:
        return _code_gone(night, token)
    return render_template("screen/pair_question.html", night=night, token=token)


def _code_gone(night: store.Row, token: str) -> Answer:
    if store.taken_lately(night["id"], token=token):
        return _pair_form(night, _taken(), 410)
    return _pair_form(night, _("That screen's code no longer works: the screen shows "
                               "a new one. Scan it again or type its number."), 410)


@bp.post("/tv/<token>")
def pair_token(token: str) -> Answer:
    night = _asked_night()
    try:
        paired = store.pair_screen(night["id"], device(), _address(), token=token)
    except store.PairedLately:
        return _pair_form(night, _paired_lately(), 429)
    if paired is None:
        return _code_gone(night, token)
    return redirect(url_for("nights.night", key=night["key"]), 303)
