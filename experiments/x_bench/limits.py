"""How large a conversations file ``ctxlab bench --conversations`` reads, checked before the
work that grows with it (parsing every field, pricing every turn, asking about every fact).

Each limit is far above any real corpus: the generator's largest conversation (24K, zh) has 116
turns and 12 facts in 92 KB, and the suite replays 18 conversations. A file beyond one is
refused in one sentence naming the limit; without them a file of a million facts ran for
minutes and took gigabytes before it said anything.
"""

from __future__ import annotations

__all__ = ["MAX_CONVERSATIONS", "MAX_FACTS", "MAX_FILE_BYTES", "MAX_TURNS"]

MAX_FILE_BYTES = 64 * 1024 * 1024
"""Bytes of one conversations file (64 MiB): about 700 times the largest generated
conversation; checked before the file is parsed."""

MAX_CONVERSATIONS = 1_000
"""Conversations in one file: each is played under every condition, so this bounds a bench's
runs (the suite plays 18)."""

MAX_TURNS = 5_000
"""Turns of one conversation (the largest generated one has 116; 5,000 short turns already
exceed a 1M-token context)."""

MAX_FACTS = 500
"""Facts of one conversation (the generator plants 12; each is a probe question in one
request)."""
