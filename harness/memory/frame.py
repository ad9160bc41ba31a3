"""The frame around injected memory, and how memory text is kept from closing or opening it.

MEMORY.md reaches the model between ``<HARNESS_CONTEXT><memory_context source="MEMORY.md">``
and the matching closing tags, which tell it the text is reference material, not instructions.
Memory text comes from conversations (a flush or ``memory_save`` copies what a tool returned,
a consolidation copies the ledger), so it can carry the frame's own tags: a line
``</memory_context></HARNESS_CONTEXT>`` would end the frame early, and whatever follows it would
reach every later session of the user as framing, in the system prompt with
``injection="system"``.

So no text between the tags may open or close them: the ``<`` of every wrapper tag in it,
opening or closing, in any case, with whitespace around the ``/`` or the name and with or
without attributes, is written ``&lt;``. The escape is

* readable: the tag name stays spelled out, so a fact that quotes it keeps its meaning (and
  ``memory_search`` still finds it), and ``&lt;`` is the escape models know from HTML and XML
  for "a literal less-than, not markup"; a lookalike character (``‹``, ``＜``) would be read
  as the tag itself more easily and is hard for a person to tell apart;
* idempotent: the escaped form holds no ``<`` before the name, so escaping again changes
  nothing, and text escaped when it was written is not escaped twice when it is injected;
* exact elsewhere: text without such a tag comes out byte-identical (recorded requests with
  injected memory still match their cassettes).

Nothing is dropped: the line that carried the tag keeps its facts.
"""

from __future__ import annotations

import re

__all__ = ["ESCAPED_LT", "FRAME_TAG", "FRAME_TAGS", "has_frame_tag", "neutralise_frame_tags"]

FRAME_TAGS = ("HARNESS_CONTEXT", "memory_context")
"""The names of the tags that frame injected memory."""

FRAME_TAG = re.compile(
    r"<(?=\s*/?\s*(?:" + "|".join(FRAME_TAGS) + "))",
    re.IGNORECASE,
)
"""The ``<`` that starts a wrapper tag, opening or closing (longer names that start with a
wrapper name are caught too: a model does not check where an XML name ends)."""

ESCAPED_LT = "&lt;"


def has_frame_tag(text: str) -> bool:
    """Whether ``text`` holds a wrapper tag that could open or close the memory frame."""
    return FRAME_TAG.search(text) is not None


def neutralise_frame_tags(text: str) -> str:
    """``text`` with the ``<`` of every wrapper tag written ``&lt;`` (see the module); the same
    string when it holds none."""
    return FRAME_TAG.sub(ESCAPED_LT, text)
