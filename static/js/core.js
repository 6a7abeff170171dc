/* Companion's front end: the little behaviour htmx does not cover, in parts by behaviour
   (docs/architecture.md, "Front end"). No inline script (CSP), and no text of its own:
   every word it shows comes from a data-* attribute a template rendered.

   This part is loaded first (templates/base.html): the page's one listener per event,
   and the order in which the other parts' steps run on it. A part registers a step with
   Companion.on(event, name, fn) instead of adding a listener of its own, so that what
   runs after a swap, and in which order, is written here once (a refresh's swap must
   keep the held secret before the fields are put back, for instance). A game's own
   script registers its steps in the event's game slot, which names no game (below). A
   step that throws is reported (as an uncaught error) and the next steps still run, as
   separate listeners did. */
(function () {
  "use strict";

  /* Event -> its steps, in the order they run. "ready" runs once the page is parsed and
     every part is loaded (DOMContentLoaded), "load" once its images and styles are too.
     Names are "part.step": the part is the file under static/js/ that registers it.
     "game.*" is the event's game slot: the steps of the games' own scripts (static/, a
     game's GameDef.assets), named "game.<kind>.<step>", run there in the order they were
     registered; an event whose list does not name the slot runs them after its last
     step. */
  var ORDER = {
    "ready": ["panels.noteGame", "panels.takeover", "hold.wake", "roster.buttons", "roster.paint",
              "names.count", "live.start", "clock.start", "panels.reach", "panels.heroes",
              "game.*"],
    "load": ["live.connect"],
    "htmx:beforeRequest": ["live.route"],
    "htmx:beforeSend": ["live.sent", "clock.sample"],
    "htmx:beforeSwap": ["live.overtaken", "panels.saveFields"],
    "htmx:afterSwap": ["hold.again", "panels.restorePanels", "panels.tellGame", "panels.takeover",
                       "panels.heroes",
                       "hold.wake",
                       "panels.restoreFields", "names.count", "clock.check", "clock.offer",
                       "panels.reach", "game.*"],
    "htmx:afterSettle": ["live.follow"],
    "htmx:afterRequest": ["live.heard"],
    "htmx:sendError": ["live.unreachable"],
    "htmx:responseError": ["live.failed"],
    "visibilitychange": ["hold.hide", "live.woke", "clock.resample"],
    "resume": ["live.woke"],
    "pageshow": ["hold.hide", "live.back", "clock.back"],
    "pagehide": ["hold.hide", "live.close"],
    "click": ["panels.toggle", "panels.takeover", "hold.pass", "roster.addSeat", "game.*",
              "clock.unlock"],
    "input": ["names.count", "game.*"],
    "change": ["roster.colour", "game.*"],
    "contextmenu": ["hold.menu"],
    "pointerdown": ["hold.start"],
    "keydown": ["hold.start"],
    "pointerup": ["hold.end"],
    "pointercancel": ["hold.end"],
    "keyup": ["hold.end"],
    "focusout": ["hold.end"]
  };
  /* Where each event is listened to: the window's own events there, the ends of a hold
     in the capture phase (a release lands wherever the finger went); the rest on the
     document, bubbling, after htmx's own listeners on the elements. */
  var ON_WINDOW = { load: true, pageshow: true, pagehide: true };
  var CAPTURE = { pointerup: true, pointercancel: true, keyup: true, focusout: true };

  var GAME = "game.*";
  /* A game's step: "game.<kind>.<step>", the kind as its GameDef names it. */
  var GAME_STEP = /^game\.[a-z0-9_]+\.[A-Za-z0-9_]+$/;

  var steps = {};  /* event -> {name: fn} */
  var games = {};  /* event -> the names of its game steps, in the order registered */

  /* Each event's steps in the order they run, the game slot filled. */
  function sequence(type) {
    var names = ORDER[type].indexOf(GAME) === -1 ? ORDER[type].concat([GAME]) : ORDER[type];
    return [].concat.apply([], names.map(function (name) {
      return name === GAME ? games[type] || [] : [name];
    }));
  }

  function run(type, event) {
    var mine = steps[type] || {};
    sequence(type).forEach(function (name) {
      var fn = mine[name];
      if (!fn) { return; }  /* a part this page does not load (roster.js) */
      try { fn(event); }
      catch (e) { window.setTimeout(function () { throw e; }); }
    });
  }

  function listen(type) {
    if (document.readyState === "complete" && (type === "ready" || type === "load")) {
      window.setTimeout(run, 0, type);  /* a part loaded late: it is run all the same */
      return;
    }
    if (type === "ready") {
      document.addEventListener("DOMContentLoaded", function (e) { run("ready", e); });
      return;
    }
    (ON_WINDOW[type] ? window : document).addEventListener(type, function (e) { run(type, e); },
      !!CAPTURE[type]);
  }

  /* Register ``fn`` as the step ``name`` of ``type``, once: a part's step must be in
     ORDER; a game's ("game.<kind>.<step>") may be on any event ORDER has, in its slot. */
  function on(type, name, fn) {
    var game = GAME_STEP.test(name);
    if (!ORDER[type] || (!game && (name === GAME || ORDER[type].indexOf(name) === -1))) {
      throw new Error("static/js/core.js: no step " + name + " on " + type + " in ORDER");
    }
    if (!steps[type]) {
      steps[type] = {};
      listen(type);
    }
    if (steps[type][name]) { throw new Error("static/js/core.js: " + name + " twice on " + type); }
    steps[type][name] = fn;
    if (game) { (games[type] = games[type] || []).push(name); }
  }

  function csrfToken() {
    try { return JSON.parse(document.body.getAttribute("hx-headers"))["X-CSRFToken"]; }
    catch (e) { return ""; }
  }

  /* The live region (templates/_live.html): the part of a page that follows the table. */
  function live() { return document.getElementById("live"); }

  function verb(event) {
    var config = event.detail.requestConfig || {};
    return (config.verb || "").toLowerCase();
  }

  /* A live refresh: a GET of the live region (static/js/live.js, refresh). */
  function isRefresh(event) {
    var config = event.detail.requestConfig || {};
    var elt = config.elt || event.detail.elt;
    return verb(event) === "get" && !!elt && elt.id === "live";
  }

  function isWrite(event) { return verb(event) !== "get"; }

  /* The browser's record (Resource Timing) of a request to ``url`` (absolute) that
     started at or after ``since`` (performance.now()) and whose answer began to come:
     the latest such, or null. The live part's patience and the clock's samples read it. */
  function answered(url, since) {
    var entries = performance.getEntriesByName(url, "resource");
    for (var i = entries.length - 1; i >= 0; i--) {
      if (entries[i].startTime >= since && entries[i].responseStart > 0) { return entries[i]; }
    }
    return null;
  }

  window.Companion = { on: on, ORDER: ORDER, csrfToken: csrfToken, live: live,
                       isRefresh: isRefresh, isWrite: isWrite, answered: answered };
})();
