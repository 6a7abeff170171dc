"""A page read as a person reads it: its text without tags, names without their colour
mark or their isolation, the roster's names a person sees."""

import re


def unmarked(html):
    """A page with each player's colour mark taken off their name
    (``<span class="player pc-…">Jo</span>`` → ``Jo``), for tests that read names
    where they stand."""
    return re.sub(r'<span class="player(?: pc-\w+)?">([^<]*)</span>', r"\1", html)


def page_text(html):
    """What a page shows as text: its tags gone, and with them every attribute (random
    form tokens and keys, in which a short name like "Jo" can turn up by chance)."""
    return re.sub(r"<[^>]*>", " ", html)


def without_tokens(html):
    """A page with its random CSRF tokens taken out (from the forms and from htmx's
    header), for tests that read its markup: a token is random text, in which a short
    word like "wifi" turns up by chance."""
    return re.sub(r'"X-CSRFToken": "[^"]+"|name="csrf_token" value="[^"]+"', "", html)


def text_without_bdi(response):
    """The page as its words read: a name's isolation (<bdi>) is left out here, and
    checked by tests/test_names_isolated.py."""
    return re.sub(r"</?bdi>", "", response.get_data(as_text=True))


def visible_names(html):
    """The roster's name fields a person sees (the others are in the form, hidden)."""
    roster = html[html.index('class="roster"'):html.index("</form>", html.index('class="roster"'))]
    return re.findall(r'<li data-roster-seat>\s*<div class="roster-row">\s*'
                      r'<label class="roster-name">[^<]*<input type="text" name="name"'
                      r'[^>]*value="([^"]*)"', roster)
