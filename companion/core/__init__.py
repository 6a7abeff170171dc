"""The pure core: plain data in, plain data out. Errors a person can read, forms,
ranking, awards, colours, undo and redo (``events``), the games' registry, tokens, the
Wi-Fi join code, statistics, the export file's checks, charts, BG Stats and what a
picture says. No Flask, no SQL, no gevent, no Pillow (tests/test_layers.py checks it in a
fresh interpreter)."""
