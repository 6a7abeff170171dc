"""A phone's memory over a whole night: `companion serve`, the host's tablet and one
phone in Chromium, through three Skull King games of 20 rounds (60 rounds, each with its
synchronised reveal), the bids on the tablet, the phone following every change.

    .venv/bin/python -m bench.phone_memory [--rounds 20] [--games 3] [--every 10]
                                           [--cpu 1] [--snapshots [DIR]] [--json out.json]

Every ``--every`` rounds, after a garbage collection, the phone's JS heap, DOM nodes,
event listeners and documents (CDP ``Performance.getMetrics``) are read: a page that
keeps what each refresh replaced grows with the night; one that lets it go stays flat.
A night of four hours is about 60 rounds; this one is played as fast as the table's
answers come, so what grows with time alone (timers, samples) is bounded in the code,
and what grows with changes is measured here. Figures, never assertions
(docs/measurements/2026-12-06/README.md, "Slow phones").

With ``--snapshots``, two heap snapshots (CDP ``HeapProfiler``) say *what* grows, which the
heap's size alone cannot: one at the end of the first game (every path has run once, so
V8's feedback is made; its optimised code still grows for some 60 rounds, then stops) and
one at the end of the night, the page showing the same thing both times (a game's end),
so what differs is what the night kept. The report gets the largest growths by bytes
and by count; DIR, if given, keeps the two raw snapshots for DevTools' Memory panel (its
Comparison view, its retainers).
Two of Blink's groups grow only because the bench watches: ``XHRReplayData`` and
``NetworkResourcesData`` are DevTools' copy of each request, kept while Playwright
listens to the network; a phone at the table has none.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.browsing import CHROMIUM, CHROMIUM_ARGS, WAIT, claim, create_night, seat_link, start_game
from bench.servers import free_port
from bench.wifi import machine, metrics, serve

NAMES = ["Mina", "Jo", "Sun", "Ann", "Lee"]

#: The nodes in the page's document now (elements, text, comments): what it shows. The
#: metrics' ``nodes`` less these are nodes kept that the page no longer shows.
IN_PAGE = """() => { let n = 1; const w = document.createTreeWalker(document, NodeFilter.SHOW_ALL);
  while (w.nextNode()) { n += 1; } return n; }"""

SHOWN = """() => { const el = document.getElementById('live');
  const m = el && /[?&]v=(-?\\d+)/.exec(el.getAttribute('hx-get') || '');
  return m ? Number(m[1]) : -1; }"""


#: Kinds of node whose name is their content (a string's text, a number's value): counted
#: as one group each, as DevTools' Summary does, or every string would be its own group.
BY_TYPE_ONLY = {"string", "concatenated string", "sliced string", "number", "heap number",
                "bigint", "symbol"}


def heap_snapshot(session: Any) -> str:
    """A heap snapshot of the page, after a garbage collection, as the .heapsnapshot text.

    The snapshot comes as ``addHeapSnapshotChunk`` events before ``takeHeapSnapshot``
    answers; without progress reports, those chunks are all the events there are."""
    chunks: list[str] = []

    def add(event: dict[str, Any]) -> None:
        chunks.append(event["chunk"])

    session.on("HeapProfiler.addHeapSnapshotChunk", add)
    try:
        session.send("HeapProfiler.collectGarbage")
        session.send("HeapProfiler.takeHeapSnapshot", {"reportProgress": False})
    finally:
        session.remove_listener("HeapProfiler.addHeapSnapshotChunk", add)
    return "".join(chunks)


def heap_groups(text: str) -> dict[str, list[int]]:
    """Count and self size of a snapshot's nodes, by kind and name: ``"object Foo"`` is
    every object made by ``Foo``, ``"closure landed"`` every function ``landed``; a DOM
    object that is out of the document says ``Detached``. Self sizes only: a retained
    size needs the whole graph's dominators, and a growth shows in its own groups too."""
    data = json.loads(text)
    meta = data["snapshot"]["meta"]
    fields: list[str] = meta["node_fields"]
    types: list[str] = meta["node_types"][0]
    strings: list[str] = data["strings"]
    nodes: list[int] = data["nodes"]
    at = {name: fields.index(name) for name in ("type", "name", "self_size")}
    detached = fields.index("detachedness") if "detachedness" in fields else None
    groups: dict[str, list[int]] = {}
    for i in range(0, len(nodes), len(fields)):
        kind = types[nodes[i + at["type"]]]
        name = "" if kind in BY_TYPE_ONLY else strings[nodes[i + at["name"]]][:80]
        if detached is not None and nodes[i + detached] == 2:
            name = "Detached " + name
        group = groups.setdefault(f"{kind} {name}".rstrip(), [0, 0])
        group[0] += 1
        group[1] += nodes[i + at["self_size"]]
    return groups


def heap_growth(before: dict[str, list[int]], after: dict[str, list[int]],
                top: int = 25) -> dict[str, Any]:
    """The groups that grew most between two snapshots, by bytes and by count."""
    rows = [{"group": g, "count": [before.get(g, [0, 0])[0], after.get(g, [0, 0])[0]],
             "bytes": [before.get(g, [0, 0])[1], after.get(g, [0, 0])[1]]}
            for g in before.keys() | after.keys()]

    # Blink's own C++ objects (the DOM, styles, performance entries) are "native" nodes
    # not named "system / ...": the metrics' heap_mb leaves them out; the rest is V8's.
    def total(groups: dict[str, list[int]], blink: bool) -> int:
        return sum(v[1] for g, v in groups.items()
                   if (g.startswith("native ") and not g.startswith("native system /")) == blink)

    return {"v8_bytes": [total(before, False), total(after, False)],
            "blink_bytes": [total(before, True), total(after, True)],
            "by_bytes": sorted((r for r in rows if r["bytes"][1] > r["bytes"][0]),
                               key=lambda r: r["bytes"][0] - r["bytes"][1])[:top],
            "by_count": sorted((r for r in rows if r["count"][1] > r["count"][0]),
                               key=lambda r: r["count"][0] - r["count"][1])[:top]}


def caught_up(host: Any, phone: Any) -> None:
    """Wait until the phone shows the version the host shows."""
    version = host.evaluate(SHOWN)
    phone.wait_for_function(f"() => ({SHOWN})() >= {version}", timeout=WAIT)


def play_round(host: Any, players: int) -> None:
    """One round of one card on the tablet: the first player bids 1 and takes the trick,
    the others bid 0; Yo-ho-ho, the count, the score."""
    for seat in range(players):
        form = f"form.sk-bid-form[data-seat='{seat}']"
        host.locator(f"{form} button[name=bid][value='{1 if seat == 0 else 0}']").click()
        host.locator(f"{form} .done").wait_for(timeout=WAIT)
    host.locator(".sk-yoho").click()
    moment = host.locator("[data-reveal-at]").get_attribute("data-reveal-at", timeout=WAIT)
    host.wait_for_function(
        "m => document.documentElement.dataset.revealDone === m || "
        "!document.querySelector('[data-reveal-at]')", arg=moment, timeout=WAIT)
    host.locator(".sk-score-btn").click()


def run(rounds: int, games: int, every: int, cpu: float,
        snapshots: str | None = None) -> dict[str, Any]:
    """The night; ``snapshots`` (a folder, or "" for none kept) adds the heap's growth."""
    from playwright.sync_api import sync_playwright

    snapshot_at = {rounds if games > 1 else min(every, rounds), rounds * games}
    taken: list[tuple[int, str]] = []

    report: dict[str, Any] = {"machine_at_start": machine(), "rounds": rounds,
                              "games": games, "phone_cpu": cpu, "samples": []}
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as p:
        port = free_port()
        server = serve(str(Path(folder) / "memory.sqlite"), port, None)
        browser = p.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_ARGS))
        try:
            host = browser.new_context(locale="en-US",
                                       viewport={"width": 768, "height": 1024}).new_page()
            night_url = create_night(host, f"http://127.0.0.1:{port}", NAMES)
            context = browser.new_context(locale="en-US",
                                          viewport={"width": 390, "height": 844})
            phone = context.new_page()
            session = context.new_cdp_session(phone)
            session.send("Performance.enable")
            if cpu != 1:
                session.send("Emulation.setCPUThrottlingRate", {"rate": cpu})
            phone.goto(seat_link(host, 0))
            claim(phone)
            phone.wait_for_function("() => document.documentElement.dataset.push === 'open'",
                                    timeout=WAIT)
            started = time.monotonic()
            played = 0
            for _ in range(games):
                start_game(host, night_url, way="custom", rounds=",".join(["1"] * rounds))
                caught_up(host, phone)
                if played == 0:
                    report["samples"].append({"rounds": 0, "seconds": 0, **metrics(session),
                                              "in_page": phone.evaluate(IN_PAGE)})
                for _ in range(rounds):
                    play_round(host, len(NAMES))
                    played += 1
                    if played % every == 0:
                        caught_up(host, phone)
                        report["samples"].append({
                            "rounds": played, "seconds": round(time.monotonic() - started),
                            **metrics(session), "in_page": phone.evaluate(IN_PAGE)})
                        print(json.dumps(report["samples"][-1]), flush=True)
                    if snapshots is not None and played in snapshot_at:
                        caught_up(host, phone)
                        taken.append((played, heap_snapshot(session)))
        finally:
            browser.close()
            server.kill()
            server.wait(10)
    report["machine_at_end"] = machine()
    if len(taken) == 2:
        (first, before), (last, after) = taken
        report["heap_growth"] = {"rounds": [first, last],
                                 **heap_growth(heap_groups(before), heap_groups(after))}
        if snapshots:
            Path(snapshots).mkdir(parents=True, exist_ok=True)
            for played, text in taken:
                Path(snapshots, f"phone-round-{played}.heapsnapshot").write_text(text)
    return report


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20, help="rounds a game (1 to 20)")
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("--cpu", type=float, default=1)
    parser.add_argument("--snapshots", nargs="?", const="", metavar="DIR",
                        help="add what grows between two heap snapshots (keep them in DIR)")
    parser.add_argument("--json", help="write the report here")
    args = parser.parse_args(argv)
    if not 1 <= args.rounds <= 20:
        parser.error("a custom Skull King game has 1 to 20 rounds")
    report = run(args.rounds, args.games, args.every, args.cpu, args.snapshots)
    print("speed sample (cpu_ms, lower is faster):", report["machine_at_start"]["cpu_ms"],
          "at the start,", report["machine_at_end"]["cpu_ms"], "at the end")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
