/* Skull King: the results editor's running trick count, and keeping a half-typed editor
   when the table changes. Delegated listeners only (CSP; htmx swaps fragments). */
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
    var keep = event.target.closest("form[data-sk-keep]");
    if (keep) { keep.dataset.dirty = "1"; }
  });

  /* A poll re-fetches #live on any change at the table; while the host is typing the
     round's results, keep the form (a stale write is refused and explained anyway). */
  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail && event.detail.elt;
    if (elt && elt.id === "live" && elt.querySelector("form[data-sk-keep][data-dirty]")) {
      event.preventDefault();
    }
  });

  document.addEventListener("htmx:afterSwap", refreshAll);
  document.addEventListener("DOMContentLoaded", refreshAll);
})();
