"""Expecting a rule to refuse, by naming the rule.

``pytest.raises(RuleError)`` passes whichever rule refused: a test of one refusal kept
passing when an earlier rule refused the same events for another reason. ``refuses``
takes the untranslated message of the rule that must refuse (its ``N_`` text in the rules
module, or a distinctive part of it) and fails when another rule refused instead.

``status_of`` reads what an answer stands for: a refusal told to a browser (htmx, a
navigation) comes with 200 and its own status in ``X-Refused`` (companion/web/http.py).
"""

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from companion.core.errors import RuleError


@contextmanager
def refuses(message: str) -> Iterator[Any]:
    """Expect a RuleError whose untranslated message contains ``message``; yields pytest's
    ExceptionInfo, whose ``value`` is the error once the block has ended."""
    with pytest.raises(RuleError) as caught:
        yield caught
    assert message in caught.value.message, (
        f"expected the rule {message!r} to refuse, but {caught.value.message!r} did")


def status_of(response: Any) -> int:
    """The status a Flask test response stands for: its own, or for a refusal answered 200
    to a browser, the refusal's (``X-Refused``), which only a 200 may carry."""
    refused = response.headers.get("X-Refused")
    if refused is None:
        return int(response.status_code)
    assert response.status_code == 200, (response.status_code, refused)
    return int(refused)
