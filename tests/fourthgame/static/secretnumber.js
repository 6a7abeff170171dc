/* Secret Number's own script: the points given so far, totalled. The proof that a game's
   front end needs no line in static/js/core.js: its step is in the game slot, named
   "game.<kind>.<step>" (tests/test_game_contract.py runs the two in node). A real game's
   script is static/<kind>.js, named in its GameDef.assets; this test game's app serves
   none, so no template of it shows the total. */
(function () {
  "use strict";
  var C = window.Companion;

  function total() {
    var out = document.querySelector("[data-sn-total]");
    if (!out) { return; }
    var sum = 0;
    document.querySelectorAll("[data-points]").forEach(function (shown) {
      sum += parseInt(shown.textContent, 10) || 0;
    });
    out.textContent = String(sum);
  }

  C.on("ready", "game.secretnumber.total", total);
  C.on("htmx:afterSwap", "game.secretnumber.total", total);
})();
