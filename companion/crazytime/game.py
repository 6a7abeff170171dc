"""Crazy Time as the registry knows it (companion/core/registry.py): its laws' When
and What stay out of the kept results (``kept_state``)."""


from flask_babel import lazy_gettext as _l

from companion.core.registry import GameDef
from companion.crazytime import recap, results, rules, seen, views

GAME = GameDef(
    kind="crazytime",
    title=_l("Crazy Time"),
    rules=rules,
    next_step=rules.next_step,
    moment=rules.moment,
    players=(rules.MIN_PLAYERS, rules.MAX_PLAYERS),
    blueprint=views.bp,
    parse_new=views.parse_new,
    result=results.result,
    options=results.options,
    host_view=views.host_view,
    seat_view=views.seat_view,
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
    kept_state=results.kept_state,
    assets=("crazytime.css", "crazytime.js"),
)
