"""The one Jinja environment every HTML page of the report is rendered with: the templates of
``lab/report/templates/``, autoescaped (model output may hold HTML), strict about undefined
names, block tags leaving no blank lines."""

from __future__ import annotations

import jinja2

__all__ = ["ENVIRONMENT"]

ENVIRONMENT = jinja2.Environment(
    loader=jinja2.PackageLoader("lab.report", "templates"),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)
