"""gevent's patches of the standard library, applied before anything else is imported
when this process is ``companion serve``.

gevent replaces sockets, threads, locks and sleep with cooperative ones. Patched after
Flask, ``logging`` and ``threading`` were imported (as ``cli.serve`` did), those modules
kept locks and thread idents of the unpatched kind, and every stop ended in "Exception
ignored in: <function _removeHandlerRef …> … TypeError" from gevent/thread.py. So
``companion/__init__.py`` imports this module before anything else: the package is
imported first on every way a host starts the server: the console script ``companion
serve``, ``python -m companion serve`` and the built program (packaging/build.py). Any
other use of the package (the tests, ``flask run``, the café's gunicorn, which patches
in its own worker) is left unpatched.
"""

import sys
from pathlib import PureWindowsPath

#: How the console script's own name reads in ``sys.argv[0]`` (pip's launchers strip
#: ``.exe`` and ``-script.py``; kept here in case one does not).
SCRIPT_NAMES = ("companion", "companion.exe", "companion-script.py")


def serving(argv: list[str], frozen: bool = False) -> bool:
    """Whether ``argv`` is this process serving: ``companion serve …``, ``python -m
    companion serve …`` (while ``-m`` looks for its module, ``argv[0]`` is ``"-m"``), or
    either with no command at all (a double-click: companion/serving/cli.py); for the
    built program (``frozen``, PyInstaller's ``sys.frozen``), whatever its file's name."""
    if not argv or argv[1:2] not in ([], ["serve"]):
        return False
    return (frozen or argv[0] == "-m"
            or PureWindowsPath(argv[0]).name in SCRIPT_NAMES)  # "/" or "\\" (Windows)


# Imported here, and only when serving, so that importing the package loads no gevent.
if serving(sys.argv, getattr(sys, "frozen", False)):
    from gevent import monkey

    monkey.patch_all()
