"""Chart labels fit their chart: measured generously, beside the bars when every name fits
there, else above each bar on up to two lines, cut with "…" only past that; Skull King's
names at its lines' ends on one line on a phone, and on the room's screen on as many as
the chart has room for, names cut alike keeping their ends. (The browser test,
tests/test_layout_browser.py, checks the drawn words lie inside the picture.)"""

from companion.core import charts
from companion.skullking import score_table

LONG = "김민준" * 10
PIRATE = "🏴\u200d☠️"  # one drawn emoji of four code points


def test_short_names_go_beside_the_bars():
    chart = charts.bar_chart([{"label": "민수", "value": 2}, {"label": "Jo", "value": 1}])
    assert chart["beside"] and chart["left"] == charts.LABEL_WIDTH
    for bar in chart["bars"]:
        assert bar["lines"] == [bar["label"]] and not bar["cut"]
        assert bar["label_x"] < bar["x"]


def test_one_long_name_puts_every_name_above_its_bar_whole():
    chart = charts.bar_chart([{"label": LONG, "value": 2}, {"label": "Jo", "value": 1}])
    assert not chart["beside"] and chart["left"] == 0
    long, short = chart["bars"]
    assert len(long["lines"]) == 2 and "".join(long["lines"]) == LONG and not long["cut"]
    assert short["lines"] == ["Jo"]
    for bar in chart["bars"]:
        assert bar["label_y"] + (len(bar["lines"]) - 1) * chart["line"] < bar["y"]
        assert bar["label_x"] == charts.INSET  # not at the edge: a "J" reaches left of it
        for line in bar["lines"]:
            assert bar["label_x"] + charts.text_width(line) <= charts.CHART_WIDTH
    assert short["y"] > long["y"] + long["height"]
    assert chart["height"] == short["y"] + short["height"]


def test_a_name_too_long_for_two_lines_is_cut_with_an_ellipsis():
    name = "W" * 60
    bar = charts.bar_chart([{"label": name, "value": 1}])["bars"][0]
    assert bar["cut"] and bar["lines"][-1].endswith("…") and len(bar["lines"]) == 2
    assert all(charts.text_width(line) <= charts.CHART_WIDTH for line in bar["lines"])


def test_a_name_breaks_at_a_space_when_it_has_one():
    assert charts.wrap("Bartholomew Roberts the Second Pirate King", 300) == [
        "Bartholomew Roberts the", "Second Pirate King"]


def test_an_emoji_of_several_code_points_is_never_split():
    for room in range(16, 200, 3):
        for line in charts.wrap(PIRATE * 12, room) + [charts.shorten(PIRATE * 12, room)]:
            assert line.replace("…", "").replace(PIRATE, "") == "", (room, line)


def test_wide_letters_are_measured_wide():
    # DejaVu Sans Bold draws "W" 1.1 em wide, Hangul 0.94 em: never measured narrower
    assert charts.text_width("W" * 10, 10) >= 110
    assert charts.text_width(LONG, 10) >= 0.94 * 10 * 30
    # a joined emoji drawn apart where no emoji font has it: still not measured narrower
    assert charts.text_width(PIRATE, 10) >= 10 * (0.6 + 0.9)


def test_skull_kings_line_ends_are_cut_to_their_room_in_the_same_measure():
    state = {"rounds": [{"totals": {str(s): 10 * s for s in range(8)}}],
             "leader": [7]}
    chart = score_table.chart(state, list(range(8)), {s: "W" * 30 for s in range(8)})
    for line in chart["lines"]:
        label = line["label"]
        assert label["text"].endswith("…")
        assert label["x"] + charts.text_width(label["text"], score_table.FONT) <= score_table.WIDTH


def totals_chart(names, geometry, scored=9):
    """Skull King's chart of ``scored`` of ten rounds, each player's total growing by
    their seat's tens (the last seat leads), drawn in ``geometry``."""
    seats = list(range(len(names)))
    rounds = [{"totals": {str(s): 10 * s * number for s in seats} if number <= scored
               else None} for number in range(1, 11)]
    state = {"rounds": rounds, "leader": [seats[-1]]}
    return score_table.chart(state, seats, dict(enumerate(names)), **geometry)


def drawn(line):
    """A line's name at its end as drawn: its rows in order, the leader's star left out."""
    return "".join(row["text"] for row in line["label"]["rows"]).removeprefix("★ ")


def test_the_rooms_screen_names_every_player_whole_on_as_many_lines_as_it_needs():
    names = [LONG, "Mina", "A" + "a" * 29, "Jo", "W" * 30, "Sun", PIRATE * 10, "Ann"]
    for geometry in (score_table.SCREEN, score_table.SCREEN_END):
        chart = totals_chart(names, geometry)
        font, gap = geometry["font"], geometry["gap"]
        blocks = []
        for line, name in zip(chart["lines"], names, strict=True):
            label = line["label"]
            assert drawn(line) == name
            for row in label["rows"]:
                assert label["x"] + charts.text_width(row["text"], font) <= chart["width"]
                assert font / 2 <= row["y"] <= chart["bottom"] - geometry["lift"]
            ys = [row["y"] for row in label["rows"]]
            steps = [b - a for a, b in zip(ys, ys[1:], strict=False)]
            assert all(abs(step - gap) < .2 for step in steps)  # a name's lines, in order
            blocks.append((ys[0], ys[-1]))
        blocks.sort()
        for (_, last), (first, _) in zip(blocks, blocks[1:], strict=False):
            assert first - last >= gap + geometry["spacing"] - .2  # names stand apart


def test_names_cut_alike_on_the_rooms_screen_keep_their_ends():
    ends = ["Pir", "Sam", "Tom", "Ann", "Bob", "Kim", "Lee", "Max"]
    chart = totals_chart([f"Bartholomew the Unsinkable {end}" for end in ends],
                         score_table.SCREEN)
    seen = [drawn(line) for line in chart["lines"]]
    assert len(set(seen)) == 8
    for text, end in zip(seen, ends, strict=True):
        assert text.startswith("Bartholomew") and text.endswith(end)


def test_a_phones_chart_names_each_line_on_one_line():
    chart = totals_chart(["Bartholomew the Unsinkable Pir", "Mina", LONG], {})
    assert [len(line["label"]["rows"]) for line in chart["lines"]] == [1, 1, 1]
    text = chart["lines"][0]["label"]["text"]
    assert text.startswith("Barthol") and text.endswith("…")


def test_the_rooms_screen_numbers_every_round_where_the_numbers_have_room():
    def numbered(rounds):
        state = {"rounds": [{"totals": {"0": 10 * n}} for n in range(rounds)], "leader": [0]}
        return [t["label"] for t in score_table.chart(state, [0], {0: "Jo"},
                                                      **score_table.SCREEN)["xticks"]]
    assert numbered(3) == [0, 1, 2, 3]
    assert numbered(10) == [0, 2, 4, 6, 8, 10]  # "10" is wider than a round's step
