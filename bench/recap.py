"""How long a recap picture takes to draw: a night of six players (Hangul and emoji
names) with a Kraken token series of three, a Skull King game of ten rounds and a Crazy
Time game, drawn through the real route (docs/measurements/2026-11-30/README.md, "Recap
pictures").

    .venv/bin/python -m bench.recap [--runs 20]

Prints the first draw (fonts opened), the median of fresh draws (the cache emptied
before each), a cached answer, and the picture's size. The games are the test suite's
hand-made ones (bench/builders.py), stored as the host's forms would store them.
"""

from __future__ import annotations

import argparse
import io
import random
import statistics
import tempfile
import time
from pathlib import Path

from PIL import Image

from bench.builders import (
    crazytime_game,
    kraken_game,
    kraken_kraken_first,
    make_night,
    skullking_game,
    store_game,
)
from companion.app import create_app
from companion.pictures import views as pictures

NAMES = ["민준", "서연 🐙", "Bo", "지호", "👩‍👩‍👧 하은", "Captain Jack"]


def ten_rounds(rng: random.Random) -> tuple[list[dict[int, int]], list[dict[int, int]]]:
    """Bids and tricks won for rounds of 1 to 10 cards, six players."""
    bids, won = [], []
    for cards in range(1, 11):
        bids.append({seat: rng.randint(0, min(cards, 3)) for seat in range(6)})
        tricks = dict.fromkeys(range(6), 0)
        for _ in range(cards):
            tricks[rng.randrange(6)] += 1
        won.append(tricks)
    return bids, won


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        app = create_app({"TESTING": True, "DATABASE": str(Path(folder) / "bench.sqlite"),
                          "SECRET_KEY": "bench", "WTF_CSRF_ENABLED": False})
        night = make_night(app, NAMES)
        night.host.set_cookie("lang", "ko")
        device = night.host.get_cookie("device").value
        for number in (1, 2, 3):
            store_game(app, device, night.key, kraken_game(
                number, ["explorer", "skeleton", "explorer"], kraken_kraken_first(), "s"))
        bids, won = ten_rounds(random.Random(7))
        store_game(app, device, night.key,
                   skullking_game(4, list(range(6)), list(range(1, 11)), bids, won))
        store_game(app, device, night.key, crazytime_game(5))
        url = f"{night.url}/recap.png"

        def fetch() -> tuple[float, bytes]:
            start = time.perf_counter()
            response = night.host.get(url)
            assert response.status_code == 200, response.status_code
            return (time.perf_counter() - start) * 1000, response.data

        first, png = fetch()
        fresh = []
        for _ in range(args.runs):
            pictures._pictures.clear()
            fresh.append(fetch()[0])
        cached = statistics.median(fetch()[0] for _ in range(args.runs))
        image = Image.open(io.BytesIO(png))
        print(f"first draw {first:.0f} ms; fresh draw median {statistics.median(fresh):.0f} ms"
              f" (max {max(fresh):.0f} ms, {args.runs} runs); cached {cached:.1f} ms; "
              f"{image.width}x{image.height} px, {len(png):,} bytes")
        Path("/tmp/recap-bench.png").write_bytes(png)


if __name__ == "__main__":
    main()
