"""The cost of one append to a long log, in-process (no server, no network).

    .venv/bin/python -m bench.append [--events 3200] [--appends 5]

Makes a night of 8 players and a Skull King game, writes ``--events`` bid changes into
its log (straight into the database, as a phone that changed its bid that often would
leave it), then times: reading the whole log and replaying it (what an append cost when
it read the whole log), the first append of a fresh process (it reads the log once),
and the appends after it (they read only what is new). Prints the figures in ms.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from companion import store
from companion.app import create_app
from companion.core.events import REDO, UNDO, effective
from companion.store import log
from companion.store.connection import get_db

PLAYERS = 8


def ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=3200)
    parser.add_argument("--appends", type=int, default=5)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp())
    app = create_app({"DATABASE": str(folder / "append.sqlite"), "SECRET_KEY": "bench",
                      "WTF_CSRF_ENABLED": False})
    host = app.test_client()
    made = host.post("/nights", data={"name": [f"P{i}" for i in range(PLAYERS)]})
    key = made.headers["Location"].rsplit("/", 1)[1]
    started = host.post(f"/n/{key}/new/skullking",
                        data={f"seat{i}": "on" for i in range(PLAYERS)})
    number = int(started.headers["Location"].rsplit("/", 1)[1])
    with app.test_request_context():
        night_id = store.night_by_key(key)["id"]
        game = store.game(night_id, number)
        assert game is not None
        get_db()["events"].insert_all({
            "game_id": game.id, "seq": seq, "type": "bid",
            "data": json.dumps({"round": 1, "seat": seq % PLAYERS, "bid": seq % 2}),
            "seat": None, "device": None, "created": "2026-11-30T10:00:00Z",
        } for seq in range(1, args.events + 1))
        start = time.perf_counter()
        events = log.load(get_db(), game.id)
        read = ms(start)
        start = time.perf_counter()
        game.rules.replay(game.setup, effective(events))
        replay = ms(start)
        print(f"{len(events)} events: read and decode the whole log {read} ms, "
              f"replay {replay} ms")
        for n in range(args.appends + 1):
            game = store.game(night_id, number)
            assert game is not None
            kind = "reveal_bids" if n == 0 else (UNDO if n % 2 else REDO)
            start = time.perf_counter()
            store.record(game, kind, {"round": 1} if n == 0 else {}, pos=game.length,
                         device="bench")
            label = "first append (reads the log once)" if n == 0 else "append"
            print(f"{label}: {ms(start)} ms")


if __name__ == "__main__":
    main()
