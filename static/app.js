/* Companion: the little behaviour htmx does not cover. No inline script (CSP), and no text
   of its own: every word it shows comes from a data-* attribute a template rendered. */
(function () {
  "use strict";

  function csrfToken() {
    try { return JSON.parse(document.body.getAttribute("hx-headers"))["X-CSRFToken"]; }
    catch (e) { return ""; }
  }

  function live() { return document.getElementById("live"); }

  /* A live refresh: htmx's GET of a page's #live region (a poll, or "poll-now"). */
  function isRefresh(event) {
    var config = event.detail.requestConfig || {};
    var elt = config.elt || event.detail.elt;
    return (config.verb || "").toLowerCase() === "get" && !!elt && elt.id === "live";
  }

  function isWrite(event) {
    var config = event.detail.requestConfig || {};
    return (config.verb || "").toLowerCase() !== "get";
  }

  /* ---------------------------------------------------------------------------------
     Screen Wake Lock: a host screen (the table's and a game's page: their live region
     polls a night's /n/… address) and a phone while it holds a secret keep the screen on,
     where the browser allows it. Browsers offer the API only in a secure context (HTTPS or
     localhost); elsewhere, or when the request is refused, nothing happens and nothing
     says otherwise. The browser drops the lock when the page is hidden: it is asked for
     again when the page is visible. */
  var wake = { sentinel: null, pending: false };
  var HOST_LIVE = /\/n\/[^/?#]+\/(?:[^?#]*\/)?live(?:[?#]|$)/;

  function hostScreen() {
    var region = live();
    return !!region && HOST_LIVE.test(region.getAttribute("hx-get") || "");
  }

  function wantWake() { return hostScreen() || hold !== null; }

  function dropWake() {
    var sentinel = wake.sentinel;
    wake.sentinel = null;
    if (sentinel) { sentinel.release().catch(function () {}); }
  }

  function syncWake() {
    if (!wantWake() || document.visibilityState !== "visible") { dropWake(); return; }
    if (wake.sentinel || wake.pending || !navigator.wakeLock) { return; }
    wake.pending = true;
    navigator.wakeLock.request("screen").then(function (sentinel) {
      wake.pending = false;
      wake.sentinel = sentinel;
      sentinel.addEventListener("release", function () {
        if (wake.sentinel === sentinel) { wake.sentinel = null; }
      });
      if (!wantWake()) { dropWake(); }
    }, function () { wake.pending = false; });
  }

  /* ---------------------------------------------------------------------------------
     Hold to reveal: a secret shows only while its button is held down — in a box fixed
     inside the viewport (away from the finger), so it is on screen wherever the button is
     and un-hiding it moves nothing on the page (no scroll anchoring). It stays shown until
     that very pointer (or key) is released, wherever the release lands: a live refresh
     that replaces the button and the secret meanwhile shows the fresh secret at once. */
  var hold = null;  /* {id, pointer, key, top}: the secret being held */

  function secretOf(id) { return document.getElementById(id); }

  function hideAll() {
    hold = null;
    document.querySelectorAll("[data-secret]").forEach(function (el) {
      el.hidden = true;
      el.removeAttribute("data-held");
    });
    document.querySelectorAll("[data-hold]").forEach(function (b) { b.setAttribute("aria-pressed", "false"); });
    syncWake();
  }

  function reveal(button, again) {
    var secret = secretOf(button.dataset.hold);
    if (!secret) { return; }
    /* an attribute htmx's settling leaves alone (it resets class and style) */
    secret.setAttribute("data-held", hold.top ? "top" : "bottom");
    secret.hidden = false;
    button.setAttribute("aria-pressed", "true");
    var seenUrl = button.dataset.seenUrl;
    if (seenUrl && !again && !button.dataset.seenSent) {
      button.dataset.seenSent = "1";
      fetch(seenUrl, { method: "POST", headers: { "X-CSRFToken": csrfToken() }, credentials: "same-origin" });
    }
  }

  function holdStart(event) {
    var button = event.target.closest && event.target.closest("[data-hold]");
    if (!button) { return; }
    var key = event.type === "keydown";
    if (key && event.key !== " " && event.key !== "Enter") { return; }
    event.preventDefault();
    if (hold !== null) { return; }  /* a second finger, or a key's auto-repeat */
    var box = button.getBoundingClientRect();
    hold = { id: button.dataset.hold, pointer: key ? null : event.pointerId,
             key: key ? event.key : null,
             /* the secret goes to the half of the screen the button is not in */
             top: box.top + box.height / 2 > window.innerHeight / 2 };
    reveal(button, false);
    syncWake();
  }

  function holdEnd(event) {
    if (hold === null) { return; }
    if (event.type === "keyup") {
      if (event.key === hold.key) { hideAll(); }
    } else if (event.type === "focusout") {
      /* a keyboard hold ends when focus moves elsewhere (not when a refresh removes it) */
      if (hold.key !== null && event.relatedTarget) { hideAll(); }
    } else if (hold.pointer === null || event.pointerId === hold.pointer) {
      hideAll();
    }
  }

  /* After a live refresh (and again once it settled): the fresh secret shows at once if
     the hold goes on. */
  function holdAfterSwap() {
    if (hold === null) { return; }
    var again = document.querySelectorAll("[data-hold='" + hold.id + "']");
    again.forEach(function (button) { reveal(button, true); });
    if (hold.key !== null && again.length) { again[0].focus(); }
  }

  document.addEventListener("htmx:afterSettle", holdAfterSwap);
  document.addEventListener("pointerdown", holdStart);
  document.addEventListener("keydown", holdStart);
  ["pointerup", "pointercancel", "keyup", "focusout"].forEach(function (name) {
    document.addEventListener(name, holdEnd, true);
  });
  document.addEventListener("contextmenu", function (event) {
    if (event.target.closest && event.target.closest("[data-hold]")) { event.preventDefault(); }
  });

  /* Hidden again whenever the page is hidden or comes back from the back/forward cache
     (the live-push block below refreshes a page that comes back). */
  document.addEventListener("visibilitychange", hideAll);
  window.addEventListener("pageshow", hideAll);
  window.addEventListener("pagehide", hideAll);

  /* ---------------------------------------------------------------------------------
     A live refresh keeps what the person was doing: the panels (<details>) they opened or
     closed stay so, and the fields they typed in keep what they typed. Panels are known
     by id, data-keep, or their class and place; fields by their form's action and name.
     Fields only for refreshes (GET), never for a form's own answer, and never the hidden
     fields (the log position must be the fresh one). */
  var panels = {};  /* panel key -> open, for the panels the person toggled */

  function panelKey(details) {
    if (details.id) { return "#" + details.id; }
    if (details.dataset.keep) { return "keep:" + details.dataset.keep; }
    var region = live();
    if (!region || !region.contains(details)) { return null; }
    var same = Array.prototype.filter.call(region.querySelectorAll("details"), function (d) {
      return d.className === details.className;
    });
    return "class:" + details.className + ":" + same.indexOf(details);
  }

  document.addEventListener("click", function (event) {
    var summary = event.target.closest && event.target.closest("summary");
    var details = summary && summary.parentElement;
    if (!details || details.tagName !== "DETAILS") { return; }
    var key = panelKey(details);
    if (key) { panels[key] = !details.open; }  /* the click's toggle comes next */
  });

  function restorePanels() {
    var region = live();
    if (!region) { return; }
    region.querySelectorAll("details").forEach(function (details) {
      var key = panelKey(details);
      if (key && key in panels) { details.open = panels[key]; }
    });
  }

  var typed = null;

  function fieldKey(field) {
    var form = field.form;
    return (form ? form.getAttribute("action") : "") + "|" + field.name + "|" +
      (field.type === "radio" || field.type === "checkbox" ? field.value : "");
  }

  function changed(field) {
    if (field.type === "radio" || field.type === "checkbox") {
      return field.checked !== field.defaultChecked;
    }
    if (field.tagName === "SELECT") {
      return Array.prototype.some.call(field.options, function (o) {
        return o.selected !== o.defaultSelected;
      });
    }
    return field.value !== field.defaultValue;
  }

  function saveFields(target) {
    var values = {};
    var any = false;
    target.querySelectorAll("input:not([type=hidden]), select, textarea").forEach(function (field) {
      if (!field.name || !changed(field)) { return; }
      values[fieldKey(field)] = field.type === "radio" || field.type === "checkbox" ?
        field.checked : field.value;
      any = true;
    });
    var active = document.activeElement;
    var focus = active && active !== document.body && target.contains(active) && active.name ?
      { key: fieldKey(active), start: active.selectionStart, end: active.selectionEnd } : null;
    return any || focus ? { values: values, focus: focus } : null;
  }

  function restoreFields(saved) {
    document.querySelectorAll("#live input:not([type=hidden]), #live select, #live textarea")
      .forEach(function (field) {
        var key = fieldKey(field);
        if (key in saved.values) {
          if (field.type === "radio" || field.type === "checkbox") {
            field.checked = saved.values[key];
          } else {
            field.value = saved.values[key];
          }
        }
        if (saved.focus && saved.focus.key === key) {
          field.focus({ preventScroll: true });
          try {
            if (saved.focus.start !== null) { field.setSelectionRange(saved.focus.start, saved.focus.end); }
          } catch (e) { /* a field without a caret (select, number) */ }
        }
      });
  }

  /* ---------------------------------------------------------------------------------
     A phone sees a new game start: when a refresh brings another game than the one shown
     (its panel's data-game), the page scrolls to it and says so for a minute (through
     the refreshes of that minute). A game this page has not seen yet is "new"; one it has
     seen is the table going back to it. */
  var NOTICE_MS = 60000;
  var games = { shown: "", highest: 0, told: null };

  function gamePanel() { return document.querySelector("#live [data-game]"); }

  function noteGame() {
    var panel = gamePanel();
    games.shown = panel ? panel.dataset.game : "";
    games.highest = Math.max(games.highest, Number(games.shown) || 0);
  }

  function tellGame(panel) {
    if (!games.told || games.told.game !== panel.dataset.game || Date.now() > games.told.until) {
      games.told = null;
      return;
    }
    if (panel.querySelector(".new-game")) { return; }
    var p = document.createElement("p");
    p.className = "notice info new-game";
    p.setAttribute("role", "status");
    p.textContent = games.told.text;
    var heading = panel.querySelector("h2");
    panel.insertBefore(p, heading ? heading.nextSibling : panel.firstChild);
  }

  function gameAfterSwap() {
    var before = games.shown;
    var panel = gamePanel();
    var now = panel ? panel.dataset.game : "";
    if (panel && now !== before) {
      var isNew = (Number(now) || 0) > games.highest;
      games.told = { game: now, until: Date.now() + NOTICE_MS,
                     text: isNew ? panel.dataset.newGame : panel.dataset.backToGame };
      tellGame(panel);
      if (hold === null) { panel.scrollIntoView({ block: "start" }); }
    } else if (panel) {
      tellGame(panel);
    }
    noteGame();
  }

  document.addEventListener("htmx:beforeSwap", function (event) {
    typed = null;
    var target = event.detail.target;
    if (!isRefresh(event) || !target) { return; }
    typed = saveFields(target);
  });

  document.addEventListener("htmx:afterSwap", function () {
    holdAfterSwap();
    restorePanels();
    gameAfterSwap();
    syncWake();
    if (!typed) { return; }
    var saved = typed;
    typed = null;
    restoreFields(saved);
  });

  /* ---------------------------------------------------------------------------------
     Reaching the table. A refresh that cannot reach the laptop (refused, or no answer
     within a few seconds) puts "can't reach the table — retrying…" on top of the screen;
     the next answer of any kind takes it away. A form that could not be sent, or that
     failed, says so on top of the live region. */
  var POLL_TIMEOUT_MS = 3000;  /* with a 2 s poll: said within 5 s of the laptop going */

  document.addEventListener("htmx:configRequest", function (event) {
    if ((event.detail.verb || "").toLowerCase() === "get" && event.detail.elt &&
        event.detail.elt.id === "live" && !event.detail.timeout) {
      event.detail.timeout = POLL_TIMEOUT_MS;
    }
  });

  function offline(on) {
    var mark = document.querySelector("[data-offline-mark]");
    if (!on) {
      if (mark) { mark.remove(); }
      return;
    }
    var region = live();
    /* in the page's language, on every live region (templates/_live.html) */
    var text = region && region.dataset.offline;
    if (mark || !text) { return; }
    mark = document.createElement("p");
    mark.className = "offline-mark";
    mark.setAttribute("data-offline-mark", "");
    mark.setAttribute("role", "alert");
    mark.textContent = text;
    document.body.appendChild(mark);
  }

  function tell(message) {
    var region = live();
    if (!region || !message) { return; }
    var old = region.querySelector(".notice.unreachable");
    if (old) { old.remove(); }
    var p = document.createElement("p");
    p.className = "notice error unreachable";
    p.setAttribute("role", "alert");
    p.textContent = message;
    region.insertBefore(p, region.firstChild);
  }

  function unreachable(event) {
    if (isWrite(event)) { tell(document.body.dataset.unreachable); }
    else if (isRefresh(event)) { offline(true); }
  }

  /* The live-push block below says when its stream fell silent (a laptop asleep answers
     nothing, and with a stream open no poll would notice) and when it is heard again. */
  document.addEventListener("companion:silent", function () { offline(true); });
  document.addEventListener("companion:heard", function () { offline(false); });
  document.addEventListener("htmx:sendError", unreachable);
  document.addEventListener("htmx:timeout", unreachable);
  document.addEventListener("htmx:afterRequest", function (event) {
    var xhr = event.detail.xhr;
    if (xhr && xhr.status > 0) { offline(false); }
  });
  document.addEventListener("htmx:responseError", function (event) {
    if (isWrite(event)) { tell(document.body.dataset.failed); }
  });

  /* Passing the tablet: a cover first, and the way back leaves no history entry. */
  document.addEventListener("click", function (event) {
    var open = event.target.closest("[data-pass-open]");
    if (open) {
      document.querySelector("[data-pass-cover]").hidden = true;
      document.querySelector("[data-pass-seat]").hidden = false;
      return;
    }
    var replace = event.target.closest("a[data-replace]");
    if (replace) {
      event.preventDefault();
      hideAll();
      document.querySelectorAll("[data-pass-seat]").forEach(function (el) { el.remove(); });
      window.location.replace(replace.href);
    }
  });

  function ready() {
    noteGame();
    syncWake();
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", ready);
  } else {
    ready();
  }
})();

/* The roster of a new night starts with four name fields; "add a seat" shows the next
   one (the page holds all eight, the others hidden) and puts the cursor in it, until all
   eight show. The button then only adds, never sends: pressing Enter in a name field
   starts the night. Without JavaScript the button sends the form and the page comes back
   with one more field, every name kept (companion/nights.py). */
(function () {
  "use strict";

  function hiddenSeat(form) { return form.querySelector("[data-roster-seat][hidden]"); }

  function addSeat(event) {
    var button = event.target.closest && event.target.closest("[data-add-seat]");
    if (!button || !button.form) { return; }
    var form = button.form;
    var next = hiddenSeat(form);
    if (!next) { return; }
    event.preventDefault();
    next.hidden = false;
    var shown = form.querySelector("[data-roster-shown]");
    if (shown) {
      shown.value = String(form.querySelectorAll("[data-roster-seat]:not([hidden])").length);
    }
    var input = next.querySelector("input");
    if (input) { input.focus(); }
    if (!hiddenSeat(form)) {
      var more = button.closest(".roster-more") || button;
      more.hidden = true;
    }
  }

  function ready() {
    document.querySelectorAll("[data-add-seat]").forEach(function (button) {
      button.type = "button";
    });
  }

  document.addEventListener("click", addSeat);
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", ready);
  } else {
    ready();
  }
})();

/* A colour chosen in the roster that another row has: that row takes this row's old
   colour, so no two players share one (the server refuses a shared colour without
   JavaScript). The swatch beside each list follows its choice. */
(function () {
  "use strict";

  function paint(select) {
    var swatch = select.parentElement.querySelector("[data-swatch]");
    if (swatch) { swatch.className = "swatch pc-" + select.value; }
    select.dataset.was = select.value;
  }

  document.addEventListener("change", function (event) {
    var select = event.target;
    if (!select.matches || !select.matches("select[data-colour]") || !select.form) { return; }
    var was = select.dataset.was;
    select.form.querySelectorAll("select[data-colour]").forEach(function (other) {
      if (other !== select && other.value === select.value && was) {
        other.value = was;
        paint(other);
      }
    });
    paint(select);
  });

  function ready() { document.querySelectorAll("select[data-colour]").forEach(paint); }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", ready);
  } else {
    ready();
  }
})();

/* Live push (companion/push.py): a live region with data-stream opens a Server-Sent
   Events stream of its night, and each "changed" refreshes the region at once
   ("poll-now"): the stream says only that something changed, the refresh fetches what
   this device may see. While the stream is open the region's own timer asks at most once
   a minute (a safety net); while it is not, every POLL_SECONDS as before. A page that
   comes back (woke, below) reopens its stream and refreshes at once.

   No change is ever missed: the page remembers the newest version it was told of (a
   stream's "changed", or the version an answer shows) and asks again until its region
   shows it, whatever the order of swaps, listeners and delays (a refresh triggered while
   htmx was between swapping the region and wiring the new one reached nothing, and the
   page then waited for the next minute's safety net). */
(function () {
  "use strict";

  var SAFETY_MS = 60000;
  var RETRY_MS = 30000;
  /* A refresh that has not brought the version told is asked again after this. */
  var CHASE_MS = 1000;
  /* The server says "alive" every data-heartbeat seconds (PUSH_HEARTBEAT): a stream
     silent for one and a half of those and a second more means the laptop cannot be
     reached (checked every 400 ms: said within 31.4 s of the last word at 20 s). */
  var HEARTBEAT_S = 20;
  var heard = 0;
  /* A change wakes every screen of the table at once: each waits a moment (at random,
     up to this long) before it asks, so they do not all reach the server in the same
     instant, where a host's next action would queue behind them. The stream says how
     long as it opens ("spread"): the longer, the more streams the server carries (a
     table alone waits none; companion/push.py, spread_ms). */
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
  /* The newest version told, when it was told, and the region's refresh in flight. */
  var wanted = -1;
  var wantedAt = 0;
  var asking = null;  /* {sent, xhr, elt}: the refresh of the region on its way */

  function region() { return document.getElementById("live"); }

  function mark(state) {
    if (state) { document.documentElement.setAttribute("data-push", state); }
    else { document.documentElement.removeAttribute("data-push"); }
  }

  function shown(el) {
    var found = el && /[?&]v=(-?\d+)/.exec(el.getAttribute("hx-get") || "");
    return found ? Number(found[1]) : -1;
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

  /* Whether a refresh of the region is still on its way. One whose region a form's
     answer replaced meanwhile is answered only to the detached element (htmx fires its
     events there, and they never reach the document), and one past its time-out is
     over: neither is on its way. */
  function onItsWay() {
    if (asking && (!asking.elt.isConnected || Date.now() - asking.sent > 2 * CHASE_MS)) {
      asking = null;
    }
    return asking !== null;
  }

  function refresh() {
    var el = region();
    if (!el || !window.htmx) { return; }
    /* one at a time: htmx would queue a second on the element the first one replaces */
    if (onItsWay()) { return; }
    window.htmx.trigger(el, "poll-now");
  }

  function later(ms) {
    clearTimeout(pending);
    pending = setTimeout(refresh, ms);
  }

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
    refresh();
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
    document.dispatchEvent(new CustomEvent("companion:heard"));
  }

  setInterval(function () {
    /* A tick long overdue: the page slept (its timers stopped), and a browser that says
       nothing of it (no "resume") is caught here. */
    if (Date.now() - ticked > SLEPT_MS) { woke(); }
    ticked = Date.now();
    /* A stream that fell silent: the laptop is asleep or gone. Say so, poll again as
       without a stream (those polls clear the mark when they are answered), and open a
       new stream. */
    if (streaming && Date.now() - heard > silentMs()) {
      document.dispatchEvent(new CustomEvent("companion:silent"));
      close();
      mark("retrying");
      retry = setTimeout(connect, 1000);
    }
    /* Told of a version the screen does not show yet, and nothing on its way: ask. */
    if (behind() && !onItsWay() && Date.now() - lastRefresh > CHASE_MS) { refresh(); }
  }, 400);

  /* The timer's polls wait while the stream is open; "poll-now" (a change, a wake-up,
     a form's answer) always goes. */
  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail.elt;
    var config = event.detail.requestConfig || {};
    if (!elt || elt.id !== "live" || (config.verb || "get").toLowerCase() !== "get") {
      return;
    }
    var fromTimer = !config.triggeringEvent;
    if (fromTimer && streaming && Date.now() - lastRefresh < SAFETY_MS) {
      event.preventDefault();
      return;
    }
    lastRefresh = Date.now();
    asking = { sent: lastRefresh, xhr: event.detail.xhr, elt: elt };
  });

  document.addEventListener("htmx:afterRequest", function (event) {
    if (!asking || event.detail.xhr !== asking.xhr) { return; }
    var sent = asking.sent;
    asking = null;
    /* "Nothing changed" to a refresh sent after the version was told: the screen is the
       night's latest (a version told of another night, which this phone has left, is
       never shown: stop asking for it). */
    if (event.detail.xhr.status === 204 && sent >= wantedAt) { wanted = shown(region()); }
  });

  /* Every swap: the version it shows was told (an answer names the version its write
     made); a region still behind asks again; a region with another stream (the phone
     joined another night) follows it. */
  document.addEventListener("htmx:afterSettle", function () {
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
     and the region refreshes at once, through the one-at-a-time path, keeping what was
     typed (the refresh's swap keeps fields and focus, above). The silence while it
     slept says nothing of the laptop: it is not taken for a laptop gone. */
  function woke() {
    heard = ticked = Date.now();
    if (document.visibilityState !== "visible") { return; }  /* when it is */
    connect();
    lastCheck = Date.now();
    refresh();
  }

  document.addEventListener("visibilitychange", woke);
  document.addEventListener("resume", woke);
  window.addEventListener("pageshow", function (event) { if (event.persisted) { woke(); } });
  window.addEventListener("pagehide", close);

  function ready() {
    want(shown(region()));
    lastRefresh = Date.now();  /* the page itself was the refresh */
    connect();
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", ready);
  } else {
    ready();
  }
})();

/* A synchronised reveal (templates/_reveal.html): a live region that brings an element
   with data-reveal-at (a moment in the laptop's time, ms) counts its three words
   (data-reveal-words) and shows what is marked data-reveal-hold at that moment, on every
   screen of the table at once: the last word and the opening together, as hands open on
   the last "Ho!". A screen that gets it after the moment shows it at once; one that gets
   it during the count joins the count where it stands.

   The laptop's clock, as NTP keeps one. Each exchange with the laptop is a sample: this
   page's times of sending and receiving (the network stack's, from Resource Timing),
   and the laptop's of receiving and answering (its X-Laptop-Clock header,
   companion/push.py). A sample's middle is off by half the difference between its trip
   there and its trip back, which no one can see; but since neither trip takes less than
   nothing, each sample bounds the laptop's clock from both sides. The page keeps the
   best samples of the last minutes and counts by the earliest time they all allow
   (each bound loosened with its age, as a phone's clock drifts): what they allow is
   narrower than any one sample's round trip, and by its earliest end no page flips
   before the moment. Samples come from every answer htmx gets (the refreshes a
   night's changes bring anyway: no request of its own, no radio woken for nothing), from
   a few asks of /clock (data-clock on <body>) at load and when the page comes back into
   view, and from a burst of asks when a reveal comes with time to spare: the count is
   re-timed by each better sample until shortly before its moment. On café Wi-Fi, the
   five samples at load alone left phones 15 to 50 ms off all night
   (docs/performance.md, "A night on real Wi-Fi"). A phone's own clock may be seconds
   off; only its difference from the laptop's counts, and a sample taken before the
   phone's clock was set (its clock moved against its monotonic one) is dropped.

   The flip's true time is kept on <html> (data-reveal-flipped, performance.timeOrigin
   plus performance.now(), which a wrong wall clock does not move), with the moment it
   was for (data-reveal-done) and the words said (data-reveal-words), so that a test can
   compare screens. */
(function () {
  "use strict";

  var SAMPLES = 5;     /* asks of /clock at load, and when the page comes back into view */
  var BURST = 6;       /* asks when a reveal comes with time to spare... */
  var BURST_UNTIL_MS = 300;  /* ...while its moment is at least this far */
  var KEEP = 16;       /* the samples kept: the best of either bound */
  var AGE_MS = 15 * 60000;
  /* How much a sample's worth fades, ms a ms: 50 ppm, a phone's clock drifting its most */
  var DRIFT = 0.00005;
  var STEP_MS = 500;   /* between the words: the last one is the moment itself */
  var LAST_MS = 700;   /* how long the last word stays over the opened bids */
  /* A timer can fire late, most when the device is busy: the last 30 ms before each word
     are waited out (12 ms gave flips up to 27 ms late with six pages on two cores). */
  var SPIN_MS = 30;
  var clock = { samples: [], offset: null, left: 0, asking: false, asked: 0, waiting: [] };
  var shown = null;    /* {at, timers, box, said, words, next}: the count under way */

  function clockUrl() { return document.body && document.body.dataset.clock; }

  /* The laptop's time now, by this page's estimate (its own clock when it has none). */
  function laptopNow() { return Date.now() + (clock.offset || 0); }

  /* How far this page's wall clock is from its monotonic one: it moves when the phone's
     clock is set. */
  function wall() { return Date.now() - performance.now(); }

  /* One sample: sent at t1 and back at t4 by this page's clock, received at t2 and
     answered at t3 by the laptop's. Neither trip takes less than nothing, so the
     laptop's clock is ahead of this page's by at least t3 - t4 and at most t2 - t1,
     whatever the trips' imbalance; the laptop's own work and a late stamp on either
     side only widen that. */
  function note(t1, t2, t3, t4) {
    if (!isFinite(t1 + t2 + t3 + t4) || t3 < t2 || t3 - t4 > t2 - t1) { return; }
    clock.samples.push({ lo: t3 - t4, hi: t2 - t1, at: performance.now(), wall: wall() });
    choose();
  }

  /* The estimate: the earliest laptop time every kept sample allows (each bound loosened
     by the drift since its sample). That intersection is narrower than the best sample's
     round trip: the quickest trip there and the quickest trip back seldom come in one
     sample. Samples that disagree (a phone's clock drifting faster than DRIFT) leave no
     intersection: then the sample with the shortest round trip alone. The samples kept are the KEEP best of either bound. */
  function choose() {
    var now = performance.now();
    var w = wall();
    function low(s) { return s.lo - (now - s.at) * DRIFT; }
    function high(s) { return s.hi + (now - s.at) * DRIFT; }
    function width(s) { return high(s) - low(s); }
    var fresh = clock.samples.filter(function (s) {
      return now - s.at < AGE_MS && Math.abs(s.wall - w) < 1000;
    });
    var byLow = fresh.slice().sort(function (a, b) { return low(b) - low(a); }).slice(0, KEEP);
    var byHigh = fresh.slice().sort(function (a, b) { return high(a) - high(b); }).slice(0, KEEP);
    clock.samples = byLow.concat(byHigh.filter(function (s) { return byLow.indexOf(s) < 0; }));
    root().setAttribute("data-clock-samples", String(clock.samples.length));
    if (!fresh.length) { return; }
    var lo = low(byLow[0]);
    var hi = high(byHigh[0]);
    if (lo > hi) {
      var best = fresh.slice().sort(function (a, b) { return width(a) - width(b); })[0];
      lo = low(best);
      hi = high(best);
    }
    /* Counted by the lower bound: the laptop's clock is surely at or past the moment
       when this page flips, so no screen opens the bids before it (late by the width
       at most; by the middle, a page was early by up to half of it: docs/performance.md,
       "A night on real Wi-Fi"). */
    root().setAttribute("data-clock-rtt", String(Math.round(hi - lo)));
    if (lo === clock.offset) { return; }
    clock.offset = lo;
    retime();
  }

  /* The laptop's two stamps in an answer's header, or null. */
  function stamps(header) {
    var both = String(header || "").split(",").map(Number);
    return both.length === 2 && isFinite(both[0]) && isFinite(both[1]) ? both : null;
  }

  /* When a request just answered left and when its answer began to come, by this
     page's clock, as the browser's network stack saw them (Resource Timing): without the
     hops between the page and the browser's network process, which a busy phone makes
     longer one way than the other. ``sent`` and ``back`` (the page's own times) when the
     browser has no such record. */
  function wire(url, since, sent, back) {
    var entries = performance.getEntriesByName(new URL(url, location.href).href, "resource");
    var base = wall();
    for (var i = entries.length - 1; i >= 0; i--) {
      var e = entries[i];
      if (e.startTime >= since && e.requestStart > 0 && e.responseStart >= e.requestStart) {
        return [base + e.requestStart, base + e.responseStart];
      }
    }
    return [sent, back];
  }

  /* The browser keeps 250 records: older ones go, so that new ones are kept. */
  function tidy() {
    if (performance.getEntriesByType("resource").length > 200) {
      performance.clearResourceTimings();
    }
  }

  /* Every answer htmx gets is a sample: sent when htmx sends it, received when its
     headers came. */
  document.addEventListener("htmx:beforeSend", function (event) {
    var xhr = event.detail.xhr;
    if (!xhr) { return; }
    var since = performance.now();
    var sent = Date.now();
    var back = null;
    xhr.addEventListener("readystatechange", function () {
      if (back === null && xhr.readyState >= 2) { back = Date.now(); }
    });
    xhr.addEventListener("loadend", function () {
      var laptop = stamps(xhr.getResponseHeader("X-Laptop-Clock"));
      if (!laptop || back === null || !xhr.responseURL) { return; }
      var times = wire(xhr.responseURL, since, sent, back);
      note(times[0], laptop[0], laptop[1], times[1]);
      settled();
      tidy();
    });
  });

  function ask() {
    var url = clockUrl();
    var near = shown && shown.box && shown.at - laptopNow() < BURST_UNTIL_MS;
    if (!url || clock.left <= 0 || near) {
      clock.left = 0;
      clock.asking = false;
      settled();
      return;
    }
    clock.asking = true;
    clock.left -= 1;
    clock.asked += 1;
    var mine = url + (url.indexOf("?") === -1 ? "?" : "&") + "n=" + clock.asked;  /* its own record */
    var since = performance.now();
    var sent = Date.now();
    fetch(mine, { cache: "no-store", credentials: "same-origin" }).then(function (r) {
      var back = Date.now();
      var laptop = stamps(r.headers.get("X-Laptop-Clock"));
      return r.text().then(function (text) {
        var server = Number(text);
        var times = wire(mine, since, sent, back);
        if (!isFinite(server)) { clock.left = 0; }  /* not the laptop's clock: keep ours */
        else { note(times[0], laptop ? laptop[0] : server, laptop ? laptop[1] : server, times[1]); }
        settled();
        tidy();
        ask();
      });
    }).catch(function () { clock.left = 0; clock.asking = false; settled(); });
  }

  /* Ask the laptop's time ``n`` times, one after another. */
  function sample(n) {
    if (!clockUrl()) { return; }
    clock.left = Math.max(clock.left, n);
    if (!clock.asking) { ask(); }
  }

  function settled() {
    if (clock.offset === null && clock.asking) { return; }
    var waiting = clock.waiting;
    clock.waiting = [];
    waiting.forEach(function (fn) { fn(); });
  }

  function resample() { choose(); sample(SAMPLES); }

  /* Run fn once the page has an estimate (at once when it has one, or no clock to ask). */
  function withClock(fn) {
    if (clock.offset !== null || !clockUrl()) { fn(); return; }
    clock.waiting.push(fn);
  }

  function root() { return document.documentElement; }

  function stop() {
    if (!shown) { return; }
    shown.timers.forEach(clearTimeout);
    if (shown.box) { shown.box.remove(); }
    root().removeAttribute("data-revealing");
    shown = null;
  }

  /* Run fn when the laptop's clock reads ``at``. */
  function atMoment(at, fn) {
    var wait = at - laptopNow();
    if (wait <= 0) { fn(); return null; }
    return setTimeout(function () {
      /* the timer's last few ms: waited out here, where lateness cannot creep in */
      while (at - laptopNow() > 0) { /* spin */ }
      fn();
    }, Math.max(0, wait - SPIN_MS));
  }

  function say(box, word) {
    box.textContent = word;
    box.hidden = false;
    shown.said.push(word);
    root().setAttribute("data-reveal-words", shown.said.join("|"));
  }

  function flip(box) {
    root().removeAttribute("data-revealing");
    root().setAttribute("data-reveal-flipped", String(performance.timeOrigin + performance.now()));
    root().setAttribute("data-reveal-done", String(shown.at));
    root().setAttribute("data-reveal-late", String(Math.round(laptopNow() - shown.at)));
    shown.timers.push(setTimeout(function () { box.hidden = true; }, LAST_MS));
  }

  /* Set the timers of the words not said yet, by the clock's estimate now. */
  function arm() {
    var count = shown;
    count.timers.forEach(clearTimeout);
    count.timers = [];
    count.words.forEach(function (word, i) {
      if (i < count.next) { return; }
      var when = count.at - (count.words.length - 1 - i) * STEP_MS;
      var last = i === count.words.length - 1;
      if (!last && when + STEP_MS <= laptopNow()) { return; }  /* its turn is over */
      var timer = atMoment(when, function () {
        count.next = i + 1;
        say(count.box, word);
        if (last) { flip(count.box); }
      });
      if (timer !== null) { count.timers.push(timer); }
    });
  }

  /* A better estimate during a count: its words are timed by it. */
  function retime() {
    if (shown && shown.box && shown.next < shown.words.length) { arm(); }
  }

  function begin(at, words) {
    stop();
    if (at <= laptopNow()) { return; }  /* the moment has passed: the bids show at once */
    var box = document.createElement("p");
    box.className = "reveal-count";
    box.setAttribute("role", "status");
    box.setAttribute("aria-live", "assertive");
    box.hidden = true;
    document.body.appendChild(box);
    root().setAttribute("data-revealing", "");
    shown = { at: at, timers: [], box: box, said: [], words: words, next: 0 };
    arm();
    if (at - laptopNow() > BURST_UNTIL_MS) { sample(BURST); }
  }

  /* After every swap (and on load): a moment brought, one still counting, or none. */
  function check() {
    var el = document.querySelector("[data-reveal-at]");
    if (!el) { stop(); return; }
    var at = Number(el.dataset.revealAt);
    if (!isFinite(at) || (shown && shown.at === at)) { return; }
    var words = (el.dataset.revealWords || "").split("|").filter(Boolean);
    /* held at once (the swap is not painted before this runs), counted once the clock
       is known: a page whose clock is not known yet waits for its first sample */
    root().setAttribute("data-revealing", "");
    ["data-reveal-words", "data-reveal-flipped", "data-reveal-done"].forEach(function (name) {
      root().removeAttribute(name);
    });
    shown = { at: at, timers: [], box: null };
    withClock(function () { if (shown && shown.at === at) { begin(at, words); } });
  }

  document.addEventListener("htmx:afterSwap", check);
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") { resample(); }
  });
  window.addEventListener("pageshow", function (event) { if (event.persisted) { resample(); } });

  function ready() {
    resample();
    check();
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", ready);
  } else {
    ready();
  }
})();

/* -------------------------------------------------------------------------------------
   "No phone has reached this laptop yet" (templates/nights/_reach.html): the server draws
   it, hidden, only while no device but the hosts' has reached the night; it shows once the
   seat codes have been on this page for REACH_WAIT_MS. The start is kept per night in
   sessionStorage, so a live refresh (which draws it hidden again) or a reload does not
   start the minute over. */
(function () {
  "use strict";
  var REACH_WAIT_MS = 60000;
  var timer = null;

  function since(key) {
    var name = "reach-since:" + key;
    var kept = null;
    try { kept = parseInt(window.sessionStorage.getItem(name), 10); } catch (e) { kept = null; }
    if (!kept) {
      kept = Date.now();
      try { window.sessionStorage.setItem(name, String(kept)); } catch (e) { /* private mode */ }
    }
    return kept;
  }

  function check() {
    var notice = document.querySelector("[data-reach-wait]");
    if (timer) { clearTimeout(timer); timer = null; }
    if (!notice) { return; }
    var left = since(notice.getAttribute("data-reach-wait")) + REACH_WAIT_MS - Date.now();
    if (left <= 0) { notice.hidden = false; return; }
    timer = setTimeout(check, left);
  }

  document.addEventListener("htmx:afterSwap", check);
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", check);
  } else {
    check();
  }
})();
