"""Simulated Wi-Fi for the tests and the bench: each browser gets a link of its own to
the server, a TCP proxy on loopback that holds every chunk it carries for a one-way delay
with jitter, now and then stalls (a burst: the link is quiet for a few hundred ms, and
what is sent meanwhile comes after), and keeps the order of the bytes in each direction,
as TCP does over a real link.

    .venv/bin/python -m bench.links --target 8765 [--seed 1] home cafe cafe bad

prints one line of JSON, ``{"ports": [...]}`` (one listening port a link, in the order
given), then carries until its standard input closes or it is stopped. In a test:
``with Links(port, ["home", "cafe"]) as links: links.url(0)``.

A "chunk" is what one read of the socket gives (up to 64 KB): a request, an answer, an
event of a stream. Stalls are the link's, not a connection's: every connection of that
browser, both ways, waits them out. Each link draws from its own ``random.Random`` seeded
from ``seed`` and its place, so a run can be repeated. Only loopback: the proxy listens on
127.0.0.1 and connects only to a loopback address. Bounded: at most ``QUEUE`` chunks wait
in each direction of a connection (the proxy stops reading until they are delivered).
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import random
import sys
import threading
from dataclasses import dataclass
from typing import Any

READ = 65536
QUEUE = 64


@dataclass(frozen=True)
class Profile:
    """A kind of link: each chunk waits ``delay_ms`` plus a uniform draw in ``jitter_ms``
    (never below 0); a chunk starts a stall of the link with chance ``stall_chance``,
    its length a uniform draw in ``stall_ms``."""

    name: str
    delay_ms: float = 0.0
    jitter_ms: tuple[float, float] = (0.0, 0.0)
    stall_chance: float = 0.0
    stall_ms: tuple[float, float] = (0.0, 0.0)


PROFILES = {p.name: p for p in (
    Profile("none"),
    # Home Wi-Fi: a few ms of air, the access point's queue, now and then a retry burst.
    Profile("home", 10, (0, 40), 0.01, (150, 600)),
    # A busy café's Wi-Fi: more contention, longer and more frequent bursts.
    Profile("cafe", 25, (0, 120), 0.03, (200, 800)),
    # A bad phone: far from the access point, in power save.
    Profile("bad", 150, (-100, 100), 0.05, (200, 1500)),
)}


class Pacer:
    """When each chunk of one link is delivered (the link's clock, seconds): its delay,
    its jitter and the link's stalls, drawn from one seeded generator."""

    def __init__(self, profile: Profile, seed: int) -> None:
        self.profile = profile
        self.rng = random.Random(seed)
        self.stalled_until = 0.0

    def due(self, now: float, last: float) -> float:
        """When a chunk read at ``now`` is delivered: after its one-way delay, after the
        link's stall (one it may start itself), and never before the chunk sent before it
        in the same direction (``last``)."""
        p = self.profile
        if p.stall_chance and now >= self.stalled_until and self.rng.random() < p.stall_chance:
            self.stalled_until = now + self.rng.uniform(*p.stall_ms) / 1000
        one_way = max(0.0, p.delay_ms + self.rng.uniform(*p.jitter_ms)) / 1000
        return max(last, now + one_way, self.stalled_until)


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                pacer: Pacer) -> None:
    """Carry one direction of a connection: read chunks as they come, deliver each at its
    time, in order."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[float, bytes] | None] = asyncio.Queue(QUEUE)

    async def read() -> None:
        last = 0.0
        try:
            while chunk := await reader.read(READ):
                last = pacer.due(loop.time(), last)
                await queue.put((last, chunk))
        except OSError:
            pass
        await queue.put(None)

    reading = asyncio.create_task(read())
    try:
        while (item := await queue.get()) is not None:
            due, chunk = item
            if (wait := due - loop.time()) > 0:
                await asyncio.sleep(wait)
            writer.write(chunk)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
    except OSError:
        pass
    finally:
        reading.cancel()


class Links:
    """Links to ``target_port`` on loopback, one a profile named in ``profiles``, served
    by an event loop in a thread of their own; a context manager. ``ports[i]`` is link
    i's listening port."""

    def __init__(self, target_port: int, profiles: list[str], seed: int = 1,
                 target_host: str = "127.0.0.1") -> None:
        if not ipaddress.ip_address(target_host).is_loopback:
            raise ValueError("links connect only to a loopback address")
        self.target = (target_host, target_port)
        self.pacers = [Pacer(PROFILES[name], seed * 1000 + i)
                       for i, name in enumerate(profiles)]
        self.ports: list[int] = []
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.servers: list[asyncio.Server] = []
        self.writers: set[asyncio.StreamWriter] = set()

    def url(self, i: int) -> str:
        return f"http://127.0.0.1:{self.ports[i]}"

    async def _carry(self, pacer: Pacer, down: asyncio.StreamReader,
                     back: asyncio.StreamWriter) -> None:
        try:
            up, there = await asyncio.open_connection(*self.target)
        except OSError:
            back.close()
            return
        self.writers |= {back, there}
        try:
            await asyncio.gather(_pump(down, there, pacer), _pump(up, back, pacer))
        except asyncio.CancelledError:
            pass  # the links are closing (a cancelled handler is logged as an error)
        finally:
            for w in (back, there):
                w.close()
                self.writers.discard(w)

    async def _open(self) -> None:
        for pacer in self.pacers:
            def handler(r: asyncio.StreamReader, w: asyncio.StreamWriter,
                        pacer: Pacer = pacer) -> Any:
                return self._carry(pacer, r, w)
            server = await asyncio.start_server(handler, "127.0.0.1", 0)
            self.servers.append(server)
            self.ports.append(server.sockets[0].getsockname()[1])

    async def _close(self) -> None:
        for server in self.servers:
            server.close()
        for w in list(self.writers):
            w.close()
        carrying = asyncio.all_tasks() - {asyncio.current_task()}
        for task in carrying:
            task.cancel()
        await asyncio.gather(*carrying, return_exceptions=True)
        for server in self.servers:
            await server.wait_closed()

    def __enter__(self) -> Links:
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self._open(), self.loop).result(10)
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self._close(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", type=int, required=True, help="the server's port")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("profiles", nargs="+", choices=sorted(PROFILES))
    args = parser.parse_args(argv)
    with Links(args.target, args.profiles, args.seed) as links:
        print(json.dumps({"ports": links.ports}), flush=True)
        sys.stdin.read()  # until the bench closes our input, or stops us


if __name__ == "__main__":
    main()
