"""The wheel's packages, found rather than listed: every package under companion/ (a new
game's folder is in the wheel with no edit here), and the two folders the repository
keeps at its top level, which pyproject.toml's package-dir maps into the package as
companion.templates and companion.static. setuptools' find does not see a mapped folder,
and pyproject.toml can either find packages or list them, not both: so they are named
here, beside the search. The rest of the build's settings are in pyproject.toml."""

from pathlib import Path

from setuptools import find_namespace_packages, setup

FOUND = find_namespace_packages(str(Path(__file__).parent), include=["companion*"],
                                exclude=["*.__pycache__"])
setup(packages=[*FOUND, "companion.templates", "companion.static"])
