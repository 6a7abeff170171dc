"""bench/suite_cpu.py: the tests by the CPU they used, most first, with the total."""

from bench.suite_cpu import summary


def test_the_summary_puts_the_hungriest_test_first_and_adds_up_the_cpu():
    lines = [{"test": "a", "cpu_s": 1.0, "wall_s": 9.0},
             {"test": "b", "cpu_s": 3.0, "wall_s": 2.0}]
    text = summary(lines).splitlines()
    assert text[0] == "2 tests: 4 s of CPU, 11 s of wall time in all"
    assert text[1].endswith("75.0%  b") and "3.0 s CPU" in text[1]
    assert text[2].endswith("25.0%  a")
