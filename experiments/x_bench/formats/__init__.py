"""Standard corpora into ``ctxlab bench``: readers that turn a published format into X-BENCH's
conversations (:class:`~experiments.x_bench.schema.Conversation`).

:mod:`.reader` reads a file in the format asked or detected (:mod:`.detect`), each format's own
module holding its reader: :mod:`.ctxlab` (ours), :mod:`.longmemeval`, :mod:`.locomo`,
:mod:`.compactbench` (templates through CompactBench's own generator), all assembled by
:mod:`.assemble`, which marks a question whose answer is verbatim in none of its evidence turns
as ``unanchored`` (kept, counted, scored by nothing). No dataset's text is in ctxlab's tree: the
readers read the user's own copy at run time.
"""
