"""The release workflow (.github/workflows/release.yml) as GitHub would run it: it passes
actionlint; it builds the program on a Windows, an Apple silicon Mac, an Intel Mac and a
Linux runner and smoke-tests each one with packaging/smoke.py; it builds the wheel,
installs it with uv and smoke-tests that; every install takes the tested pins; signing
runs only where the repository has the secrets; and PyPI is reached by trusted
publishing alone. The YAML is read as text (no YAML library is installed): a job is the
block under its name, a step the block from its dash."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parent.parent
WORKFLOW = CHECKOUT / ".github" / "workflows" / "release.yml"

#: Each runner the program is built on, and what it builds there. GitHub retired the
#: macos-13 (Intel) and macos-14 images: macos-15-intel is the last Intel one.
RUNNERS = {"windows-latest": "windows-x64", "macos-15": "macos-arm64",
           "macos-15-intel": "macos-x86_64", "ubuntu-latest": "linux-x86_64"}


def job(name):
    """The text of the job ``name`` (its lines indented under ``jobs:``)."""
    text = WORKFLOW.read_text(encoding="utf-8")
    found = re.search(rf"(?ms)^  {re.escape(name)}:\n(.*?)(?=^  \S|\Z)", text)
    assert found, f"release.yml has no job {name!r}"
    return found.group(1)


def steps(job_text):
    """Each step of a job: the text from its ``- `` to the next step's."""
    body = job_text[job_text.index("    steps:\n"):]
    return [part for part in re.split(r"(?m)^      - ", body)[1:]]


def step_with(job_text, words):
    """The index of the first step of a job whose text has ``words``."""
    for number, step in enumerate(steps(job_text)):
        if words in step:
            return number
    raise AssertionError(f"no step has {words!r}")


def test_the_program_is_built_and_smoke_tested_on_each_runner():
    program = job("program")
    pairs = re.findall(r"(?m)^\s+- name: (\S+)\n\s+runner: (\S+)$", program)
    assert {runner: name for name, runner in pairs} == RUNNERS
    assert "runs-on: ${{ matrix.runner }}" in program
    built = step_with(program, "run: python packaging/build.py")
    smoked = step_with(program, "python packaging/smoke.py")
    uploaded = step_with(program, "uses: actions/upload-artifact@")
    assert step_with(program, "python-version: \"3.12\"") < built < smoked < uploaded


def test_signing_comes_after_the_build_and_before_the_smoke_test():
    """The smoke test runs what a host downloads: the signed program, where it is signed."""
    program = job("program")
    built, smoked = (step_with(program, "packaging/build.py"),
                     step_with(program, "packaging/smoke.py"))
    assert built < step_with(program, "signtool.FullName sign") < smoked
    assert built < step_with(program, "xcrun notarytool submit") < smoked


def test_the_wheel_is_built_installed_with_uv_and_smoke_tested():
    wheel = job("wheel")
    built = step_with(wheel, "run: python -m build")
    installed = step_with(wheel, "uv tool install")
    smoked = step_with(wheel, "python packaging/smoke.py")
    assert built < installed < smoked
    assert "dist/companion_table-*.whl" in steps(wheel)[installed]


def test_every_install_takes_the_tested_pins():
    text = WORKFLOW.read_text(encoding="utf-8")
    installs = re.findall(r"pip install[^\n]*", text)
    assert installs and all("-c constraints.txt" in line for line in installs), installs


@pytest.mark.parametrize("tool", ["signtool.FullName sign", "codesign --force",
                                  "xcrun notarytool submit"])
def test_signing_runs_only_where_the_repository_has_the_secrets(tool):
    """actionlint refuses ``secrets`` in ``if:``: each secret is mapped into the step's
    env, and the step runs only when that is not empty."""
    program = job("program")
    step = steps(program)[step_with(program, tool)]
    condition = re.search(r"(?m)^\s+if: (.+)$", step).group(1)
    needed = re.search(r"env\.(\w+) != ''", condition)
    assert needed, condition
    assert f"{needed.group(1)}: ${{{{ secrets.{needed.group(1)} }}}}" in step


def test_pypi_is_reached_by_trusted_publishing_from_the_pypi_environment():
    pypi = job("pypi")
    assert "if: startsWith(github.ref, 'refs/tags/v')" in pypi
    assert re.search(r"(?m)^    environment:\n      name: pypi$", pypi)
    assert "id-token: write" in pypi and "uses: pypa/gh-action-pypi-publish@" in pypi
    assert "password" not in pypi and "secrets." not in pypi  # no token kept anywhere


def test_the_release_gets_every_program_the_wheel_and_the_sdist():
    attach = job("attach")
    assert re.search(r"needs: \[program, wheel\]", attach)
    assert "gh release upload" in attach and "artifacts/*" in attach
    assert "contents: write" in attach


def test_each_action_is_pinned_by_its_major_version():
    text = WORKFLOW.read_text(encoding="utf-8")
    used = re.findall(r"uses: ([\w.-]+/[\w.-]+)@(\S+)", text)
    assert used and [(a, r) for a, r in used if not re.fullmatch(r"(release/)?v\d+", r)] == []


def test_what_the_workflow_runs_is_in_the_repository():
    text = WORKFLOW.read_text(encoding="utf-8")
    named = set(re.findall(r"(?:packaging|\.github)/[\w./-]+\.(?:py|plist)", text))
    assert {"packaging/build.py", "packaging/smoke.py"} <= named
    assert [path for path in sorted(named) if not (CHECKOUT / path).is_file()] == []


# --- actionlint ----------------------------------------------------------------------

#: The release extra's actionlint, in the test venv (its wheel ships the binary).
ACTIONLINT = Path(sys.executable).with_name("actionlint")


def actionlint(path):
    return subprocess.run([str(ACTIONLINT), "-no-color", str(path)], capture_output=True,
                          text=True, timeout=120, cwd=CHECKOUT)


@pytest.mark.slow
def test_actionlint_passes_the_release_workflow():
    done = actionlint(WORKFLOW)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
def test_actionlint_refuses_a_secret_read_in_an_if(tmp_path):
    """The check above can fail: the mistake the workflow avoids is caught."""
    broken = tmp_path / ".github" / "workflows" / "broken.yml"
    broken.parent.mkdir(parents=True)
    broken.write_text("on: push\njobs:\n  sign:\n    runs-on: windows-latest\n    steps:\n"
                      "      - if: secrets.WINDOWS_CERTIFICATE != ''\n        run: echo sign\n")
    done = actionlint(broken)
    assert done.returncode == 1 and "secrets" in done.stdout, done.stdout + done.stderr
