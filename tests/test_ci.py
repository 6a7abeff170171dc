"""The README's test command is the one `.ci/run` runs, and its two stages of pytest
(the quick loop, then the browser and server-process tests) leave no test out and run
none twice; the README's CI figures are the latest run written down, and that run is
held to the goals."""

import itertools
import re
import shlex
from dataclasses import dataclass, replace
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


# --- the CI runs written down -------------------------------------------------------

#: What a CI run is held to (docs/performance.md, "CI runs"): on a two-core box, from a
#: fresh clone with the system packages installed, the quick loop within 40 s and the
#: whole of `.ci/run` within 10 minutes.
QUICK_LOOP_GOAL_S = 40
WHOLE_RUN_GOAL_S = 10 * 60

#: An entry's first line: "- **2026-12-07, 16:41 UTC** (`e2d42d3`, …): 12 min 3 s; the
#: quick loop 3,200 tests in 45.1 s, …"
ENTRY = re.compile(r"- \*\*(?P<day>\d{4}-\d\d-\d\d), \d\d:\d\d UTC\*\* \(`(?P<commit>[0-9a-f]{7,})`"
                   r"[^)]*?\): (?P<min>\d+) min (?P<s>\d+) s; the quick loop [\d,]+ tests in "
                   r"(?P<quick>[\d.]+) s", re.S)


@dataclass(frozen=True)
class CiRun:
    day: str
    commit: str
    whole_s: int
    quick_s: float


def latest_ci_run():
    """The newest entry of docs/performance.md's "CI runs" (the first one listed)."""
    text = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    section = text.split("\n## CI runs\n")[1].split("\n## ")[0]
    entries = section[section.index("\n- ") + 1:].split("\n- ")
    first = " ".join(entries[0].split())  # its lines joined, as the page reads it
    found = ENTRY.match(first)
    assert found, f"the newest CI run is not written as ENTRY reads it:\n{first[:300]}"
    return CiRun(found["day"], found["commit"], int(found["min"]) * 60 + int(found["s"]),
                 float(found["quick"]))


def readme_ci_figures():
    """The commit, the whole run and the quick loop the README's "CI figures" line gives."""
    text = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    found = re.search(r"CI figures: from a fresh clone on (\d{4}-\d\d-\d\d) \(`([0-9a-f]+)`"
                      r"[^)]*\), `\.ci/run` took (\d+) min (\d+) s, its quick loop ([\d.]+) s",
                      text)
    assert found, "the README has no \"CI figures\" line"
    day, commit, minutes, seconds, quick = found.groups()
    return CiRun(day, commit, int(minutes) * 60 + int(seconds), float(quick))


def test_the_readmes_ci_figures_are_the_latest_runs():
    assert readme_ci_figures() == latest_ci_run()


def over_the_goals(run):
    """What of ``run`` breaks the goals, in words; nothing when it holds them."""
    over = []
    if run.quick_s > QUICK_LOOP_GOAL_S:
        over.append(f"the quick loop took {run.quick_s} s (at most {QUICK_LOOP_GOAL_S})")
    if run.whole_s > WHOLE_RUN_GOAL_S:
        over.append(f"the whole run took {run.whole_s} s (at most {WHOLE_RUN_GOAL_S})")
    return over


def test_a_run_over_either_goal_is_over():
    held = CiRun("2026-12-07", "abcdef1", WHOLE_RUN_GOAL_S, QUICK_LOOP_GOAL_S)
    assert over_the_goals(held) == []
    assert len(over_the_goals(replace(held, whole_s=WHOLE_RUN_GOAL_S + 1))) == 1
    assert len(over_the_goals(replace(held, quick_s=QUICK_LOOP_GOAL_S + 0.1))) == 1


def test_the_latest_ci_run_holds_the_goals():
    assert over_the_goals(latest_ci_run()) == []
