"""No device on the Wi-Fi can use up the server's connections (companion/serving/connections.py,
docs/security.md#connections): a request's head must arrive within its deadline, the
process raises its open-files limit, and a stream that is written to stays open.
Against `companion serve` itself, as the host runs it, and the café's workers; the head's
deadline (10 s at a table) is HEAD here, so that each test waits it out in seconds.
The tests that start a server are marked slow (the second stage of the README's
command): each waits out real deadlines, holding one of the quick loop's workers."""

import os
import resource
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from bench.devices import create_night
from bench.servers import answers, free_port
from companion.serving import connections
from tests.over_http import CAFE, Gunicorn, ServerProcess

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX limits")

#: The head's deadline and each read's and write's timeout in these tests (seconds): a
#: byte every quarter second comes well within it.
HEAD = 2.0
SHORT = {"COMPANION_REQUEST_HEAD_SECONDS": str(HEAD)}


def closed_after(sock, most):
    """Seconds until the server closed ``sock`` (its answer, if any, read and dropped)."""
    start = time.monotonic()
    sock.settimeout(most)
    try:
        while sock.recv(4096):
            pass
    except TimeoutError:
        return None
    return time.monotonic() - start


@pytest.mark.slow
def test_a_connection_that_sends_nothing_is_closed(server_process):
    server_process.env.update(SHORT)
    server_process.start()
    with socket.create_connection(("127.0.0.1", server_process.port)) as idle:
        waited = closed_after(idle, HEAD + 5)
    assert waited is not None, "still open"
    assert waited >= HEAD - 1


@pytest.mark.slow
def test_the_cafes_workers_close_a_silent_connection_at_the_same_deadline(tmp_path):
    """The café's worker (companion/serving/cafe.py) holds its connections as `companion serve`
    does, from the same setting."""
    server = Gunicorn(str(tmp_path / "cafe.sqlite"), workers=1, options=CAFE, env=SHORT)
    try:
        with socket.create_connection(("127.0.0.1", server.port)) as idle:
            waited = closed_after(idle, HEAD + 5)
    finally:
        server.stop()
    assert waited is not None, "still open"
    assert waited >= HEAD - 1


def test_the_deadline_is_ten_seconds_unless_the_app_says_otherwise():
    class Server:
        application = type("App", (), {"config": {}})()

    assert connections.read_seconds(Server()) == connections.READ_SECONDS == 10.0
    Server.application.config["REQUEST_HEAD_SECONDS"] = 2
    assert connections.read_seconds(Server()) == 2.0


@pytest.mark.slow
def test_a_head_sent_a_byte_at_a_time_is_closed_by_its_deadline(server_process):
    """The request line comes at once, then the headers a byte at a time, each well
    within the read timeout: only the head's own deadline ends it. The server answers 400
    and closes. (A deadline that falls within the request line closes unanswered.)"""
    server_process.env.update(SHORT)
    server_process.start()
    head = b"Host: 127.0.0.1\r\nX-Slow: " + b"a" * 100
    with socket.create_connection(("127.0.0.1", server_process.port)) as slow:
        start = time.monotonic()
        slow.sendall(b"GET / HTTP/1.1\r\n")
        answer = b""
        slow.settimeout(0.1)
        for byte in head:
            try:
                slow.sendall(bytes([byte]))
            except OSError:
                break
            try:
                answer += slow.recv(4096)
            except TimeoutError:
                pass
            if answer or time.monotonic() - start > HEAD + 5:
                break
            time.sleep(0.15)
        took = time.monotonic() - start
    assert answer.startswith(b"HTTP/1.1 400")
    assert HEAD - 1 <= took <= HEAD + 3


@pytest.mark.slow
def test_an_open_stream_outlives_the_read_timeout(tmp_path):
    """A stream is written to (its heartbeats) and never read from: it stays open past
    the read timeout and keeps its heartbeats coming."""
    server = ServerProcess(database=str(tmp_path / "s.sqlite"),
                           env={"COMPANION_PUSH_HEARTBEAT": "1", **SHORT})
    server.start()
    try:
        host, key, _ = create_night(server.url)
        request = urllib.request.Request(f"{server.url}/n/{key}/stream")
        stream = host.opener.open(request, timeout=5)
        start, frames = time.monotonic(), []
        while time.monotonic() - start < HEAD + 4:
            frames.append(stream.readline())
        assert frames.count(b"event: alive\n") >= 4
        stream.close()
    finally:
        server.kill()


@pytest.mark.slow
def test_serve_raises_its_open_files_limit_to_the_hard_limit(tmp_path):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard <= 1024:
        pytest.skip("this machine's hard limit cannot show a raise")
    port = free_port()

    def low_soft_limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (1024, hard))

    process = subprocess.Popen(
        [sys.executable, "-m", "companion", "serve", "--host", "127.0.0.1", "--port",
         str(port), "--quiet", "--data", str(tmp_path)],
        preexec_fn=low_soft_limit, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        env={**os.environ, "COMPANION_SECRET_KEY": "limits"})
    try:
        assert answers(f"http://127.0.0.1:{port}/")
        limits = open(f"/proc/{process.pid}/limits").read()
        line = next(x for x in limits.splitlines() if x.startswith("Max open files"))
        assert line.split()[3:5] == [str(hard), str(hard)]
    finally:
        process.kill()
        process.wait()


def test_a_low_hard_limit_is_told_to_the_host_with_what_to_do():
    note = connections.open_files_note((256, 256))
    assert "256" in note and "ulimit -n 4096" in note
    assert connections.open_files_note((connections.LOW_OPEN_FILES, 1 << 20)) is None
    assert connections.open_files_note(None) is None


@pytest.mark.slow
def test_a_thousand_idle_connections_leave_another_tables_phone_its_page(server_process):
    """1,100 connections from one client that never finish a request, with the server
    started at a soft limit of 1,024 open files: another device still gets its page
    (the figure, with its time, is bench/hostile.py's; docs/security.md). The client
    is at 127.0.0.2: all but PER_ADDRESS of its connections are closed at once."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 2400:
        pytest.skip("the client and the server need 2,400 open files here")
    resource.setrlimit(resource.RLIMIT_NOFILE, (1024, hard))  # the server starts there
    try:
        server_process.start()
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
    idle = []
    try:
        for n in range(1100):
            sock = from_address("127.0.0.2", server_process.port)
            if n % 2:
                try:
                    sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
                except OSError:
                    pass  # closed by the server already
            idle.append(sock)
        page = urllib.request.urlopen(server_process.url + "/", timeout=5)
        assert page.status == 200 and b"<html" in page.read()
    finally:
        for sock in idle:
            sock.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def from_address(address, port):
    """A connection to the server from another client address of the loopback range."""
    sock = socket.socket()
    sock.bind((address, 0))
    sock.connect(("127.0.0.1", port))
    return sock


def answer_to(raw, port, wait=5):
    """The server's answer (its status line and headers) to the bytes ``raw``."""
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.settimeout(wait)
        sock.sendall(raw)
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = sock.recv(4096)
            if not chunk:
                break
            answer += chunk
        return answer


@pytest.mark.slow
def test_a_chunked_body_is_refused_with_411_before_it_is_read(server_process):
    """Browsers never send one; gevent would read it on the loop a chunk at a time."""
    server_process.start()
    answer = answer_to(b"POST /lang HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                       + b"1\r\na\r\n" * 1000, server_process.port)
    assert answer.startswith(b"HTTP/1.1 411 ")


@pytest.mark.slow
def test_a_head_gevent_cannot_take_is_a_400_and_no_line_in_the_hosts_terminal(server_process):
    server_process.start()
    many = b"".join(b"X-%d: 1\r\n" % i for i in range(120))
    for raw in (b"GET / HTTP/1.1\r\nHost: x\r\n" + many + b"\r\n",
                b"POST /lang HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
                b"POST /lang HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n"):
        assert answer_to(raw, server_process.port).startswith(b"HTTP/1.1 400 ")
    server_process.process.terminate()
    _, err = server_process.process.communicate(timeout=10)
    assert b"Traceback" not in err and b"Invalid" not in err and b"headers" not in err


@pytest.mark.slow
def test_a_body_that_trickles_is_answered_408_at_its_deadline(tmp_path):
    """Each byte comes well within the read timeout: only the body's own deadline (set to
    3 s here) ends it."""
    server = ServerProcess(database=str(tmp_path / "s.sqlite"),
                           env={"COMPANION_REQUEST_BODY_SECONDS": "3"})
    server.start()
    try:
        with socket.create_connection(("127.0.0.1", server.port)) as slow:
            slow.sendall(b"POST /lang HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n"
                         b"Content-Type: application/x-www-form-urlencoded\r\n\r\n")
            slow.settimeout(0.5)
            start, answer = time.monotonic(), b""
            while not answer and time.monotonic() - start < 15:
                try:
                    slow.sendall(b"a")
                    answer = slow.recv(4096)
                except TimeoutError:
                    pass
                except OSError:
                    break
            took = time.monotonic() - start
        assert answer.startswith(b"HTTP/1.1 408 ")
        assert took >= 2  # not before its deadline (3 s here); the answer says why it ended
    finally:
        server.kill()


@pytest.mark.slow
def test_a_whole_body_in_time_reaches_the_app(server_process):
    """The body read ahead is the one the app reads: a language chosen by a form."""
    server_process.start()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    page = opener.open(server_process.url + "/", timeout=5).read().decode()
    token = page.split('name="csrf_token" value="')[1].split('"')[0]
    body = f"csrf_token={token}&lang=en&next=/".encode()
    answer = opener.open(urllib.request.Request(server_process.url + "/lang", data=body),
                         timeout=5)
    assert answer.status == 200 and 'lang="en"' in answer.read().decode()


@pytest.mark.slow
def test_one_address_holds_at_most_its_share_of_connections(server_process):
    """Past PER_ADDRESS, a client address's connections are closed unanswered, and another
    address's page still comes."""
    server_process.start()
    held = [from_address("127.0.0.2", server_process.port)
            for _ in range(connections.PER_ADDRESS + 6)]
    try:
        time.sleep(0.5)
        closed = 0
        for sock in held:
            sock.settimeout(0.05)
            try:
                closed += sock.recv(10) == b""
            except TimeoutError:
                pass
        assert closed == 6
        page = urllib.request.urlopen(server_process.url + "/", timeout=5)
        assert page.status == 200
    finally:
        for sock in held:
            sock.close()
