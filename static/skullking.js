/* Skull King: the results editor's running trick count. Delegated listeners only (CSP;
   htmx swaps fragments). A half-typed editor survives live refreshes through app.js. */
(function () {
  "use strict";

  function updateSum(table) {
    var form = table.closest("form") || document;
    var sum = 0;
    table.querySelectorAll("input[data-won]").forEach(function (input) {
      var n = parseInt(input.value, 10);
      if (!isNaN(n)) { sum += n; }
    });
    form.querySelectorAll("[data-sk-sum]").forEach(function (out) { out.textContent = String(sum); });
  }

  function refreshAll() {
    document.querySelectorAll("[data-sk-results]").forEach(updateSum);
  }

  document.addEventListener("input", function (event) {
    var table = event.target.closest("[data-sk-results]");
    if (table) { updateSum(table); }
  });

  document.addEventListener("htmx:afterSwap", refreshAll);
  document.addEventListener("DOMContentLoaded", refreshAll);
})();
