"""Skull King (스컬킹): bids from phones revealed at once, tricks and bonuses, both
editions, and the running score table (docs/rules.md#skull-king)."""

from flask_babel import lazy_gettext as _l

from companion.registry import GameDef
from companion.skullking import recap, results, rules, views

GAME = GameDef(
    kind="skullking",
    title=_l("Skull King"),
    rules=rules,
    blueprint=views.bp,
    parse_new=views.parse_new,
    result=results.result,
    options=results.options,
    custom_restore=results.restore,
    host_view=views.view,
    seat_view=views.view,
    mask=results.mask,
    night_tally=results.night_tally,
    player_stats=results.player_stats,
    stat_columns=views.STAT_COLUMNS,
    awards=results.awards,
    bgstats=results.bgstats,
    recap=recap.game,
    assets=("skullking.css", "skullking.js"),
    conflicts=rules.conflicts,
)
