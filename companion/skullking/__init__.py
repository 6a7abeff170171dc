"""Skull King (스컬킹): bids from phones revealed at once, tricks and bonuses, both
editions, and the running score table (docs/rules.md#skull-king)."""
