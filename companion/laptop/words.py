"""The terminal's language: what ``companion serve``, ``doctor``, ``host-link`` and
``backup`` print, in Korean on a Korean system and in English otherwise, from the same
catalogs as the pages (companion/translations).

The system's language is read where each system keeps it: the locale variables first
(``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``, as gettext reads them: a host may
set ``LANG=ko_KR.UTF-8`` on any system), then Windows' display language
(``GetUserDefaultUILanguage``), then macOS' first preferred language (a program started
from Finder has no locale variables). A page's language is the device's choice
(companion/web/i18n.py); this is the laptop's.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from babel.support import NullTranslations, Translations

CATALOGS = Path(__file__).resolve().parent.parent / "translations"
LANGUAGES = ("ko", "en")
#: The locale variables, in the order gettext honours them (the first one set wins).
LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
#: Windows' primary language id for Korean (winnt.h LANG_KOREAN).
LANG_KOREAN = 0x12


def language_of(value: str) -> str | None:
    """The catalog language a locale name asks for ("ko_KR.UTF-8", "ko-KR", "ko" →
    "ko"; "en_US", "C", "POSIX", "C.UTF-8" → "en"); None for an empty value. A GNU
    ``LANGUAGE`` list ("ko:en") is read by its first entry."""
    first = value.split(":")[0].strip()
    if not first:
        return None
    code = first.replace("-", "_").split("_")[0].split(".")[0].lower()
    return "ko" if code == "ko" else "en"


def windows_language(kernel32: Any) -> str:
    """Windows' display language, from its language id's primary part."""
    return "ko" if int(kernel32.GetUserDefaultUILanguage()) & 0x3FF == LANG_KOREAN else "en"


def mac_language(run: Callable[[list[str]], str | None]) -> str:
    """macOS' first preferred language (``defaults read -g AppleLanguages`` prints
    ``("ko-KR", "en-US")`` over several lines)."""
    output = run(["defaults", "read", "-g", "AppleLanguages"]) or ""
    for line in output.splitlines():
        name = line.strip().strip('(),"').strip()
        if name:
            return language_of(name) or "en"
    return "en"


def _output(command: list[str]) -> str | None:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=2,
                              check=False, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return done.stdout if done.returncode == 0 else None


def system_language(environ: Mapping[str, str] = os.environ, platform: str = sys.platform,
                    kernel32: Any = None,
                    run: Callable[[list[str]], str | None] = _output) -> str:
    """"ko" or "en": the language this laptop's user reads (see the module's note)."""
    for name in LOCALE_VARIABLES:
        found = language_of(environ.get(name, ""))
        if found:
            return found
    if platform == "win32":
        try:
            return windows_language(kernel32 or ctypes.windll.kernel32)  # type: ignore[attr-defined]
        except (AttributeError, OSError, TypeError, ValueError):
            return "en"
    if platform == "darwin":
        return mac_language(run)
    return "en"


@lru_cache(maxsize=len(LANGUAGES))
def catalog(language: str) -> NullTranslations:
    """One language's catalog (loaded once per process)."""
    return Translations.load(str(CATALOGS), [language])


@lru_cache(maxsize=1)
def terminal_language() -> str:
    """This process's terminal language, read once."""
    return system_language()


def gettext(message: str, **values: Any) -> str:
    """``message`` in the terminal's language, with ``values`` put in (as
    Flask-Babel's gettext does)."""
    text = catalog(terminal_language()).gettext(message)
    return text % values if values else text
