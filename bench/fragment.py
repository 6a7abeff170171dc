"""The CPU cost of a phone's live fragment and of a host's write, in-process.

    .venv/bin/python -m bench.fragment [--changes 40]

For Kraken and Skull King (a Crazy Time penalty soon sends its winners out of the room,
so it cannot be repeated forty times), makes a night of 8 players with the game running,
then records
``--changes`` host actions; after each, every phone asks for its fragment, as the phones
do after a push (the first of them reads the new version's board, the others share it).
Calls the WSGI app straight (no server, no network, no test client) and prints the CPU
time (``time.process_time``) of a write's answer, of a phone's fragment after a change,
and of a phone's poll that finds nothing new, in ms, plus the SQL statements a fragment
ran. The server's own parsing and sockets come on top (docs/performance.md).
"""

from __future__ import annotations

import argparse
import gzip
import re
import tempfile
import time
from pathlib import Path
from typing import Any

from werkzeug.test import Client, EnvironBuilder

from companion import store
from companion.app import create_app
from companion.store import connection as db

PLAYERS = 8
EVERYONE = {f"seat{i}": "on" for i in range(PLAYERS)}
# A host action the game takes again and again, from its own page.
ACTIONS = {
    "kraken": ("kraken/marker", lambda i: {"seat": str(i % PLAYERS)}),
    "skullking": ("skullking/bid",
                  lambda i: {"seat": str(i % PLAYERS), "bid": str(i % 2), "round": "1"}),
}


def call(app: Any, client: Client, path: str, method: str = "GET",
         data: dict[str, str] | None = None) -> tuple[float, int, str]:
    """CPU ms, status and body of one request of ``client`` (its cookies), straight
    through the WSGI app."""
    builder = EnvironBuilder(path=path, method=method, data=data, headers={
        "HX-Request": "true", "Accept-Encoding": "gzip", "Accept-Language": "ko"})
    environ = builder.get_environ()
    environ["HTTP_COOKIE"] = "; ".join(
        f"{cookie.key}={cookie.value}" for cookie in client._cookies.values())
    start = time.process_time()
    status: list[str] = []
    body = b"".join(app(environ, lambda s, h, e=None: status.append(s)))
    spent = (time.process_time() - start) * 1000
    if body[:2] == b"\x1f\x8b":  # gzipped, as a browser asks
        body = gzip.decompress(body)
    return spent, int(status[0].split()[0]), body.decode()


def measure(kind: str, changes: int) -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp())
    app = create_app({"DATABASE": str(folder / "fragment.sqlite"), "SECRET_KEY": "bench",
                      "WTF_CSRF_ENABLED": False})
    host = app.test_client()
    made = host.post("/nights", data={"name": [f"P{i}" for i in range(PLAYERS)]})
    night_url = made.headers["Location"]
    with app.app_context():
        night = store.night_by_key(night_url.rsplit("/", 1)[1])
        tokens = [seat["token"] for seat in store.seats(night["id"])]
    phones = [app.test_client() for _ in tokens]
    for phone, token in zip(phones, tokens, strict=True):
        phone.get(f"/s/{token}")
        if phone.post(f"/s/{token}").status_code != 303:
            raise SystemExit(f"{kind}: a phone could not take its seat")
    started = host.post(f"{night_url}/new/{kind}", data=EVERYONE)
    if started.status_code != 303:
        raise SystemExit(f"{kind}: the game did not start ({started.status_code})")
    game_url = started.headers["Location"]
    path, form = ACTIONS[kind]
    statements: list[str] = []
    writes, fragments, quiet = [], [], []
    for i in range(changes):
        page = host.get(game_url).get_data(as_text=True)
        pos = re.search(r'name="pos" value="(\d+)"', page)
        spent, status, body = call(app, host, f"{game_url}/{path}", "POST",
                                   {**form(i), "pos": pos.group(1) if pos else "0"})
        if status != 200:
            raise SystemExit(f"{kind}: the write answered {status}: {body[:300]}")
        writes.append(spent)
        db.close_thread_connections()
        for phone in phones:
            spent, status, body = call(app, phone, "/me/live?v=-2")
            fragments.append(spent)
            version = re.search(r"\?v=(\d+)", body)
            if version is None:
                raise SystemExit(f"{kind}: no live region ({status}): {body[:200]}")
        spent, status, _ = call(app, phones[0], f"/me/live?v={version.group(1)}")
        quiet.append(spent)
    # The statements of one phone's fragment at a version its process has read.
    with app.app_context():
        conn = db.get_db().conn
        conn.set_trace_callback(statements.append)
        call(app, phones[1], "/me/live?v=-2")
        conn.set_trace_callback(None)
    sql = [s for s in statements if not s.startswith(("SAVEPOINT", "RELEASE", "PRAGMA"))]
    return {"write_ms": median(writes), "fragment_ms": median(fragments),
            "quiet_poll_ms": median(quiet), "fragment_queries": len(sql)}


def median(values: list[float]) -> float:
    ordered = sorted(values)
    return round(ordered[len(ordered) // 2], 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=40)
    args = parser.parse_args()
    for kind in ACTIONS:
        print(kind, measure(kind, args.changes), flush=True)


if __name__ == "__main__":
    main()
