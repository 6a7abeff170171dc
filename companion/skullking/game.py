"""Skull King as the registry knows it (companion/core/registry.py): both editions,
the house rules and the staleness of a write (``conflicts``) are its own."""


from flask_babel import lazy_gettext as _l

from companion.core.errors import N_
from companion.core.registry import GameDef, Reveal
from companion.skullking import forms, recap, results, rules, seen, views
from companion.skullking.setup import PLAYERS

GAME = GameDef(
    kind="skullking",
    title=_l("Skull King"),
    rules=rules,
    next_step=rules.next_step,
    moment=rules.moment,
    players=(min(low for low, _ in PLAYERS.values()),
             max(high for _, high in PLAYERS.values())),
    blueprint=views.bp,
    parse_new=forms.parse_new,
    new_view=views.new_view,
    result=results.result,
    options=results.options,
    custom_restore=results.restore,
    host_view=views.view,
    seat_view=views.view,
    mask=results.mask,
    for_seat=seen.for_seat,
    for_screen=seen.for_screen,
    night_tally=results.night_tally,
    stat_parts=results.stat_parts,
    stat_figures=results.stat_figures,
    stat_columns=views.STAT_COLUMNS,
    awards=results.awards,
    standings=results.standings,
    running_parts=results.running_parts,
    bgstats=results.bgstats,
    recap=recap.game,
    assets=("skullking.css", "skullking.js"),
    conflicts=rules.conflicts,
    # "Yo-ho-ho!": the bids open on every screen together at the count's last word.
    reveal=Reveal(event="reveal_bids", words=(N_("Yo"), N_("ho"), N_("ho!")),
                  before=rules.before_reveal),
)
