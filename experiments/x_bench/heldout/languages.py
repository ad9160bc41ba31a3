"""The held-out split's two languages, assembled from their facts and filler modules."""

from __future__ import annotations

from experiments.x_bench.heldout import en_facts, en_filler, zh_facts, zh_filler
from experiments.x_bench.heldout.phrasing import Language

__all__ = ["LANGUAGES", "TOOL"]

TOOL = "lookup"
"""The held-out split's one tool (the tune split's is ``search_records``)."""

_EN = Language(
    joiner=" ",
    system="You help a small product team with its launch and its offsite. Keep answers short; "
    "the lookup tool searches tickets and the asset inventory.",
    chat_system="You help a small product team with its launch and its offsite. Keep answers "
    "short.",
    tool_description="Look up tickets or inventory records by a free-text query.",
    abstain_markers=("not known", "unknown", "not mentioned", "never mentioned", "not given",
                     "not stated", "not provided", "no information", "don't know",
                     "do not know", "wasn't mentioned", "was not mentioned"),
    facts=en_facts.FACTS,
    names=en_facts.NAMES,
    code_words=en_facts.CODE_WORDS,
    rooms=en_facts.ROOMS,
    decisions=en_facts.DECISIONS,
    rules=en_facts.RULES,
    abstentions=en_facts.ABSTENTIONS,
    tool_requests=(
        "Can you pull up the record for {subject}?",
        "What do we have on file for {subject}?",
        "Look up {subject} for me, I'm sorting out the returns.",
        "Could you check the asset record of {subject}?",
        "Find {subject} in the inventory, please.",
        "Is {subject} still assigned to someone? Check the record.",
    ),
    tool_replies=(
        "Found it; nothing unusual in the record.",
        "It's in the inventory and the record looks complete.",
        "Got it, the record is there and up to date.",
    ),
    filler=en_filler.FILLER,
)  # fmt: skip

_ZH = Language(
    joiner="",
    system="你协助一个小产品团队筹备上线和团建。回答尽量简短；lookup 工具可以查工单和资产台账。",
    chat_system="你协助一个小产品团队筹备上线和团建。回答尽量简短。",
    tool_description="按任意查询词查找工单或资产台账记录。",
    abstain_markers=("不知道", "未知", "没有提到", "没提到", "未提及", "没有提供", "未提供",
                     "不清楚", "无法确定", "没说过"),
    facts=zh_facts.FACTS,
    names=zh_facts.NAMES,
    code_words=zh_facts.CODE_WORDS,
    rooms=zh_facts.ROOMS,
    decisions=zh_facts.DECISIONS,
    rules=zh_facts.RULES,
    abstentions=zh_facts.ABSTENTIONS,
    tool_requests=(
        "帮我调一下{subject}的记录。",
        "{subject}在台账里是怎么登记的？",
        "查一下{subject}，我在整理退还的设备。",
        "能看看{subject}的资产记录吗？",
        "在台账里找一下{subject}。",
        "{subject}现在还分配给谁吗？查下记录。",
    ),
    tool_replies=(
        "查到了，记录里没什么异常。",
        "台账里有，记录是完整的。",
        "找到了，记录是最新的。",
    ),
    filler=zh_filler.FILLER,
)  # fmt: skip

LANGUAGES: dict[str, Language] = {"en": _EN, "zh": _ZH}
