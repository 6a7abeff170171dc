"""The reveal's motion (static/app.css, and static/skullking.css for the bids): each word
of the count pops and each bid turns over as it opens, and under prefers-reduced-motion
nothing moves. Read from the real
stylesheet, on the reveal's own marks (static/js/clock.js sets them on <html> and adds
the count's box; here they are set by hand, so no clock or count is waited for)."""

import pytest

pytestmark = pytest.mark.browser

#: The marks of a reveal whose last word was just said, over a phone's bids.
FLIPPED = """() => {
  const count = document.createElement('p');
  count.className = 'reveal-count';
  count.textContent = 'ho!';
  document.body.appendChild(count);
  const held = document.createElement('div');
  held.setAttribute('data-reveal-hold', '');
  held.innerHTML = '<ul class="sk-bids"><li>Mina: <strong>2</strong></li></ul>';
  document.querySelector('main').appendChild(held);
  document.documentElement.setAttribute('data-reveal-flipped', String(Date.now()));
  const motion = e => { const s = getComputedStyle(e);
    return [s.animationName, parseFloat(s.animationDuration) * 1000]; };
  return {count: motion(count), bid: motion(held.querySelector('li'))};
}"""


@pytest.mark.parametrize("reduced", ["no-preference", "reduce"])
def test_the_count_and_the_flip_move_unless_motion_is_reduced(browser, live_server, reduced):
    context = browser.new_context(viewport={"width": 390, "height": 844},
                                  reduced_motion=reduced)
    page = context.new_page()
    page.goto(live_server.url + "/rules/skullking")  # a page that loads the game's stylesheet
    found = page.evaluate(FLIPPED)
    if reduced == "reduce":
        # no animation at all (Pico's own reduced-motion rule cuts any to 1 ms)
        assert found["count"][0] == found["bid"][0] == "none"
    else:
        assert found["count"][0] == "reveal-word" and found["count"][1] > 0
        assert found["bid"][0] == "reveal-flip" and found["bid"][1] > 0
    # a later refresh, once the count's box is gone, turns nothing again
    page.evaluate("document.querySelector('.reveal-count').remove()")
    assert page.evaluate("getComputedStyle(document.querySelector('.sk-bids li'))"
                         ".animationName") == "none"
    context.close()
