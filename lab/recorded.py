"""What an experiment that replays one cassette (E2, E3, E4) shares: the cassette's part of its
view (:class:`~lab.views.recorded.RecordedView`), and how the view becomes the run's
result."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypedDict, TypeVar

from lab.claims import Claim
from lab.experiment import ExperimentResult
from lab.views import to_data
from lab.views.recorded import RecordedView

if TYPE_CHECKING:
    from lab.recorder import CassetteClient
    from lab.recorder.provenance import Provenance

__all__ = ["ViewHeader", "recorded_result", "view_header"]


class ViewHeader(TypedDict):
    """The fields of a :class:`RecordedView` that the cassette gives (documented there)."""

    experiment: str
    source: str
    provenance: Provenance


V = TypeVar("V", bound=RecordedView)


def view_header(experiment: str, cassette: CassetteClient) -> ViewHeader:
    """``experiment`` replayed from ``cassette``: its id, source and provenance."""
    provenance = cassette.provenance
    return ViewHeader(experiment=experiment, source=provenance.source, provenance=provenance)


def recorded_result(view: V, claims: Callable[[V], tuple[Claim, ...]]) -> ExperimentResult:
    """The run's result: ``view`` judged by ``claims``, written whole, with its provenance."""
    return ExperimentResult(
        view.experiment,
        claims(view),
        to_data(view),
        view.source,
        (to_data(view.provenance),),
    )
