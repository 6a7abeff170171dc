/* The live region (templates/_live.html): its refresh, its stream, and saying when the
   laptop cannot be reached (static/js/core.js runs the steps registered here). */
(function () {
  "use strict";
  var C = window.Companion;
  var region = C.live;

  /* ---------------------------------------------------------------------------------
     Reaching the table. A refresh that cannot reach the laptop (refused, or no answer
     after a few seconds of waiting on the network) puts "can't reach the table —
     retrying…" on top of the screen; the next answer of any kind takes it away. A form
     that could not be sent, or that failed, says so on top of the live region.

     The few seconds are the network's, not the page's: a slow phone's main thread can be
     busy for a second or more drawing a change, and an answer that came meanwhile waits
     in its queue. So the wait is counted from the request's leaving, less the time the
     page was too busy (or asleep) to tick, and a request whose answer began to come
     (its headers, or the browser's record of it: Resource Timing) is never given up on.
     A phone on bad Wi-Fi (far from the access point, in power save) waits longer than a
     few seconds for some answers whenever the air stalls: it waits TRIP_TIMES its
     longest recent trip to the laptop's first byte (the browser's own record, which no
     busy main thread lengthens), up to LONGEST_WAIT_MS, before it says the laptop is
     gone (docs/measurements/2026-12-06/README.md, "Slow phones": three such banners in a
     café night). */
  var POLL_TIMEOUT_MS = 3000;  /* with a 2 s poll: said within 5 s of the laptop going */
  var LONGEST_WAIT_MS = 8000;
  var TRIP_TIMES = 3;
  var TRIPS = 10;
  var trips = [];     /* the latest refreshes' trips, ms: sent to the answer's first byte */
  var TICK_MS = 400;
  var busy = 0;       /* ms the page could not tick (busy, or asleep), all told */
  var flight = null;  /* {xhr, sent, busy, since, url}: the refresh on its way */

  C.on("htmx:beforeSend", "live.sent", function (event) {
    var xhr = event.detail.xhr;
    if (!xhr) { return; }
    sentAt.set(xhr, Date.now());
    if (C.isRefresh(event)) {
      var path = (event.detail.requestConfig || {}).path || "";
      flight = { xhr: xhr, sent: Date.now(), busy: busy, since: performance.now(),
                 url: new URL(path, location.href).href };
    }
  });

  function answering(f) {
    return f.xhr.readyState >= 2 || C.answered(f.url, f.since - 1) !== null;
  }

  /* How long a refresh may wait on the network with no answer begun. */
  function patience() {
    var longest = trips.length ? Math.max.apply(null, trips) : 0;
    return Math.min(LONGEST_WAIT_MS, Math.max(POLL_TIMEOUT_MS, TRIP_TIMES * longest));
  }

  /* A refresh answered: its trip, by the browser's record of it. */
  function tripOf(f) {
    var e = C.answered(f.url, f.since - 1);
    if (!e) { return; }
    trips.push(e.responseStart - e.startTime);
    if (trips.length > TRIPS) { trips.shift(); }
  }

  /* Each tick: the refresh on its way, given up once it has waited on the network
     longer than patience() with no answer begun. */
  function watch() {
    var f = flight;
    if (!f) { return; }
    if (f.xhr.readyState === 4) { flight = null; return; }
    if (Date.now() - f.sent - (busy - f.busy) <= patience() || answering(f)) { return; }
    flight = null;
    offline("timeout");
    f.xhr.abort();  /* its promise settles: the next refresh may go */
  }

  /* ``why``: false (the laptop answered), or what said it cannot be reached: "timeout"
     (a refresh's network wait), "error" (a refresh refused), "silent" (the stream). */
  function offline(why) {
    var mark = document.querySelector("[data-offline-mark]");
    if (!why) {
      if (mark) { mark.remove(); }
      return;
    }
    var el = region();
    /* in the page's language, on every live region (templates/_live.html) */
    var text = el && el.dataset.offline;
    if (mark || !text) { return; }
    mark = document.createElement("p");
    mark.className = "offline-mark";
    mark.setAttribute("data-offline-mark", why);
    mark.setAttribute("role", "alert");
    mark.textContent = text;
    document.body.appendChild(mark);
  }

  function tell(message) {
    var el = region();
    if (!el || !message) { return; }
    var old = el.querySelector(".notice.unreachable");
    if (old) { old.remove(); }
    var p = document.createElement("p");
    p.className = "notice error unreachable";
    p.setAttribute("role", "alert");
    p.textContent = message;
    el.insertBefore(p, el.firstChild);
  }

  /* When each request left (live.sent, above). A refresh that fails long after its few
     seconds ran out was on its way as the page slept (a phone locked): its failure says
     nothing of the laptop, and the page asks again as it wakes (woke, below). */
  var sentAt = new WeakMap();
  function sleptOnItsWay(event) {
    var at = event.detail.xhr && sentAt.get(event.detail.xhr);
    return at !== undefined && Date.now() - at > POLL_TIMEOUT_MS + SLEPT_MS;
  }

  C.on("htmx:sendError", "live.unreachable", unreachable);
  function unreachable(event) {
    if (C.isWrite(event)) { tell(document.body.dataset.unreachable); }
    else if (C.isRefresh(event) && !sleptOnItsWay(event)) { offline("error"); }
  }
  C.on("htmx:responseError", "live.failed", function (event) {
    if (C.isWrite(event)) { tell(document.body.dataset.failed); }
  });

  /* ---------------------------------------------------------------------------------
     Live push (companion/live/streams.py): a live region with data-stream opens a Server-Sent
     Events stream of its night, and each "changed" refreshes the region: the stream says
     only that something changed, the refresh fetches what this device may see. While the
     stream is open the region's own timer asks at most once a minute (a safety net);
     while it is not, every POLL_SECONDS as before. A page that comes back (woke, below)
     reopens its stream and refreshes at once.

     Every refresh goes through refresh() below — the region's timer, a stream's
     "changed", a page that woke, a check that the laptop is there — and it sends one at a
     time, through htmx.ajax, whose promise settles however the request ends. No change is
     ever missed: the page remembers the newest version it was told of (a stream's
     "changed", or the version an answer shows), and when a refresh lands or a swap
     settles with the region still behind it, it asks again. */
  var SAFETY_MS = 60000;
  var RETRY_MS = 30000;
  /* A refresh that landed without the version told is asked again after this. */
  var CHASE_MS = 1000;
  /* A refresh held through a count's last second goes this long after its moment. */
  var HUSH_AFTER_MS = 50;
  /* The server says "alive" every data-heartbeat seconds (PUSH_HEARTBEAT): a stream
     silent for one and a half of those and a second more means the laptop cannot be
     reached (checked every 400 ms: said within 31.4 s of the last word at 20 s). */
  var HEARTBEAT_S = 20;
  var heard = 0;
  /* A change wakes every screen of the table at once: each waits a moment (at random,
     up to this long) before it asks, so they do not all reach the server in the same
     instant, where a host's next action would queue behind them. The stream says how
     long as it opens ("spread"): the longer, the more streams the server carries (a
     table alone waits none; companion/live/streams.py, spread_ms). */
  var SPREAD_MS = 150;
  var spread = SPREAD_MS;
  var pending = null;
  var source = null;
  var streaming = false;
  var ending = false;  /* the server said "bye": its stream's life is over, not the laptop */
  var lastRefresh = 0;
  var lastCheck = 0;
  /* The interval below ticks every 400 ms; a tick this late means the page slept. */
  var SLEPT_MS = 5000;
  var ticked = Date.now();
  var retry = null;
  /* The newest version told, when it was told, and the refresh on its way. */
  var wanted = -1;
  var wantedAt = 0;
  var asking = null;  /* {sent, elt, again}: the refresh of the region on its way */
  var issuing = false;  /* true while refresh() hands its request to htmx */

  function mark(state) {
    if (state) { document.documentElement.setAttribute("data-push", state); }
    else { document.documentElement.removeAttribute("data-push"); }
  }

  function shown(el) {
    var version = versionIn(el && el.getAttribute("hx-get"));
    return isNaN(version) ? -1 : version;
  }

  function silentMs() {
    var el = region();
    var beat = Number(el && el.dataset.heartbeat) || HEARTBEAT_S;
    return 1500 * beat + 1000;
  }

  function want(version) {
    version = Number(version);
    if (version > wanted) {
      wanted = version;
      wantedAt = Date.now();
    }
  }

  function behind() { return wanted > shown(region()); }

  /* Whether a refresh is still on its way. htmx settles its promise however the request
     ends (answer, error, time-out); but one whose region a form's answer replaced
     meanwhile has nowhere to land, and is not waited for. */
  function onItsWay() {
    if (asking && !asking.elt.isConnected) { asking = null; }
    return asking !== null;
  }

  /* The one way the region is refreshed. ``why``: "poll" (the region's timer: skipped
     while the stream is open, but once a minute), "woke" (asked again after the one on
     its way, which may have left before the page slept), or anything else. */
  function refresh(why) {
    var el = region();
    if (!el || !window.htmx) { return; }
    if (why === "poll" && streaming && Date.now() - lastRefresh < SAFETY_MS) { return; }
    /* A count's last second is the count's: asked just after it (static/js/clock.js). */
    var hush = C.countLeft ? C.countLeft() : 0;
    if (hush > 0) { later(hush + HUSH_AFTER_MS); return; }
    if (onItsWay()) {
      if (why === "woke") { asking.again = true; }
      return;
    }
    var mine = asking = { sent: Date.now(), elt: el, again: false, from: shown(el) };
    lastRefresh = mine.sent;
    issuing = true;
    try {
      var done = window.htmx.ajax("GET", el.getAttribute("hx-get"),
                                  { source: el, target: el, swap: "morph:outerHTML" });
    } finally {
      issuing = false;
    }
    /* Behind once it lands: a change told while it was on its way (it could not bring
       that one) is asked for at once, as a change told to a page with none on its way
       is; one told before it left and still not shown (a laptop that answered with an
       older version) is asked again only after CHASE_MS. A slow phone is on its way
       most of the time while the table bids: waiting CHASE_MS there added a second to
       every other change it showed (docs/measurements/2026-12-06/README.md, "Slow phones"). */
    function landed() {
      if (asking !== mine) { return; }
      asking = null;
      if (mine.again || (behind() && wantedAt >= mine.sent)) { later(Math.random() * spread); }
      else if (behind()) { later(CHASE_MS); }
    }
    if (done) { done.then(landed, landed); } else { landed(); }
  }

  /* A refresh sent before this page's own write, whose answer lands after the write's
     answer has drawn the region: when it brings no later version than the one the
     write's answer drew, it is dropped whole. An older one would bring the older
     region back under the page's newer version, which every later refresh would then be
     told is unchanged (a phone showed its bid form again after "Bid sent", for good);
     one of the same version would take away what only the write's answer says (the
     latecomer's new seat and its code, a refusal). The one refresh on its way
     (``asking``) notes the version shown when it left; its answer's is in its region's
     URL. Every answer to #live is a morph, which keeps the region's element: a
     refresh's region is never gone meanwhile. */
  function versionIn(url) {
    var found = url && /[?&;]v=(-?\d+)/.exec(url);
    return found ? Number(found[1]) : NaN;
  }
  C.on("htmx:beforeSwap", "live.overtaken", function (event) {
    var xhr = event.detail.xhr;
    if (!xhr || !asking || !C.isRefresh(event) || !event.detail.shouldSwap) { return; }
    var now = shown(region());
    if (now <= asking.from) { return; }
    var tag = /<div id="live"[^>]*>/.exec(xhr.responseText || "");
    var url = tag ? (/hx-get="([^"]*)"/.exec(tag[0]) || [])[1] : null;
    if (versionIn(url) <= now) { event.detail.shouldSwap = false; }
  });

  function later(ms) {
    clearTimeout(pending);
    pending = setTimeout(refresh, ms, "chase");
  }

  /* The region's own requests (its timer's poll, or a "poll-now" in its hx-trigger)
     become refresh()'s, a moment later: htmx is still sending the one it drops here. */
  C.on("htmx:beforeRequest", "live.route", function (event) {
    if (issuing || !C.isRefresh(event)) { return; }
    event.preventDefault();
    setTimeout(refresh, 0, "poll");
  });

  function close() {
    if (source) { source.close(); }
    source = null;
    streaming = false;
    mark(null);
  }

  /* Is the laptop there? A refresh that cannot reach it says so (a few seconds at most);
     asked at once after a stream error, at most every few seconds while it is gone. */
  function check() {
    if (Date.now() - lastCheck < 5000) { return; }
    lastCheck = Date.now();
    refresh("check");
  }

  function connect() {
    var el = region();
    clearTimeout(retry);
    close();
    if (!el || !el.dataset.stream || !window.EventSource) { return; }
    ending = false;
    source = new EventSource(el.dataset.stream + "?v=" + encodeURIComponent(shown(el)));
    source.addEventListener("open", function () {
      streaming = true;
      mark("open");
      hear();
    });
    source.addEventListener("alive", hear);
    source.addEventListener("spread", function (event) {
      var ms = Number(event.data);
      spread = isFinite(ms) && ms >= 0 ? Math.min(ms, SPREAD_MS) : SPREAD_MS;
    });
    source.addEventListener("bye", function () { ending = true; hear(); });
    /* This device opened more streams since (other tabs): this page polls, and asks
       for a stream again later. */
    source.addEventListener("elsewhere", function () {
      hear();
      close();
      retry = setTimeout(connect, RETRY_MS);
    });
    source.addEventListener("changed", function (event) {
      hear();
      want(event.data);
      if (behind()) { later(Math.random() * spread); }
    });
    source.addEventListener("error", function () {
      streaming = false;
      mark("retrying");  /* the browser reconnects by itself, unless it gave up: */
      if (!ending) { check(); }
      ending = false;
      if (source && source.readyState === 2) {
        source = null;
        retry = setTimeout(connect, RETRY_MS);
      }
    });
  }

  /* Any word from the stream: the laptop is there (a refresh that timed out meanwhile
     may have said otherwise). */
  function hear() {
    heard = Date.now();
    offline(false);
  }

  setInterval(function () {
    var late = Date.now() - ticked - TICK_MS;
    if (late > 0) { busy += late; }
    /* A tick long overdue: the page slept (its timers stopped), and a browser that says
       nothing of it (no "resume") is caught here. */
    if (late + TICK_MS > SLEPT_MS) { woke(); }
    ticked = Date.now();
    watch();
    /* A stream that fell silent: the laptop is asleep or gone. Say so, poll again as
       without a stream (those polls clear the mark when they are answered), and open a
       new stream. */
    if (streaming && Date.now() - heard > silentMs()) {
      offline("silent");
      close();
      mark("retrying");
      retry = setTimeout(connect, 1000);
    }
  }, TICK_MS);

  /* Any answer: the laptop is there. "Nothing changed" to a refresh sent after the
     version was told: the screen is the night's latest (a version told of another
     night, which this phone has left, is never shown: stop asking for it). */
  C.on("htmx:afterRequest", "live.heard", function (event) {
    var xhr = event.detail.xhr;
    if (flight && flight.xhr === xhr) {
      if (xhr.status > 0) { tripOf(flight); }
      flight = null;
    }
    if (xhr && xhr.status > 0) { offline(false); }
    if (xhr && xhr.status === 204 && asking && event.detail.elt === asking.elt &&
        asking.sent >= wantedAt) {
      wanted = shown(region());
    }
  });

  /* Every swap: the version it shows was told (an answer names the version its write
     made); a region still behind asks again; a region with another stream (the phone
     joined another night) follows it. */
  C.on("htmx:afterSettle", "live.follow", function () {
    var el = region();
    want(shown(el));
    if (behind()) { later(Math.random() * spread); }
    var wantedStream = el && el.dataset.stream;
    if (!wantedStream) { close(); return; }
    if (!source || source.url.indexOf(wantedStream + "?") === -1) { connect(); }
  });

  /* A page that comes back: a phone unlocked (visibilitychange), a page the browser
     froze and resumed (resume: Chromium freezes a hidden page's timers, network and
     events, for minutes), or one restored from the back/forward cache (pageshow; a
     page leaving closes its stream, which would keep it out of that cache and hold one
     of its device's streams on the server). Its stream may have ended on the server
     meanwhile, or be a dead connection the phone's Wi-Fi dropped: a new one is opened,
     and the region refreshes at once, keeping what was typed (static/js/panels.js).
     The silence while it slept says nothing of the laptop: it is not taken for a
     laptop gone. */
  function woke() {
    heard = ticked = Date.now();
    /* A refresh sent before it slept may be on a connection gone with the Wi-Fi: given
       up on quietly (its failure says nothing of the laptop), and asked again below. */
    if (flight) {
      var f = flight;
      flight = null;
      f.xhr.abort();
    }
    if (document.visibilityState !== "visible") { return; }  /* when it is */
    /* A page woken while it still loads opens its stream once it has (live.connect). */
    if (document.readyState === "complete") { connect(); }
    lastCheck = Date.now();
    refresh("woke");
  }

  C.on("visibilitychange", "live.woke", woke);
  C.on("resume", "live.woke", woke);
  C.on("pageshow", "live.back", function (event) { if (event.persisted) { woke(); } });
  C.on("pagehide", "live.close", close);

  C.on("ready", "live.start", function () {
    want(shown(region()));
    lastRefresh = Date.now();  /* the page itself was the refresh */
  });

  /* The stream opens once the page has loaded, and a moment after: a stream opened while
     the page loads can keep WebKit's page loading for as long as it is open (Safari's
     wheel turning; a WebDriver waiting for the page). */
  C.on("load", "live.connect", function () { setTimeout(connect, 0); });
})();
