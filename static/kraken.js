/* No Touch Kraken needs no script of its own: the two-tap reveal is a plain form, hold-to-reveal is in app.js. */
