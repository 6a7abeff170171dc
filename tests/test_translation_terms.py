"""One Korean term per thing: the list in docs/translations.md is what the catalog says.

No Korean message uses a word of the list's last column (a variant a Korean reader found
for the same thing), and each term of the list is in use somewhere in the catalog.
"""

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "translations.md"
KO = ROOT / "companion" / "translations" / "ko" / "LC_MESSAGES" / "messages.po"
NUMBER = r"(?:\d+|%\(\w+\)[sd])"  # "3번 게임" is "%(number)s번 게임" in the catalog


def term_rows():
    """The rows of the term list: (English, the Korean terms, the variants not to use)."""
    text = DOC.read_text(encoding="utf-8")
    table = text[text.index("| English | 한국어 (the one term) | not |"):]
    rows = []
    for line in table.splitlines()[2:]:
        if not line.startswith("|"):
            break
        english, korean, variants = (cell.strip() for cell in line.strip("|").split("|"))
        rows.append((english, korean, [v.strip() for v in variants.split(", ") if v.strip()]))
    return rows


def korean_messages():
    with open(KO, "rb") as f:
        catalog = read_po(f)
    out = []
    for message in catalog:
        if message.id:
            strings = [message.string] if isinstance(message.string, str) else message.string
            out.extend((message.id, s) for s in strings if s)
    return out


ROWS = term_rows()


def test_the_list_is_there_and_covers_the_words_of_the_issue():
    english = " ".join(row[0] for row in ROWS)
    for thing in ("host", "night", "game #3", "match 1", "edition", "Custom", "pass the tablet",
                  "a player, named"):
        assert thing in english


@pytest.mark.parametrize("english, korean, variants", ROWS, ids=[row[0] for row in ROWS])
def test_no_korean_message_uses_a_variant(english, korean, variants):
    found = [(msgid, text) for msgid, text in korean_messages()
             for variant in variants if variant in text]
    assert found == [], f"{english}: {found[:5]}"


@pytest.mark.parametrize("english, korean, variants", ROWS, ids=[row[0] for row in ROWS])
def test_each_term_is_in_use(english, korean, variants):
    texts = [text for _msgid, text in korean_messages()]
    plain = re.sub(r"\([^)]*\)", "", korean)
    for term in re.split(r",|/|:", plain):
        term = term.strip()
        if not term or "…" in term:
            continue
        pattern = re.compile(re.sub(r"\d+", lambda _m: NUMBER, re.escape(term)))
        assert any(pattern.search(text) for text in texts), f"{english}: {term!r} is not used"


def test_a_named_player_always_gets_a_spaced_nim():
    """님 follows every name a message puts in (“%(name)s 님”), never glued to it."""
    glued = [text for _msgid, text in korean_messages()
             if re.search(r"%\((name|player|seat|holder|who)\)s님", text)]
    assert glued == []
