"""``--cpu-durations=N``: the N tests that cost the most CPU, and what the whole session cost.

pytest's ``--durations`` reports wall time, and on a shared machine (a recording beside the test
run, other sessions on the same two cores) wall time mostly measures the others: a test that
took 0.7 s of CPU read 15 s of wall. This plugin times each phase (setup, call, teardown) by the
CPU of the process that runs it and of the processes it waited for (user + system,
``RUSAGE_SELF`` + ``RUSAGE_CHILDREN``), carries the figure on the phase's report (so an xdist
worker's figures reach the controller), and at the end prints the N costliest phases, the CPU per
test file, and the session's CPU: this process and every process it waited for, the xdist
workers included, from its start (collection too). The root ``conftest.py`` loads it;
``N=0`` (the default) prints nothing.
"""

from __future__ import annotations

import resource
from collections import Counter
from collections.abc import Iterator

import pytest

CPU = "cpu_seconds"
"""The name of the user property a phase's report carries its CPU seconds under."""
_STARTED = pytest.StashKey[float]()


def cpu_seconds() -> float:
    """User + system CPU of this process and of its children it waited for."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("terminal reporting").addoption(
        "--cpu-durations",
        type=int,
        default=0,
        metavar="N",
        help="print the N costliest test phases by CPU (not wall), the CPU per file and the "
        "session's CPU, xdist workers included (tests/support/cpu_durations.py)",
    )


def _wanted(config: pytest.Config) -> bool:
    return bool(config.getoption("cpu_durations", 0))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    started = item.stash.get(_STARTED, None)
    if started is None or not _wanted(item.config):
        return
    outcome.get_result().user_properties.append((CPU, cpu_seconds() - started))


def _phase_started(item: pytest.Item) -> None:
    item.stash[_STARTED] = cpu_seconds()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    _phase_started(item)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    _phase_started(item)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    _phase_started(item)


def pytest_configure(config: pytest.Config) -> None:
    if _wanted(config):
        config.pluginmanager.register(CpuReport(config), "cpu-durations-report")


def _per_file(spent: list[tuple[float, str, str]]) -> Counter[str]:
    files: Counter[str] = Counter()
    for seconds, _, nodeid in spent:
        files[nodeid.split("::", 1)[0]] += seconds
    return files


class CpuReport:
    """The phases' CPU reported to this session (an xdist worker's too), printed at its end."""

    def __init__(self, config: pytest.Config) -> None:
        self.shown: int = config.getoption("cpu_durations")
        self.spent: list[tuple[float, str, str]] = []
        """(CPU seconds, phase, node id) of every phase reported."""

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for name, value in report.user_properties:
            if name == CPU:
                self.spent.append((float(value), report.when, report.nodeid))

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.spent:
            return
        write, shown = terminalreporter.write_line, self.shown
        terminalreporter.write_sep("=", f"{shown} costliest phases by CPU (user + system)")
        for seconds, when, nodeid in sorted(self.spent, reverse=True)[:shown]:
            write(f"{seconds:7.2f}s {when:<8} {nodeid}")
        terminalreporter.write_sep("=", f"{shown} costliest files by CPU")
        for name, seconds in _per_file(self.spent).most_common(shown):
            write(f"{seconds:7.2f}s {name}")
        tests = sum(seconds for seconds, _, _ in self.spent)
        write(f"CPU: {cpu_seconds():.1f} s for the session (workers and collection included), "
              f"{tests:.1f} s of it in the tests' phases")  # fmt: skip


__all__ = ["CPU", "CpuReport", "cpu_seconds"]
