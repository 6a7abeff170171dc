"""static/js/live.js honours a server that says "slow down" (companion/web/lag.py): run in
node with a stand-in page, htmx, EventSource and a clock of its own (no real time passes,
so nothing here is a timing).

- an answer's ``X-Slow-Down: 6`` keeps the region's timer (every 2 s) from polling more
  often than every 6 s, and an answer without it ends that;
- a refresh turned away (429) while the page is behind the version its stream told is
  asked again after the wait it was told, not after the usual second;
- a stream answered "busy" leaves the page polling as slowly as told, with no check of
  whether the laptop is there when that answer ends;
- a refresh waits the told seconds longer before the page says it cannot reach the table;
- a refresh turned away (429, empty) is not swapped in: the page swaps other 4xx answers.
"""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

PAGE = r"""
const listeners = {};
let now = 1000000;
const timers = [];
let nextId = 1;
function addTimer(fn, ms, args, every) {
  const t = { id: nextId++, at: now + (ms || 0), fn, args, every };
  timers.push(t);
  return t.id;
}
global.setTimeout = (fn, ms, ...args) => addTimer(fn, ms, args, 0);
global.setInterval = (fn, ms, ...args) => addTimer(fn, ms, args, ms);
global.clearTimeout = global.clearInterval = id => {
  const i = timers.findIndex(t => t.id === id);
  if (i >= 0) { timers.splice(i, 1); }
};
Date.now = () => now;
async function advance(ms) {
  const end = now + ms;
  for (;;) {
    await new Promise(r => setImmediate(r));  /* every answer on its way lands first */
    timers.sort((a, b) => a.at - b.at || a.id - b.id);
    const t = timers[0];
    if (!t || t.at > end) { break; }
    now = t.at;
    if (t.every) { t.at += t.every; } else { timers.shift(); }
    t.fn(...(t.args || []));
  }
  await new Promise(r => setImmediate(r));
  now = end;
}
const region = {
  id: "live", isConnected: true,
  dataset: { stream: "/me/stream", heartbeat: "20", offline: "unreachable" },
  attrs: { "hx-get": "/me/live?v=3" },
  getAttribute(name) { return this.attrs[name] || null; },
  querySelector() { return null; }
};
const target = { addEventListener(type, fn) { listeners[type] = fn; } };
global.window = Object.assign(target, { setTimeout: global.setTimeout });
global.document = Object.assign({
  readyState: "interactive", visibilityState: "visible",
  documentElement: { setAttribute() {}, removeAttribute() {} },
  body: { dataset: {}, appendChild() {}, getAttribute() { return null; } },
  getElementById(id) { return id === "live" ? region : null; },
  querySelector() { return null; },
  createElement() { return { setAttribute() {}, remove() {} }; }
}, target);
const asked = [];
let answer = { status: 204, headers: {} };
function fire(type, detail) { listeners[type]({ type, detail, preventDefault() {} }); }
window.htmx = {
  ajax(verb, url, opts) {
    const sent = { at: now, url };
    asked.push(sent);
    const config = { verb: "get", elt: region, timeout: 0 };
    fire("htmx:configRequest", config);
    sent.timeout = config.timeout;
    const got = answer;
    const xhr = { status: got.status,
                  getResponseHeader(name) { return got.headers[name] || null; } };
    return Promise.resolve().then(() => {
      fire("htmx:afterRequest", { xhr, elt: region, requestConfig: config });
    });
  }
};
let source = null;
global.EventSource = window.EventSource = class {
  constructor(url) { this.url = url; this.readyState = 0; this.on = {}; source = this; }
  addEventListener(type, fn) { this.on[type] = fn; }
  close() { this.readyState = 2; }
  emit(type, data) { this.on[type]({ data }); }
};
require(process.argv[1]);
require(process.argv[2]);
const out = {};
(async () => {
  listeners.DOMContentLoaded({});
  source.emit("open");
  await advance(100);

  /* 1. the timer's polls, with the stream closed: every 2 s; told 6 s, every 6 s */
  source.emit("error"); source.readyState = 2;  /* the browser gave up on it */
  await advance(1);
  function poll() { fire("htmx:beforeRequest", { requestConfig: { verb: "get", elt: region } }); }
  asked.length = 0;
  for (let i = 0; i < 6; i++) { await advance(2000); poll(); await advance(1); }
  out.plain = asked.length;
  answer = { status: 204, headers: { "X-Slow-Down": "6" } };
  await advance(10000); poll(); await advance(1);  /* one answer says 6 s */
  asked.length = 0;
  for (let i = 0; i < 6; i++) { await advance(2000); poll(); await advance(1); }
  out.slowed = asked.length;
  out.timeout = asked.length ? asked[0].timeout : null;
  answer = { status: 204, headers: {} };
  await advance(10000); poll(); await advance(1);  /* an answer without it: as before */
  asked.length = 0;
  for (let i = 0; i < 6; i++) { await advance(2000); poll(); await advance(1); }
  out.after = asked.length;

  /* 2. a stream's "changed" to a version the page does not show, turned away (429, 4 s) */
  listeners.visibilitychange({});  /* woke: a new stream, a refresh */
  await advance(10);
  source.emit("open");
  answer = { status: 429, headers: { "X-Slow-Down": "4", "Retry-After": "4" } };
  asked.length = 0;
  source.emit("changed", "7");
  await advance(200);   /* the spread is at most 150 ms: asked, turned away */
  const first = asked.length;
  answer = { status: 204, headers: {} };
  await advance(1500);  /* the usual chase would have asked again by now */
  out.chase = { first, at1500: asked.length - first };
  await advance(2600);
  out.chase.at4300 = asked.length - first;

  /* 3. a stream answered "busy": polls as slowly as told, and no check on its end */
  answer = { status: 204, headers: { "X-Slow-Down": "5" } };  /* still behind */
  listeners.visibilitychange({});
  await advance(10);
  asked.length = 0;
  source.emit("open");
  source.emit("busy", "5");
  source.emit("error");  /* the answer ended: the browser reopens it after its retry */
  await advance(1);
  out.busyCheck = asked.length;
  for (let i = 0; i < 6; i++) { await advance(2000); poll(); await advance(1); }
  out.busyPolls = asked.length;
  /* 4. a 429 turned away is not swapped in; a form's 422 is, as always */
  function swapped(status, headers) {
    const detail = { shouldSwap: true, xhr: { status,
      getResponseHeader(name) { return (headers || {})[name] || null; } } };
    fire("htmx:beforeSwap", detail);
    return detail.shouldSwap;
  }
  out.swapped = { turnedAway: swapped(429, { "X-Slow-Down": "5" }), refused: swapped(422),
                  tooManyNights: swapped(429) };
  console.log(JSON.stringify(out));
})();
"""


@pytest.fixture(scope="module")
def run():
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not installed (Debian: apt-get install npm)")
    done = subprocess.run([node, "-e", PAGE, str(ROOT / "static" / "js" / "core.js"),
                           str(ROOT / "static" / "js" / "live.js")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_told_to_slow_down_the_timer_polls_no_more_often_than_told(run):
    assert run["plain"] == 6        # 12 s of a 2 s timer
    assert run["slowed"] == 2       # the same 12 s, told 6 s
    assert run["after"] == 6        # an answer without the hint: as before


def test_told_to_slow_down_a_refresh_waits_longer_before_unreachable(run):
    assert run["timeout"] == 3000 + 6000


def test_a_refresh_turned_away_is_asked_again_after_the_wait_told(run):
    assert run["chase"]["first"] >= 1
    assert run["chase"]["at1500"] == 0  # not after the usual second
    assert run["chase"]["at4300"] == 1  # but once the 4 s are over


def test_a_busy_stream_polls_as_slowly_as_told_and_checks_nothing(run):
    assert run["busyCheck"] == 0
    assert run["busyPolls"] == 2  # 12 s of a 2 s timer, told 5 s


def test_a_refresh_turned_away_is_not_swapped_in_but_a_forms_answer_is(run):
    assert run["swapped"] == {"turnedAway": False, "refused": True, "tooManyNights": True}
