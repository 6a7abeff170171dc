"""No Touch Kraken as the registry knows it (companion/core/registry.py): the token
series, roles and reveals are its own; the core reads only what this declares."""


from flask_babel import lazy_gettext as _l

from companion.core.registry import GameDef
from companion.kraken import recap, results, rules, seen, views

GAME = GameDef(
    kind="kraken",
    title=_l("No Touch Kraken"),
    rules=rules,
    next_step=rules.next_step,
    moment=rules.moment,
    players=(rules.MIN_PLAYERS, rules.MAX_PLAYERS),
    blueprint=views.bp,
    parse_new=views.parse_new,
    new_view=views.new_view,
    result=results.result,
    options=results.options,
    custom_restore=results.restore,
    host_view=views.view,
    seat_view=views.view,
    mask=results.mask,
    for_seat=seen.for_seat,
    for_screen=seen.for_screen,
    hold_end=seen.END_HELD_S,
    night_tally=results.night_tally,
    player_night=results.player_night,
    stat_parts=results.stat_parts,
    stat_figures=results.stat_figures,
    stat_columns=views.STAT_COLUMNS,
    awards=results.awards,
    standings=results.standings,
    bgstats=results.bgstats,
    recap=recap.game,
    recap_night=recap.night,
    assets=("kraken.css",),
)
