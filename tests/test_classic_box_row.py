"""A classic Skull King asks once whether the 2021 edition's cards came up (a wrong box
shows in the first deal): in the first round's results, never in the rounds after it."""

from tests.skullking_host import bid_round, result, start, text

QUESTION = "A 14, a Loot, the Kraken or the White Whale came up?"


def test_a_classic_game_asks_about_the_2021_cards_in_the_first_round_only(night):
    game = start(night, way="custom", rounds="1, 1, 1", edition="classic")
    bid_round(night, game, {0: 1, 1: 0, 2: 0, 3: 0})
    assert QUESTION in text(night.host.get(game))
    result(night, game, {0: 1, 1: 0, 2: 0, 3: 0})
    bid_round(night, game, {0: 1, 1: 0, 2: 0, 3: 0}, round_=2)
    html = text(night.host.get(game))
    assert "Round 2" in html and QUESTION not in html
