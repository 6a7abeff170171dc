"""What the WebKit and Firefox walk keeps as a page's errors (tests/engines.py): Firefox's
notice that a navigation cut the page's live stream is not one; every other JavaScript
error is, a stream's own failure to connect among them."""

import threading
from types import SimpleNamespace

from tests.engines import Device

STREAM = "http://127.0.0.1:8765/n/AbC-12_x/stream?v=7"


def kept(*texts):
    device = Device.__new__(Device)  # no browser: only what it keeps
    device._errors, device._lock = [], threading.Lock()
    for text in texts:
        device._javascript_error(SimpleNamespace(text=text))
    return device._errors


def test_a_stream_cut_by_the_next_page_is_not_an_error():
    assert kept(f"The connection to {STREAM} was interrupted while the page was loading.") == []


def test_every_other_javascript_error_is_kept():
    errors = [
        "TypeError: htmx is undefined",
        f"Firefox can’t establish a connection to the server at {STREAM}.",
        # the same notice for a request that is not the night's stream
        "The connection to http://127.0.0.1:8765/static/app.js was interrupted while the "
        "page was loading.",
        f"The connection to {STREAM} was interrupted while the page was loading. And more",
    ]
    assert kept(*errors) == [f"JavaScript error: {text}" for text in errors]
