"""Boards: a night as its screens show it at one version, read once per version in each
process (docs/architecture.md#boards-and-screens-what-a-tables-screens-share)."""

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, cast

from flask import current_app

from companion.core.lru import LRU
from companion.store.connection import get_db, read, written
from companion.store.played import GAME_SQL, Game, _game, activity, game, games, noted
from companion.store.sql import Row, _first, _rows

#: How many of a night's latest games a board holds (and the game its phones show, if
#: older): what the table's screens show. A night's older games are read when a screen
#: asks for one, so a board stays the same size however long the night goes on.
BOARD_GAMES = 16


@dataclass(frozen=True)
class Board:
    """A night as its screens show it at one version: the night's row, its seats, its
    latest games (``BOARD_GAMES``, each with its log's length) and their activity
    beside the logs.

    Every change to a night bumps its version (``log.bump``), so a board read at a
    version stays true of it: each process keeps the newest board it read of each night
    (``boards``) and a screen that asks again at that version costs no query. Nothing
    may change a board it was given; :meth:`game` and :meth:`games` make fresh ``Game``
    objects, whose states come from the state cache as copies.
    """

    night: Row
    seats: list[Row]
    game_rows: list[Row]  # the latest games in order (and the phones' game, if older)
    activity: list[Row]   # of those games
    database: str
    #: Whether ``game_rows`` holds every game of the night.
    complete: bool = True
    #: The first of the latest games it holds (every game after it is in ``game_rows``).
    first: int = 1
    _parsed: dict[int, Game] = field(default_factory=dict, compare=False, repr=False)
    _derived: dict[Hashable, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def key(self) -> tuple[Any, ...]:
        """Where the board sits: the database, the night and its version."""
        return (self.database, self.night["id"], self.version)

    @property
    def version(self) -> int:
        return int(self.night["version"])

    @cached_property
    def names(self) -> dict[int, str]:
        return {s["position"]: s["name"] for s in self.seats}

    @cached_property
    def colours(self) -> dict[int, str]:
        return {s["position"]: s["colour"] for s in self.seats}

    @cached_property
    def _by_number(self) -> dict[int, Row]:
        return {row["number"]: row for row in self.game_rows}

    def _held(self, number: int) -> Game | None:
        """Game ``number`` as this board read it (its setup parsed once per board), or
        None when the board does not hold it."""
        if number not in self._parsed:
            row = self._by_number.get(number)
            if row is None:
                return None
            self._parsed[number] = replace(cast(Game, _game(row, self.database)),
                                           board_version=self.version)
        return self._parsed[number]

    def game(self, number: int) -> Game | None:
        """Game ``number``, a fresh object: from the board, else (an older game than it
        holds) read now."""
        held = self._held(number)
        if held is not None:
            return replace(held)
        if self.complete:
            return None
        return game(self.night["id"], number)

    def games(self) -> list[Game]:
        """Every game of the night in order, fresh objects (a night longer than the
        board: read now)."""
        if not self.complete:
            return games(self.night["id"])
        return [replace(cast(Game, self._held(number))) for number in self._by_number]

    def games_after(self, number: int) -> list[Game]:
        """The night's games after game ``number``, in order."""
        if not self.complete and number < self.first - 1:
            return [g for g in games(self.night["id"]) if g.number > number]
        return [replace(cast(Game, self._held(n))) for n in self._by_number if n > number]

    def current_game(self) -> Game | None:
        """What :func:`current_game` reads: the game the host chose last, else the
        latest."""
        if not self.game_rows:
            return None
        chosen = self.night["current_game"]
        return self.game(chosen if chosen in self._by_number else self.game_rows[-1]["number"])

    def derived(self, key: Hashable, build: Callable[[], Any]) -> Any:
        """What a view derives from the whole board, once per board: ``build()`` the
        first time ``key`` is asked for, the same value after (a Kraken series reads
        every game of it; the table's nine screens need it once). Nothing may change
        what it gives, and it must hold no secret."""
        if key not in self._derived:
            self._derived[key] = build()
        return self._derived[key]

    @cached_property
    def _game_ids(self) -> set[int]:
        """The games whose activity the board holds."""
        return {row["id"] for row in self.game_rows}

    def noted(self, game_id: int, kind: str) -> set[int]:
        """As :func:`noted`."""
        if game_id not in self._game_ids:
            return noted(game_id, kind)
        return {r["seat"] for r in self.activity
                if r["game_id"] == game_id and r["kind"] == kind}

    def activity_of(self, game_id: int) -> list[Row]:
        """As :func:`activity`."""
        if game_id not in self._game_ids:
            return activity(game_id)
        return [r for r in self.activity if r["game_id"] == game_id]


#: The newest board this process has read of each night: (database, night) → Board.
#: Only a night's newest version is ever asked for again (every screen of the table
#: moves on to it), so one board a night is enough.
boards = LRU(256)


def board(night_id: int, version: int | None = None) -> Board:
    """The night's board, never older than ``version`` nor than what this request
    wrote (``db.written``: an answer shows what was just done, whatever version its
    caller read before the write): from this process's cache, else read in one
    transaction (four queries); without a version, the night's board now."""
    database = current_app.config["DATABASE"]
    db = get_db()
    mine = written(night_id)
    if version is not None and mine is not None:
        version = max(version, mine)
    if version is None:
        row = db.execute("select version from nights where id = ?", [night_id]).fetchone()
        version = int(row[0]) if row else -1
    cached: Board | None = boards.get((database, night_id))
    if cached is not None and cached.version >= version:
        return cached
    with read(db):  # every read sees the same version
        night_row = cast(Row, _first(db, "select * from nights where id = ?", [night_id]))
        latest = _rows(db, GAME_SQL + "where g.night_id = ? order by g.number desc limit ?",
                       [night_id, BOARD_GAMES])[::-1]
        first = latest[0]["number"] if latest else 1
        shown = night_row["current_game"]
        if shown is not None and shown < first:
            latest[:0] = _rows(db, GAME_SQL + "where g.night_id = ? and g.number = ?",
                               [night_id, shown])
        ids = [row["id"] for row in latest]
        fresh = Board(
            night=night_row,
            seats=_rows(db, "select * from seats where night_id = ? order by position",
                        [night_id]),
            game_rows=latest,
            activity=_rows(db, "select game_id, seat, kind, created, pos from activity "
                           f"where game_id in ({', '.join('?' * len(ids))}) order by id",
                           ids) if ids else [],
            database=database,
            complete=len(latest) < BOARD_GAMES, first=first)
    now_kept: Board | None = boards.get((database, night_id))
    if now_kept is None or now_kept.version <= fresh.version:
        boards.put((database, night_id), fresh)
    return fresh
