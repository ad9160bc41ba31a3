"""English glosses for the Chinese quoted in the reports: prompts, answers and code words.

The study is Chinese, so the claims quote Chinese words and the recorded model answers in
Chinese. Every run of Chinese text a report shows gets its English gloss beside it, from
:data:`GLOSSES`; a run with no gloss is left bare, and a test over the built reports fails, so
a new prompt or a re-recorded answer needs its gloss added here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from html import escape

__all__ = ["GLOSSES", "SOURCES", "chinese_runs", "gloss_html", "gloss_text", "unglossed"]

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
}
"""Each Chinese text the reports quote, exactly as quoted, with its English meaning."""

_RUN = re.compile(r"[“‘]?[\u3400-\u9fff][\u3000-\u303f\u3400-\u9fff\uff00-\uffef“”‘’]*")


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
