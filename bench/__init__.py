"""The load benchmark (bench.py), its floor (floor.py), its budgets (budgets.py)
and how it reads pages (page.py)."""
