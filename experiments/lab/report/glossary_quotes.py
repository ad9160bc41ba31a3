"""Glosses of the seed quotes issue 44 chose so that each row's quote carries the value it
states (merged into :data:`experiments.lab.report.glossary.GLOSSES`; kept apart to keep that
module under the size cap)."""

from __future__ import annotations

__all__ = ["QUOTE_GLOSSES"]

QUOTE_GLOSSES: dict[str, str] = {
    "那次是 5 次工具、4909 ms，Source 指向": (
        "that run made 5 tool calls, 4909 ms, Source pointing to"
    ),
    (
        "四段各有分工。按我的理解，INTENT 和 SUMMARY 保结论，ARTIFACTS 保文件，"
        "NEXT STEPS 保没做完的动作"
    ): (
        "each of the four sections has its job. As I understand it, INTENT and SUMMARY keep the "
        "conclusions, ARTIFACTS the files, NEXT STEPS the actions not yet done"
    ),
    "输出预留 2.0.3 默认": "the output reserve, by default in 2.0.3,",
    "这类工具本身不参与，免得把": "tools like these take no part themselves, so as not to move",
    "查文件": "reading a file",
    "的结果再搬一次，排除名单一共七个": (
        "results a second time; the exclusion list has seven in all"
    ),
    "压前 flush 默认开，会把将被压掉的前缀先抽到 daily；offloadBeforeCompact 默认也开": (
        "the pre-compaction flush is on by default and first extracts the prefix about to be "
        "compacted into the daily file; offloadBeforeCompact is on by default too"
    ),
    (
        "自动压缩用 whole-surface（region.ts:387-396，深比较整个度量节点列表），"
        "因为步间边界内表面本就不该动，动了就是有并发写人；手动压缩用"
    ): (
        "automatic compaction uses whole-surface (region.ts:387-396, a deep comparison of the "
        "whole list of measured nodes), because within a step boundary the surface should not "
        "move, and if it did someone wrote concurrently; manual compaction uses"
    ),
}
