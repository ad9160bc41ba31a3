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

from lab.report.glossary_more import MORE_GLOSSES
from lab.report.glossary_quotes import QUOTE_GLOSSES

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
    "写完 MEMORY.md 才推进水位，写失败水位不动，下一轮重跑同一批": (
        "the watermark advances only after MEMORY.md is written; a failed write leaves it, and "
        "the next round reruns the same batch"
    ),
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
    "暗号：夜莺。": "Code word: nightingale.",
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
    # seed quotes on the claim rows (article_source, and claim texts and values)
    # E1
    "的输入 9 条": "'s input: 9 messages",
    "朴素切点是": "the naive cutoff is",
    "索引 7 是一条 TOOL 消息": "index 7 is a TOOL message",
    "切点移到": "the cutoff moves to",
    "结果是尾部 3 条，不是 2 条": "the result is a tail of 3 messages, not 2",
    "第 0 条摘要，后面依次是": "message 0 is the summary, followed in order by",
    "我用当前构建复跑了一次，JSON 跟 10-30 那份一样": (
        "I reran it once with the current build; the JSON is the same as the 10-30 one"
    ),
    # E2
    "次工具调用，": "tool calls,",
    "出现": "appears",
    "不存在": "does not exist",
    "正文是": "the body is",
    "业务与物流 加两条事实：出口港口、客户代号": (
        "Business and Logistics, plus two facts: the export port, the customer code"
    ),
    "水位": "watermark",
    "原样": "unchanged",
    "从无到 158 B，整篇重写；daily 140 B 原样；水位": (
        "from nothing to 158 B, rewritten whole; daily 140 B unchanged; watermark"
    ),
    "次搜索、Source 指向 MEMORY.md，答对": (
        "searches, Source points to MEMORY.md, answered correctly"
    ),
    "上海港": "Shanghai port",
    "两次窗口分别 3 次和 0 次搜索，Source 都指向": (
        "the two windows made 3 and 0 searches respectively, Source pointing in both to"
    ),
    "两次，": "twice,",
    "三次，": "three times,",
    "两次": "twice",
    "新增一段": "a new section",
    "水位不变": "watermark unchanged",
    "的三次主对话，额外四笔：flush 3、": (
        "'s three main conversations, four extra charges: flush 3,"
    ),
    "这个日期在对话里从未出现": "this date never appears in the conversation",
    # E3
    "实测第 3 轮": "measured: round 3",
    "三次日志都是": "all three logs read",
    "页面上": "on the page",
    "调用前 4、调用后": "before the call 4, after the call",
    "的消息，正文以 Here is a summary of the conversation to date: 开头": (
        "message, whose body begins with Here is a summary of the conversation to date:"
    ),
    "终态 4 条、624 token 估算": "final state 4 messages, an estimated 624 tokens",
    "后面四段：SESSION INTENT、SUMMARY、ARTIFACTS、": (
        "then four sections: SESSION INTENT, SUMMARY, ARTIFACTS,"
    ),
    "第 5 轮再问暗号，它仍答“夜莺": (
        "in round 5, asked for the code word again, it still answers “nightingale”"
    ),
    "摘要保住了“夜莺”和“倒过来念”这条规矩": (
        "the summary kept “nightingale” and the rule “say it backwards”"
    ),
    "摘要保住了“夜莺": "the summary kept “nightingale”",
    "第 3 轮它把“夜莺”倒过来念成“莺夜": (
        "in round 3 it said “nightingale” backwards, its two characters reversed"
    ),
    "但第一轮的原话已经不在上下文里了": "but the round-1 wording is no longer in the context",
    "摘要长度 698 → 874 → 168 字符": "summary lengths 698 → 874 → 168 characters",
    # E4
    "一条 compaction/start，一条 compaction/summary，一条带替换指令的 user/message，一条": (
        "one compaction/start, one compaction/summary, one user/message carrying a replace "
        "instruction, one"
    ),
    "它算出的表面，与在线进程压缩后的表面一致": (
        "the surface it computes matches the live process's surface after compaction"
    ),
    "原文、shadowedRange、shadowedSeqs、provider、model、": (
        "original text, shadowedRange, shadowedSeqs, provider, model,"
    ),
    "的前缀缓存直接命中，唯一的新输入就是那条指令": (
        "'s prefix cache is hit directly; the only new input is that directive"
    ),
    "压缩边界永远从表面第一个节点开始": (
        "the compaction boundary always starts at the first node of the surface"
    ),
    "指令要求输出固定的八段 Markdown（": (
        "the directive requires the output to be a fixed eight-section Markdown ("
    ),
    "必须保留精确路径、命令、错误串和数字": (
        "exact paths, commands, error strings and numbers must be kept"
    ),
    # E5
    "的稳态是从第 3 轮起每轮都压": "'s steady state is to compact every round from round 3 on",
    "拿": "take",
    "代进去，间隔 2 轮": "and plug it in: an interval of 2 rounds",
    "得": "it takes",
    "第一次在第 7 轮命中": "first hit in round 7",
    "这条是算的，我没跑": "this one is computed, I did not run it",
    "普通问答的间隔：": "the interval for plain Q&A:",
    "按挂载点推，同一轮里压两次也有可能，这个样本我没造": (
        "working from the hook points, two compactions within one round are also possible; I did "
        "not build this sample"
    ),
    "单条": "a single",
    "文本超过 80K 字符，头尾各留 2K 预览，中间换成": (
        "text over 80K characters keeps a 2K preview at the head and at the tail, and the middle "
        "is replaced with"
    ),
    "中间换成": "the middle is replaced with",
    "的路径": "path",
    "摘要调用失败，2.0.3 退化成 (Summary unavailable)，带错误信息，仍然照压": (
        "the summary call fails: 2.0.3 falls back to (Summary unavailable), with the error "
        "message, and compacts anyway"
    ),
    "在同一次执行里重试一次，压不动就抛给调用方": (
        "retries once within the same execution; if it cannot compact it down, it throws to the "
        "caller"
    ),
    "写失败水位不动，下一轮重跑同一批": (
        "if the write fails the watermark does not move, and the next round reruns the same batch"
    ),
    "不漏条目": "no entry is missed",
    "首次后台维护抢在 flush 落盘之前跑完，读到空台账就跳过了": (
        "the first background maintenance raced ahead and finished before the flush was written to "
        "disk; reading an empty ledger, it skipped"
    ),
    "反向样本（flush 先落盘、维护顺手合并出一份）我只在逻辑上推过，没抓到": (
        "the reverse sample (the flush reaches disk first, and maintenance merges one out in "
        "passing) I only reasoned through logically; I did not catch it"
    ),
    "返回 0，动态 token 触发落到 160000 兜底；"
    "keepTokens 的动态值也算不出来，退回按条数保留 20 条": (
        "returns 0, so the dynamic token trigger falls back to 160000; the dynamic keepTokens "
        "value cannot be computed either, so it falls back to keeping 20 messages by count"
    ),
    "官方把 deepseek-flash 标到 1M 上下文、384K 最大输出": (
        "the official listing puts deepseek-flash at 1M context, 384K maximum output"
    ),
    "触发、20 保留": "to trigger, 20 kept",
    "默认开：保护最近 40K token，至少 20K 可压，预览留 2K 字符": (
        "on by default: protects the newest 40K tokens, at least 20K compressible, previews keep "
        "2K characters"
    ),
    "按 maxContextTokens（默认 8000）截断，作为": (
        "truncated at maxContextTokens (default 8000), as"
    ),
    "的 USER 侧参考材料注入": "'s USER-side reference material, injected",
    "没东西可记就回": "with nothing to record, it replies",
    "调用": "calls",
    "同时写 MEMORY.md（追加）和当日台账": "writing both MEMORY.md (appended) and the day's ledger",
    "首次立即，之后 30 分钟，有新台账才跑": (
        "first time immediately, then every 30 minutes, and only when there are new ledger entries"
    ),
    "只读水位之后被改过的日记账": "reads only the daily ledgers modified after the watermark",
    "写入上限 4000 token（consolidationMaxTokens）": (
        "write cap 4000 tokens (consolidationMaxTokens)"
    ),
    "这类工具本身不参与": "tools of this kind themselves do not take part",
    "乘上模型窗口得到触发线，0.16 乘上窗口得到保留尾部": (
        "times the model window gives the trigger line; 0.16 times the window gives the retained "
        "tail"
    ),
    "用 0 当保留预算选区": "selects the range with 0 as the retention budget",
    "一路退到 0 就返回 null，宁可不压缩": (
        "backing off all the way to 0 returns null, preferring not to compact"
    ),
    "大于等于就报错，压缩不减反增在这套代码里是硬故障": (
        "if greater than or equal, it raises an error; a compaction that grows instead of "
        "shrinking is a hard failure in this code"
    ),
    "截断即失败": "truncation is failure",
    "这条 start 就是锁": "this start is the lock",
    "下次进来扫一眼就知道上回有个没做完的压缩": (
        "the next time in, one glance shows there was an unfinished compaction last time"
    ),
    "六种": "six kinds",
}
GLOSSES.update(QUOTE_GLOSSES)
GLOSSES.update(MORE_GLOSSES)
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
