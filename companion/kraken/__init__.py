"""No Touch Kraken (노 터치 크라켄): secret roles dealt to phones, the reveals, the end of
the game and the token series (docs/rules.md#kraken)."""

from flask_babel import lazy_gettext as _l

from companion.kraken import recap, results, rules, views
from companion.registry import GameDef

GAME = GameDef(
    kind="kraken",
    title=_l("No Touch Kraken"),
    rules=rules,
    blueprint=views.bp,
    parse_new=views.parse_new,
    new_view=views.new_view,
    result=results.result,
    options=results.options,
    custom_restore=results.restore,
    host_view=views.view,
    seat_view=views.view,
    mask=results.mask,
    night_tally=results.night_tally,
    player_night=results.player_night,
    player_stats=results.player_stats,
    stat_columns=views.STAT_COLUMNS,
    awards=results.awards,
    bgstats=results.bgstats,
    recap=recap.game,
    recap_night=recap.night,
    assets=("kraken.css",),
)
