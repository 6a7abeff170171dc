/* A name field's count of characters (templates/_name_count.html): the roster, the
   latecomer's form and a seat's rename, the pages that load this part (static/js/core.js
   runs the steps registered here). The fields have no maxlength, so a long name is never
   cut as it is typed or pasted: the count shows once a name nears the most a night
   takes, says so past it, and the server refuses such a name, saying why. It counts what
   the server counts: the characters (code points) of the name as composed (NFC) and
   trimmed. */
(function () {
  "use strict";
  var C = window.Companion;

  /* The count shows from this share of the most on (20 of 30): short names say nothing. */
  var NEAR = 2 / 3;

  function count(field) {
    var out = document.getElementById(field.getAttribute("data-name-count") || "");
    var most = Number(field.getAttribute("data-name-most"));
    if (!out || !most) { return; }
    var length = Array.from(field.value.normalize("NFC").trim()).length;
    var over = length > most;
    out.hidden = length < Math.ceil(most * NEAR);
    out.textContent = (over ? out.dataset.over : out.dataset.count).replace("{n}", String(length));
    out.classList.toggle("over", over);
    if (over) {
      field.setAttribute("aria-invalid", "true");
    } else if (field.getAttribute("aria-invalid") === "true") {
      field.removeAttribute("aria-invalid");
    }
  }

  function countAll() {
    document.querySelectorAll("input[data-name-count]").forEach(count);
  }

  C.on("ready", "names.count", countAll);
  C.on("htmx:afterSwap", "names.count", countAll);
  C.on("input", "names.count", function (event) {
    var field = event.target;
    if (field.matches && field.matches("input[data-name-count]")) { count(field); }
  });
})();
