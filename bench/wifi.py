"""A night on real Wi-Fi: `companion serve`, the host's screen and five phones in Chromium,
each behind a link of its own (bench/links.py), through Skull King rounds with the
synchronised reveal ("Yo-ho-ho!").

    .venv/bin/python -m bench.wifi [--profiles home,cafe,none] [--cpu 1,4,6] [--rounds 3]
                                   [--trace] [--json out.json]

Profiles: ``home`` (every screen on home Wi-Fi), ``cafe`` (café Wi-Fi, and the fifth phone
a bad one: ``bad`` in bench/links.py), ``none`` (no delay: the walk's own floor). Each
profile is a night of its own on a fresh server. Phones' wall clocks are set seconds off,
as in tests/test_reveal_browser.py: only their difference from the laptop's counts.

``--cpu`` slows every phone's main thread by each factor in turn (Chrome's own CPU
throttling, CDP ``Emulation.setCPUThrottlingRate``: 4 is DevTools' "mid-tier mobile", 6
an old phone), the host's laptop left at full speed; each factor is a night of each
profile. Every phone's page times each front-end step (the steps static/js/core.js
runs, as "step …" measures: the bench's init script wraps ``Companion.on``) and each
refresh, from its request to its settled swap; with ``--trace`` the last phone's main
thread is traced through the rounds (the Performance panel's trace, through CDP) and its
top costs summed by kind and by script function.

Every page records, in true time (``performance.timeOrigin + performance.now()``, which a
wrong wall clock leaves alone), when its live region first showed each version, when
each write's answer came and the version it made, when a reveal's moment arrived, when
its bids first became visible, and every "can't reach the table" it put up. After each
reveal the bench reads each screen's flip (``data-reveal-flipped``). It prints, and
writes as JSON, per profile:

- the reveal's flip spread (every screen, host included), and the flips before the moment;
- write→visible: from a write's answer on the screen that made it until each other
  screen shows its version (p50, p95, max);
- false "can't reach the table" marks (the laptop never goes away here);
- bids visible before a screen's count ended (must be 0);
- screens left behind: not showing a write's version 5 s after its answer;
- screens whose reveal came with less than 500 ms to spare (or after the moment).

Timings here are figures, never assertions (tests/test_wifi_bench.py runs it tiny and
checks only its shape). The machine's speed sample (bench/machine.py's ``cpu_ms``) and its
load average are in the report.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.browsing import (
    CHROMIUM,
    CHROMIUM_ARGS,
    SKEW,
    WAIT,
    claim,
    create_night,
    seat_link,
    start_game,
    trick_chip,
)
from bench.machine import cpu_ms  # the bench's speed sample (lower is faster)
from bench.servers import STARTS_WITHIN_S, answers, free_port

NAMES = ["Mina", "Jo", "Sun", "Ann", "Lee"]
SKEWS = [0, 7000, -5000, 2500, -1200]
#: Each profile: the host's link, then each phone's.
SETUPS = {"home": ["home"] * 6, "cafe": ["cafe"] * 5 + ["bad"], "none": ["none"] * 6}
SPARE_MS = 500
BEHIND_MS = 5000

#: In every page: a record of what the page showed and when, in true time.
RECORD = """(() => {
  const now = () => performance.timeOrigin + performance.now();
  const rec = window.__wifi = {seen: {}, offline: 0, why: [], writes: [], reveals: {},
                               bids: []};
  let marked = false, bidsOn = false;
  function shown() {
    const el = document.getElementById('live');
    const m = el && /[?&]v=(-?\\d+)/.exec(el.getAttribute('hx-get') || '');
    return m ? Number(m[1]) : -1;
  }
  function look() {
    const t = now();
    const v = shown();
    if (v >= 0 && !(v in rec.seen)) { rec.seen[v] = t; }
    const el = document.querySelector('[data-offline-mark]');
    const mark = !!el;
    if (mark && !marked) { rec.offline += 1; rec.why.push(el.dataset.offlineMark); }
    marked = mark;
    const at = document.querySelector('[data-reveal-at]');
    if (at && !(at.dataset.revealAt in rec.reveals)) {
      rec.reveals[at.dataset.revealAt] = {arrived: t};
    }
    // visible: drawn, and not held by the count (static/app.css hides [data-reveal-hold]
    // under html[data-revealing]); read from the attributes, not the computed style,
    // which would make every mutation a style recalculation on a slowed phone
    const bids = document.querySelector('.sk-bids');
    const on = !!bids && !document.documentElement.hasAttribute('data-revealing') &&
      !bids.closest('[hidden]');
    if (on && !bidsOn) { rec.bids.push(t); }
    bidsOn = on;
  }
  // the main thread's long tasks (a phone's busy stretches), for the flips' figures
  rec.long = [];
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) { rec.long.push([e.startTime, e.duration]); }
    }).observe({type: 'longtask', buffered: true});
  } catch (e) { /* a browser without long tasks: none recorded */ }
  new MutationObserver(look).observe(document, {subtree: true, childList: true,
                                                 attributes: true});
  document.addEventListener('htmx:afterRequest', (e) => {
    const verb = ((e.detail.requestConfig || {}).verb || '').toLowerCase();
    if (verb === 'get' || !e.detail.xhr) { return; }
    const m = /id="live"[^>]*hx-get="[^"]*[?]v=(\\d+)"/.exec(e.detail.xhr.responseText || '');
    if (m) {
      const path = ((e.detail.requestConfig || {}).path || '').split('?')[0];
      rec.writes.push({t: now(), v: Number(m[1]), what: path.split('/').slice(-1)[0]});
    }
  });
})();"""

FLIP = """(moment) => { const d = document.documentElement.dataset;
  const t0 = performance.timeOrigin;
  const flipped = Number(d.revealFlipped);
  // what held the main thread in the count's last second, until the flip: the long
  // tasks (50 ms or more) and the front-end steps (static/js/core.js) that ran then
  const from = moment - 1000, to = Math.max(moment, flipped || 0);
  const near = (start, ms) => t0 + start + ms >= from && t0 + start <= to;
  const busy = [];
  for (const [start, ms] of (window.__wifi.long || [])) {
    if (near(start, ms)) { busy.push(['task', Math.round(t0 + start - moment), Math.round(ms)]); }
  }
  for (const m of performance.getEntriesByType('measure')) {
    if (m.name.startsWith('step ') && m.duration >= 5 && near(m.startTime, m.duration)) {
      busy.push([m.name.slice(5), Math.round(t0 + m.startTime - moment), Math.round(m.duration)]);
    }
  }
  return {flipped: flipped, done: d.revealDone || null,
          late: Number(d.revealLate), rtt: Number(d.clockRtt),
          samples: Number(d.clockSamples), busy: busy}; }"""


def percentile(values: list[float], q: float) -> float | None:
    """The q-th percentile (nearest rank) of ``values``, or None for none."""
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))], 1)


def serve(database: str, port: int, checkout: str | None) -> subprocess.Popen[bytes]:
    """`companion serve` on loopback, as a host runs it, once it answers; from another
    ``checkout`` of the repository when one is given (its app, templates and static
    files)."""
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "COMPANION_DATABASE": database, "COMPANION_SECRET_KEY": "wifi-bench"}
    process = subprocess.Popen(
        [sys.executable, "-m", "companion", "serve", "--host", "127.0.0.1", "--port",
         str(port), "--public-url", url, "--quiet"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=checkout)
    if answers(url + "/"):
        return process
    process.kill()
    raise RuntimeError(f"the server did not start within {STARTS_WITHIN_S} s "
                       f"(its exit code: {process.poll()})")


def links(port: int, profiles: list[str], seed: int) -> tuple[subprocess.Popen[str], list[int]]:
    """The links (bench/links.py) in a process of their own, and their ports."""
    process = subprocess.Popen(
        [sys.executable, "-m", "bench.links", "--target", str(port), "--seed", str(seed),
         *profiles], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    return process, json.loads(process.stdout.readline())["ports"]


def through(url: str, port: int) -> str:
    """``url`` (the server's own address) as reached through the link at ``port``."""
    path = url.split("/", 3)[3] if url.count("/") >= 3 else ""
    return f"http://127.0.0.1:{port}/{path}"


#: In every phone's page: each refresh's times (sent, answered, settled), and each
#: front-end step timed as a User Timing measure, "step <name>": static/js/core.js runs
#: the steps its parts register with Companion.on, which is wrapped here as core.js
#: defines it, before any part registers one (a phone at the table times nothing).
PROFILE = """(() => {
  let companion;
  Object.defineProperty(window, 'Companion', {configurable: true, get: () => companion,
    set: (c) => {
      const on = c.on;
      c.on = (type, name, fn) => on(type, name, (event) => {
        const began = performance.now();
        try { return fn(event); }
        finally { performance.measure('step ' + name, {start: began}); }
      });
      companion = c;
    }});
  const rec = window.__refreshes = [];
  const open = new Map();
  const isRefresh = (e) => {
    const c = e.detail.requestConfig || {};
    const elt = c.elt || e.detail.elt;
    return (c.verb || '').toLowerCase() === 'get' && elt && elt.id === 'live';
  };
  document.addEventListener('htmx:beforeSend', (e) => {
    if (isRefresh(e) && e.detail.xhr) {
      const path = (e.detail.requestConfig || {}).path || '';
      open.set(e.detail.xhr, {sent: performance.now(), url: new URL(path, location.href).href});
    }
  });
  document.addEventListener('htmx:beforeSwap', (e) => {
    const r = e.detail.xhr && open.get(e.detail.xhr);
    if (!r) { return; }
    r.swap = performance.now();
    r.bytes = (e.detail.xhr.responseText || '').length;
    // the network's part, by the browser's own record of the request: when its answer
    // had come whole (the rest of the wait, to the swap, was the page's main thread)
    const entries = performance.getEntriesByName(r.url, 'resource')
      .filter((t) => t.startTime >= r.sent - 1);
    if (entries.length) { r.arrived = entries[0].responseEnd; }
    delete r.url;
  });
  document.addEventListener('htmx:afterSettle', (e) => {
    const r = e.detail.xhr && open.get(e.detail.xhr);
    if (r) { r.settled = performance.now(); rec.push(r); open.delete(e.detail.xhr); }
  });
})();"""

STEPS = """() => {
  const by = {};
  for (const m of performance.getEntriesByType('measure')) {
    if (!m.name.startsWith('step ')) { continue; }
    const s = by[m.name.slice(5)] = by[m.name.slice(5)] || {n: 0, ms: 0, max: 0};
    s.n += 1; s.ms += m.duration; s.max = Math.max(s.max, m.duration);
  }
  return {steps: by, refreshes: window.__refreshes || []};
}"""


def screen(browser: Any, skew: int, viewport: dict[str, int], cpu: float | None = None
           ) -> tuple[Any, Any]:
    """A page of its own browser context, its wall clock ``skew`` ms off, and for a phone
    (``cpu``: its main thread slowed that many times, 1 for this box's speed) its steps
    timed and its CDP session (the throttling lasts as long as the session is kept)."""
    context = browser.new_context(viewport=viewport, locale="en-US")
    context.add_init_script(SKEW % skew)  # a wrong wall clock
    context.add_init_script(RECORD)
    if cpu is None:
        return context.new_page(), None
    context.add_init_script(PROFILE)
    page = context.new_page()
    session = context.new_cdp_session(page)
    session.send("Emulation.setCPUThrottlingRate", {"rate": cpu})
    session.send("Performance.enable")
    return page, session


def walk(browser: Any, server_url: str, ports: list[int], rounds: int, phones: int,
         cpu: float = 1, trace: bool = False) -> tuple[list[Any], list[dict[str, Any]],
                                                       dict[str, Any]]:
    """The night: the host makes it, phones join, ``rounds`` rounds of bids, each with its
    reveal; each reveal's moment and each screen's flip; and what the phones' main
    threads did (their memory before and after the rounds, the last one's trace)."""
    host, _ = screen(browser, 0, {"width": 768, "height": 1024})
    night_url = create_night(host, f"http://127.0.0.1:{ports[0]}", NAMES[:phones])
    pages, sessions = [], []
    for seat in range(phones):
        page, session = screen(browser, SKEWS[seat], {"width": 390, "height": 844}, cpu)
        page.goto(through(seat_link(host, seat), ports[seat + 1]))
        claim(page)
        page.wait_for_function("() => document.documentElement.dataset.push === 'open'",
                               timeout=WAIT)
        pages.append(page)
        sessions.append(session)
    start_game(host, night_url, way="custom", rounds=",".join(["1"] * rounds))
    phone_side: dict[str, Any] = {"memory_before": [metrics(s) for s in sessions]}
    if trace:
        browser.start_tracing(page=pages[-1], categories=TRACE_CATEGORIES)
    reveals = []
    for number in range(1, rounds + 1):
        host.locator("#sk-round-title", has_text=f"Round {number} of {rounds}").wait_for(
            timeout=WAIT)
        for seat, page in enumerate(pages):
            page.locator(f".sk-my-bid-form input[name=round][value='{number}']").wait_for(
                state="attached", timeout=WAIT)
            page.locator(f".sk-my-bid-form button[name=bid][value='{(seat + number) % 2}']"
                         ).click()
            page.locator(".sk-sent").wait_for(timeout=WAIT)
        host.locator(".sk-bids-in", has_text=f"{phones} of {phones} bids in").wait_for(
            timeout=WAIT)
        pressed = time.time() * 1000  # the laptop's clock is this machine's
        host.locator(".sk-yoho").click()
        moment = host.locator("[data-reveal-at]").get_attribute("data-reveal-at",
                                                                 timeout=WAIT)
        flips = []
        for page in [host, *pages]:
            # a screen that got the reveal after the moment shows the bids without a count
            page.wait_for_function(
                "m => document.documentElement.dataset.revealDone === m || "
                "!document.querySelector('[data-reveal-at]') && "
                "!!document.querySelector('.sk-bids, .sk-bid-total')", arg=moment,
                timeout=WAIT)
            flips.append(page.evaluate(FLIP, int(moment)))
        reveals.append({"moment": int(moment), "flips": flips,
                        "lead_ms": round(int(moment) - pressed)})
        for seat in range(phones):
            trick_chip(host, seat, 1 if seat == 0 else 0).click()
        host.locator(".sk-score-btn").click()
    time.sleep(BEHIND_MS / 1000 + 0.5)  # the last write's five seconds
    if trace:
        phone_side["trace"] = trace_summary(browser.stop_tracing(), pages[-1].url)
    phone_side["memory_after"] = [metrics(s) for s in sessions]
    phone_side["steps"] = [page.evaluate(STEPS) for page in pages]
    return [host, *pages], reveals, phone_side


#: What the Performance panel records of a page's main thread.
TRACE_CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline",
                    "blink.user_timing", "v8", "disabled-by-default-v8.gc", "loading"]
#: The kinds of main-thread work summed (each inclusive of what runs inside it).
TRACE_KINDS = {
    "RunTask": "busy (every task)", "ParseHTML": "parse HTML",
    "ParseAuthorStyleSheet": "parse CSS", "EvaluateScript": "run a script",
    "FunctionCall": "JS (event handlers, timers, callbacks)", "TimerFire": "timers",
    "XHRReadyStateChange": "XHR state changes", "XHRLoad": "XHR load",
    "EventDispatch": "DOM events", "UpdateLayoutTree": "style", "Layout": "layout",
    "PrePaint": "pre-paint", "Paint": "paint", "Layerize": "layerize",
    "HitTest": "hit tests", "MinorGC": "minor GC", "MajorGC": "major GC",
    "V8.GC_SCAVENGER": "GC scavenger", "V8.GC_MARK_COMPACTOR": "GC mark-compact",
    "v8.compile": "compile", "FireAnimationFrame": "animation frames",
}


def trace_summary(data: bytes, url: str) -> dict[str, Any]:
    """A trace's main-thread time of the page at ``url``: ms and count by kind, the script
    functions that took longest (inclusive), and the longest tasks."""
    raw = json.loads(data)
    events = raw["traceEvents"] if isinstance(raw, dict) else raw
    pid = None
    for e in events:
        if e.get("name") == "TracingStartedInBrowser":
            for frame in e.get("args", {}).get("data", {}).get("frames", []):
                if frame.get("url", "").split("?")[0] == url.split("?")[0]:
                    pid = frame.get("processId")
    mains = {(e["pid"], e["tid"]) for e in events
             if e.get("name") == "thread_name" and e.get("args", {}).get("name") == "CrRendererMain"
             and (pid is None or e["pid"] == pid)}
    kinds: dict[str, dict[str, float]] = {}
    functions: dict[str, dict[str, float]] = {}
    tasks: list[float] = []
    for e in events:
        if (e.get("pid"), e.get("tid")) not in mains or e.get("ph") != "X":
            continue
        ms = e.get("dur", 0) / 1000
        name = e.get("name", "")
        if name in TRACE_KINDS:
            k = kinds.setdefault(TRACE_KINDS[name], {"n": 0, "ms": 0.0})
            k["n"] += 1
            k["ms"] = round(k["ms"] + ms, 1)
        if name == "RunTask":
            tasks.append(ms)
        if name == "FunctionCall":
            data_ = e.get("args", {}).get("data", {})
            where = (f"{data_.get('functionName') or '(anonymous)'} "
                     f"{data_.get('url', '').rsplit('/', 1)[-1]}:{data_.get('lineNumber', '?')}")
            f = functions.setdefault(where, {"n": 0, "ms": 0.0})
            f["n"] += 1
            f["ms"] = round(f["ms"] + ms, 1)
    top = sorted(functions.items(), key=lambda kv: -kv[1]["ms"])[:12]
    return {"renderer_found": pid is not None,
            "kinds": dict(sorted(kinds.items(), key=lambda kv: -kv[1]["ms"])),
            "top_functions": dict(top),
            "longest_tasks_ms": [round(t, 1) for t in sorted(tasks, reverse=True)[:10]]}


def metrics(session: Any) -> dict[str, float]:
    """A page's JS heap and DOM (CDP ``Performance.getMetrics``), after a garbage
    collection, so that what is left is what the page keeps."""
    session.send("HeapProfiler.collectGarbage")
    got = {m["name"]: m["value"] for m in session.send("Performance.getMetrics")["metrics"]}
    return {"heap_mb": round(got.get("JSHeapUsedSize", 0) / 2**20, 2),
            "nodes": got.get("Nodes"), "listeners": got.get("JSEventListeners"),
            "documents": got.get("Documents")}


def step_figures(steps: list[dict[str, Any]]) -> dict[str, Any]:
    """The phones' refreshes (request → answer → settled swap, ms; bytes) and their
    front-end steps (static/js/core.js), summed over every phone."""
    refreshes = [r for page in steps for r in page["refreshes"] if "settled" in r]
    wait = [r["swap"] - r["sent"] for r in refreshes if "swap" in r]
    network = [r["arrived"] - r["sent"] for r in refreshes if r.get("arrived")]
    queued = [r["swap"] - r["arrived"] for r in refreshes if r.get("arrived") and "swap" in r]
    render = [r["settled"] - r["swap"] for r in refreshes if "swap" in r]
    by: dict[str, dict[str, float]] = {}
    for page in steps:
        for name, s in page["steps"].items():
            t = by.setdefault(name, {"n": 0, "ms": 0.0, "max": 0.0})
            t["n"] += s["n"]
            t["ms"] += s["ms"]
            t["max"] = max(t["max"], s["max"])
    n = max(1, len(refreshes))
    return {"refreshes": len(refreshes),
            "network_wait_ms": lag_figures(wait),
            # of that wait, the request's own (sent → its answer whole, Resource Timing)
            # and the answer's wait for the page's busy main thread
            "answer_whole_ms": lag_figures(network), "answer_queued_ms": lag_figures(queued),
            "swap_to_settled_ms": lag_figures(render),
            "bytes_p50": percentile([r.get("bytes", 0) for r in refreshes], 50),
            "steps_per_refresh_ms": {name: round(t["ms"] / n, 2) for name, t in sorted(
                by.items(), key=lambda kv: -kv[1]["ms"])},
            "steps_max_ms": {name: round(t["max"], 1) for name, t in by.items()}}


def reveal_figures(reveal: dict[str, Any], records: list[dict[str, Any]],
                   names: list[str]) -> dict[str, Any]:
    """One reveal: each screen's flip against the moment, the spread, the time to spare,
    bids seen before the count."""
    moment = reveal["moment"]
    each = []
    for flip, rec, name in zip(reveal["flips"], records, names, strict=True):
        counted = flip["done"] == str(moment)
        arrived = rec["reveals"].get(str(moment), {}).get("arrived")
        shown = [t for t in rec["bids"] if t >= (arrived or 0)]
        each.append({
            "screen": name, "counted": counted,
            "flip_ms": round(flip["flipped"] - moment, 1) if counted else None,
            "own_late_ms": flip["late"] if counted else None,
            "clock_rtt_ms": flip["rtt"] if flip["rtt"] == flip["rtt"] else None,
            "clock_samples": flip["samples"] if flip["samples"] == flip["samples"] else None,
            "spare_ms": round(moment - arrived) if arrived is not None else None,
            # bids visible before this screen's own flip (1 ms for the clocks' grain)
            "bids_before_count": bool(counted and shown and shown[0] < flip["flipped"] - 1),
            # what held the main thread from a second before the moment to the flip: each
            # (long task or step, its start against the moment, its length), ms
            "busy": flip.get("busy", []),
        })
    flips = [e["flip_ms"] for e in each if e["flip_ms"] is not None]
    # each page's clock error alone: its flip less the lateness it saw itself (a timer
    # fired late on a starved processor), which is what is left when the page's estimate
    # of the laptop's time was wrong, and what the page cannot see
    errors = [e["flip_ms"] - e["own_late_ms"] for e in each if e["flip_ms"] is not None]
    return {"moment": moment, "lead_ms": reveal.get("lead_ms"),
            "spread_ms": round(max(flips) - min(flips), 1) if flips else None,
            "clock_spread_ms": round(max(errors) - min(errors), 1) if errors else None,
            "screens": each}


def write_figures(records: list[dict[str, Any]], setup: list[str],
                  slowest: list[tuple[float, str, int]] | None = None
                  ) -> tuple[dict[str, list[float]], int]:
    """From each write's answer, on the screen that made it, until each other screen shows
    its version: the lags (ms) by the link of the screen that shows it, and the screens
    still behind after BEHIND_MS; each lag also goes into ``slowest`` (lag, the write's
    form's last path word, the screen that showed it), when given."""
    lags: dict[str, list[float]] = {}
    behind = 0
    for i, rec in enumerate(records):
        for write in rec["writes"]:
            for j, other in enumerate(records):
                if i == j:
                    continue
                times = [t for v, t in other["seen"].items() if int(v) >= write["v"]]
                lag = min(times) - write["t"] if times else None
                if lag is None or lag > BEHIND_MS:
                    behind += 1
                else:
                    lags.setdefault(setup[j], []).append(max(0.0, lag))
                    if slowest is not None:
                        slowest.append((round(lag), write.get("what", "?"), j))
    return lags, behind


def lag_figures(lags: list[float]) -> dict[str, Any]:
    return {"n": len(lags), "p50": percentile(lags, 50), "p95": percentile(lags, 95),
            "max": round(max(lags), 1) if lags else None}


def summary(reveals: list[dict[str, Any]], records: list[dict[str, Any]], setup: list[str]
            ) -> dict[str, Any]:
    slowest: list[tuple[float, str, int]] = []
    by_link, behind = write_figures(records, setup, slowest)
    lags = [lag for each in by_link.values() for lag in each]
    spreads = [r["spread_ms"] for r in reveals if r["spread_ms"] is not None]
    clock = [r["clock_spread_ms"] for r in reveals if r["clock_spread_ms"] is not None]
    screens = [s for r in reveals for s in r["screens"]]
    early = [s["flip_ms"] for s in screens if s["flip_ms"] is not None and s["flip_ms"] < 0]
    spares = [s["spare_ms"] for s in screens if s["spare_ms"] is not None]
    return {
        "reveals": len(reveals),
        "spread_ms": {"median": statistics.median(spreads) if spreads else None,
                      "max": max(spreads, default=None),
                      "over_50": sum(1 for s in spreads if s > 50)},
        "clock_spread_ms": {"median": statistics.median(clock) if clock else None,
                            "max": max(clock, default=None)},
        "flips": sum(1 for s in screens if s["counted"]),
        "early_flips": len(early), "earliest_ms": min(early, default=None),
        "write_to_visible_ms": lag_figures(lags),
        "write_to_visible_by_link_ms": {link: lag_figures(each)
                                        for link, each in sorted(by_link.items())},
        # the tail: the slowest tenth of them, each (ms, the write, the screen: 0 the host)
        "write_to_visible_slowest": sorted(slowest, reverse=True)[:max(1, len(slowest) // 10)],
        "false_banners": sum(r["offline"] for r in records),
        # what put each up (static/js/live.js, offline): a refresh's network wait ran out
        # ("timeout"), a refresh was refused ("error"), the stream fell silent ("silent")
        "false_banners_why": {why: sum(r.get("why", []).count(why) for r in records)
                              for why in sorted({w for r in records for w in r.get("why", [])})},
        "bids_before_count": sum(1 for s in screens if s["bids_before_count"]),
        "behind_5s": behind,
        "short_spare": sum(1 for s in screens if s["spare_ms"] is None or s["spare_ms"] < SPARE_MS),
        "spare_ms": {"min": min(spares, default=None), "median":
                     statistics.median(spares) if spares else None},
    }


def night(browser: Any, profile: str, rounds: int, phones: int, seed: int,
          checkout: str | None = None, cpu: float = 1, trace: bool = False
          ) -> dict[str, Any]:
    """One profile at one phone speed: a fresh server (of ``checkout``, or this one), its
    links, the walk, the figures."""
    names = ["host", *(f"phone {i + 1}" for i in range(phones))]
    setup = SETUPS[profile][:phones + 1]
    with tempfile.TemporaryDirectory() as folder:
        port = free_port()
        server = serve(str(Path(folder) / "wifi.sqlite"), port, checkout)
        carrier, ports = links(port, setup, seed)
        try:
            started = time.monotonic()
            ticks = cpu_ticks()
            pages, reveals, phone_side = walk(browser, f"http://127.0.0.1:{port}", ports,
                                              rounds, phones, cpu, trace)
            box_busy = busy(ticks, cpu_ticks())
            records = [page.evaluate("() => window.__wifi") for page in pages]
            for page in pages:
                page.context.close()
        finally:
            assert carrier.stdin is not None
            carrier.stdin.close()
            carrier.wait(10)
            server.kill()
            server.wait(10)
    figures = [reveal_figures(r, records, names) for r in reveals]
    return {"links": dict(zip(names, setup, strict=True)), "phone_cpu": cpu,
            "seconds": round(time.monotonic() - started, 1),
            # the box's cores through the night: the phones' browsers, the host's, the
            # server and the links share them (a table's phones each have their own)
            "box_busy": box_busy,
            **summary(figures, records, setup),
            "phones_main_thread": {**step_figures(phone_side["steps"]),
                                   "memory_before": phone_side["memory_before"],
                                   "memory_after": phone_side["memory_after"],
                                   **({"trace": phone_side["trace"]} if trace else {})},
            "each_reveal": figures}


def cpu_ticks() -> tuple[int, int] | None:
    """The box's CPU time so far (idle, all told), in ticks of /proc/stat; None where
    there is none."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return None
    return fields[3] + fields[4], sum(fields)  # idle and iowait, and everything


def busy(before: tuple[int, int] | None, after: tuple[int, int] | None) -> float | None:
    """How busy the box's cores were between two readings of :func:`cpu_ticks` (0 to 1)."""
    if before is None or after is None or after[1] == before[1]:
        return None
    return round(1 - (after[0] - before[0]) / (after[1] - before[1]), 2)


def machine() -> dict[str, Any]:
    return {"nproc": os.cpu_count(), "loadavg": [round(x, 2) for x in os.getloadavg()],
            "cpu_ms": cpu_ms(), "date": time.strftime("%Y-%m-%d %H:%M %Z")}


def attempt(browser: Any, profile: str, rounds: int, phones: int, seed: int,
            checkout: str | None = None, cpu: float = 1, trace: bool = False
            ) -> dict[str, Any]:
    """A night, or what stopped it (a page that waited past WAIT: on a machine shared
    and loaded, a phone's page can take that long), said in the report."""
    from playwright.sync_api import Error

    try:
        return night(browser, profile, rounds, phones, seed, checkout, cpu, trace)
    except Error as error:
        for context in browser.contexts:  # its pages would go on asking a server gone
            context.close()
        # the first line says what timed out, the call log's lines where it waited
        said = [line.strip() for line in str(error).splitlines() if line.strip()]
        return {"error": said[0], "waited_for": said[1:6], "each_reveal": []}


def show(label: str, figures: dict[str, Any]) -> None:
    print(label, json.dumps({k: v for k, v in figures.items() if k != "each_reveal"}),
          flush=True)
    for r in figures["each_reveal"]:
        print(f"  reveal: lead {r['lead_ms']} ms, spread {r['spread_ms']} ms; each screen's "
              "flip - moment, its own lateness, its clock's uncertainty, its samples, "
              "spare (ms): "
              + str([(s['flip_ms'], s['own_late_ms'], s['clock_rtt_ms'], s['clock_samples'],
                      s['spare_ms']) for s in r['screens']]), flush=True)
        for s in r["screens"]:
            if s["busy"]:
                print(f"    {s['screen']} busy near the moment: {s['busy']}", flush=True)


def label(profile: str, cpu: float) -> str:
    """A night's key in the report: its profile, and its phones' slowdown unless 1×."""
    return profile if cpu == 1 else f"{profile}@{cpu:g}x"


def run(profiles: list[str], rounds: int, phones: int, seed: int,
        before: str | None = None, cpus: tuple[float, ...] = (1,), trace: bool = False
        ) -> dict[str, Any]:
    """Each profile's night at each phone speed; with ``before`` (another checkout), that
    checkout's night of the same profile and speed first, in the same run."""
    from playwright.sync_api import sync_playwright

    report: dict[str, Any] = {"machine_at_start": machine(), "rounds": rounds,
                              "phones": phones, "seed": seed, "profiles": {}}
    if before:
        report["before"] = {"checkout": before, "profiles": {}}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_ARGS))
        try:
            for cpu in cpus:
                for profile in profiles:
                    key = label(profile, cpu)
                    if before:
                        figures = attempt(browser, profile, rounds, phones, seed, before, cpu)
                        report["before"]["profiles"][key] = figures
                        show(f"{key} (before)", figures)
                    report["profiles"][key] = figures = attempt(
                        browser, profile, rounds, phones, seed, None, cpu, trace)
                    show(key, figures)
        finally:
            browser.close()
    report["machine_at_end"] = machine()
    return report


def table(report: dict[str, Any], source: str | None = None) -> str:
    """A report's nights as a Markdown table (docs/performance.md, "Slow phones"); a run
    with ``--before`` gives the earlier checkout's rows first, marked "before". With
    ``source`` (the report's path), a first line says how it was made."""
    head = ("| night | phones' CPU | spread ms (median / max) | flips early | reveals "
            "received late or < 500 ms ahead | write→visible ms (p50 / p95 / max) | false "
            "banners | behind 5 s | a phone's refresh: network wait p50 / swap→settled "
            "p50 / p95 ms | bytes p50 |\n|---|---|---|---|---|---|---|---|---|---|")
    rows = [f"<!-- generated by `python -m bench.wifi --table {source}`: do not edit by "
            "hand -->"] if source else []
    rows.append(head)
    nights = [(f"{key} (before)", n) for key, n in
              report.get("before", {}).get("profiles", {}).items()]
    nights += list(report["profiles"].items())
    for key, n in nights:
        if "error" in n:
            rows.append(f"| {key} | | {n['error']} | | | | | | | |")
            continue
        w, m = n["write_to_visible_ms"], n["phones_main_thread"]
        rows.append(
            f"| {key} | {n['phone_cpu']:g}× | {n['spread_ms']['median']} / "
            f"{n['spread_ms']['max']} | {n['early_flips']} | {n['short_spare']} | "
            f"{w['p50']} / {w['p95']} / {w['max']} | {n['false_banners']} | "
            f"{n['behind_5s']} | {m['network_wait_ms']['p50']} / "
            f"{m['swap_to_settled_ms']['p50']} / {m['swap_to_settled_ms']['p95']} | "
            f"{m['bytes_p50']} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profiles", default="home,cafe,none")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--phones", type=int, default=5, choices=range(3, 6))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--before", metavar="CHECKOUT",
                        help="another checkout of the repository (e.g. `git worktree add` "
                             "of an earlier commit): its night of each profile first")
    parser.add_argument("--cpu", default="1", help="the phones' CPU slowdowns, e.g. 1,4,6")
    parser.add_argument("--trace", action="store_true",
                        help="trace the last phone's main thread through the rounds")
    parser.add_argument("--json", help="write the report here")
    parser.add_argument("--table", metavar="REPORT",
                        help="print a report's nights as a Markdown table, and run nothing")
    args = parser.parse_args(argv)
    if args.table:
        print(table(json.loads(Path(args.table).read_text()), source=args.table))
        return
    profiles = args.profiles.split(",")
    for name in profiles:
        if name not in SETUPS:
            parser.error(f"no profile {name!r}: {', '.join(SETUPS)}")
    try:
        cpus = tuple(float(x) for x in args.cpu.split(","))
    except ValueError:
        parser.error(f"--cpu takes factors like 1,4,6, not {args.cpu!r}")
    if any(c < 1 for c in cpus):
        parser.error("a CPU factor is 1 (full speed) or more")
    report = run(profiles, args.rounds, args.phones, args.seed, args.before, cpus, args.trace)
    print("speed sample (cpu_ms, lower is faster):", report["machine_at_start"]["cpu_ms"],
          "at the start,", report["machine_at_end"]["cpu_ms"], "at the end; load average",
          report["machine_at_start"]["loadavg"], "at the start")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
