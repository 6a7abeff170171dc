/* Hold to see, the screen kept on, and passing the tablet (static/js/core.js runs the
   steps registered here). */
(function () {
  "use strict";
  var C = window.Companion;

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
    var region = C.live();
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
      fetch(seenUrl, { method: "POST", headers: { "X-CSRFToken": C.csrfToken() }, credentials: "same-origin" });
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

  /* After a live refresh: the fresh secret shows at once if the hold goes on. Once is
     enough: htmx settles a replaced element's class back a moment after its swap, a
     morphed one not, and the secret's hidden and data-held are never settled. */
  function holdAfterSwap() {
    if (hold === null) { return; }
    var again = document.querySelectorAll("[data-hold='" + hold.id + "']");
    again.forEach(function (button) { reveal(button, true); });
    if (hold.key !== null && again.length) { again[0].focus(); }
  }

  C.on("pointerdown", "hold.start", holdStart);
  C.on("keydown", "hold.start", holdStart);
  ["pointerup", "pointercancel", "keyup", "focusout"].forEach(function (name) {
    C.on(name, "hold.end", holdEnd);
  });
  C.on("contextmenu", "hold.menu", function (event) {
    if (event.target.closest && event.target.closest("[data-hold]")) { event.preventDefault(); }
  });
  C.on("htmx:afterSwap", "hold.again", holdAfterSwap);
  C.on("htmx:afterSwap", "hold.wake", syncWake);
  C.on("ready", "hold.wake", syncWake);

  /* Hidden again whenever the page is hidden or comes back from the back/forward cache
     (static/js/live.js refreshes a page that comes back). */
  C.on("visibilitychange", "hold.hide", hideAll);
  C.on("pageshow", "hold.hide", hideAll);
  C.on("pagehide", "hold.hide", hideAll);

  /* Passing the tablet: a cover first, and the way back leaves no history entry. */
  C.on("click", "hold.pass", function (event) {
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

  /* Whether a secret is held now (static/js/panels.js does not scroll under a finger). */
  C.hold = { active: function () { return hold !== null; } };
})();
