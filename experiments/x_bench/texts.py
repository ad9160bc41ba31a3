"""The words X-BENCH's corpus is written from, per language (:mod:`experiments.x_bench.corpus`).

Fillers carry no planted value: the generator checks that every planted value occurs only where
it was planted. Each fact template is ``(statement, question)`` formatted with the fact's
values; ``{...}`` names are filled by the generator.
"""

from __future__ import annotations

from typing import Any

__all__ = ["TEXTS"]

_EN: dict[str, Any] = {
    "system": (
        "You are the operations assistant of an export team. Answer briefly; use "
        "search_records to look records up."
    ),
    "tool_description": "Search the team's records (orders, containers, job logs) by a query.",
    "abstain_markers": [
        "not known",
        "unknown",
        "not mentioned",
        "not given",
        "not stated",
        "not provided",
        "no information",
        "don't know",
        "do not know",
    ],
    "cities": ["Hamburg", "Rotterdam", "Antwerp", "Felixstowe", "Gdansk", "Valencia"],
    "names": [
        "Margaret Oyelaran",
        "Tobias Lindqvist",
        "Ingrid Vasquez",
        "Declan Murphy",
        "Aiko Brennan",
        "Rafael Okafor",
    ],
    "code_words": ["falcon", "juniper", "quartz", "heron", "cobalt", "lantern"],
    "rooms": ["Aster", "Birch", "Cedar", "Maple", "Willow", "Alder"],
    "decisions": [
        (
            "database",
            "PostgreSQL",
            "MongoDB",
            "the auditors need row-level locking",
            "row-level locking",
        ),
        (
            "carrier",
            "Hapag-Lloyd",
            "MSC",
            "only they guarantee reefer plugs on that leg",
            "reefer plugs",
        ),
        (
            "message queue",
            "RabbitMQ",
            "Kafka",
            "the ops team already runs it on call",
            "already runs it",
        ),
        (
            "report format",
            "Parquet",
            "CSV",
            "the finance tool reads column types from it",
            "column types",
        ),
    ],
    "constraints": [
        ("One rule for the whole job: never touch prod.", "never touch prod", "prod"),
        (
            "Hard constraint: do not email the consignee directly.",
            "do not email the consignee directly",
            "consignee",
        ),
        (
            "Keep in mind: never restart the billing workers during business hours.",
            "never restart the billing workers",
            "billing workers",
        ),
    ],
    "abstentions": [
        "What is the customer's VAT number?",
        "What is the consignee's phone number?",
        "What is the insurance policy number of this shipment?",
    ],
    "facts": {
        "id": (
            "The booking for the {city} shipment is {value}.",
            "What is the booking number of the {city} shipment?",
        ),
        "path": (
            "The final manifest is saved at {value}.",
            "Where is the final manifest file saved (its path)?",
        ),
        "url": (
            "The carrier's tracking endpoint is {value}.",
            "What is the carrier's tracking endpoint URL?",
        ),
        "amount": (
            "The agreed freight rate is {value} EUR.",
            "What freight rate was agreed, in EUR?",
        ),
        "name": (
            "Our contact at the warehouse is {value}; call her for anything about the dock.",
            "What is the name of our contact at the warehouse?",
        ),
        "code_word": ("Before I forget: the password is {value}.", "What is the password?"),
        "decision": (
            "Agreed: we go with {choice} instead of {alt} for the {topic}, because {reason}.",
            "Which {topic} did we decide on, and why?",
        ),
        "constraint": ("{statement}", "What rule did I set that must never be broken?"),
        "update_old": ("The handover meeting is in room {value}.", ""),
        "update": (
            "Change of plan: the handover meeting moves to room {value}.",
            "In which room is the handover meeting?",
        ),
        "near_duplicate": (
            "Pay invoice {value}; {distractor} is a voided duplicate, ignore it.",
            "Which invoice number must be paid?",
        ),
        "tool_only_user": "Look up container {container} for me, please.",
        "tool_only_reply": "Found it: the container is on the yard and its record is complete.",
        "tool_only": ("", "What seal number did the record of container {container} show?"),
    },
    "acks": [
        "Noted.",
        "Understood, I will keep that in mind.",
        "Got it.",
        "Thanks, noted for the job.",
    ],
    "asides": [
        "Also, how is the paperwork going?",
        "Anything else open on your side?",
        "Let's keep moving.",
        "",
    ],
    "topics": [
        "the customs paperwork",
        "the yard schedule",
        "the packing lists",
        "the weekly status mail",
        "the pallet labels",
        "the reefer checks",
        "the handover checklist",
        "the driver roster",
    ],
    "user_chat": [
        "Can you remind me what we usually check in {topic} before a vessel leaves?",
        "Draft two sentences for the team about {topic}.",
        "What is the risk if {topic} slips by a day?",
        "Give me a short checklist for {topic}.",
        "Who normally signs off {topic}, and when?",
    ],
    "sentences": [
        "The usual order is documents first, then the physical check, then the sign-off.",
        "A one-day slip is normally absorbed by the buffer, but two days cost a sailing.",
        "It helps to send the reminder the afternoon before, not the same morning.",
        "The team lead signs off once every line of the list has an owner.",
        "Missing labels are the most common reason a pallet is held at the gate.",
        "Keep the status mail to five lines: what moved, what is blocked, what is next.",
        "The yard works in two shifts, so anything urgent should land before noon.",
        "If the checks find a problem, the container stays until the fix is confirmed.",
        "Copies of every document go to the shared folder the same day.",
        "Drivers need the slot time and the gate number, nothing else.",
    ],
    "user_tool": "Pull the job log for batch {batch} and tell me if anything failed.",
    "tool_reply": [
        "Batch {batch} ran through; {failed} step(s) failed and were retried successfully.",
        "Batch {batch} is finished; the retries at the end cleared the {failed} failure(s).",
    ],
    "log_events": ["loaded", "validated", "priced", "labelled", "queued", "retried", "exported"],
    "continuation_user": "Next: is checklist line {k} done?",
    "continuation_reply": "Yes, line {k} is done.",
    "container_fields": {
        "yard": "east stack, row four",
        "status": "gated in, awaiting loading",
        "inspection": "visual check passed, no damage noted",
        "documents": "packing list, commercial invoice, weight certificate",
        "note": "Keep the doors sealed until loading; report any broken seal at once.",
    },
}

_ZH: dict[str, Any] = {
    "system": "你是出口团队的运营助手。回答要简短；用 search_records 查记录。",
    "tool_description": "按查询词检索团队的记录（订单、集装箱、作业日志）。",
    "abstain_markers": [
        "不知道",
        "未知",
        "没有提到",
        "未提及",
        "没提到",
        "没有提供",
        "未提供",
        "不清楚",
        "无法确定",
    ],
    "cities": ["汉堡", "鹿特丹", "安特卫普", "费利克斯托", "格但斯克", "瓦伦西亚"],
    "names": ["林晓雯", "周国平", "陈思远", "王海燕", "赵启明", "孙佳慧"],
    "code_words": ["夜莺", "白鹭", "青松", "琥珀", "雪豹", "海棠"],
    "rooms": ["松风", "竹影", "听雨", "观澜", "望舒", "清晖"],
    "decisions": [
        ("数据库", "PostgreSQL", "MongoDB", "审计要求行级锁", "行级锁"),
        ("承运人", "赫伯罗特", "地中海航运", "只有他们保证那一段有冷藏插头", "冷藏插头"),
        ("消息队列", "RabbitMQ", "Kafka", "运维团队已经在值班维护它", "值班维护"),
        ("报表格式", "Parquet", "CSV", "财务系统要从里面读列类型", "列类型"),
    ],
    "constraints": [
        ("整件事有一条铁律：绝对不要动生产库。", "绝对不要动生产库", "生产库"),
        ("硬性要求：不要直接给收货人发邮件。", "不要直接给收货人发邮件", "收货人"),
        ("记住：工作时间内绝不重启计费服务。", "绝不重启计费服务", "计费服务"),
    ],
    "abstentions": [
        "客户的增值税号是多少？",
        "收货人的电话号码是多少？",
        "这票货的保险单号是多少？",
    ],
    "facts": {
        "id": ("{city}那批货的订舱号是 {value}。", "{city}那批货的订舱号是多少？"),
        "path": ("最终舱单存放在 {value}。", "最终舱单存放在哪个路径？"),
        "url": ("承运人的跟踪接口是 {value}。", "承运人的跟踪接口地址是什么？"),
        "amount": ("谈定的运价是 {value} 欧元。", "谈定的运价是多少欧元？"),
        "name": ("仓库那边的对接人是{value}，码头上的事直接找她。", "仓库那边的对接人叫什么名字？"),
        "code_word": ("先对一下暗号：{value}。", "暗号是什么？"),
        "decision": (
            "定了：{topic}用 {choice}，不用 {alt}，因为{reason}。",
            "{topic}最后定了用哪个？为什么？",
        ),
        "constraint": ("{statement}", "我定下的那条不能违反的规矩是什么？"),
        "update_old": ("交接会在{value}厅开。", ""),
        "update": ("改了：交接会改到{value}厅开。", "交接会在哪个厅开？"),
        "near_duplicate": (
            "要付的是发票 {value}；{distractor} 是作废的重复单，别管它。",
            "要付款的是哪张发票？",
        ),
        "tool_only_user": "帮我查一下集装箱 {container} 的记录。",
        "tool_only_reply": "查到了：这个箱子在堆场，记录是完整的。",
        "tool_only": ("", "集装箱 {container} 的记录里铅封号是多少？"),
    },
    "acks": ["收到。", "明白，我记下了。", "好的。", "谢谢，已记录。"],
    "asides": ["另外，单证进度怎么样？", "你那边还有什么没办完的？", "我们继续。", ""],
    "topics": [
        "报关单证",
        "堆场排班",
        "装箱单",
        "每周进度邮件",
        "托盘标签",
        "冷箱检查",
        "交接清单",
        "司机排班",
    ],
    "user_chat": [
        "提醒我一下，开船前{topic}一般要检查什么？",
        "帮我给团队写两句关于{topic}的话。",
        "{topic}晚一天会有什么风险？",
        "给我一份{topic}的简短清单。",
        "{topic}一般谁来签字确认，什么时候？",
    ],
    "sentences": [
        "一般的顺序是先单证、再实物检查、最后签字确认。",
        "晚一天通常能被缓冲吸收，晚两天就会错过一个船期。",
        "提醒最好前一天下午发，不要当天早上才发。",
        "清单上每一行都有负责人之后，组长才签字。",
        "标签缺失是托盘在闸口被扣下最常见的原因。",
        "进度邮件控制在五行以内：进展、阻塞、下一步。",
        "堆场分两班，急事最好在中午之前处理。",
        "检查发现问题时，箱子要等整改确认后才放行。",
        "所有单证的副本当天放进共享文件夹。",
        "司机只需要时间窗口和闸口号，别的都不用。",
    ],
    "user_tool": "把批次 {batch} 的作业日志拉出来，看看有没有失败的步骤。",
    "tool_reply": [
        "批次 {batch} 已跑完；有 {failed} 个步骤失败，重试后都成功了。",
        "批次 {batch} 结束了；最后的重试清掉了 {failed} 个失败。",
    ],
    "log_events": ["已加载", "已校验", "已计价", "已贴标", "已排队", "已重试", "已导出"],
    "continuation_user": "下一项：清单第 {k} 条做完了吗？",
    "continuation_reply": "做完了，第 {k} 条已完成。",
    "container_fields": {
        "yard": "东区堆场第四排",
        "status": "已进闸，等待装船",
        "inspection": "外观检查通过，未见破损",
        "documents": "装箱单、商业发票、称重证明",
        "note": "装船前保持箱门铅封完好；铅封破损须立即上报。",
    },
}

TEXTS: dict[str, dict[str, Any]] = {"en": _EN, "zh": _ZH}
