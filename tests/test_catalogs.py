"""Korean and English catalogs stay complete: every string in the code is translated."""

import re
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


# --- Korean a Korean team would have written (docs/translations.md, "Quotation marks and
# parentheses" and "Calques that must not come back") ------------------------------------

def korean_texts():
    """(msgid, Korean) for every entry of the Korean catalog, each plural form apart."""
    out = []
    for message in catalog("ko"):
        if message.id:
            msgid = message.id if isinstance(message.id, str) else message.id[0]
            strings = [message.string] if isinstance(message.string, str) else message.string
            out.extend((msgid, text) for text in strings if text)
    return out


def test_korean_quotes_are_curly_and_single_ones_hold_a_cards_name():
    """“ ” around what is said, a button's, option's, law's or network's name; ‘ ’ only
    around a card's name (‘언제’ 카드, 특수 카드 ‘사라진 보물’); never a straight quote."""
    ko = catalog("ko")
    cards = {"언제", "무엇을"} | {ko[name].string for name in (
        "Captain's Obsession", "Kraken's Presence", "Light in the Deep", "Lost Treasure",
        "Revealed Identity", "Skeleton's Grasp")}
    straight = [text for _msgid, text in korean_texts() if re.search(r"['\"]", text)]
    assert straight == []
    unpaired = [text for _msgid, text in korean_texts()
                if re.search("[“”‘’]", re.sub("“[^“”]*”|‘[^‘’]*’", "", text))]
    assert unpaired == []
    not_a_card = [(quoted, text) for _msgid, text in korean_texts()
                  for quoted in re.findall(r"‘([^’]*)’", text) if quoted not in cards]
    assert not_a_card == []


def test_no_space_before_a_parenthesis_in_korean():
    """A parenthesis sits on the word it glosses: 클래식 에디션(한국어판, 2~6인),
    플레이합니다(지금 3명). Only a sentence of its own, after . ! or ?, has a space."""
    spaced = [text for _msgid, text in korean_texts() if re.search(r"(?<![.!?]) \(", text)]
    assert spaced == []


def crazy_time_messages():
    """The msgids of Crazy Time's code and templates."""
    found = set()
    for path, method in [("companion/crazytime", "python"), ("templates/crazytime", "jinja2")]:
        pattern = "**.py" if method == "python" else "**.html"
        for _file, _line, message, _comments, _context in extract_from_dir(
                str(ROOT / path), [(pattern, method)], keywords=KEYWORDS):
            if message:
                found.add(message if isinstance(message, str) else message[0])
    return found


def test_crazy_times_penalties_are_never_a_score():
    """Penalty tokens are not points: a penalty total is 합계 (경기별 벌점: … · 합계 2),
    never 총점, the Skull King word for a player's points."""
    penalties = crazy_time_messages()  # a Crazy Time screen counts penalties and hours
    found = [(msgid, text) for msgid, text in korean_texts()
             if msgid in penalties and "총점" in text]
    assert found == []


#: 카드를 내다, to play a card (낸, 냄, 냈, 내지, 내면 …), as a word of its own: never
#: 내보내기, 안내, 내용, 내려받기.
PLAYED = re.compile(r"(?<![가-힣])(?:낸|냄|냈|내(?:다|지|면|고|야|는|기|세요))")


def test_crazy_time_never_plays_a_card():
    """Crazy Time's cards are flipped (펼친 카드), never played: the last to play after a
    mistake is 마지막으로 플레이한 사람, as the box says, and tick-tock ends when nobody
    플레이했다 (the review of 2026-12-07 found 카드를 냄 and 낸 사람)."""
    flipped = crazy_time_messages()
    found = [(msgid, text) for msgid, text in korean_texts()
             if msgid in flipped and PLAYED.search(text)]
    assert found == []


#: Words with 쪽 that are not pages: a direction (딜러 왼쪽 플레이어).
SIDES = ("왼쪽", "오른쪽", "양쪽", "반대쪽", "앞쪽", "뒤쪽", "위쪽", "아래쪽", "이쪽", "그쪽")


@pytest.mark.parametrize("calque, allowed, why", [
    ("쪽", SIDES, "a page of a list is 페이지 (1/3페이지), 쪽 is a book's"),
    ("테이블", (), "the game going on is 게임 진행 (상황), the group 모임"),
    ("보냄", (), "a bid in is 입찰 완료, as on the tablet"),
], ids=["jjok-for-a-page", "teibeul-for-the-game", "bonaem-for-a-bid"])
def test_the_calques_found_by_the_review_stay_out(calque, allowed, why):
    found = []
    for msgid, text in korean_texts():
        for word in allowed:
            text = text.replace(word, "")
        if calque in text:
            found.append(msgid)
    assert found == [], f"{calque}: {why}: {found[:5]}"


def test_one_msgid_per_meaning():
    """Where one English word had two meanings, each has its msgid and its Korean."""
    ko = catalog("ko")
    korean = {msgid: ko[msgid].string for msgid in (
        "Start", "Start page", "Remove", "Remove host", "Scoring", "Scoring each round",
        "Your latest night", "Newer nights", "Bid sent", "Has bid", "has bid")}
    assert korean["Start"] != korean["Start page"]  # the form's button, the link home
    assert korean["Remove"] != korean["Remove host"]  # a screen taken off, host rights
    assert "해제" in korean["Remove host"] and "해제" in ko[
        "Take host rights from this device?"].string
    assert korean["Scoring"] == "점수 방식"  # the choice of a method, not the rules heading
    assert korean["Scoring"] not in korean["Scoring each round"]
    assert korean["Your latest night"] != korean["Newer nights"]
    assert korean["Bid sent"] == korean["Has bid"] == korean["has bid"]
