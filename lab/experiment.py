"""What an experiment is: an id, a function that runs it, and the result it returns."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from lab.cassette_sets import DEFAULT_SET, list_sets, set_name, variant_name
from lab.claims import Claim
from lab.jsonio import dump_json, refuse_secrets, write_json

if TYPE_CHECKING:
    from harness.timeouts import Timeouts
    from lab.record_pool import RecordPlan
    from lab.recorder import CassetteClient, ProviderSpec
    from lab.recorder.order_replay import CassetteMatch, OrderPart

__all__ = [
    "ARTICLE_METER",
    "Experiment",
    "ExperimentResult",
    "RunSettings",
    "dump_json",
    "refuse_secrets",
    "write_json",
]

Config = TypeVar("Config")

ARTICLE_METER = "agentscope-2.0.3"
"""The token meter of every experiment that reproduces the article's numbers: AgentScope 2.0.3's
estimator, which the article's figures come from (ctxlab's own default is the anchored meter,
:mod:`harness.meter`)."""


@dataclass(frozen=True)
class RunSettings:
    """How experiments get their model: replayed from cassettes, or live while recording."""

    cassette_root: Path
    """The ``cassettes/`` folder; each experiment uses its own sub-folder."""
    mode: Literal["replay", "record"] = "replay"
    provider: ProviderSpec | None = None
    """The live provider when recording."""
    server_info: Mapping[str, Any] | None = None
    """What the local server reported about itself (model file, checksum, flags)."""
    force: bool = False
    """Recording may overwrite existing cassettes."""
    progress: Callable[[str], None] = print
    timeouts: Timeouts | None = None
    """The client's timeouts when recording; None = the defaults and ``CTXLAB_*TIMEOUT``."""
    cassette_set: str | None = None
    """The recorded set (``<provider>-<model>``, :mod:`lab.cassette_sets`) to replay;
    None = the provider's own set when recording, else the default set."""
    variant: str = ""
    """A ctxlab switch the run turns on (``gate``); its cassettes are ``<name>-<variant>``."""
    slice: tuple[int, int] | None = None
    """When recording X-BENCH: record only part ``K`` of ``N`` of its cassettes (1-based)."""
    conditions: tuple[str, ...] = ()
    """When recording X-BENCH: record only these conditions (empty = all)."""
    concurrency: int = 1
    """When recording: cassettes (X-BENCH's) or experiments recorded at once, each in a worker
    process of its own (vcrpy patches httpx for a whole process, so threads cannot record side
    by side; :mod:`lab.record_pool`)."""
    shard: tuple[int, int] | None = None
    """When recording: only the cassettes of shard ``i`` of ``n`` (a digest of the experiment, the
    cassette and the model decides; :mod:`lab.record_shards`)."""
    cassette_match: CassetteMatch = "body"
    """``order``: recorded answers served in order, requests not matched (mutation testing,
    never a reproduction; :mod:`lab.recorder.order_replay`)."""

    def configure(self, config: Config) -> Config:
        """``config`` with this run's variant switched on (:mod:`lab.variants`)."""
        from lab.variants import with_variant

        return with_variant(config, self.variant)

    def cassette_path(self, experiment_id: str, name: str) -> Path:
        """``<root>/<experiment>/<set>/<name>[-<variant>].json`` (a cassette directly in the
        experiment's folder, the layout before sets, still replays)."""
        from lab.variants import cassette_variant

        folder = self.cassette_root / experiment_id
        file_name = f"{variant_name(name, cassette_variant(experiment_id, self.variant))}.json"
        chosen = self.cassette_set
        if chosen is None and self.mode == "record" and self.provider is not None:
            chosen = set_name(self.provider.name, self.provider.model)
        if chosen is None:
            if (folder / file_name).is_file():
                return folder / file_name
            chosen = next(iter(list_sets(self.cassette_root, experiment_id)), DEFAULT_SET)
        return folder / chosen / file_name

    @contextmanager
    def model(
        self, experiment_id: str, name: str, order_part: OrderPart | None = None
    ) -> Iterator[CassetteClient]:
        """A chat model wired to the cassette ``<experiment>/<name>.json`` (``order_part``:
        which of its answers an order replay serves)."""
        from lab.recorder import cassette_client

        provider = self.provider.name if self.provider else "local"
        hint = f"ctxlab record {experiment_id} --provider {provider}"
        with cassette_client(
            self.cassette_path(experiment_id, name),
            mode=self.mode,
            provider=self.provider,
            server_info=self.server_info,
            force=self.force,
            rerecord_hint=hint,
            progress=self.progress if self.mode == "record" else None,
            timeouts=self.timeouts,
            match=self.cassette_match,
            order_part=order_part,
        ) as cassette:
            yield cassette


@dataclass(frozen=True)
class ExperimentResult:
    """Everything one run of an experiment measured."""

    experiment: str
    claims: tuple[Claim, ...]
    data: dict[str, Any]
    """The experiment's full measurements; written to ``<id>.json``."""
    source: str
    """``scripted`` or ``provider/model`` of the cassettes."""
    provenance: tuple[dict[str, Any], ...] = field(default_factory=tuple)
    """Provenance of each cassette used (empty for scripted experiments)."""
    per_model: tuple[tuple[str, dict[str, Any]], ...] = ()
    """The measurements of the other recorded sets, ``(model, data)``, when an experiment was
    replayed once per set (:func:`lab.runner.combine_sets`); written to
    ``<id>@<model>.json``."""
    version: int | None = None
    """The experiment's :attr:`Experiment.version` that measured this; set by
    :func:`lab.runner.run_one`, written into ``<id>.json`` and ``claims.csv``."""


@dataclass(frozen=True)
class Experiment:
    """A registered experiment."""

    id: str
    title: str
    run: Callable[[RunSettings], ExperimentResult]
    needs_cassettes: bool
    local_server: str = "llama-cpp-python"
    """Which local server ``ctxlab record --provider local`` starts for it: ``llama-cpp-python``
    or ``llama-server`` (llama.cpp's own, which reports cached prompt tokens)."""
    cassettes_of: str = ""
    """The experiment whose cassette folder this one replays (default: its own)."""
    own_variants: tuple[str, ...] = ()
    """The variants (:mod:`lab.variants`) that change its requests, so that it has cassettes
    of its own for each (E3 under ``gate``: the later rounds carry the gated summary); under
    any other variant it replays its plain cassettes with the switch on."""
    requires: tuple[str, ...] = ()
    """``<experiment>/<name>`` cassettes a set must hold for this experiment to replay it
    (X-GATE replays the sets that hold ``E3/rounds-gate``)."""
    records: bool = False
    """Has cassettes to record although it runs without any (X-BENCH: its model-free
    conditions need none; recorded sets add the others)."""
    version: int = 1
    """The version of what the experiment measures and how its claims are judged (as an lm-eval
    task's version): bumped when a change to its measurement or judges can change its results,
    so that a ``<id>.json`` or a ``claims.csv`` row says which version produced it."""
    conditions: tuple[str, ...] = ()
    """The conditions ``ctxlab record --conditions`` may choose among when it records this
    experiment (X-BENCH's); empty: the option does not apply to it."""

    def __post_init__(self) -> None:
        from lab.variants import declare_own_variants

        declare_own_variants(self.id, self.own_variants)

    @classmethod
    def listed(
        cls,
        module: str,
        run: Callable[[RunSettings], ExperimentResult],
        *,
        needs_cassettes: bool,
        version: int,
        **fields: Any,
    ) -> Experiment:
        """The experiment of the folder that holds ``module``, its id and title as the suite lab
        was handed lists them (:mod:`lab.suite`): ``EXPERIMENT = Experiment.listed(__name__,
        run, needs_cassettes=True, version=1)`` in the experiment folder's ``__init__.py``; each
        states its :attr:`version`."""
        from lab.suite import entry_of

        listed = entry_of(module)
        return cls(listed.id, listed.title, run, needs_cassettes, version=version, **fields)

    @property
    def recordable(self) -> bool:
        """Whether ``ctxlab record`` has anything to record for it."""
        return (self.needs_cassettes or self.records) and not self.cassettes_of

    reads: tuple[str, ...] = ()
    """The other experiments whose cassettes this one replays (X-GATE and X-COST read E3's
    and E4's): recording one of them leaves this one stale until it is replayed."""
    local_context: int = 8192
    """The context (``n_ctx``) of the local server ``ctxlab record --provider local`` starts
    for it (X-BENCH's 8K conversations with the full context need more than 8,192)."""
    record_plan: Callable[[RunSettings], RecordPlan] | None = None
    """The cassettes ``ctxlab record`` records for it one by one (X-BENCH: each conversation under
    each condition), so that they can be recorded side by side and sharded; None: recording it
    is one run of :attr:`run` (:mod:`lab.record_pool`)."""
    record_one: Callable[[RunSettings, str], None] | None = None
    """Records one cassette of :attr:`record_plan` (by its name)."""
    weight: float = 0.25
    """Its replay's rough CPU seconds (one set) on the 2-core machine ctxlab is developed on;
    only the order in which ``ctxlab run`` starts experiments side by side reads it (the
    heaviest first)."""

    def sets(self, cassette_root: Path) -> list[str]:
        """The recorded sets this experiment replays, one run each (default set first)."""
        found = list_sets(cassette_root, self.cassette_folder)
        needed = [tuple(r.split("/", 1)) for r in self.requires]
        return [
            s
            for s in found
            if all((cassette_root / e / s / f"{name}.json").is_file() for e, name in needed)
        ]

    @property
    def cassette_folder(self) -> str:
        """The folder under ``cassettes/`` whose recorded sets this experiment runs once each."""
        return self.cassettes_of or self.id
