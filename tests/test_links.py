"""The simulated Wi-Fi links of the tests and the bench (bench/links.py): every byte
arrives, in order, both ways, through every profile; a link's schedule holds each chunk
for its delay and its stalls. Timings are never asserted: the schedule is checked as the
pure function it is, the proxy by the bytes it carries."""

import socket
import threading

import pytest

from bench.links import PROFILES, Links, Pacer


@pytest.fixture
def echo():
    """A server on loopback that sends back whatever it gets, upper-cased."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve(conn):
        with conn:
            while data := conn.recv(4096):
                conn.sendall(data.upper())

    def accept():
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    yield listener.getsockname()[1]
    listener.close()


def talk(port, messages):
    """Send each message as its own chunk, then read until every byte came back."""
    with socket.create_connection(("127.0.0.1", port), timeout=20) as conn:
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for message in messages:
            conn.sendall(message)
        want = sum(len(m) for m in messages)
        got = b""
        while len(got) < want:
            part = conn.recv(65536)
            assert part, "the link closed early"
            got += part
        return got


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_every_byte_arrives_in_order_both_ways(echo, profile):
    messages = [f"chunk {i:03d};".encode() for i in range(60)]
    with Links(echo, [profile], seed=3) as links:
        assert talk(links.ports[0], messages) == b"".join(messages).upper()


def test_each_browser_has_its_own_link_and_each_connection_keeps_its_order(echo):
    with Links(echo, ["cafe", "bad", "home"], seed=5) as links:
        assert len(set(links.ports)) == 3
        results = {}

        def run(i, port):
            results[i] = talk(port, [f"{i}:{n};".encode() for n in range(25)])

        threads = [threading.Thread(target=run, args=(i, links.ports[i % 3]))
                   for i in range(6)]  # two connections a link, at once
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert results == {i: "".join(f"{i}:{n};" for n in range(25)).encode()
                           for i in range(6)}


def test_a_large_answer_comes_whole(echo):
    big = bytes(range(256)) * 2000  # 512 KB: many chunks, more than the queue holds
    with Links(echo, ["home"], seed=2) as links:
        assert talk(links.ports[0], [big]) == big.upper()


def test_the_schedule_keeps_order_and_holds_each_chunk_its_delay():
    for name, profile in PROFILES.items():
        pacer = Pacer(profile, seed=7)
        low = max(0.0, profile.delay_ms + profile.jitter_ms[0]) / 1000
        last, now = 0.0, 100.0
        for _ in range(5000):
            due = pacer.due(now, last)
            assert due >= last and due >= now + low - 1e-9, name
            assert due >= pacer.stalled_until  # nothing overtakes a stall
            if name == "none":
                assert due == now
            last, now = due, now + 0.002


def test_stalls_come_about_as_often_and_as_long_as_the_profile_says():
    profile = PROFILES["cafe"]
    pacer = Pacer(profile, seed=11)
    starts, now = [], 0.0
    for _ in range(20000):
        before = pacer.stalled_until
        pacer.due(now, 0.0)
        if pacer.stalled_until != before:
            starts.append(pacer.stalled_until - now)
        now += 0.05
    per_chunk = len(starts) / 20000
    assert 0.5 * profile.stall_chance < per_chunk < 1.5 * profile.stall_chance
    low, high = profile.stall_ms
    assert all(low / 1000 - 1e-9 <= s <= high / 1000 + 1e-9 for s in starts)


def test_a_link_reaches_only_loopback():
    with pytest.raises(ValueError):
        Links(80, ["home"], target_host="192.168.0.12")
    with Links(9, ["none"]) as links:
        sock = socket.socket()
        with pytest.raises(OSError):  # it listens on 127.0.0.1 only
            sock.connect(("127.0.0.2", links.ports[0]))
        sock.close()
