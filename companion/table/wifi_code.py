"""Blueprint: the Wi-Fi join code — "What's the Wi-Fi?" answered by a scan.

The host types the network once on the table page (a host-only form); its QR code then
shows beside the seat codes and large on the room's screen, with the network's name as
text under it. The password leaves the server only inside that image (for the night's
hosts and screens) and on the host's "show the password" page, for a phone whose
camera does not read Wi-Fi codes (the host reads it out). The pure part (the checks,
the code's text) is companion/core/wifi.py; what is kept, and for how long,
companion/store/wifi.py.
"""

from typing import Any

from flask import Blueprint, Response, abort, redirect, render_template, request, url_for

from companion import store
from companion.core import wifi
from companion.core.errors import RuleError
from companion.core.lru import LRU
from companion.pictures import qr
from companion.table.nights import night_context
from companion.web.http import Answer
from companion.web.i18n import gettext as _
from companion.web.identity import device, hosted_night_or_404, is_htmx, viewed_night
from companion.web.offload import in_turn

bp = Blueprint("wifi_code", __name__)


def _answer(key: str, *, error: str | None = None, typed: dict[str, Any] | None = None,
            status: int = 200) -> Answer:
    """The table's fresh live region for htmx (with the form's reason and what was
    typed, the password never), the table page otherwise."""
    if error is None and not is_htmx():
        return redirect(url_for("nights.night", key=key) + "#wifi", 303)
    page = "table/_night.html" if is_htmx() else "table/night.html"
    return render_template(page, **night_context(hosted_night_or_404(key)), wifi_error=error,
                           wifi_typed=typed), status


@bp.post("/n/<key>/wifi")
def save(key: str) -> Answer:
    """The host's network: checked, then shown from now on (nothing kept when refused)."""
    night = hosted_night_or_404(key)
    form = request.form
    ssid, password = form.get("ssid", ""), form.get("password", "")
    ticked = {name: bool(form.get(name)) for name in ("open", "hidden", "remember")}
    try:
        net = wifi.network(ssid, password, open_network=ticked["open"],
                           hidden=ticked["hidden"])
    except RuleError as err:
        return _answer(key, error=_(err.message, **err.params),
                       typed={"ssid": ssid, **ticked}, status=422)
    store.set_wifi(night["id"], device(), net, remembered=ticked["remember"])
    return _answer(key)


@bp.post("/n/<key>/wifi/shown")
def shown(key: str) -> Answer:
    """Hide the code from the table page and the room's screen, or show it again."""
    night = hosted_night_or_404(key)
    asked = request.form.get("shown")
    if asked not in ("0", "1"):
        return _answer(key, error=_("That request could not be read. Reload the page and "
                                    "try again."), status=422)
    forget_drawn(_stamp(night))
    store.show_wifi(night["id"], asked == "1")
    return _answer(key)


@bp.post("/n/<key>/wifi/forget")
def forget(key: str) -> Answer:
    """Forget the network: its row is deleted, whether it was remembered or not."""
    night = hosted_night_or_404(key)
    forget_drawn(_stamp(night))
    store.forget_wifi(night["id"])
    return _answer(key)


def _stamp(night: store.Row) -> str | None:
    shown = store.night_wifi(night["id"])
    return shown["stamp"] if shown else None


#: The code's image as last drawn, by the network's ``stamp`` (a new one each time a
#: network is set): a TV's reload, a second host's page and a guest asking again and
#: again cost a dictionary's look-up, not a drawing. An entry goes when its network is
#: hidden or forgotten here, or is found gone or hidden (another worker of the café
#: forgot it); a few networks at most are live at once.
_drawn = LRU(16)


def forget_drawn(stamp: str | None) -> None:
    """The image of the network with this ``stamp`` is kept no more."""
    if stamp:
        _drawn.pop(stamp)


@bp.get("/n/<key>/wifi.png")
def image(key: str) -> Answer:
    """The code's image, for the night's hosts and screens only (anyone else, or a code
    hidden or forgotten: 404). Never kept by a browser or a proxy. Drawn once per
    network, beside the loop (``qr.wifi_png``: some 10 ms of CPU), and of the same size
    for every network."""
    night = viewed_night(key)
    shown_row = store.night_wifi(night["id"])
    if shown_row is None or not shown_row["shown"]:
        forget_drawn(shown_row["stamp"] if shown_row else None)
        abort(404)
    png: bytes | None = _drawn.get(shown_row["stamp"])
    if png is None:
        net = store.night_network(night["id"])
        if net is None:
            abort(404)
        png = in_turn(qr.wifi_png, wifi.join_code(net))
        _drawn.put(shown_row["stamp"], png)
    response = Response(png, mimetype="image/png")
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/n/<key>/wifi/password")
def password(key: str) -> Answer:
    """The password as text, on the host's device only, when the host asks: for a
    phone whose camera does not read Wi-Fi codes."""
    night = hosted_night_or_404(key)
    net = store.night_network(night["id"])
    if net is None:
        abort(404)
    return render_template("table/wifi_password.html", night=night, net=net,
                           open_network=net.security == wifi.OPEN)
