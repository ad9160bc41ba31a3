"""What an experiment that replays one cassette (E2, E3, E4) shares: the fields its view opens
with (:class:`RecordedView`), the part of them the cassette gives (:func:`view_header`), and how
the view becomes the run's result (:func:`recorded_result`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypedDict, TypeVar

from lab.recorder.provenance import Provenance
from lab.views.codec import to_data

if TYPE_CHECKING:
    from lab.claims import Claim
    from lab.experiment import ExperimentResult
    from lab.recorder import CassetteClient

__all__ = ["RecordedView", "ViewHeader", "recorded_result", "view_header"]


@dataclass(frozen=True)
class RecordedView:
    """A recorded experiment's view: which experiment, from which cassette, with which prompt.
    The experiments' views extend it, so these fields come first in their JSON."""

    experiment: str
    source: str
    """``provider/model`` of the cassette."""
    provenance: Provenance
    """The cassette's provenance, as recorded."""
    system_prompt: str
    """The agent's system prompt."""


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
    from lab.experiment import ExperimentResult

    return ExperimentResult(
        view.experiment,
        claims(view),
        to_data(view),
        view.source,
        (to_data(view.provenance),),
    )
