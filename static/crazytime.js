/* Crazy Time: the tick-tock counter on the host's tablet. Delegated: the button lives in
   the live fragment that htmx swaps, so the listener sits on the document (CSP: no
   inline script). One syllable a second, shown in an aria-live region. */
(function () {
  "use strict";

  var timer = null;

  function output() { return document.querySelector("[data-ticktock-out]"); }

  function say(text) {
    var out = output();
    if (out) { out.textContent = text; }
  }

  function setRunning(running) {
    document.querySelectorAll("[data-ticktock]").forEach(function (b) {
      b.setAttribute("aria-pressed", running ? "true" : "false");
      b.classList.toggle("running", running);
    });
  }

  function stop() {
    if (timer) { clearTimeout(timer); timer = null; }
    setRunning(false);
  }

  function start(button) {
    stop();
    var syllables = (button.dataset.syllables || "").split("|").filter(Boolean);
    var done = button.dataset.done || "";
    var said = [];
    var i = 0;
    setRunning(true);
    function step() {
      if (i < syllables.length) {
        said.push(syllables[i]);
        say(said.join(" - "));
        i += 1;
        timer = setTimeout(step, 1000);
      } else {
        say(done);
        timer = null;
        setRunning(false);
      }
    }
    step();
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-ticktock]");
    if (!button) { return; }
    if (timer) { stop(); say(""); return; }  /* a second tap: somebody played */
    start(button);
  });

  /* A live refresh (another device wrote something) must not wipe a law being typed:
     carry the typed values into the fresh form. Only for refreshes (GET), never for the
     form's own answer, so a recorded law leaves no text behind on the screen. */
  var typing = null;

  document.addEventListener("htmx:beforeSwap", function (event) {
    typing = null;
    var config = event.detail.requestConfig || {};
    if ((config.verb || "").toLowerCase() !== "get") { return; }
    var form = document.querySelector(".ct-law-form form");
    var target = event.detail.target;
    if (!form || !target || !target.contains(form)) { return; }
    var values = {};
    var any = false;
    form.querySelectorAll("input[type=text]").forEach(function (input) {
      values[input.name] = input.value;
      if (input.value) { any = true; }
    });
    var active = document.activeElement;
    if (any) {
      typing = { values: values, focus: active && form.contains(active) ? active.name : null };
    }
  });

  document.addEventListener("htmx:afterSwap", function () {
    if (!typing) { return; }
    var saved = typing;
    typing = null;
    var form = document.querySelector(".ct-law-form form");
    if (!form) { return; }
    Object.keys(saved.values).forEach(function (name) {
      var input = form.querySelector("input[name='" + name + "']");
      if (input && !input.value) { input.value = saved.values[name]; }
    });
    if (saved.focus) {
      var focus = form.querySelector("input[name='" + saved.focus + "']");
      if (focus) { focus.focus(); }
    }
  });
})();
