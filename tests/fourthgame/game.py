"""The Secret Number game's declaration for the registry, beside its views."""


from companion.core.errors import N_
from companion.core.registry import GameDef, Reveal
from tests.fourthgame import rules, views

GAME = GameDef(
    kind="secretnumber",
    title="Secret Number",
    rules=rules,
    blueprint=views.bp,
    parse_new=views.parse_new,
    result=rules.result,
    options=rules.options,
    mask=rules.mask,
    for_seat=rules.for_seat,
    for_screen=rules.for_screen,
    custom_restore=rules.restore,
    host_view=views.host_view,
    seat_view=views.seat_view,
    # One field, and the core counts it on every screen (companion/live/clock.py).
    reveal=Reveal(event="show", words=(N_("Ready"), N_("set"), N_("show!"))),
)
