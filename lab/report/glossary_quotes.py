"""Glosses of the seed quotes chosen so that each row's quote carries the value it
states (merged into :data:`lab.report.glossary.GLOSSES`; kept apart to keep that
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
    # the rows for the seed claims that had none (E5's memory switches and DSH steps)
    "在 call 成功结束之后": "after a call ends successfully",
    "关掉的是这只手，不影响": "switches off this hand only; it does not affect",
    "超过 90 天移进": "older than 90 days are moved into",
    "带行号，说明它是被读进来的材料，不是指令": (
        "carries line numbers, showing it is material that was read in, not instructions"
    ),
    "把它原样并进了 562 B 版的": "merged it verbatim into the 562 B version of",
    "按 maxContextTokens（默认 8000）截断": "truncated at maxContextTokens (8000 by default)",
    "限频，never() 只留压前那笔，disableMemoryHooks() 全停（连维护一起）": (
        "rate-limits; never() keeps only the pre-compaction one; disableMemoryHooks() stops "
        "everything (maintenance included)"
    ),
    "在 agent 每一步开始前，也就是两次模型请求之间的安全边界，做一次压力检查": (
        "before each step of the agent, that is at the safe boundary between two model "
        "requests, a pressure check is made"
    ),
    "取最近一次路由请求的 system 和 tools，再逐节点把被压缩区段的事件派生成消息": (
        "take the system and tools of the most recent routed request, then derive messages "
        "node by node from the events of the compacted span"
    ),
    "就返回": "returns",
    "从最新一条往老的方向累加 token，攒够保留预算就停": (
        "add up tokens from the newest message towards the older ones, and stop once the "
        "retain budget is reached"
    ),
    "不许原样照抄，要把仍然为真的事实合并进单个新摘要，嵌套压缩不滚雪球": (
        "no verbatim copying: the facts still true must be merged into a single new summary, "
        "so nested compactions do not snowball"
    ),
    "大于等于就报错": "greater than or equal is an error",
    "只有上下文超限这一种才进入恢复分支。注意看这里，其他错误原样放行，恢复逻辑不碰": (
        "only the context-overflow kind enters the recovery branch. Note this: other errors "
        "pass through as they are; the recovery logic does not touch them"
    ),
}
