/* Crazy Time: the tick-tock counter on the host's tablet. Delegated: the button lives in
   the live fragment that htmx swaps, so its step runs in the game slot of the page's one
   click listener (static/js/core.js; CSP: no inline script). One syllable a second, shown in an
   aria-live region. */
(function () {
  "use strict";
  var C = window.Companion;

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

  C.on("click", "game.crazytime.ticktock", function (event) {
    var button = event.target.closest("[data-ticktock]");
    if (!button) { return; }
    if (timer) { stop(); say(""); return; }  /* a second tap: somebody played */
    start(button);
  });
})();
