/* A synchronised reveal (templates/_reveal.html): a live region that brings an element
   with data-reveal-at (a moment in the laptop's time, ms) counts its three words
   (data-reveal-words) and shows what is marked data-reveal-hold at that moment, on every
   screen of the table at once: the last word and the opening together, as hands open on
   the last "Ho!". A screen that gets it after the moment shows it at once; one that gets
   it during the count joins the count where it stands.

   The laptop's clock, as NTP keeps one. Each exchange with the laptop is a sample: this
   page's times of sending and receiving (the network stack's, from Resource Timing),
   and the laptop's of receiving and answering (its X-Laptop-Clock header,
   companion/live/clock.py). A sample's middle is off by half the difference between its trip
   there and its trip back, which no one can see; but since neither trip takes less than
   nothing, each sample bounds the laptop's clock from both sides. The page keeps the
   best samples of the last minutes and counts by the earliest time they all allow
   (each bound loosened with its age, as a phone's clock drifts): what they allow is
   narrower than any one sample's round trip, and by its earliest end no page flips
   before the moment. Samples come from every answer htmx gets (the refreshes a
   night's changes bring anyway: no request of its own, no radio woken for nothing), from
   a few asks of /clock (data-clock on <body>) at load and when the page comes back into
   view, and from a burst of asks when a reveal comes with time to spare: the count is
   re-timed by each better sample until shortly before its moment. On café Wi-Fi, the
   five samples at load alone left phones 15 to 50 ms off all night
   (docs/measurements/2026-12-01/README.md, "A night on real Wi-Fi"). A phone's own clock may be seconds
   off; only its difference from the laptop's counts, and a sample taken before the
   phone's clock was set (its clock moved against its monotonic one) is dropped.

   The flip's true time is kept on <html> (data-reveal-flipped, performance.timeOrigin
   plus performance.now(), which a wrong wall clock does not move), with the moment it
   was for (data-reveal-done) and the words said (data-reveal-words), so that a test can
   compare screens.

   The felt reveal (the night's setting, data-felt on the reveal): at the moment the
   bids open, the same step that opens them asks a phone to vibrate (navigator.vibrate:
   none on iOS Safari, and Chrome's only after a tap on the page) and has the room's
   screen beep each word, higher at the last (Web Audio, made here: no file). A screen
   is silent until a tap (browsers allow sound only after a gesture): it shows "Tap for
   sound" (data-sound-tap) until a tap anywhere unlocks it. A page that can do neither
   shows and does nothing different. */
(function () {
  "use strict";
  var C = window.Companion;

  var SAMPLES = 5;     /* asks of /clock at load, and when the page comes back into view */
  var BURST = 6;       /* asks when a reveal comes with time to spare... */
  var BURST_UNTIL_MS = 300;  /* ...while its moment is at least this far */
  var KEEP = 16;       /* the samples kept: the best of either bound */
  var STAMP_MS = 1;    /* the laptop's clock stamps: whole ms, rounded down (note) */
  var AGE_MS = 15 * 60000;
  /* How much a sample's worth fades, ms a ms: 50 ppm, a phone's clock drifting its most */
  var DRIFT = 0.00005;
  var STEP_MS = 500;   /* between the words: the last one is the moment itself */
  var LAST_MS = 700;   /* how long the last word stays over the opened bids */
  /* A timer can fire late, most when the device is busy: the last 30 ms before each word
     are waited out (12 ms gave flips up to 27 ms late with six pages on two cores). */
  var SPIN_MS = 30;
  var BUZZ = [70, 50, 140];  /* ms on, off, on: short enough not to startle */
  var TONE_HZ = 660;   /* a word of the count... */
  var FLIP_HZ = 990;   /* ...and its last, when the bids open */
  var TONE_S = 0.15;
  var sound = null;    /* this page's AudioContext, made by the unlocking tap */
  var QUIET_MS = 1000; /* a count's last stretch, when no sample is worked in */
  var clock = { samples: [], offset: null, left: 0, asking: false, asked: 0, waiting: [],
                later: [] };
  var shown = null;    /* {at, timers, box, said, words, next}: the count under way */

  function clockUrl() { return document.body && document.body.dataset.clock; }

  /* The laptop's time now, by this page's estimate (its own clock when it has none). */
  function laptopNow() { return Date.now() + (clock.offset || 0); }

  /* How far this page's wall clock is from its monotonic one: it moves when the phone's
     clock is set. */
  function wall() { return Date.now() - performance.now(); }

  /* One sample: sent at t1 and back at t4 by this page's clock, received at t2 and
     answered at t3 by the laptop's. Neither trip takes less than nothing, so the
     laptop's clock is ahead of this page's by at least t3 - t4 and at most
     t2 + STAMP_MS - t1, whatever the trips' imbalance; the laptop's own work and a late
     stamp on either side only widen that. STAMP_MS because the laptop's stamps are
     whole milliseconds, rounded down (companion/live/clock.py, now_ms): it received the
     request up to that much after t2 says. Without it, a trip quicker than a
     millisecond whose two stamps fell either side of a millisecond's edge looked
     impossible and was thrown away (5 of 200 on a quiet box: a page then had four
     samples at load, not five). */
  function note(t1, t2, t3, t4) {
    var hi = t2 + STAMP_MS - t1;
    if (!isFinite(t1 + t2 + t3 + t4) || t3 < t2 || t3 - t4 > hi) { return; }
    /* In a count's last second the main thread is the count's: a sample waits for the
       flip (a slow phone re-timing its words then would only make them late). */
    if (quiet()) {
      clock.later.push([t1, t2, t3, t4]);
      return;
    }
    clock.samples.push({ lo: t3 - t4, hi: hi, at: performance.now(), wall: wall() });
    choose();
  }

  /* The estimate: the earliest laptop time every kept sample allows (each bound loosened
     by the drift since its sample). That intersection is narrower than the best sample's
     round trip: the quickest trip there and the quickest trip back seldom come in one
     sample. Samples that disagree (a phone's clock drifting faster than DRIFT) leave no
     intersection: then the sample with the shortest round trip alone. The samples kept are the KEEP best of either bound. */
  function choose() {
    var now = performance.now();
    var w = wall();
    function low(s) { return s.lo - (now - s.at) * DRIFT; }
    function high(s) { return s.hi + (now - s.at) * DRIFT; }
    function width(s) { return high(s) - low(s); }
    var fresh = clock.samples.filter(function (s) {
      return now - s.at < AGE_MS && Math.abs(s.wall - w) < 1000;
    });
    var byLow = fresh.slice().sort(function (a, b) { return low(b) - low(a); }).slice(0, KEEP);
    var byHigh = fresh.slice().sort(function (a, b) { return high(a) - high(b); }).slice(0, KEEP);
    clock.samples = byLow.concat(byHigh.filter(function (s) { return byLow.indexOf(s) < 0; }));
    root().setAttribute("data-clock-samples", String(clock.samples.length));
    if (!fresh.length) { return; }
    var lo = low(byLow[0]);
    var hi = high(byHigh[0]);
    if (lo > hi) {
      var best = fresh.slice().sort(function (a, b) { return width(a) - width(b); })[0];
      lo = low(best);
      hi = high(best);
    }
    /* Counted by the lower bound: the laptop's clock is surely at or past the moment
       when this page flips, so no screen opens the bids before it (late by the width
       at most; by the middle, a page was early by up to half of it:
       docs/measurements/2026-12-01/README.md, "A night on real Wi-Fi"). */
    root().setAttribute("data-clock-rtt", String(Math.round(hi - lo)));
    if (lo === clock.offset) { return; }
    clock.offset = lo;
    retime();
  }

  /* The laptop's two stamps in an answer's header, or null. */
  function stamps(header) {
    var both = String(header || "").split(",").map(Number);
    return both.length === 2 && isFinite(both[0]) && isFinite(both[1]) ? both : null;
  }

  /* When a request just answered left and when its answer began to come, by this
     page's clock, as the browser's network stack saw them (Resource Timing): without the
     hops between the page and the browser's network process, which a busy phone makes
     longer one way than the other. ``sent`` and ``back`` (the page's own times) when the
     browser has no such record. */
  function wire(url, since, sent, back) {
    var e = C.answered(new URL(url, location.href).href, since);
    if (e && e.requestStart > 0 && e.responseStart >= e.requestStart) {
      var base = wall();
      return [base + e.requestStart, base + e.responseStart];
    }
    return [sent, back];
  }

  /* The browser keeps 250 records: older ones go, so that new ones are kept. */
  function tidy() {
    if (performance.getEntriesByType("resource").length > 200) {
      performance.clearResourceTimings();
    }
  }

  /* Every answer htmx gets is a sample: sent when htmx sends it, received when its
     headers came. */
  C.on("htmx:beforeSend", "clock.sample", function (event) {
    var xhr = event.detail.xhr;
    if (!xhr) { return; }
    var since = performance.now();
    var sent = Date.now();
    var back = null;
    xhr.addEventListener("readystatechange", function () {
      if (back === null && xhr.readyState >= 2) { back = Date.now(); }
    });
    xhr.addEventListener("loadend", function () {
      var laptop = stamps(xhr.getResponseHeader("X-Laptop-Clock"));
      if (!laptop || back === null || !xhr.responseURL) { return; }
      var times = wire(xhr.responseURL, since, sent, back);
      note(times[0], laptop[0], laptop[1], times[1]);
      settled();
      tidy();
    });
  });

  function ask() {
    var url = clockUrl();
    var near = shown && shown.box && shown.at - laptopNow() < BURST_UNTIL_MS;
    if (!url || clock.left <= 0 || near) {
      clock.left = 0;
      clock.asking = false;
      settled();
      return;
    }
    clock.asking = true;
    clock.left -= 1;
    clock.asked += 1;
    var mine = url + (url.indexOf("?") === -1 ? "?" : "&") + "n=" + clock.asked;  /* its own record */
    var since = performance.now();
    var sent = Date.now();
    fetch(mine, { cache: "no-store", credentials: "same-origin" }).then(function (r) {
      var back = Date.now();
      var laptop = stamps(r.headers.get("X-Laptop-Clock"));
      return r.text().then(function (text) {
        var server = Number(text);
        var times = wire(mine, since, sent, back);
        if (!isFinite(server)) { clock.left = 0; }  /* not the laptop's clock: keep ours */
        else { note(times[0], laptop ? laptop[0] : server, laptop ? laptop[1] : server, times[1]); }
        settled();
        tidy();
        ask();
      });
    }).catch(function () { clock.left = 0; clock.asking = false; settled(); });
  }

  /* Ask the laptop's time ``n`` times, one after another. */
  function sample(n) {
    if (!clockUrl()) { return; }
    clock.left = Math.max(clock.left, n);
    if (!clock.asking) { ask(); }
  }

  function settled() {
    if (clock.offset === null && clock.asking) { return; }
    var waiting = clock.waiting;
    clock.waiting = [];
    waiting.forEach(function (fn) { fn(); });
  }

  function resample() { choose(); sample(SAMPLES); }

  /* Run fn once the page has an estimate (at once when it has one, or no clock to ask). */
  function withClock(fn) {
    if (clock.offset !== null || !clockUrl()) { fn(); return; }
    clock.waiting.push(fn);
  }

  function root() { return document.documentElement; }

  function stop() {
    if (!shown) { return; }
    setTimeout(catchUp, 0);
    shown.timers.forEach(clearTimeout);
    if (shown.box) { shown.box.remove(); }
    root().removeAttribute("data-revealing");
    shown = null;
  }

  /* Run fn when the laptop's clock reads ``at``. */
  function atMoment(at, fn) {
    var wait = at - laptopNow();
    if (wait <= 0) { fn(); return null; }
    return setTimeout(function () {
      /* the timer's last few ms: waited out here, where lateness cannot creep in */
      while (at - laptopNow() > 0) { /* spin */ }
      fn();
    }, Math.max(0, wait - SPIN_MS));
  }

  function say(box, word) {
    box.textContent = word;
    box.hidden = false;
    shown.said.push(word);
    root().setAttribute("data-reveal-words", shown.said.join("|"));
  }

  /* Whether a count is in its last stretch. */
  function quiet() {
    return !!(shown && shown.box && shown.next < shown.words.length &&
              shown.at - laptopNow() < QUIET_MS);
  }

  /* For the other parts: how long a count's last stretch has still to run (ms), or 0.
     A refresh waits it out (static/js/live.js): a slow phone drawing a change then
     would hold its main thread past the moment, and flip late. */
  C.countLeft = function () { return quiet() ? Math.max(0, shown.at - laptopNow()) : 0; };

  /* The samples that came in a count's last stretch, once it is over. */
  function catchUp() {
    var later = clock.later;
    clock.later = [];
    later.forEach(function (t) { note(t[0], t[1], t[2], t[3]); });
  }

  function flip(box) {
    root().removeAttribute("data-revealing");
    root().setAttribute("data-reveal-flipped", String(performance.timeOrigin + performance.now()));
    root().setAttribute("data-reveal-done", String(shown.at));
    root().setAttribute("data-reveal-late", String(Math.round(laptopNow() - shown.at)));
    shown.timers.push(setTimeout(function () { box.hidden = true; }, LAST_MS));
    setTimeout(catchUp, 0);
  }

  function audioContext() { return window.AudioContext || window.webkitAudioContext; }

  function soundTap() { return document.querySelector("[data-sound-tap]"); }

  /* "Tap for sound" where sound can play and a tap has not let it yet. */
  function offer() {
    var tap = soundTap();
    if (tap) { tap.hidden = !audioContext() || (!!sound && sound.state === "running"); }
  }

  /* A tap on a screen that offers sound: its AudioContext, made and resumed inside the
     gesture, as browsers require. */
  function unlock() {
    if (!soundTap() || !audioContext()) { return; }
    if (!sound) { sound = new (audioContext())(); }
    if (sound.state === "running") { offer(); return; }
    sound.resume().then(offer, offer);
  }

  /* One short tone, now. */
  function beep(hz) {
    var at = sound.currentTime;
    var tone = sound.createOscillator();
    var gain = sound.createGain();
    tone.frequency.value = hz;
    gain.gain.setValueAtTime(0.25, at);
    gain.gain.exponentialRampToValueAtTime(0.001, at + TONE_S);
    tone.connect(gain);
    gain.connect(sound.destination);
    tone.start(at);
    tone.stop(at + TONE_S);
  }

  /* A word of a felt count: the screen beeps it (once unlocked); elsewhere the last one
     vibrates, where the browser can. */
  function feel(last) {
    if (soundTap()) {
      if (sound && sound.state === "running") { beep(last ? FLIP_HZ : TONE_HZ); }
    } else if (last && typeof navigator.vibrate === "function") {
      navigator.vibrate(BUZZ);
    }
  }

  /* Set the timers of the words not said yet, by the clock's estimate now. */
  function arm() {
    var count = shown;
    count.timers.forEach(clearTimeout);
    count.timers = [];
    count.words.forEach(function (word, i) {
      if (i < count.next) { return; }
      var when = count.at - (count.words.length - 1 - i) * STEP_MS;
      var last = i === count.words.length - 1;
      if (!last && when + STEP_MS <= laptopNow()) { return; }  /* its turn is over */
      var timer = atMoment(when, function () {
        count.next = i + 1;
        say(count.box, word);
        if (last) { flip(count.box); }
        if (count.felt) { feel(last); }  /* the same moment, felt and heard */
      });
      if (timer !== null) { count.timers.push(timer); }
    });
  }

  /* A better estimate during a count: its words are timed by it. */
  function retime() {
    if (shown && shown.box && shown.next < shown.words.length) { arm(); }
  }

  function begin(at, words, felt) {
    stop();
    if (at <= laptopNow()) {
      /* The moment has passed: the bids show at once, and the page says how late (a
         phone that drew the reveal too slowly for its lead:
         docs/measurements/2026-12-06/README.md, "Slow phones"). */
      root().removeAttribute("data-revealing");
      root().setAttribute("data-reveal-flipped", String(performance.timeOrigin + performance.now()));
      root().setAttribute("data-reveal-done", String(at));
      root().setAttribute("data-reveal-late", String(Math.round(laptopNow() - at)));
      return;
    }
    var box = document.createElement("p");
    box.className = "reveal-count";
    box.setAttribute("role", "status");
    box.setAttribute("aria-live", "assertive");
    box.hidden = true;
    document.body.appendChild(box);
    root().setAttribute("data-revealing", "");
    shown = { at: at, timers: [], box: box, said: [], words: words, next: 0, felt: felt };
    arm();
    if (at - laptopNow() > BURST_UNTIL_MS) { sample(BURST); }
  }

  /* After every swap (and on load): a moment brought, one still counting, or none. */
  function check() {
    var el = document.querySelector("[data-reveal-at]");
    if (!el) { stop(); return; }
    var at = Number(el.dataset.revealAt);
    if (!isFinite(at) || (shown && shown.at === at)) { return; }
    var words = (el.dataset.revealWords || "").split("|").filter(Boolean);
    var felt = el.hasAttribute("data-felt");
    /* held at once (the swap is not painted before this runs), counted once the clock
       is known: a page whose clock is not known yet waits for its first sample */
    root().setAttribute("data-revealing", "");
    ["data-reveal-words", "data-reveal-flipped", "data-reveal-done"].forEach(function (name) {
      root().removeAttribute(name);
    });
    shown = { at: at, timers: [], box: null };
    withClock(function () { if (shown && shown.at === at) { begin(at, words, felt); } });
  }

  C.on("htmx:afterSwap", "clock.check", check);
  C.on("htmx:afterSwap", "clock.offer", offer);
  C.on("click", "clock.unlock", unlock);
  C.on("visibilitychange", "clock.resample", function () {
    if (document.visibilityState === "visible") { resample(); }
  });
  C.on("pageshow", "clock.back", function (event) { if (event.persisted) { resample(); } });
  C.on("ready", "clock.start", function () {
    resample();
    check();
    offer();
  });
})();
