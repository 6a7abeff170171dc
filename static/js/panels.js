/* What a live refresh keeps (panels, fields) and what it tells (a new game, no phone
   yet): static/js/core.js runs the steps registered here. */
(function () {
  "use strict";
  var C = window.Companion;

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
    var region = C.live();
    if (!region || !region.contains(details)) { return null; }
    var same = Array.prototype.filter.call(region.querySelectorAll("details"), function (d) {
      return d.className === details.className;
    });
    return "class:" + details.className + ":" + same.indexOf(details);
  }

  /* A panel opened by a tap in the live region shows what it holds: where its end is
     below the screen, the page scrolls it up, never past its own summary, so that what
     is tapped next (a Special card's move, the reveal behind "Dealt") is on screen
     without a scroll of the person's own. */
  function showOpened(details) {
    if (!details.open || !details.isConnected) { return; }
    var summary = details.querySelector("summary");
    var below = details.getBoundingClientRect().bottom - window.innerHeight + 8;
    var room = summary ? summary.getBoundingClientRect().top - 8 : 0;
    if (below > 0 && room > 0) { window.scrollBy(0, Math.min(below, room)); }
  }

  C.on("click", "panels.toggle", function (event) {
    var summary = event.target.closest && event.target.closest("summary");
    var details = summary && summary.parentElement;
    if (!details || details.tagName !== "DETAILS") { return; }
    var key = panelKey(details);
    if (key) { panels[key] = !details.open; }  /* the click's toggle comes next */
    var region = C.live();
    if (region && region.contains(details) && !details.open) {
      window.requestAnimationFrame(function () { showOpened(details); });
    }
  });

  function restorePanels() {
    var region = C.live();
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

  C.on("htmx:beforeSwap", "panels.saveFields", function (event) {
    typed = null;
    var target = event.detail.target;
    if (!C.isRefresh(event) || !target) { return; }
    typed = saveFields(target);
  });
  C.on("htmx:afterSwap", "panels.restorePanels", restorePanels);
  C.on("htmx:afterSwap", "panels.restoreFields", function () {
    if (!typed) { return; }
    var saved = typed;
    typed = null;
    restoreFields(saved);
  });

  /* ---------------------------------------------------------------------------------
     A phone sees a new game start: when a refresh brings another game than the one shown
     (its panel's data-game), the page scrolls to it and says so for a few seconds (through
     the refreshes of those seconds), then the notice fades away: a notice left for rounds
     was read as news each time. A game this page has not seen yet is "new"; one it has
     seen is the table going back to it. */
  var NOTICE_MS = 6000, FADE_MS = 1000;
  var games = { shown: "", highest: 0, told: null };
  var fading = null;

  function gamePanel() { return document.querySelector("#live [data-game]"); }

  function noteGame() {
    var panel = gamePanel();
    games.shown = panel ? panel.dataset.game : "";
    games.highest = Math.max(games.highest, Number(games.shown) || 0);
  }

  function notices() { return document.querySelectorAll("#live .new-game"); }

  /* The notice's end: faded, then gone; a refresh meanwhile draws it no more. */
  function endNotice() {
    if (fading) { clearTimeout(fading); fading = null; }
    if (!games.told) { return; }
    var left = games.told.until - Date.now();
    if (left > FADE_MS) { fading = setTimeout(endNotice, left - FADE_MS); return; }
    notices().forEach(function (p) { p.classList.add("fading"); });
    if (left > 0) { fading = setTimeout(endNotice, left); return; }
    games.told = null;
    notices().forEach(function (p) { p.remove(); });
  }

  /* Closed by the player: gone now, and no refresh of the notice's seconds draws it again. */
  function closeNotice() {
    if (fading) { clearTimeout(fading); fading = null; }
    games.told = null;
    notices().forEach(function (p) { p.remove(); });
  }

  function tellGame(panel) {
    if (!games.told || games.told.game !== panel.dataset.game || Date.now() > games.told.until) {
      games.told = null;
      return;
    }
    /* The room's screen has no one to tell (and the notice would only push its board
       down): the game's own title says which game it is. */
    if (document.body.classList.contains("screen")) { return; }
    if (panel.querySelector(".new-game")) { return; }
    var p = document.createElement("p");
    p.className = "notice info new-game";
    p.setAttribute("role", "status");
    var text = document.createElement("span");
    text.textContent = games.told.text;
    /* A tap anywhere on it closes it (it covers what the player looks for); the button is
       that tap for a keyboard and a screen reader, and says so. */
    var close = document.createElement("button");
    close.type = "button";
    close.className = "notice-close secondary outline";
    close.setAttribute("aria-label", panel.dataset.closeNotice || "");
    p.append(text, close);
    p.addEventListener("click", closeNotice);
    if (games.told.until - Date.now() <= FADE_MS) { p.classList.add("fading"); }
    /* After the panel's first heading wherever it sits (it may be nested in a part). */
    var heading = panel.querySelector("h2");
    if (heading) { heading.after(p); } else { panel.prepend(p); }
    endNotice();
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
      /* Scrolled to in the next frame, once every step after the swap has written: here
         it would lay the page out, and the steps after would make that layout stale
         (a slow phone spent 0.4 s on it: docs/measurements/2026-12-06/README.md, "Slow phones"). */
      window.requestAnimationFrame(function () {
        if (!C.hold.active() && panel.isConnected) { panel.scrollIntoView({ block: "start" }); }
      });
    } else if (panel) {
      tellGame(panel);
    }
    noteGame();
  }

  /* ---------------------------------------------------------------------------------
     Takeovers (app.css): a moment said with the whole phone. An ending (its
     data-takeover names the game end) opens by itself, once per device: a tap anywhere
     on it closes it, and the device remembers that (localStorage), so neither a live
     refresh nor a reload brings it back for the same end. A takeover a button opens
     (data-takeover-open, Skull King's own bid held up) stays open through refreshes until
     a tap closes it. Open is an attribute, not a class: htmx's settling puts a swapped
     element's classes back as the server drew them, a moment after the swap. */
  var CLOSED_KEY = "takeovers-closed", CLOSED_KEPT = 30;
  var opened = null;  /* the id of the takeover a button opened */
  var seen = {};  /* the takeovers this page has opened: a refresh does not pop them again */

  function closedEndings() {
    try { return JSON.parse(window.localStorage.getItem(CLOSED_KEY)) || []; }
    catch (e) { return []; }
  }

  function remember(end) {
    var closed = closedEndings().filter(function (k) { return k !== end; });
    closed.push(end);
    try { window.localStorage.setItem(CLOSED_KEY, JSON.stringify(closed.slice(-CLOSED_KEPT))); }
    catch (e) { /* private mode: closed for this page only */ }
  }

  function open(el) {
    var name = el.dataset.takeover || el.id;
    el.hidden = false;
    el.setAttribute("data-open", seen[name] ? "" : "new");
    seen[name] = true;
  }

  function showTakeovers() {
    var closed = closedEndings();
    document.querySelectorAll("[data-takeover]").forEach(function (el) {
      if (closed.indexOf(el.dataset.takeover) === -1) { open(el); }
    });
    var asked = opened && document.getElementById(opened);
    if (asked) { open(asked); } else { opened = null; }
  }

  C.on("click", "panels.takeover", function (event) {
    var button = event.target.closest && event.target.closest("[data-takeover-open]");
    if (button) {
      var target = document.getElementById(button.dataset.takeoverOpen);
      if (target) { opened = target.id; seen[target.id] = false; open(target); }
      return;
    }
    var shown = event.target.closest && event.target.closest(".takeover[data-open]");
    if (!shown) { return; }
    event.preventDefault();
    shown.removeAttribute("data-open");
    if (shown.dataset.takeover) {
      remember(shown.dataset.takeover);
    } else {  /* one a button opened: hidden again until the button is pressed again */
      opened = null;
      shown.hidden = true;
    }
  });
  C.on("ready", "panels.takeover", showTakeovers);
  C.on("htmx:afterSwap", "panels.takeover", showTakeovers);

  C.on("htmx:afterSwap", "panels.tellGame", gameAfterSwap);

  /* ---------------------------------------------------------------------------------
     The room's screen plays a hero moment's entrance (static/screen.css) once: a live
     refresh draws the banner anew, and one this page has shown already is marked seen
     (no entrance) before it is painted. A moment is known by its data-hero, else its
     words. */
  var heroes = {};

  function settleHeroes() {
    if (!document.body.classList.contains("screen")) { return; }
    document.querySelectorAll("#live .screen-hero, #live .round-over").forEach(function (el) {
      var key = el.dataset.hero || el.textContent.trim();
      if (heroes[key]) { el.classList.add("hero-seen"); } else { heroes[key] = true; }
    });
  }

  C.on("htmx:afterSwap", "panels.heroes", settleHeroes);
  C.on("ready", "panels.heroes", settleHeroes);
  C.on("ready", "panels.noteGame", noteGame);

  /* "No phone has reached this laptop yet" (templates/table/_reach.html): the server
     draws it, hidden, only while no device but the hosts' has reached the night; it shows
     once the seat codes have been on this page for REACH_WAIT_MS. The start is kept per
     night in sessionStorage, so a live refresh (which draws it hidden again) or a reload
     does not start the minute over. */
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

  function reach() {
    var notice = document.querySelector("[data-reach-wait]");
    if (timer) { clearTimeout(timer); timer = null; }
    if (!notice) { return; }
    var left = since(notice.getAttribute("data-reach-wait")) + REACH_WAIT_MS - Date.now();
    if (left <= 0) { notice.hidden = false; return; }
    timer = setTimeout(reach, left);
  }

  C.on("htmx:afterSwap", "panels.reach", reach);
  C.on("ready", "panels.reach", reach);
})();
