"""A night played against a real server process over HTTP, as a phone or a tablet plays
it with CSRF on (the device itself is bench/devices.py's), and what the SQLite file
then holds; the server process itself, `companion serve` or gunicorn.

A kind of game joins the drills that play scripted games (tests/test_killed_server.py,
tests/test_workers.py) by adding a "script" to SCRIPTS: its start form, and given the
game's current state, the next legal host action.
"""

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
from dataclasses import dataclass, field
from importlib import import_module

from bench.servers import STARTS_WITHIN_S, answers, free_port
from companion.core.events import effective
from companion.store.connection import uri


def start_game(host, key, kind, form):
    """Start a game; while another runs on the phones, answer the form's second step as
    a host would (that game stays unfinished)."""
    status, head, html = host.post(f"/n/{key}/new/{kind}", form)
    running = re.search(r'name="leave" value="(\d+)"', html)
    if status == 409 and running:
        status, head, html = host.post(f"/n/{key}/new/{kind}",
                                       {**form, "leave": running.group(1)})
    assert status == 303, html[:1000]
    return int(head["Location"].rstrip("/").rsplit("/", 1)[1])


# --- the stored log, read straight from the file --------------------------------------


def read_game(database, key, number):
    """(kind, setup, [event rows]) of a game, read straight from the SQLite file."""
    conn = sqlite3.connect(uri(database, "ro"), uri=True, timeout=10)
    try:
        conn.row_factory = sqlite3.Row
        game = conn.execute(
            "select g.* from games g join nights n on n.id = g.night_id "
            "where n.key = ? and g.number = ?", [key, number]).fetchone()
        rows = conn.execute("select seq, type, data, seat from events where game_id = ? "
                            "order by seq", [game["id"]]).fetchall()
        return game["kind"], json.loads(game["setup"]), [dict(r) for r in rows]
    finally:
        conn.close()


def state_of(database, key, number):
    """Replay the stored log with the game's own rules: the state every screen derives."""

    kind, setup, rows = read_game(database, key, number)
    events = [{"type": r["type"], "data": json.loads(r["data"]), "seat": r["seat"]}
              for r in rows]
    rules = import_module(f"companion.{kind}.rules")
    return rules.replay(setup, effective(events)), len(rows)


def legal_in(database, key, number):
    """legal(type, data): would the rules accept this host event at the end of the log?"""
    from companion.core.errors import RuleError

    kind, setup, rows = read_game(database, key, number)
    events = [{"type": r["type"], "data": json.loads(r["data"]), "seat": r["seat"]}
              for r in rows]
    rules = import_module(f"companion.{kind}.rules")

    def legal(type_, data):
        try:
            rules.replay(setup, effective(events + [{"type": type_, "data": data,
                                                          "seat": None}]))
        except RuleError:
            return False
        return True

    return legal


def assert_log_sound(database, key, number):
    """Every row parses, the positions run 1..n with no gap, and the log replays."""
    _, _, rows = read_game(database, key, number)
    assert [r["seq"] for r in rows] == list(range(1, len(rows) + 1))
    for row in rows:
        assert isinstance(json.loads(row["data"]), dict)
    state_of(database, key, number)  # raises if any stored event breaks the rules
    return rows


# --- scripted games: the next legal host action for a state ---------------------------


def kraken_next(state, pos):
    """Marker to seat 0, then reveal an empty box (or a treasure) from the next seat."""
    if state["finished"]:
        return None
    if state["marker"] is None:
        return "kraken/marker", {"seat": state["players"][0], "pos": pos}
    seats = state["players"]
    i = seats.index(state["marker"])
    for step in range(1, len(seats)):
        seat = seats[(i + step) % len(seats)]
        if state["cards_in_front"][str(seat)] > 0:
            break
    hidden = state["hidden_range"]
    card = "empty" if hidden["empty"][1] > 0 else "treasure"
    return "kraken/reveal", {"seat": seat, "card": card, "pos": pos}


def skullking_next(state, pos):
    """Each seat bids 1, Yo-ho-ho, the first seat takes every trick."""
    if state["finished"]:
        return None
    rnd = state["rounds"][state["current"]]
    if state["phase"] == "bidding":
        waiting = [s for s in state["players"] if s not in rnd["bid_done"]]
        if waiting:
            return "skullking/bid", {"seat": waiting[0], "round": rnd["number"], "bid": 1,
                                     "pos": pos}
        return "skullking/reveal", {"round": rnd["number"], "pos": pos}
    form = {"round": rnd["number"], "pos": pos}
    for i, seat in enumerate(state["players"]):
        form[f"won-{seat}"] = rnd["cards"] if i == 0 else 0
    return "skullking/result", form


def crazytime_next(state, pos, legal):
    """Penalties round the table; when a match is over, a new law and the next match."""
    if state["finished"]:
        return None
    players = [p for p in state["players"] if p not in state["out_of_room"]]
    candidates = [("crazytime/penalty", "penalty", {"seat": players[pos % len(players)]}),
                  ("crazytime/law", "law", {"name": f"Law {pos}", "when": "7", "what": "12"}),
                  ("crazytime/next", "next_match", {})]
    for path, type_, data in candidates:
        if legal(type_, data):
            return path, {**data, "pos": pos}
    raise AssertionError("no legal Crazy Time action")


FOUR = {"seat0": "on", "seat1": "on", "seat2": "on", "seat3": "on"}


# kind -> (start form, next action for a state). A kind joins every drill by adding a line.
SCRIPTS = {
    "kraken": (FOUR, kraken_next),
    "skullking": ({**FOUR, "way": "custom", "rounds": "3,3,3,3,3,3,3,3"}, skullking_next),
    "crazytime": (FOUR, crazytime_next),
}


# the event type each scripted action records
TYPES = {"kraken/marker": "marker", "kraken/reveal": "reveal", "skullking/bid": "bid",
         "skullking/reveal": "reveal_bids", "skullking/result": "result", "undo": "undo",
         "crazytime/penalty": "penalty", "crazytime/law": "law", "crazytime/next": "next_match"}


def step(host, database, key, number, kind, *, endless=False):
    """Record the next scripted action as the host's tablet would.

    Returns (status, the log position it names + 1, path, form), or None when the game is
    over. ``endless``: a finished game takes an undo instead, so a drill never runs out.
    """
    state, pos = state_of(database, key, number)
    script = SCRIPTS[kind][1]
    if kind == "crazytime":
        action = script(state, pos, legal_in(database, key, number))
    else:
        action = script(state, pos)
    if action is None:
        if not endless:
            return None
        action = "undo", {"pos": pos}
    path, form = action
    status, _, html = host.post(f"/n/{key}/g/{number}/{path}", form)
    if status not in (303, 409):
        raise AssertionError(f"{status}: {html[:1500]}")
    return status, pos + 1, path, form


# --- gunicorn: several workers, and the café setup's ---------------------------------


@dataclass
class ServerProcess:
    """`companion serve` in its own process, as a host runs it; can be killed and restarted."""

    database: str
    port: int = field(default_factory=free_port)
    process: object = None
    env: dict = field(default_factory=dict)  # more COMPANION_* settings

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def start(self):
        env = {**os.environ, "COMPANION_DATABASE": self.database,
               "COMPANION_SECRET_KEY": "process-test", "COMPANION_POLL_SECONDS": "1",
               **self.env}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "companion", "serve", "--host", "127.0.0.1",
             "--port", str(self.port), "--public-url", self.url, "--quiet"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        if not answers(self.url + "/"):
            raise RuntimeError("the server did not start")
        return self

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)


class Gunicorn:
    def __init__(self, database, workers=3, options=(), env=None):
        self.database = database
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "COMPANION_DATABASE": database,
               "COMPANION_SECRET_KEY": "gunicorn-test", "COMPANION_PUBLIC_URL": self.url,
               **(env or {})}
        gunicorn = os.path.join(os.path.dirname(sys.executable), "gunicorn")
        self.process = subprocess.Popen(
            [gunicorn, "-w", str(workers), *options, "-b", f"127.0.0.1:{self.port}",
             "companion.serving.wsgi:app"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not answers(self.url + "/"):
            self.stop()
            raise RuntimeError("gunicorn did not start")

    def stop(self):
        # A quick shutdown (SIGINT): a graceful one (SIGTERM) waits for every open
        # stream, and a stream learns its phone left only at its next heartbeat (20 s).
        self.process.send_signal(signal.SIGINT)
        self.process.wait(timeout=STARTS_WITHIN_S)  # one booting a worker finishes first


#: The café setup's command line (docs/guide.md): one worker per core, each running gevent's
#: WSGI server with `companion serve`'s hold on connections (companion/serving/cafe.py), so that
#: every phone holds its live connection.
CAFE = ("-k", "companion.serving.cafe.Worker", "--worker-connections", "4000")
