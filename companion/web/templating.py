"""What the templates are given: the shared-fragment cache, colours, names, titles and assets."""

import re
from typing import Any

from flask import (
    current_app,
    g,
    url_for,
)
from flask_babel import get_locale
from flask_wtf.csrf import generate_csrf
from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup, escape

from companion import store
from companion.core.errors import N_
from companion.core.lru import LRU
from companion.web import sealed
from companion.web.i18n import LANGUAGES, render_gettext, request_catalog
from companion.web.identity import is_htmx

_shared = LRU(1024, 32 * 1024 * 1024, len)  # at most 32 MB of HTML


@pass_context
def shared(context: Context, name: str) -> Markup:
    """A fragment every screen of the table shows alike, rendered once and reused.

    For what the host and all the phones show the same way (the table at a glance, the
    token series): no secret, no form, nothing of the viewer's own. It is rendered once
    per night version, game position and language in this process, then reused for
    each device that asks — a table's nine screens ask for the same one after a change.
    The key holds all such a fragment may show: the night's version (names, the other
    games), the game and its log position, the language.
    """
    night, game = context["night"], context["game"]
    key = (current_app.config["DATABASE"], night["key"], night["version"], game.id,
           game.length, str(get_locale()), name)
    html = _shared.get(key)
    if html is None:
        html = Markup(context.environment.get_template(name).render(context.get_all()))
        _shared.put(key, html)
    return html


def _night_id(context: Context) -> int | None:
    """The night a page is about: its ``night``, or the night of its ``seat`` or
    ``game``."""
    if context.get("night"):
        return int(context["night"]["id"])
    for name in ("seat", "game"):
        value = context.get(name)
        if isinstance(value, dict) and "night_id" in value:
            return int(value["night_id"])
        if value is not None and hasattr(value, "night_id"):
            return int(value.night_id)
    return None


@pass_context
def hue(context: Context, seat: int | None) -> str:
    """The class of a player's colour (``pc-<key>``, static/app.css) on the page's night,
    or "" where there is no such seat: from the page's ``colours`` (its night's board)
    when it has them, else read once per request."""
    if seat is None:
        return ""
    board_colours = context.get("colours")  # a screen drawn from its night's board
    if board_colours is not None:
        colour = board_colours.get(int(seat))
        return f"pc-{colour}" if colour else ""
    night_id = _night_id(context)
    if night_id is None:
        return ""
    cached: dict[int, dict[int, str]] = g.setdefault("colours", {})
    if night_id not in cached:
        cached[night_id] = store.colours(night_id)
    colour = cached[night_id].get(int(seat))
    return f"pc-{colour}" if colour else ""


def game_title(kind: str) -> Any:
    """A game's title, for the templates."""
    return store.known_games()[kind].title


def game_players(kind: str) -> tuple[int, int]:
    """The fewest and the most players a game's rules allow, for the templates."""
    return store.known_games()[kind].players


def game_assets(*kinds: str) -> Markup:
    """The ``<link>`` and ``<script>`` tags of these games' own CSS and JS: a page loads
    only the games it can show (base.html's ``assets`` block)."""
    tags = []
    for kind in kinds:
        for name in store.known_games()[kind].assets:
            url = escape(url_for("static", filename=name))
            tags.append(f'<link rel="stylesheet" href="{url}">' if name.endswith(".css")
                        else f'<script src="{url}" defer></script>')
    return Markup("".join(tags))


def bdi(name: Any) -> Markup:
    """A name as a page shows it: isolated, so that a name written right to left, or
    ending in a digit or a mark, does not reorder the words around it ("Ann: 3")."""
    return Markup("<bdi>%s</bdi>") % name


def who(seats: Any, names: Any) -> Markup:
    """The players of ``seats`` by name, each isolated (:func:`bdi`), comma-separated."""
    return Markup(", ").join(bdi(names.get(seat, "?")) for seat in seats)


def moment_of(game: Any) -> str:
    """The moment of ``game`` its lines are drawn for (the game's ``moment``,
    companion/core/registry.py), as each line carries it in data-moment."""
    return store.known_games()[game.kind].moment(game.setup, game.state)


@pass_context
def next_step(context: Context, game: Any, held: bool = False) -> Markup | None:
    """What the table does next in ``game``, in one line (the game's ``next_step``,
    companion/core/registry.py), its players as colour chips; None: the game says
    nothing. ``held``: the line while the screens count to the game's reveal (its
    ``Reveal.before``), None when it holds nothing back."""
    spec = store.known_games()[game.kind]
    if held:
        before = spec.reveal.before if spec.reveal else None
        step = before(game.setup, game.state) if before else None
    else:
        step = spec.next_step(game.setup, game.state)
    if step is None:
        return None
    message, params = step
    shown = {key: _players(context, value) if isinstance(value, list) else value
             for key, value in params.items()}
    line = str(render_gettext(context, message, **shown))
    # Korean puts 님 after each name, a word apart: it must not start a line of its own.
    return Markup(line.replace("</span> 님", "</span>\u00a0님"))


@pass_context
def players(context: Context, seats: Any) -> Markup:
    """The players of ``seats`` as their colour chips, joined as the language joins a
    list, for a message that names them all at once (a winner's banner): Korean gives
    each name but the last its 님, and the message the last."""
    return _players(context, list(seats))


def _players(context: Context, seats: list[int]) -> Markup:
    """Players as their colour chips, joined as the language joins a list ("Ann, Bo and
    Cy"; in Korean each name but the last takes its 님 here, the message gives the
    last one its own)."""
    names = context["names"]
    chips = [Markup('<span class="player %s">%s</span>') % (hue(context, seat),
                                                             names.get(seat, "?"))
             for seat in seats]
    if not chips:
        return Markup("")
    joined = chips[0]
    for chip in chips[1:-1]:
        joined = Markup(render_gettext(context, N_("%(names)s, %(name)s"), names=joined, name=chip))
    if len(chips) > 1:
        joined = Markup(render_gettext(context, N_("%(names)s and %(name)s"), names=joined,
                                 name=chips[-1]))
    # A chip keeps the comma after it (and Korean's 님 before that) on its line: a chip
    # is a box, and a line may break after a box, so a line began with ", Mina".
    return Markup(_CHIP_COMMA.sub(r'<span class="list-chip">\1,</span>', str(joined)))


#: A colour chip, its 님 if any, and the comma after them.
_CHIP_COMMA = re.compile(r'(<span class="player [^"]*">[^<]*</span>(?: 님)?),')


def globals_() -> dict[str, Any]:
    return {"languages": LANGUAGES, "htmx": is_htmx(), "get_locale": get_locale,
            "translations": request_catalog(),
            # over Flask-WTF's own processor, registered before this one
            "csrf_token": sealed_csrf_token}


def sealed_csrf_token() -> Markup:
    """Flask-WTF's form token, kept out of the page's compression (companion/web/sealed.py):
    a token that changes every second would otherwise change a compressed page's size
    by a byte or two, blurring the sizes that must be equal (and a token compressed
    beside text a visitor chose is what a BREACH-style guess needs)."""
    return sealed.stored(generate_csrf())
