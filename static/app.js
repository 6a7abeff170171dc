/* Companion: the little behaviour htmx does not cover. No inline script (CSP). */
(function () {
  "use strict";

  function csrfToken() {
    try { return JSON.parse(document.body.getAttribute("hx-headers"))["X-CSRFToken"]; }
    catch (e) { return ""; }
  }

  /* Hold to reveal: a secret shows only while the button is held down. */
  function secretOf(button) { return document.getElementById(button.dataset.hold); }

  var held = null;  /* the secret being held, so a live refresh meanwhile keeps it shown */

  function hideAll() {
    held = null;
    document.querySelectorAll("[data-secret]").forEach(function (el) { el.hidden = true; });
    document.querySelectorAll("[data-hold]").forEach(function (b) { b.setAttribute("aria-pressed", "false"); });
  }

  function show(button) {
    var secret = secretOf(button);
    if (!secret) { return; }
    secret.hidden = false;
    held = button.dataset.hold;
    button.setAttribute("aria-pressed", "true");
    var seenUrl = button.dataset.seenUrl;
    if (seenUrl && !button.dataset.seenSent) {
      button.dataset.seenSent = "1";
      fetch(seenUrl, { method: "POST", headers: { "X-CSRFToken": csrfToken() }, credentials: "same-origin" });
    }
  }

  function holdStart(event) {
    var button = event.target.closest("[data-hold]");
    if (!button) { return; }
    if (event.type === "keydown" && event.key !== " " && event.key !== "Enter") { return; }
    event.preventDefault();
    show(button);
  }

  function holdEnd(event) {
    if (event.target.closest && event.target.closest("[data-hold]")) { hideAll(); }
  }

  document.addEventListener("pointerdown", holdStart);
  document.addEventListener("keydown", holdStart);
  ["pointerup", "pointercancel", "pointerleave", "keyup", "focusout"].forEach(function (name) {
    document.addEventListener(name, holdEnd, true);
  });
  document.addEventListener("contextmenu", function (event) {
    if (event.target.closest("[data-hold]")) { event.preventDefault(); }
  });

  /* Hidden again whenever the page is hidden or comes back from the back/forward cache. */
  document.addEventListener("visibilitychange", function () {
    hideAll();
    if (document.visibilityState === "visible" && window.htmx) {
      var live = document.getElementById("live");
      if (live) { window.htmx.trigger(live, "poll-now"); }
    }
  });
  window.addEventListener("pageshow", hideAll);
  window.addEventListener("pagehide", hideAll);
  /* A live refresh (another device wrote something) must not wipe what someone is typing:
     the fields a person changed are carried into the fresh forms. Only for refreshes
     (GET), never for a form's own answer, and never the hidden fields (the log position
     must be the fresh one). */
  var typed = null;

  function fieldKey(field) {
    var form = field.form;
    return (form ? form.getAttribute("action") : "") + "|" + field.name + "|" +
      (field.type === "radio" || field.type === "checkbox" ? field.value : "");
  }

  function changed(field) {
    if (field.type === "radio" || field.type === "checkbox") {
      return field.checked !== field.defaultChecked;
    }
    if (field.tagName === "SELECT") {
      return Array.prototype.some.call(field.options, function (o) {
        return o.selected !== o.defaultSelected;
      });
    }
    return field.value !== field.defaultValue;
  }

  document.addEventListener("htmx:beforeSwap", function (event) {
    typed = null;
    var config = event.detail.requestConfig || {};
    var target = event.detail.target;
    if ((config.verb || "").toLowerCase() !== "get" || !target) { return; }
    var fields = target.querySelectorAll("input:not([type=hidden]), select, textarea");
    var values = {};
    var any = false;
    fields.forEach(function (field) {
      if (!field.name || !changed(field)) { return; }
      values[fieldKey(field)] = field.type === "radio" || field.type === "checkbox" ?
        field.checked : field.value;
      any = true;
    });
    var active = document.activeElement;
    typed = any ? { values: values, focus: active && target.contains(active) && active.name ?
      fieldKey(active) : null } : null;
  });

  document.addEventListener("htmx:afterSwap", function () {
    if (held) {
      /* the page refreshed under a finger still holding: the fresh secret stays shown */
      document.querySelectorAll("[data-hold='" + held + "']").forEach(show);
    }
    if (!typed) { return; }
    var saved = typed;
    typed = null;
    document.querySelectorAll("#live input:not([type=hidden]), #live select, #live textarea")
      .forEach(function (field) {
        var key = fieldKey(field);
        if (!(key in saved.values)) { return; }
        if (field.type === "radio" || field.type === "checkbox") {
          field.checked = saved.values[key];
        } else {
          field.value = saved.values[key];
        }
        if (saved.focus === key) { field.focus(); }
      });
  });

  /* A form that could not be sent (the laptop asleep, Wi-Fi gone) or that failed says so
     on top of the page; a poll that fails says nothing and simply tries again. */
  function tell(message) {
    var live = document.getElementById("live");
    if (!live || !message) { return; }
    var old = live.querySelector(".notice.unreachable");
    if (old) { old.remove(); }
    var p = document.createElement("p");
    p.className = "notice error unreachable";
    p.setAttribute("role", "alert");
    p.textContent = message;
    live.insertBefore(p, live.firstChild);
  }

  function isWrite(event) {
    var config = event.detail.requestConfig || {};
    return (config.verb || "").toLowerCase() !== "get";
  }

  document.addEventListener("htmx:sendError", function (event) {
    if (isWrite(event)) { tell(document.body.dataset.unreachable); }
  });
  document.addEventListener("htmx:responseError", function (event) {
    if (isWrite(event)) { tell(document.body.dataset.failed); }
  });

  /* Passing the tablet: a cover first, and the way back leaves no history entry. */
  document.addEventListener("click", function (event) {
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
})();
