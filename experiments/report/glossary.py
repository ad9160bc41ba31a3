"""English glosses for the Chinese quoted in the reports: prompts, answers and code words.

The study is Chinese, so the claims quote Chinese words and the recorded model answers in
Chinese. Every run of Chinese text a report shows gets its English gloss beside it, from
:data:`GLOSSES`; a run with no gloss is left bare, and a test over the built reports fails, so
a new prompt or a re-recorded answer needs its gloss added here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from html import escape

import pandas as pd

__all__ = [
    "GLOSSES",
    "SOURCES",
    "chinese_runs",
    "english_column",
    "gloss_html",
    "gloss_note",
    "gloss_text",
    "unglossed",
]

SOURCES: tuple[tuple[str, str, str], ...] = (
    (
        "the AgentScope Java lesson",
        "AgentScope Java v2 第10课，压缩改历史，记忆搬事实",
        "AgentScope Java v2, lesson 10: compaction rewrites history, memory moves facts",
    ),
    (
        "the DeepSeek-Harness source reading",
        "DeepSeek-Harness 源码深读(13):砍掉一半对话,日志反而多了四条事件",
        "DeepSeek-Harness source reading 13: cut half the conversation, and the log gains "
        "four events",
    ),
)
"""The two seed articles: what the report calls each, its Chinese title, the title in English."""

GLOSSES: dict[str, str] = {
    # code words
    "夜莺": "nightingale",
    "莺夜": "nightingale, its two characters reversed",
    "蓝鲸": "blue whale",
    # E3's prompts and recorded answers
    "记住暗号：夜莺。只回复“收到”。": "Remember the code word: nightingale. Reply only “received”.",
    "暗号是什么？": "What is the code word?",
    "把暗号倒过来念。": "Say the code word backwards.",
    "第一轮定的暗号是什么？第一轮原话还在你的上下文里吗？": (
        "What code word was set in round 1? Is the round-1 wording still in your context?"
    ),
    "再说一次暗号。": "Say the code word once more.",
    "收到": "received",
    "第一轮定的暗号是“夜莺”。": "The code word set in round 1 is “nightingale”.",
    "夜莺。": "Nightingale.",
    # E1's scripted freight dialogue and its summary
    "您好，我是货代助手，可以帮您查船期、订舱、核对单证。": (
        "Hello, I am the freight-forwarding assistant; I can look up sailings, book space and "
        "check documents for you."
    ),
    "我们有一批电子元件要从上海出口到汉堡，两个 40 尺高柜，月底前要走。": (
        "We have a batch of electronic components to export from Shanghai to Hamburg, two "
        "40-foot high-cube containers, to ship before the end of the month."
    ),
    "收到：上海 → 汉堡，2×40HQ，电子元件，月底前出运。船公司有偏好吗？": (
        "Noted: Shanghai → Hamburg, 2×40HQ, electronic components, shipping before month end. "
        "Any preferred carrier?"
    ),
    "优先马士基或者中远海运，每柜预算 2800 美元以内。": (
        "Maersk or COSCO preferred, a budget within USD 2800 per container."
    ),
    "明白。再确认一下：货物里含锂电池吗？": (
        "Understood. One more check: does the cargo contain lithium batteries?"
    ),
    "不含锂电池。帮我查一下下周的船期。": (
        "No lithium batteries. Please check next week's sailings."
    ),
    "下周有两个船期：中远海运 11-05 开船（截关 11-03，USD 2650/柜），马士基 11-07 开船（截关 "
    "11-05，USD 2780/柜），都在预算内。推荐中远海运": (
        "Two sailings next week: COSCO departs 11-05 (cut-off 11-03, USD 2650/container), "
        "Maersk departs 11-07 (cut-off 11-05, USD 2780/container), both within budget. "
        "Recommended: COSCO"
    ),
    "为一批电子元件安排上海港至汉堡的出口海运（": (
        "Arrange export ocean freight for a batch of electronic components from Shanghai to "
        "Hamburg ("
    ),
    "为一批电子元件安排上海港至汉堡的出口海运（2×40HQ，月底前出运）。": (
        "Arrange export ocean freight for a batch of electronic components from Shanghai to "
        "Hamburg (2×40HQ, shipping before month end)."
    ),
    "客户优先马士基或中远海运，每柜预算不超过 USD 2800；货物不含锂电池。": (
        "The customer prefers Maersk or COSCO, at most USD 2800 per container; the cargo "
        "holds no lithium batteries."
    ),
    "根据船期查询结果确认舱位并订舱。": "Confirm and book space from the sailing search results.",
    # E2's prompts
    "我们公司出口固定走上海港，客户代号": (
        "Our company always exports through Shanghai port; the customer code is"
    ),
    "我们公司出口固定走上海港。客户的代号是1234567890。": (
        "Our company always exports through Shanghai port. The customer's code is 1234567890."
    ),
    # E4's conversation
    "这票货的暗号定为“蓝鲸”，请记住。只回复“收到”。": (
        "The code word for this shipment is “blue whale”; remember it. Reply only “received”."
    ),
    "订舱单号是 SO-2026-0417，货值 38650 美元。下面是装箱明细，请核对箱数合计：": (
        "The booking number is SO-2026-0417, cargo value USD 38650. The packing list follows; "
        "check the total number of cartons:"
    ),
    "电子元件 型号": "electronic components, model",
    "舱单文件放在 /data/exports/hamburg/manifest-1104.csv，请确认路径。": (
        "The manifest file is at /data/exports/hamburg/manifest-1104.csv; confirm the path."
    ),
    "这票货走汉堡港，截关日是 11 月 4 日。还需要准备哪些单证？": (
        "This shipment goes through Hamburg and the cut-off date is 4 November. Which documents "
        "are still needed?"
    ),
    "请用一句话总结目前的进展。": "Summarise the progress so far in one sentence.",
}
"""Each Chinese text the reports quote, exactly as quoted, with its English meaning."""

_CJK = "\u3000-\u303f\u3400-\u9fff\uff00-\uffef“”‘’"
_RUN = re.compile(rf"[“‘]?[\u3400-\u9fff](?:[{_CJK}0-9A-Za-z \-/.×→:$,()]*[{_CJK}])?")
"""A run of Chinese: from a Chinese character to the last Chinese character or punctuation mark
before anything else than numbers, Latin words, spaces and simple signs (so ``两个 40 尺高柜``
is one run, and a quote, a ``|`` or an ellipsis ends one)."""


def chinese_runs(text: str) -> list[str]:
    """The runs of Chinese text (with their Chinese punctuation and quotes) in ``text``."""
    return _RUN.findall(text)


def unglossed(text: str) -> list[str]:
    """The Chinese runs of ``text`` that :data:`GLOSSES` has no gloss for."""
    return [run for run in chinese_runs(text) if run.strip("“”‘’") not in GLOSSES]


def _replace(text: str, each: Callable[[str, str | None], str], plain: Callable[[str], str]) -> str:
    parts, last = [], 0
    for match in _RUN.finditer(text):
        parts.append(plain(text[last : match.start()]))
        run = match.group()
        parts.append(each(run, GLOSSES.get(run.strip("“”‘’"))))
        last = match.end()
    parts.append(plain(text[last:]))
    return "".join(parts)


def gloss_html(text: str) -> str:
    """``text`` escaped for HTML, each Chinese run marked ``lang="zh"`` and glossed beside it."""

    def each(run: str, english: str | None) -> str:
        shown = f'<span lang="zh">{escape(run)}</span>'
        if english is None:
            return shown
        return f'{shown} <span class="gloss">(“{escape(english)}”)</span>'

    return _replace(text, each, escape)


def gloss_text(text: str) -> str:
    """``text`` with each Chinese run followed by its gloss in brackets, for Markdown."""
    return _replace(text, lambda run, en: run if en is None else f"{run} (“{en}”)", lambda t: t)


def _glosses(texts: Iterable[str]) -> list[tuple[str, str]]:
    found: dict[str, str] = {}
    for text in texts:
        for run in chinese_runs(text):
            english = GLOSSES.get(run.strip("“”‘’"))
            if english is not None:
                found.setdefault(run, english)
    return list(found.items())


def english_column(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """``frame`` with a last column ``English`` glossing the Chinese of ``columns`` in each row;
    unchanged when no row quotes any."""

    def row_gloss(row: pd.Series) -> str:
        return " / ".join(english for _, english in _glosses(str(row[c]) for c in columns))

    if frame.empty:
        return frame
    glosses = frame.apply(row_gloss, axis=1)
    if not glosses.any():
        return frame
    return frame.assign(English=glosses)


def gloss_note(text: str) -> str:
    """A line glossing the Chinese quoted in ``text`` (a verbatim block), or empty."""
    found = _glosses([text])
    if not found:
        return ""
    return "English for the Chinese above: " + "; ".join(f"{r} (“{e}”)" for r, e in found) + "\n"
