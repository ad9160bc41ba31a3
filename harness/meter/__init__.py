"""Token meters: one protocol for both compaction engines.

:mod:`~harness.meter.pricers` price messages (AgentScope 2.0.3's estimator, DeepSeek-Harness's
heuristic, ctxlab's CJK-aware heuristic, the exact tokenizer where installed) and cache the price
on each message; :mod:`~harness.meter.ledger` keeps a history's running price so the check before
a request costs what changed since the last one; :mod:`~harness.meter.meters` anchors the
estimate on the provider's last ``usage.prompt_tokens`` (DeepSeek-Harness's token meter) and
names itself in every reading; :mod:`~harness.meter.windows` is the context-window table
(model-name prefixes to window sizes).
"""

from harness.meter.ledger import Ledger, same_message
from harness.meter.meters import METERS, Anchor, Reading, TokenMeter, build_meter
from harness.meter.pricers import (
    AGENTSCOPE,
    CTXLAB,
    DSH,
    AgentScopePricer,
    CtxlabPricer,
    DshPricer,
    Pricer,
    message_price,
)

__all__ = [
    "AGENTSCOPE",
    "CTXLAB",
    "DSH",
    "METERS",
    "AgentScopePricer",
    "Anchor",
    "CtxlabPricer",
    "DshPricer",
    "Ledger",
    "Pricer",
    "Reading",
    "TokenMeter",
    "build_meter",
    "message_price",
    "same_message",
]
