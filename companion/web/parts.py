"""A live refresh that brings only the parts that changed.

A live region (templates/_live.html) is drawn whole by its view, as every page is; its
template marks the few big pieces that change on their own with ``{% call part("name")
%}…{% endcall %}`` (a phone's score table, its game panel, the table's list). Each answer
that holds parts is rewritten here, after the view: every part gets a wrapper with its
name and a hash of its content, and the region a hash of its *frame* — all that is not
in a part, its own tag without the version. A refresh says what it shows
(``X-Live-Have``: its frame's hash and each part's); when its frame is the same, the
answer carries only the parts whose hash moved, swapped in by htmx as out-of-band swaps
(``HX-Reswap: none``), and the region's new URL (``X-Live-Get``, which holds its version:
static/js/live.js). A part the screen says it does not show (``name:-``: the wide score
table, hidden on a phone) is not sent however it changed; the screen asks for it again
when it shows it. Anything else gets the whole region, as before.

Why: a slow phone spends most of a refresh parsing, swapping and laying out what it
already showed (docs/measurements/2026-12-06/README.md, "Slow phones"); a bid changes
one line, not the score table. The server still renders everything (it is quick there);
what a phone gets and draws is what changed.

A part's hash leaves out what changes with every drawing and is not the part's content:
the CSRF token (valid for the session, so a kept part's old one still works) and the
secret markers (companion/web/sealed.py, random per process). A part's size says no more
than the whole page did: a secret inside it is padded as before, the hashes (which follow
a secret where a part or the frame holds one) go into the compressed page as stored
bytes (sealed.stored), and which parts changed follows the public log (a phone's own
write changes its own parts).
"""

import hashlib
import html as entities
import re
from collections.abc import Callable

from flask import Response, request
from markupsafe import Markup

from companion.web.sealed import stored

#: The header a refresh says what it shows in, and the one its answer's URL comes in.
HAVE_HEADER = "X-Live-Have"
GET_HEADER = "X-Live-Get"

_PART = re.compile(r"<!--part ([a-z][a-z0-9-]*)-->(.*?)<!--/part-->", re.S)
_LIVE_TAG = re.compile(r'<div id="live"[^>]*>')
_VERSION = re.compile(r'(hx-get="[^"?]*\?v=)-?\d+"')
_GET = re.compile(r'hx-get="([^"]*)"')
_SHOWN = re.compile(r"[?&]v=(-?\d+)$")
#: What a hash leaves out: the session's CSRF token, the secret markers.
_NOT_CONTENT = re.compile(r'(?<=name="csrf_token" value=")[^"]*|<!--/?secret-[0-9a-f]+-->')
#: A part the screen does not show (hidden by its style) is said with "-" for its hash.
_HAVE_ITEM = re.compile(r"^([a-z][a-z0-9-]*):([0-9a-f]{12}|-)$")
UNSEEN = "-"


def part(name: str, caller: Callable[[], str]) -> Markup:
    """Mark what the ``call`` block renders as the live region's part ``name`` (parts
    do not nest; each name once in a region)."""
    return Markup(f"<!--part {name}-->{caller()}<!--/part-->")


def content_hash(text: str) -> str:
    """A part's (or a frame's) hash: of its text without what changes with every
    drawing and is not its content."""
    return hashlib.blake2b(_NOT_CONTENT.sub("", text).encode(), digest_size=6).hexdigest()


def _wrapped(name: str, content: str, digest: str, oob: bool = False) -> str:
    """A part in its wrapper; an out-of-band one in an answer of parts only (a page
    that already shows a later version drops the whole answer: static/js/live.js,
    live.overtaken)."""
    swap = ' hx-swap-oob="morph"' if oob else ""
    return (f'<div class="part" id="part-{name}" data-part="{name}" '
            f'data-part-hash="{stored(digest)}"{swap}>{content}</div>')


def _have(header: str) -> tuple[str, dict[str, str]] | None:
    """The frame's hash and the parts' hashes a refresh says it shows."""
    words = header.split()
    if not words:
        return None
    frame, *items = words
    parts = {}
    for item in items:
        found = _HAVE_ITEM.match(item)
        if found is None:
            return None
        parts[found.group(1)] = found.group(2)
    return frame, parts


def mark(response: Response) -> Response:
    """Rewrite an answer's parts (see the module's docstring); any other answer as it is."""
    if response.status_code != 200 or response.mimetype != "text/html" \
            or response.direct_passthrough:
        return response
    html = response.get_data(as_text=True)
    if "<!--part " not in html:
        return response
    parts = {m.group(1): (m.group(2), content_hash(m.group(2))) for m in _PART.finditer(html)}
    tag = _LIVE_TAG.search(html)
    frame_text = _PART.sub(lambda m: f"<!--part {m.group(1)}-->", html)
    if tag is not None:
        frame_text = frame_text.replace(tag.group(0), _VERSION.sub(r'\1"', tag.group(0)), 1)
    frame = content_hash(frame_text)
    have = _have(request.headers.get(HAVE_HEADER, "-"))
    get = _GET.search(tag.group(0)) if tag is not None else None
    version = _SHOWN.search(get.group(1)) if get is not None else None
    if have is not None and get is not None and version is not None and have[0] == frame \
            and set(have[1]) == set(parts):
        response.set_data("".join(_wrapped(name, content, digest, oob=True)
                                  for name, (content, digest) in parts.items()
                                  if have[1][name] not in (digest, UNSEEN)))
        response.headers["HX-Reswap"] = "none"
        response.headers[GET_HEADER] = entities.unescape(get.group(1))
        return response
    whole = _PART.sub(lambda m: _wrapped(m.group(1), *parts[m.group(1)]), html)
    if tag is not None:
        whole = whole.replace(tag.group(0), tag.group(0)[:-1] + f' data-frame="{stored(frame)}">',
                              1)
    response.set_data(whole)
    return response
