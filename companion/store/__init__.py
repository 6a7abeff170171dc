"""Reading and writing nights, seats, hosts and games: every query of the app lives here.

The store knows nothing of requests: the views pass in the device that asks (the
``device`` cookie, companion/web/identity.py) and decide what to answer when a row is missing.

Its modules are named for what they hold:

- ``connection``: one connection per thread (or request, under gevent), WAL, writes;
- ``schema``: every table, as the migrations that made them;
- ``log``: a game's events, appended so that two writes from one position record once;
- ``sql``: the query helpers (a row as a dict; reads without sqlite-utils' savepoints);
- ``form_tokens``: one-time form tokens (a night or a game is made once per token);
- ``nights``: nights and their seats (links, claims, codes, colours, tablet seats);
- ``hosting``: who hosts a night, and the host codes;
- ``screens``: the room's read-only big screens, and the screen codes;
- ``merges``: a host's merges of two spellings of a name;
- ``imports``: imported nights, replacing a copy's games, the uploads that wait;
- ``caches``: each process's cache of the logs it read and the states it replayed;
- ``played``: games, their logs and the ``Game`` view, recording events, activity;
- ``night_board``: each night's ``Board`` per version, what every screen is drawn from;
- ``results``: what each game came to, kept beside its log whenever the log changes;
- ``tallied``: the games of nights as the tallies read them, from their kept results;
- ``histories``: which nights of each host device changed what its statistics read;
- ``statistics``: a host's history in pages, and its statistics kept as sums;
- ``wifi``: the Wi-Fi join code each host device shows (its password lives only there);
- ``needs``: how long each screen needs to show a change (a reveal's lead follows it).

Callers use the package (``store.board(...)``, ``store.record(...)``): every public name
is here, and no private one.
"""

from companion.store.caches import logs, read_log, states
from companion.store.connection import (
    checkpoint,
    connect,
    end_request,
    fold_wal,
    get_db,
    known_games,
    uri,
)
from companion.store.form_tokens import FormUsed
from companion.store.hosting import (
    HOST_CODE_MINUTES,
    host_invite,
    host_invite_known,
    hosted_night,
    hosted_nights,
    hosts,
    invite_host,
    is_host,
    remove_host,
    use_host_invite,
)
from companion.store.imports import (
    PENDING_IMPORT_MINUTES,
    PENDING_IMPORTS_KEPT,
    drop_import,
    import_night,
    keep_import,
    kept_import,
    nights_like,
    replace_games,
)
from companion.store.log import Stale, touch
from companion.store.merges import aliases, merge_alias, unmerge_alias
from companion.store.night_board import BOARD_GAMES, Board, board, boards
from companion.store.nights import (
    add_seat,
    changes_since,
    claim_seat,
    colours,
    create_night,
    former_names,
    last_change,
    latest_night,
    latest_nights,
    my_seat,
    names,
    night,
    night_by_key,
    night_versions,
    note_reached,
    reissue_code,
    release_seat,
    rename_seat,
    retired_code,
    seat_by_token,
    seat_in_night,
    seats,
    set_colour,
    set_felt,
    set_left,
    set_tablet,
)
from companion.store.played import (
    GAME_SQL,
    Game,
    Running,
    activity,
    current_game,
    game,
    game_in_progress,
    games,
    note,
    noted,
    record,
    rules_for,
    set_current_game,
    start_game,
)
from companion.store.quotas import OverQuota
from companion.store.schema import migrate
from companion.store.screens import (
    NUMBER_DIGITS,
    PAIR_EVERY_S,
    SCREEN_CODE_MINUTES,
    SCREEN_NUMBER_MINUTES,
    WRONG_NUMBERS,
    PairedLately,
    invite_screen,
    is_screen,
    joined_lately,
    leave_screen,
    offer_by_token,
    offer_screen,
    offered,
    pair_screen,
    remove_screen,
    screen_invite,
    screen_invite_known,
    screen_night,
    screen_number,
    screens,
    table_role,
    taken_lately,
    use_screen_invite,
    wrong_numbers_left,
)
from companion.store.sql import Row
from companion.store.statistics import (
    HISTORY_PAGE,
    hosted_count,
    hosted_page,
    hosts_any,
    rosters,
    statistics_totals,
)
from companion.store.tallied import night_game, night_games, outcomes, tallied
from companion.store.wifi import (
    forget_unremembered,
    forget_wifi,
    night_network,
    night_wifi,
    set_wifi,
    show_wifi,
)

__all__ = [
    "OverQuota", "Stale", "touch",
    "checkpoint", "connect", "end_request", "fold_wal", "known_games", "migrate", "uri",
    "HISTORY_PAGE", "hosted_count", "hosted_page", "hosts_any",
    "rosters", "statistics_totals",
    "BOARD_GAMES", "GAME_SQL", "HOST_CODE_MINUTES", "PENDING_IMPORTS_KEPT",
    "PENDING_IMPORT_MINUTES", "Board", "FormUsed", "Game", "Row", "Running",
    "activity", "add_seat", "aliases", "board", "boards", "changes_since", "claim_seat",
    "colours", "create_night", "current_game", "drop_import", "former_names", "game",
    "game_in_progress",
    "games", "get_db",
    "host_invite", "host_invite_known", "hosted_night", "hosted_nights", "hosts",
    "import_night", "invite_host", "is_host", "keep_import", "kept_import", "last_change",
    "latest_night", "latest_nights", "logs", "merge_alias", "my_seat", "names", "night",
    "night_by_key",
    "night_game", "night_games", "night_versions", "nights_like", "note", "note_reached",
    "noted", "outcomes",
    "read_log", "record", "reissue_code",
    "release_seat", "remove_host", "rename_seat", "replace_games", "retired_code", "rules_for",
    "seat_by_token", "seat_in_night", "seats", "set_colour", "set_current_game", "set_felt",
    "set_left", "set_tablet", "start_game", "states", "tallied", "unmerge_alias", "use_host_invite",
    "NUMBER_DIGITS", "SCREEN_CODE_MINUTES", "SCREEN_NUMBER_MINUTES", "WRONG_NUMBERS",
    "invite_screen",
    "is_screen", "offer_by_token", "offer_screen", "offered", "pair_screen",
    "PAIR_EVERY_S", "PairedLately", "leave_screen", "joined_lately", "taken_lately",
    "remove_screen", "screen_invite", "screen_invite_known", "screen_night",
    "screen_number", "screens", "table_role", "use_screen_invite", "wrong_numbers_left",
    "forget_unremembered", "forget_wifi", "night_network", "night_wifi", "set_wifi",
    "show_wifi",
]
