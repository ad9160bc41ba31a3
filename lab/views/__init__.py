"""The experiments' measurements as typed views: one frozen dataclass tree per experiment.

The experiment (``experiments/eN.py``) builds its view and writes ``to_data(view)`` as
``<ID>.json``; its claims are judged from the view (:mod:`lab.claims.specs`); the
reports read the JSON back with :func:`from_data` (:mod:`lab.report.experiments`). One
schema, declared once."""

from lab.views.codec import ShapeError, from_data, to_data

__all__ = ["ShapeError", "from_data", "to_data"]
