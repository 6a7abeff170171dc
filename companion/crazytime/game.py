"""The game's declaration for the registry (companion/core/registry.py): its kind, title,
rules and the functions the core asks of it. Beside the views, not inside them, so that
importing the game's pure modules loads no Flask."""


from flask_babel import lazy_gettext as _l

from companion.core.registry import GameDef
from companion.crazytime import recap, results, rules, views

GAME = GameDef(
    kind="crazytime",
    title=_l("Crazy Time"),
    rules=rules,
    blueprint=views.bp,
    parse_new=views.parse_new,
    result=results.result,
    options=results.options,
    host_view=views.host_view,
    seat_view=views.seat_view,
    mask=results.mask,
    night_tally=results.night_tally,
    player_stats=results.player_stats,
    stat_columns=views.STAT_COLUMNS,
    awards=results.awards,
    bgstats=results.bgstats,
    recap=recap.game,
    kept_state=results.kept_state,
    assets=("crazytime.css", "crazytime.js"),
)
