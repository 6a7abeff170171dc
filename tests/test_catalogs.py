"""Korean and English catalogs stay complete: every string in the code is translated."""

from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parent.parent
TRANSLATIONS = ROOT / "companion" / "translations"
KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "N_": None, "_l": None,
            "lazy_gettext": None}
METHOD_MAP = [("companion/**.py", "python"), ("templates/**.html", "jinja2")]


def source_messages():
    found = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
        str(ROOT), METHOD_MAP, keywords=KEYWORDS
    ):
        if message:
            found.add(message if isinstance(message, str) else message[0])
    return found


@pytest.fixture(scope="module")
def messages():
    return source_messages()


def catalog(lang):
    with open(TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po", "rb") as f:
        return read_po(f)


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_every_string_in_the_code_is_translated(messages, lang):
    cat = catalog(lang)
    missing = sorted(m for m in messages if m not in cat or not cat[m].string)
    assert missing == [], f"{len(missing)} untranslated in {lang}: {missing[:10]}"


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_no_translation_is_fuzzy(lang):
    assert [m.id for m in catalog(lang) if m.id and m.fuzzy] == []


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_compiled_catalog_matches_the_po_file(lang):
    def entries(messages):
        def flat(value):
            return tuple(value) if isinstance(value, list | tuple) else value
        return {flat(m.id): flat(m.string) for m in messages if m.id}

    po = entries(catalog(lang))
    with open(TRANSLATIONS / lang / "LC_MESSAGES" / "messages.mo", "rb") as f:
        mo = entries(read_mo(f))
    assert po == mo


def test_korean_uses_the_korean_editions_words():
    ko = catalog("ko")
    for english, korean in [("No Touch Kraken", "노 터치 크라켄"), ("Skull King", "스컬킹"),
                            ("Crazy Time", "크레이지 타임")]:
        assert ko[english].string == korean
