"""One Korean term per thing: the list in docs/translations.md is what the catalog says.

No Korean message uses a word of the list's last column (a variant a Korean reader found
for the same thing), and each term of the list is in use somewhere in the catalog. The
words a native read of the catalog changed are checked in the compiled catalog, as the
app reads it.
"""

import re
from functools import cache
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from babel.support import Translations

from companion.core.colours import PALETTE

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


@cache  # read once: each term's test reads all of them
def korean_messages():
    with open(KO, "rb") as f:
        catalog = read_po(f)
    out = []
    for message in catalog:
        if message.id:
            strings = [message.string] if isinstance(message.string, str) else message.string
            out.extend((message.id, s) for s in strings if s)
    return tuple(out)


ROWS = term_rows()


def test_the_list_is_there_and_covers_the_words_of_the_issue():
    english = " ".join(row[0] for row in ROWS)
    for thing in ("host", "night", "game #3", "match 1", "edition", "Custom", "pass the tablet",
                  "a player, named", "tonight", "Loot", "suit card", "deck", "flipped card",
                  "score a round", "the winners leave"):
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


# --- the words a native read changed, as the compiled catalog gives them ----------------

@pytest.fixture(scope="module")
def translations():
    found = Translations.load(str(ROOT / "companion" / "translations"), ["ko"])
    assert found.ugettext("Skull King") == "스컬킹"  # the .mo, not the fallback
    return found


@pytest.fixture(scope="module")
def ko(translations):
    return translations.ugettext


@pytest.mark.parametrize("english, korean", [
    # a night is a 모임, and today is 오늘
    ("Game night", "보드게임 모임"),
    ("Continue this night", "이 모임 이어 하기"),
    ("Earlier nights", "지난 모임"),
    ("Start a new game night", "새 모임 시작"),
    # a night's tally is read on a past night and the next day too: 이번 모임, never 오늘
    ("No game has been played yet tonight.", "아직 플레이한 게임이 없습니다."),
    ("Tonight's tally", "이번 모임 결산"),
    ("Tonight's awards", "이번 모임 시상"),
    ("Winners of the night", "이번 모임 승자"),
    ("The night per player", "플레이어별 성적"),
    ("The night in a picture", "사진 한 장으로 보는 이번 모임"),
    # one name for the host's page, one for the TV
    ("Tonight's table", "진행자 화면"),
    ("The table's screen", "큰 화면"),
    ("Screens for the room", "큰 화면"),
    # undo / redo are the UI's words; 다시 하기 is playing again
    ("Undo", "되돌리기"),
    ("Redo", "다시 실행"),
    ("Play again with the same players", "같은 플레이어로 다시 하기"),
    # the penalty is per trick of difference, as the box says (차이만큼)
    ("Skull King scoring (+20 per trick bid, −10 per trick off)",
     "스컬킹 점수 방식(입찰한 트릭당 +20, 차이 나는 트릭당 −10)"),
    # the series' winners are those with the fewest tokens
    ("Fewest tokens, the winners:", "최종 승자(토큰이 가장 적은 플레이어):"),
    # a phone is registered to a seat: it neither takes one nor saves one
    ("This phone holds a seat", "이 휴대폰은 플레이어 자리에 등록되어 있습니다"),
    ("Can't reach the table — retrying…", "연결이 끊겼습니다. 다시 연결하는 중…"),
    ("Crazy Time is for 4 to 7 players, not %(count)s.",
     "크레이지 타임은 4~7명이 플레이합니다(지금 %(count)s명)."),
    ("%(count)s × Empty box", "빈 상자 %(count)s장"),
    ("Harder start: everyone makes one law together before match 1",
     "규칙을 하나 더 놓고 시작: 1경기 전에 모두 함께 법칙 하나를 만듭니다"),
    # the round just scored, not round 10
    ("Last round", "지난 라운드"),
    # a toggle that switches the seat: 휴대폰으로 바꾸기 and its twin 태블릿으로 바꾸기
    ("Give this seat a phone (new code)", "휴대폰으로 바꾸기(새 코드)"),
    ("Plays on the tablet (no code)", "태블릿으로 바꾸기(코드 없음)"),
    # the app asks the player for a bid, it does not ask itself ("shall we take…?")
    ("Your bid: how many tricks will you take?", "이번 라운드에 얻을 트릭 수를 입찰하세요"),
    # the native review of 2026-12-03 (docs/translations.md, "Reviewed and kept"):
    # penalties are not a score, and the phone's total of them is 합계
    ("total %(n)s", "합계 %(n)s"),
    # a column of counts: in how many games one finished ahead of the other
    ("Finished ahead", "순위가 앞선 게임"),
    ("player ahead", "플레이어가 앞선 게임"),
    # one phrase, one meaning: the start page's card and the pager's link
    ("Your latest night", "가장 최근 모임"),
    ("Newer nights", "더 최근 모임"),
    # a bid in is 입찰 완료, on the phone as on the tablet
    ("Bid sent", "입찰 완료"),
    ("page %(page)s of %(pages)s", "%(page)s/%(pages)s페이지"),
    ("Take host rights from this device?", "이 기기의 진행자 권한을 해제할까요?"),
    ("The first player chosen", "자리 순서상 첫 번째 플레이어"),
    ("even", "카드 수와 같음"),
    ("Your hours", "내가 얻은 시간"),
    ("Skull King average", "스컬킹 평균 점수"),
    ("This code was replaced", "이 코드는 더 이상 쓸 수 없습니다"),
    ("What was sent stopped arriving, so nothing was recorded. Try again.",
     "보내는 도중 연결이 끊겨 아무것도 기록되지 않았습니다. 다시 시도하세요."),
    # a Special card's count buttons (No Touch Kraken): put in, take out, as the rules say
    ("A Treasure came into the game (+1)", "보물 상자 1장 넣기(+1)"),
    ("A face-down Empty box left the game (−1)", "뒷면 빈 상자 1장 빼기(−1)"),
    # a button as short as its English
    ("Keep the night here; don't import the file", "가져오지 않고 그대로 두기"),
    # the native review of 2026-12-07 (docs/translations.md, "Reviewed and kept"):
    # 섞은 뒤 보지 않고, never 섞어 보지 않고 ("without trying to shuffle")
    ("5 × Special card: shuffle the 6 Special cards, take 5 without looking, set the sixth "
     "aside unseen.", "특수 카드 5장: 특수 카드 6장을 섞은 뒤 보지 않고 5장을 가져오고, 남은 "
     "1장은 보지 않은 채 상자에 넣어 둡니다."),
    # the host takes the player out of the 모임: never "leave Mina's 모임"
    ("%(name)s leaves the night", "%(name)s 님을 모임에서 빼기"),
    # nobody plays a card in Crazy Time: the box's 플레이한 사람
    ("Play went on after a mistake: the last to play takes it",
     "실수 뒤에도 진행됨: 마지막으로 플레이한 사람이 받음"),
    ("Well played: the next game could be yours.", "수고하셨습니다! 다음 게임에서 설욕해 보세요."),
    # on the host's tablet 내 would be the host: the row's player's bonus, without 내
    ("Mermaids taken by your Pirate", "해적이 잡은 인어"),
    ("Standard 14s in your tricks", "얻은 일반 색상 14"),
    ("Perfect zero streak", "0 입찰의 달인"),
    ("More", "그 밖의 기능"),
    # the Kraken box: the marker holder 탐색s a card, and the variant's name is its own
    ("%(holder)s has the marker: whose card?",
     "%(holder)s 님이 마커를 가지고 있습니다. 누구의 카드를 탐색할까요?"),
    ("Token series", "토큰 추가 규칙"),
    ("%(left)s of %(total)s", "%(left)s/%(total)s"),
    ("Each seat can play only once in a game.",
     "같은 플레이어를 한 게임에 두 번 넣을 수 없습니다."),
    ("A seat can play only once.", "같은 플레이어를 한 게임에 두 번 넣을 수 없습니다."),
    ("A player cannot sit twice at the same game.",
     "같은 플레이어를 한 게임에 두 번 넣을 수 없습니다."),
])
def test_the_words_a_native_read_chose(ko, english, korean):
    assert ko(english) == korean


def test_the_kraken_statistics_name_the_game_not_the_card(ko):
    column = ko("Kraken wins as %(role)s")
    assert column % {"role": ko("Explorer")} == "노 터치 크라켄 탐험대 승리"
    assert column % {"role": ko("Skeleton")} == "노 터치 크라켄 스켈레톤 승리"


def test_skull_king_says_what_its_box_says(ko):
    rule = ko("Special cards first: the Skull King beats Pirates, Pirates beat Mermaids, "
              "Mermaids beat every suit card, and a Mermaid beats the Skull King. Among "
              "several Pirates, or both Mermaids, the first played wins.")
    assert "모든 색상 카드를 이기며" in rule
    assert "낸 색상의 가장 높은 카드" in ko(
        "Otherwise the highest card of the led colour wins. Follow the led colour if you "
        "can; special cards may always be played. If everyone plays an Escape, the first "
        "Escape wins.")
    assert ko("Score round %(r)s") % {"r": 3} == "3라운드 점수 계산"
    assert ko("Loot") == "약탈품"


def test_the_boxes_words_for_exploring_the_token_variant_and_the_escape(ko):
    """The Kraken box: the marker holder 탐색s a card, which is then 공개; its variant is
    토큰을 사용하는 추가 규칙. The classic Skull King box's card text calls the Escape 항복."""
    assert "탐색" in ko("1. %(holder)s has the marker. Whose card was revealed?")
    assert "탐색" in ko("The marker holder cannot reveal their own card.")
    assert "공개" in ko("%(seat)s's card is revealed: an Empty box.")
    assert ko("Token series (losers take a token; the series ends when someone has 3)"
              ).startswith("토큰을 사용하는 추가 규칙(")
    assert "탈출(항복)" in ko("Scary Mary (the Tigress in 2021) is declared as she is played: "
                          "a Pirate or an Escape, said aloud as the card goes down.")


def test_the_kraken_deck_is_the_exploration_card_pile(ko):
    assert ko("The deck holds only one Kraken.") == "탐험 카드 더미에는 크라켄이 한 장뿐입니다."


def test_crazy_time_flips_cards_triggers_laws_and_sends_winners_out(translations, ko):
    sync = ko("Synchronisation: if the called hour equals the hour on the flipped card, "
              "everybody slaps the middle of the board; the slowest slapper takes a penalty. "
              "Calls past 12 and “half past” calls never trigger it. After 12 comes 1, never 13.")
    assert "펼친 카드" in sync and "발동되지 않습니다" in sync
    assert ko("You won match %(m)s: leave the room now!") % {"m": 1} == (
        "1경기에서 이겼습니다. 말소리가 안 들리는 곳으로 잠시 퇴장해 주세요!")
    assert "말소리가 안 들리는 곳으로 잠시 퇴장해 주세요" in translations.ungettext(
        "%(who)s wins the match and takes the %(h)sh token. Winner: leave the room now!",
        "%(who)s win the match and take the %(h)sh token. Winners: leave the room now!", 2)
    assert ko("out of the room") == "퇴장 중"


def test_games_are_counted_in_pan_and_wins_in_seung(translations):
    assert translations.ungettext("%(num)s game won", "%(num)s games won", 3) % {"num": 3} == "3승"
    assert translations.ungettext("%(num)s game finished", "%(num)s games finished", 2) % {
        "num": 2} == "끝난 게임 2판"


def test_everybody_loses_says_why_without_a_winning_team(ko):
    line = ko("Everybody loses: the winning team (%(team)s) has no player at the table.")
    assert "승리 팀" not in line and line.startswith("모두 패배")


def test_the_colours_are_told_apart_by_name(ko):
    """Vermilion beside Orange: 주홍 and 주황 read alike, so Vermilion is 빨강."""
    names = [ko(name) for _key, _hex, name in PALETTE]
    assert len(set(names)) == len(names) == 8
    assert ko("Orange") == "주황" and ko("Vermilion") == "빨강"
    assert "주홍" not in names


#: History lines (every game's event log, shown after the fact): one tense, the past.
HISTORY_LINES = [
    "%(player)s took a penalty", "%(player)s took a penalty: wrong call",
    "%(player)s took a penalty: broke the law %(law)s", "%(player)s holds the rabbit",
    "A new law: %(name)s", "%(player)s now knows the law %(law)s",
    "The winners come back: the next match begins",
    "%(seat)s takes the action marker first.", "%(seat)s's card is revealed: an Empty box.",
    "%(seat)s's card is revealed: the Kraken!",
    "%(seat)s's card is revealed: the Special card Lost Treasure.",
    "%(player)s bid in round %(round)s", "Bids revealed for round %(round)s",
    "Round %(round)s scored", "Round %(round)s corrected",
    "%(player)s adjusted %(amount)s points in round %(round)s: %(reason)s",
    "%(player)s's adjustment in round %(round)s taken back (%(reason)s)",
    "The tablet was passed to %(player)s.", "Undone", "Redone",
    "Special card: the action marker goes to %(seat)s.",
    "Special card: %(to)s sees %(seat)s's role.",
    "Special card: %(seat)s's card is revealed out of turn.",
    "Special card: one Treasure fewer in the game.",
]


@pytest.mark.parametrize("msgid", HISTORY_LINES)
def test_history_lines_are_in_the_past(ko, msgid):
    assert re.search(r"(았|었|였|했|렸|겼|갔|왔|났|냈|졌)습니다", ko(msgid)), ko(msgid)


#: The buttons of the host's screens (the host page, a game's host view, the passed
#: tablet): a phone-width button holds about 12 Korean letters, so no more.
HOST_BUTTONS = [
    "Resume: show it on the phones", "Resume this game: show it on the phones",
    "Start %(title)s; game #%(number)s stays unfinished", "Back to game #%(number)s",
    "New code", "Give this seat a phone (new code)", "Plays on the tablet (no code)",
    "Pass the tablet to %(name)s", "Release seat", "Change colour", "Remove",
    "Show a one-time host code", "Show a one-time screen code", "Show the Wi-Fi code",
    "Forget the Wi-Fi", "Done: give the tablet back to the host",
    "I am %(name)s: show my page", "Next game: same players, new roles",
    "Next game of the series: deal new roles", "Deal the roles and start",
    "Mark: this player has learned this law", "Record the law", "Record the starting law",
    "Start match %(m)s", "Tick-tock", "Score round %(r)s", "Save round %(n)s",
    "Record the adjustment", "Yo-ho-ho!", "Undo", "Redo", "Start", "Start the night",
    "Add a seat", "Play again with the same players", "Make this the room's screen",
    "Keep the night here; don't import the file", "Replace the night here with the file",
    "Import", "Merge", "Separate again", "Compare", "New game: %(title)s", "Tonight's tally",
    "Turn on vibration and sound", "Turn off vibration and sound", "Remove host",
    "A Treasure came into the game (+1)", "A face-down Treasure left the game (−1)",
    "An Empty box came into the game (+1)", "A face-down Empty box left the game (−1)",
    "Add the note", "✓ Dealt: reveal the next card", "Show the role on their phone",
    "%(name)s leaves the night",
]


@pytest.mark.parametrize("msgid", HOST_BUTTONS)
def test_host_buttons_are_short(ko, msgid):
    text = ko(msgid)
    assert text != msgid, "untranslated"
    hangul = re.findall(r"[\uac00-\ud7a3]", re.sub(r"%\(\w+\)[sd]", "", text))
    assert len(hangul) <= 12, f"{text!r}: {len(hangul)} Korean letters"
