/* Skull King: the steppers of the "+ bonus" panels and the running count of the tricks
   entered. Steps in the game slot of the page's one listener per event
   (static/js/core.js; CSP, and htmx swaps fragments). What the host tapped or typed,
   and the panels they opened, survive live refreshes through static/js/panels.js. */
(function () {
  "use strict";
  var C = window.Companion;

  function number(input, fallback) {
    var n = parseInt(input && input.value, 10);
    return isNaN(n) ? fallback : n;
  }

  function updateSum(box) {
    var form = box.closest("form") || document;
    var sum = 0;
    form.querySelectorAll("input[data-won]:checked").forEach(function (input) {
      sum += number(input, 0);
    });
    var need = parseInt(box.dataset.cards, 10) - number(form.querySelector("input[name=discarded]"), 0);
    var off = box.dataset.ghost === "1" ? sum > need : sum !== need;
    box.querySelectorAll("[data-sk-sum]").forEach(function (out) { out.textContent = String(sum); });
    box.querySelectorAll("[data-sk-need]").forEach(function (out) { out.textContent = String(need); });
    box.classList.toggle("off", off);
  }

  function refreshAll() {
    document.querySelectorAll("[data-sk-sum-box]").forEach(updateSum);
  }

  function changed(event) {
    var form = event.target.form;
    var box = form && form.querySelector("[data-sk-sum-box]");
    if (box) { updateSum(box); }
  }

  /* − and + beside a count: one tap each, within the field's min and max. */
  C.on("click", "game.skullking.step", function (event) {
    var button = event.target.closest("[data-step]");
    if (!button) { return; }
    var input = button.closest("[data-stepper]").querySelector("input");
    var low = number({ value: input.min }, 0);
    var high = number({ value: input.max }, Infinity);
    var value = Math.min(high, Math.max(low, number(input, 0) + parseInt(button.dataset.step, 10)));
    if (String(value) !== input.value) {
      input.value = String(value);
      input.dispatchEvent(new Event("input", { bubbles: true }));
    }
  });

  C.on("input", "game.skullking.sums", changed);
  C.on("change", "game.skullking.sums", changed);
  C.on("htmx:afterSwap", "game.skullking.sums", refreshAll);
  C.on("ready", "game.skullking.sums", refreshAll);
})();
