"""The README's test command is the one `.ci/run` runs, and its two stages of pytest
(the quick loop, then the browser and server-process tests) leave no test out and run
none twice."""

import itertools
import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def readme_command():
    """The one command under the README's "Run the tests" heading."""
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("## Run the tests")[1]
    return re.search(r"```sh\n(.+?)\n```", section, re.S).group(1)


def ci_command():
    """The line of `.ci/run` that sets up and runs the tests."""
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    (line,) = [x for x in lines if x.startswith("python3 -m venv")]
    return line


def stages(command):
    """The marker expression of each pytest in ``command``, in order."""
    found = []
    for part in command.split("&&"):
        words = shlex.split(part)
        if words[0].endswith("/pytest"):
            found.append(words[words.index("-m") + 1])
    return found


def test_ci_runs_the_readmes_command():
    assert ci_command() == readme_command()


def test_the_quick_loop_comes_first_and_stops_at_its_first_failure():
    quick = next(p for p in readme_command().split("&&") if "pytest" in p)
    assert '-m "not browser and not slow"' in quick and " -x " in quick


def test_the_two_stages_take_every_test_once():
    first, second = stages(readme_command())
    for browser, slow in itertools.product([False, True], repeat=2):
        marks = {"browser": browser, "slow": slow}
        assert eval(first, {}, marks) != eval(second, {}, marks), marks
