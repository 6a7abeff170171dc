"""The room's screen (``views``): a TV or a spare laptop showing the night's public board.
Its page is built from the other areas: each game's board and its next step (through the
game pipeline), the seats' codes and links (the table), QR codes (the pictures) and the
Wi-Fi code; so it stands above them all (tests/test_layers.py, WEB_AREAS)."""
