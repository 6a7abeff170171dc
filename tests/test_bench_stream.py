"""The load bench reads a live-push stream as the server frames it (bench/scenario.py,
``take_frames``, against companion/live/streams.py): a bench whose phones miss the
"changed" frames never refreshes at a write, and measures no fragment and no
write→visible at all."""

import asyncio

from bench.builders import make_night
from bench.scenario import Run, Screen, event_data, take_frames
from companion import store
from companion.app import create_app
from companion.store import connection as db
from companion.store import log


def test_a_frame_s_number_is_read_whatever_fields_come_between():
    chunk = (b"retry: 1000\nevent: spread\ndata: 40\n\n"
             b"event: changed\nid: 1796541365273\ndata: 11\n\n"
             b"event: changed\ndata: 12\n\nevent: alive\ndata: \n\n")
    assert event_data(chunk, "changed") == [11, 12]
    assert event_data(chunk, "spread") == [40]
    assert event_data(chunk, "alive") == event_data(chunk, "busy") == []


def test_the_bench_s_phone_wakes_at_a_change_as_the_server_streams_it(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "bench.sqlite"), "SECRET_KEY": "bench",
                      "WTF_CSRF_ENABLED": False, "LIVE_PUSH": True, "PUSH_TICK": 0.01,
                      "PUSH_HEARTBEAT": 0.2, "PUSH_STREAM_SECONDS": 3})
    night = make_night(app, ["A", "B", "C"])
    phone = night.phone(0)
    phone.get("/me")
    with app.app_context():
        night_id = store.night_by_key(night.key)["id"]
        version = store.night(night_id)["version"]
    screen = Screen(Run(), None, "/me/live", version)  # a phone showing the night now
    wake = asyncio.Event()
    answer = phone.get(f"/me/stream?v={version}", buffered=False)
    try:
        frames = iter(answer.response)
        take_frames(next(frames), wake, screen)  # its opening: the retry and the spread
        assert screen.streaming and screen.retry_ms == 1000 and not wake.is_set()
        with app.app_context():
            conn = db.get_db()
            with db.write(conn):
                log.bump(conn, night_id)
        for chunk in frames:  # until the change (or the stream's end, 3 s)
            take_frames(chunk, wake, screen)
            if b"changed" in chunk:
                break
        assert wake.is_set()
    finally:
        answer.close()
