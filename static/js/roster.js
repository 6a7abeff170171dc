/* A new night's roster (templates/table/index.html, the one page that loads this part;
   static/js/core.js runs the steps registered here). */
(function () {
  "use strict";
  var C = window.Companion;

  /* The roster of a new night starts with four name fields; "add a seat" shows the next
     one (the page holds all eight, the others hidden) and puts the cursor in it, until all
     eight show. The button then only adds, never sends: pressing Enter in a name field
     starts the night. Without JavaScript the button sends the form and the page comes back
     with one more field, every name kept (companion/table/nights.py). */
  function hiddenSeat(form) { return form.querySelector("[data-roster-seat][hidden]"); }

  C.on("click", "roster.addSeat", function (event) {
    var button = event.target.closest && event.target.closest("[data-add-seat]");
    if (!button || !button.form) { return; }
    var form = button.form;
    var next = hiddenSeat(form);
    if (!next) { return; }
    event.preventDefault();
    next.hidden = false;
    var shown = form.querySelector("[data-roster-shown]");
    if (shown) {
      shown.value = String(form.querySelectorAll("[data-roster-seat]:not([hidden])").length);
    }
    var input = next.querySelector("input");
    if (input) { input.focus(); }
    if (!hiddenSeat(form)) {
      var more = button.closest(".roster-more") || button;
      more.hidden = true;
    }
  });

  C.on("ready", "roster.buttons", function () {
    document.querySelectorAll("[data-add-seat]").forEach(function (button) {
      button.type = "button";
    });
  });

  /* A colour chosen in the roster that another row has: that row takes this row's old
     colour, so no two players share one (the server refuses a shared colour without
     JavaScript). The swatch beside each list follows its choice. */
  function paint(select) {
    var swatch = select.parentElement.querySelector("[data-swatch]");
    if (swatch) { swatch.className = "swatch pc-" + select.value; }
    select.dataset.was = select.value;
  }

  C.on("change", "roster.colour", function (event) {
    var select = event.target;
    if (!select.matches || !select.matches("select[data-colour]") || !select.form) { return; }
    var was = select.dataset.was;
    select.form.querySelectorAll("select[data-colour]").forEach(function (other) {
      if (other !== select && other.value === select.value && was) {
        other.value = was;
        paint(other);
      }
    });
    paint(select);
  });

  C.on("ready", "roster.paint", function () {
    document.querySelectorAll("select[data-colour]").forEach(paint);
  });
})();
