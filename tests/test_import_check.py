"""An import is checked as the app checked each event when it was recorded: after every
event of a file's log, the log so far must be one the rules allow (companion/core/exchange.py).
The check folds the log once, undos included, so a file costs what its events are worth:
the worst file that fits the upload limit is checked in well under a second, where
replaying every log the game had from the start cost the square of its length.
"""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.builders import (
    CT_MATCHES,
    SK_BIDS,
    SK_WON,
    crazytime_events,
    ev,
    kraken_all_treasure,
    kraken_setup,
    skullking_events,
)
from bench.hostile import kraken_log, worst_import
from companion.core import exchange, registry
from companion.core.errors import RuleError
from companion.core.events import effective
from companion.crazytime import rules as ct
from companion.kraken import rules as kr
from companion.skullking import rules as sk

ROLES = ["explorer", "skeleton", "explorer"]


def every_log_replays(kind, setup, events):
    """The check by its definition: every log the game had — the effective log after
    each event — replays from the start. Returns the final state, or the RuleError."""
    rules = {"kraken": kr, "skullking": sk, "crazytime": ct}[kind]
    try:
        for end in range(len(events)):
            rules.replay(setup, effective(events[:end + 1]))
        return rules.replay(setup, effective(events))
    except RuleError as error:
        return type(error)


def folded(kind, setup, events):
    try:
        return exchange._replay_each(kind, setup, events, registry.installed())
    except RuleError as error:
        return type(error)


def base(kind):
    """A whole game of each kind, from the statistics' hand-made games."""
    if kind == "kraken":
        return kraken_setup(ROLES), [ev("marker", seat=1), *kraken_all_treasure()]
    if kind == "skullking":
        return (sk.start([0, 1, 2], {"way": "custom", "rounds": [1, 2]}),
                skullking_events(SK_BIDS, SK_WON))
    return ct.start([0, 1, 2, 3], {}), crazytime_events(CT_MATCHES)


# Moves that may or may not be allowed where they land: the check must agree either way.
NOISE = {
    "kraken": [ev("marker", seat=2), ev("reveal", seat=2, card="empty", special=None),
               ev("reveal", seat=0, card="kraken", special=None)],
    "skullking": [ev("bid", seat=0, round=1, bid=0), ev("reveal_bids", round=1),
                  ev("bid", by=1, seat=1, round=2, bid=2)],
    "crazytime": [ev("penalty", seat=0, reason="wrong_call"), ev("next_match"),
                  ev("learn", seat=1, law=1)],
}


@st.composite
def logs(draw, kind):
    """A log that plays the game's events in order, with undos, redos and now and then a
    stray move between them (each event numbered as the store numbers them)."""
    setup, game = base(kind)
    events = []
    done, undone = [], []  # (event, its place in the game or None for a stray move)
    moves = ["next"] * 10 + ["undo"] * 4 + ["redo"] * 4 + ["noise"]
    for _ in range(draw(st.integers(min_value=0, max_value=80))):
        move = draw(st.sampled_from(moves))
        played = {place for _, place in done}
        ahead = [n for n in range(len(game)) if n not in played]
        if move == "undo" and done:
            undone.append(done.pop())
        elif move == "redo" and undone:
            done.append(undone.pop())
        elif move == "next" and ahead:
            done.append((game[ahead[0]], ahead[0]))
            undone.clear()
        elif move == "noise":
            done.append((draw(st.sampled_from(NOISE[kind])), None))
            undone.clear()
        else:
            continue
        events.append(ev(move) if move in ("undo", "redo") else dict(done[-1][0]))
    for seq, event in enumerate(events, 1):
        event.update(seq=seq, created="2026-01-01T19:00:00Z")
    return setup, events


@pytest.mark.parametrize("kind", ["kraken", "skullking", "crazytime"])
def test_the_one_fold_accepts_and_refuses_exactly_the_logs_whose_every_prefix_replays(
        kind, examples):
    @settings(max_examples=examples(150), deadline=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(data=st.data())
    def one_log(data):
        setup, events = data.draw(logs(kind))
        assert folded(kind, setup, events) == every_log_replays(kind, setup, events)

    one_log()


def test_an_undo_then_the_next_event_is_checked_against_the_log_before_it():
    # marker, reveal Kraken (the game is over), undo, reveal: allowed, the Kraken was
    # taken back; but a reveal after the Kraken without the undo is not.
    setup = kraken_setup(ROLES)
    over = [ev("marker", seat=0), ev("reveal", seat=1, card="kraken", special=None)]
    again = ev("reveal", seat=2, card="empty", special=None)
    numbered = [dict(e, seq=i) for i, e in enumerate([*over, ev("undo"), again], 1)]
    assert folded("kraken", setup, numbered)["revealed"]["empty"] == 1
    assert folded("kraken", setup, [*over, again]) is RuleError


def test_a_long_log_of_moves_and_undos_is_folded_once(monkeypatch):
    """The shape that cost 18 s of CPU: half marker moves, then marker/undo pairs. Each
    event is stepped a bounded number of times (at most the events between kept copies
    again at an undo), not once per log the game had (~n²/4 here)."""
    events = kraken_log(exchange.MAX_EVENTS, "pairs")
    stepped = []
    handler = kr.HANDLERS["marker"]
    monkeypatch.setitem(kr.HANDLERS, "marker",
                        lambda *a: (stepped.append(1), handler(*a)))
    state = exchange._replay_each("kraken", kraken_setup(ROLES), events, registry.installed())
    assert state["marker"] == 4000 % 3  # the last marker move that counts
    assert len(stepped) <= (exchange.CHECKPOINT_EVERY + 2) * len(events)


@pytest.mark.slow  # building the largest file that fits takes a dozen dumps of a megabyte
def test_the_worst_file_within_the_upload_limit_imports():
    raw = worst_import("pairs")
    assert exchange.MAX_BYTES - 2000 < len(raw) <= exchange.MAX_BYTES
    night = exchange.parse_import(raw, registry.installed())
    assert [len(g["events"]) for g in night["games"]][0] == exchange.MAX_EVENTS


BESIDE = """
from gevent import monkey; monkey.patch_all()
import time, gevent
from companion.app import create_app
from companion.core import exchange, registry
from companion.web.offload import beside_the_loop
from companion.core.events import effective
from bench.hostile import worst_import
raw = worst_import("pairs")
ticks = []
def tick():
    while True:
        ticks.append(time.perf_counter()); gevent.sleep(0.01)
app = create_app({"TESTING": True, "DATABASE": ":memory:", "SECRET_KEY": "x"})
with app.test_request_context("/"):
    gevent.spawn(tick); gevent.sleep(0.05)
    start = time.perf_counter()
    beside_the_loop(exchange.parse_import, raw, registry.installed())
    end = time.perf_counter()
during = [t for t in ticks if start < t < end]
print(len(during), end - start)
"""


@pytest.mark.slow  # a fresh interpreter imports gevent and the app
def test_under_gevent_the_check_runs_beside_the_loop_and_other_greenlets_go_on():
    """The server's other requests are greenlets of the same loop: while an upload is
    checked, they keep running (on the loop itself, none ran until the check ended)."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", BESIDE], capture_output=True, text=True,
                         check=True, timeout=120).stdout.split()
    ticks, seconds = int(out[0]), float(out[1])
    assert seconds > 0.1  # long enough to tell
    # On the loop itself no tick runs until the check ends (0 or 1); beside it, the loop
    # ticks on. A twentieth of the ideal count tells the two apart on a loaded box too.
    assert ticks >= max(5, seconds / 0.01 / 20)
