/* The colour theme: Auto (the device's setting), Light or Dark, chosen with the switch in
   the page's header (templates/base.html) and remembered on this device (localStorage).
   Loaded in <head> without defer, before the page is drawn, so a chosen theme is there on
   the first paint and never flashes the other one (the CSP forbids inline scripts).
   Pico's own rules do the rest: [data-theme=light|dark] on <html> wins over the device's
   prefers-color-scheme, and no attribute follows it. */
(function () {
  "use strict";
  var KEY = "theme";
  var root = document.documentElement;

  function stored() {
    try { return localStorage.getItem(KEY); } catch (e) { return null; }  // storage off
  }

  var current = "auto";

  function apply(choice) {
    current = choice === "light" || choice === "dark" ? choice : "auto";
    if (current === "auto") root.removeAttribute("data-theme");
    else root.setAttribute("data-theme", current);
  }

  /* The switch shows which choice holds; without this script it stays hidden. */
  function mark() {
    document.querySelectorAll("[data-theme-switch]").forEach(function (group) {
      group.hidden = false;
      group.querySelectorAll("[data-theme-choice]").forEach(function (button) {
        button.setAttribute("aria-pressed", String(button.dataset.themeChoice === current));
      });
    });
  }

  apply(stored());
  document.addEventListener("DOMContentLoaded", mark);
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-theme-choice]");
    if (!button) return;
    var choice = button.dataset.themeChoice;
    try {
      if (choice === "auto") localStorage.removeItem(KEY);
      else localStorage.setItem(KEY, choice);
    } catch (e) { /* not remembered, but applied to this page */ }
    apply(choice);
    mark();
  });
  /* Another tab of this device changed it: follow. */
  window.addEventListener("storage", function (event) {
    if (event.key === KEY) { apply(event.newValue); mark(); }
  });
})();
