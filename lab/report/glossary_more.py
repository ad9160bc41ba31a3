"""Glosses of the quotes the newer claim rows cite and of E4's second model's answers (kept
beside :mod:`lab.report.glossary`, which merges them into its table)."""

from __future__ import annotations

__all__ = ["MORE_GLOSSES"]

MORE_GLOSSES: dict[str, str] = {
    "切在索引 7 会让": "cutting at index 7 would make",
    "失去配对的": "lose its paired",
    "所以前移到": "so it moves forward to",
    "触发、20 保留，默认一次压掉三十条上下": (
        "trigger, 20 kept: by default one compaction removes about thirty messages"
    ),
    "才是": "is what means",
    "关掉条数触发": "turn off the message-count trigger",
    "那 3 条是摘要、A2、": "those 3 are the summary, A2,",
    "起名是为了下次压缩能认出旧摘要，把它合并进新摘要，不至于层层套娃": (
        "it is named so that the next compaction recognises the old summary and merges it into "
        "the new one, instead of nesting summaries inside summaries"
    ),
    "从回答看，摘要保住了“夜莺”和“倒过来念”这条规矩": (
        "judging from the answers, the summary kept “nightingale” and the rule “say it backwards”"
    ),
    "从回答看，摘要保住了“夜莺”": "judging from the answers, the summary kept “nightingale”",
    "从回答看": "judging from the answers",
    "从回答看，摘要保住了“夜莺": "judging from the answers, the summary kept “nightingale”",
    # the rows for the last seed claims that had none (locks, offload edge, E5's edges)
    "关不上就留着未闭合的 start，让这把锁保持可检测": (
        "if it cannot close, the unclosed start is left in place, so the lock stays detectable"
    ),
    "含图像即拒绝（summarizer.ts:220-221 抛": (
        "image content is refused (summarizer.ts:220-221 throws"
    ),
    "你在一次请求里看到的 MEMORY.md，是上一次 call 结束后留下的版本": (
        "the MEMORY.md you see in a request is the version the previous call left when it ended"
    ),
    "被重建到 127 B，daily 涨到": "is rebuilt to 127 B, the daily file grows to",
    "里第一轮的原话还在，只是模型这一轮看不见了": (
        "still holds round 1's original words; the model just cannot see them this round"
    ),
    "文本超过 80K 字符": "text longer than 80K characters",
    # E4's 0.5B model (its measurements on E4.md)
    "确认路径。": "Confirm the route.",
    "这票货走汉堡港，截关日是 11 月 4 日。还需要准备以下单证：1. 货单文件（": (
        "This shipment goes via the port of Hamburg, cut-off on 4 November. The following "
        "documents are still needed: 1. the cargo documents ("
    ),
    "目前的进展是货物已到达汉堡港，且已进行截关。": (
        "Progress so far: the goods have reached the port of Hamburg and the cut-off is done."
    ),
    "箱": "cartons",
    "毛重": "gross weight",
    "体积": "volume",
    "电子元件": "electronic components",
    # E5's rows for seed claims that had none (hooks, disableCompaction, DSH's commit)
    "默认也开": "is on by default too",
    "压前抽事实，best-effort，失败不阻断": (
        "extract facts before compacting, best effort: a failure does not block"
    ),
    "关掉的不只是阈值压缩，还有溢出兜底那一次重试": (
        "turns off not only threshold compaction but also the one overflow fallback retry"
    ),
    "摘要与替换消息之间一次让出都不给": (
        "not a single yield between the summary and the replace message"
    ),
    "对不上直接抛错": "if they do not match, it throws at once",
    "任何一条 assistant/message 落盘": "any assistant/message landing on disk",
    "把开标记、摘要和全部被遮蔽事件的 seq 串成因果链": (
        "chains the seqs of the start marker, the summary and every shadowed event into a "
        "causal chain"
    ),
    "如果剪枝已经产生了持久的表面缩减，摘要这段却抛错了，已落盘的缩减不算白干": (
        "if the prune already made a durable reduction of the surface and the summary stage "
        "then throws, the reduction on disk is not wasted"
    ),
    "它没有": "it has no",
    "摘要不比原会话小就保留": "keep the original when the summary is not smaller than it",
    "的 size 检查": "size check",
    "本地模式实际在": "local mode actually puts it in",
    "自动压缩用": "automatic compaction uses",
}
