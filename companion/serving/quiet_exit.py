"""A stop of ``companion serve`` that ends in its own last line, with nothing after it.

With gevent before 26 (a Mac's Python 3.11 can have no newer one: pyproject.toml), every
exit printed "Exception ignored in: <function _removeHandlerRef …> … RuntimeError: greenlet
is being finalized". As Python shuts down it collects logging's handlers, and each one's
weakref callback takes logging's lock, which gevent patched; that lock asks gevent whose
greenlet holds it, and by then greenlet has shut down and can only raise. Python can do
nothing with an error raised there but print it (``sys.unraisablehook``), and nothing is
left undone: the process is exiting, and the night was saved before. gevent 26 answers
that question itself (gevent/thread.py, ``get_ident``), so there it never arrives.

:func:`install` hands every other error raised where none can be caught to the hook that
was there before, which prints it as Python always does.
"""

import sys
from collections.abc import Callable
from typing import Any


def exit_noise(unraisable: Any) -> bool:
    """Whether ``unraisable`` (what ``sys.unraisablehook`` is given) is greenlet's
    answer at exit, and nothing else. It reads no global of this module: it runs while
    Python empties the modules' globals."""
    exc = unraisable.exc_value
    return (unraisable.exc_type is RuntimeError and exc is not None
            and exc.args == ("greenlet is being finalized",))


def quiet_hook(previous: Callable[[Any], object]) -> Callable[[Any], None]:
    """A ``sys.unraisablehook`` that drops :func:`exit_noise` and hands every other error
    to ``previous`` (both kept in its closure, which outlives the module's globals)."""
    noise = exit_noise

    def hook(unraisable: Any) -> None:
        if not noise(unraisable):
            previous(unraisable)

    hook.quiets = noise  # type: ignore[attr-defined]  # marks it as this module's
    return hook


def install() -> None:
    """Keep greenlet's "is being finalized" out of this process's exit; a second call
    leaves the hook as it is."""
    if getattr(sys.unraisablehook, "quiets", None) is not exit_noise:
        sys.unraisablehook = quiet_hook(sys.unraisablehook)
