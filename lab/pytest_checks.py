"""Checks of the claims plugin (:mod:`lab.pytest_plugin`) that need none of its state:
the recording preflight, the refusals of an order replay, and how a run's reports differ."""

from __future__ import annotations

import filecmp
from pathlib import Path

import pytest

__all__ = ["could_not_run", "differing_files", "preflight_or_usage_error", "refuse_order_writes"]


def preflight_or_usage_error(
    options: tuple[str, str | None, str | None, str | None],
    ids: tuple[str, ...] | list[str],
    check_key: bool = True,
) -> None:
    """One usage error (exit 4, one line) when the recording cannot start: no key, or for a
    local recording a missing ``record`` extra, model parts or (E4) llama-server. With no
    ``ids`` only what every recording from the provider needs is checked; ``check_key`` asks
    the provider whether it takes the key (done once, before collection)."""
    from harness import CtxlabError
    from lab.preflight import preflight

    try:
        preflight(ids, *options, check_key=check_key)
    except CtxlabError as exc:
        raise pytest.UsageError(f"cannot record: {exc}") from None


def refuse_order_writes(config: pytest.Config) -> None:
    """An order replay is no reproduction: it never rewrites the baseline or its folder."""
    if config.getoption("update_baseline"):
        raise pytest.UsageError(
            "--cassette-match order is not a reproduction; it cannot --update-baseline."
        )
    chosen = config.getoption("report_dir")
    committed = Path(config.getoption("baseline")).resolve().parent
    if chosen is not None and (Path(chosen).resolve() == committed or chosen.name == "reports"):
        raise pytest.UsageError(
            f"--cassette-match order never writes {chosen}: give a scratch --report-dir."
        )
    if config.getoption("record_mode") == "rewrite":
        raise pytest.UsageError("--cassette-match order replays; it cannot record.")


def differing_files(out: Path, committed: Path) -> list[str]:
    """The files, by path below each folder (``evidence/<claim-id>.html``), that one folder holds
    and the other does not, or that differ."""

    def files(folder: Path) -> set[str]:
        return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}

    names = sorted(files(out) | files(committed))
    return [
        name
        for name in names
        if not ((out / name).is_file() and (committed / name).is_file())
        or not filecmp.cmp(out / name, committed / name, shallow=False)
    ]


def could_not_run(error: BaseException) -> str:
    text = str(error)
    return text if text.startswith("could not") else f"could not run: {text}"
