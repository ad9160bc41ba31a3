"""The held-out split's Chinese facts: at least six phrasings per fact family, most of them a fact
said in passing (a clause of a sentence about something else), by the user or the assistant.
Pools of values are disjoint from the filler's words (the generator checks each value occurs only
in its own turn)."""

from __future__ import annotations

from typing import Final

from experiments.x_bench.heldout.phrasing import Decision, Phrasing, Rule

__all__ = ["ABSTENTIONS", "CODE_WORDS", "DECISIONS", "FACTS", "NAMES", "ROOMS", "RULES"]

U: Final = "user"
A: Final = "assistant"

_ID = (
    Phrasing(U, "对了，登录那个 bug 终于建了工单，编号 {value}，要引用的话就用它。",
             "登录 bug 的工单编号是多少？"),
    Phrasing(U, "财务说退款已经提交了，单号 {value}，这块算处理完了。", "退款提交的单号是多少？"),
    Phrasing(A, "我会把跟进上传失败问题的工单 {value} 贴进纪要，方便大家跟进。",
             "跟进上传失败问题的是哪个工单？"),
    Phrasing(U, "（顺便说一下，客服今天早上把客户的投诉登记成了 {value}。）",
             "客服把客户的投诉登记成了哪个编号？"),
    Phrasing(U, "供应商在电话里报了他们的订单参考号 {value}，估计后面用得上。",
             "供应商在电话里报的订单参考号是多少？"),
    Phrasing(A, "另外，DNS 切换的变更单走的是 {value}，已经批了。", "DNS 切换的变更单号是多少？"),
)  # fmt: skip

_PATH = (
    Phrasing(U, "草稿我昨晚放到 {value} 了，你有空再看。", "我把草稿放在哪个路径了？"),
    Phrasing(A, "整理好的提纲我存到了 {value}，免得找不到。", "整理好的提纲存在哪个路径？"),
    Phrasing(U, "预发环境的配置居然在 {value}，挺奇怪的，但就是在那儿。",
             "预发环境的配置在哪个路径？"),
    Phrasing(U, "要名字的话，嘉宾名单可以从 {value} 里拿。", "嘉宾名单在哪个路径？"),
    Phrasing(U, "导出的文件不知道为什么跑到 {value} 去了，没进共享目录。",
             "导出的文件跑到哪个路径去了？"),
    Phrasing(A, "备份任务写的是 {value}，出问题先看这个文件。", "备份任务写到哪个文件（路径）？"),
)  # fmt: skip

_URL = (
    Phrasing(U, "演示的时候要是有人问，状态页是 {value}。", "状态页的网址是什么？"),
    Phrasing(A, "录像我置顶在 {value} 了，晚到的人可以补看。", "录像置顶在哪个网址？"),
    Phrasing(U, "报名现在走 {value}，别再用旧表单了。", "现在报名走哪个网址？"),
    Phrasing(U, "供应商总算把接口文档的链接发来了（{value}），拖了一个星期。",
             "供应商接口文档的链接是什么？"),
    Phrasing(U, "仪表盘要是再出问题，备用的是 {value}。", "备用仪表盘的网址是什么？"),
    Phrasing(A, "Webhook 现在指向 {value}，事件应该开始进来了。", "Webhook 现在指向哪个网址？"),
)  # fmt: skip

_AMOUNT = (
    Phrasing(U, "场地那边报价全包 {value} 元，比我预想的高。", "场地报价全包多少元？"),
    Phrasing(U, "外包这块上限是 {value} 元，按这个来排。", "外包的上限是多少元？"),
    Phrasing(A, "按年付的话一年是 {value} 元，还在预算里。", "按年付一年多少元？"),
    Phrasing(U, "保险续保的报价出来了，{value} 元，有点烦。", "保险续保报价多少元？"),
    Phrasing(U, "法务那边同意按 {value} 元和解，这事就算结了。", "法务同意按多少元和解？"),
    Phrasing(A, "机票订好了，含行李一共 {value} 元。", "机票含行李一共多少元？"),
)  # fmt: skip

_NAME = (
    Phrasing(U, "这次陈工主导，{value}是指定的审核人，所以要写得让组外的人也能看懂。",
             "指定的审核人是谁？"),
    Phrasing(U, "法务相关的事都抄送{value}，现在合同归这位管。", "现在合同归谁管？"),
    Phrasing(A, "既然预算是{value}签字，我建议先发简版过去。", "预算由谁签字？"),
    Phrasing(U, "刚跟供应商新来的客户经理{value}通了电话，对方问起了时间表。",
             "供应商新来的客户经理是谁？"),
    Phrasing(U, "这周值班从老马换成了{value}，有事找这位。", "这周接手值班的是谁？"),
    Phrasing(A, "介绍邮件已经发给{value}了，场地那边的合作由这位负责。",
             "场地那边的合作由谁负责？"),
)  # fmt: skip

_CODE_WORD = (
    Phrasing(U, "这周前台要口令，是“{value}”，不说不让上楼。", "这周前台要的口令是什么？"),
    Phrasing(U, "发布之前项目内部就叫{value}，所有幻灯片里都别出现真名。", "项目内部叫什么？"),
    Phrasing(A, "会场后台入口的口令是{value}，我已经写进流程单了。", "会场后台入口的口令是什么？"),
    Phrasing(U, "演示要是翻车，就在群里发“{value}”，运维会切到录播。",
             "演示翻车时要在群里发什么？"),
    Phrasing(U, "提醒一下，共享保险库的解锁词重置成{value}了，记得更新笔记。",
             "共享保险库的解锁词重置成了什么？"),
    Phrasing(A, "嘉宾名单在预订系统里用的代号是{value}，免得走漏风声。",
             "嘉宾名单在预订系统里用的代号是什么？"),
)  # fmt: skip

_DECISION_Q = "{area}最后选了什么？理由是什么？"
_DECISION = (
    Phrasing(U, "好，就这么定了：{area}用 {choice}。{alt} 看着也行，但{reason}。", _DECISION_Q),
    Phrasing(A, "对比下来，{area}我倾向选 {choice} 而不是 {alt}：{reason}，这点压过了别的因素。",
             _DECISION_Q),
    Phrasing(U, "{area}我们来回纠结了很久，最后落在 {choice} 上，主要是{reason}。", _DECISION_Q),
    Phrasing(A, "考虑到{reason}，{area}更适合用 {choice}，{alt} 得绕很多弯。", _DECISION_Q),
    Phrasing(U, "{area}别再翻来覆去了：{choice}，就这样。起决定作用的是{reason}。", _DECISION_Q),
    Phrasing(U, "{area}不用 {alt} 了，{reason}，所以往后就是 {choice}。", _DECISION_Q),
)  # fmt: skip

_RULE_Q = "哪件事是绝对不能做的？"
_CONSTRAINT = (
    Phrasing(U, "无论什么情况，任何人都不许{action}。", _RULE_Q),
    Phrasing(U, "别的都可以往后推，唯独谁也不准{action}，这条没得商量。", _RULE_Q),
    Phrasing(U, "大多数事情都能通融，但{action}是不行的，法务说得很清楚。", _RULE_Q),
    Phrasing(A, "跟您确认一下：整个计划的前提是没人会{action}，这是法务划的红线。", _RULE_Q),
    Phrasing(U, "从今天起定个规矩：禁止{action}，哪怕看起来没什么影响。", _RULE_Q),
    Phrasing(U, "新来的同事也要跟他们讲清楚，千万别{action}。", _RULE_Q),
    Phrasing(A, "记下了，{action}是严禁的，我会写进入职文档。", _RULE_Q),
)

_ROOM_Q = "启动会在哪个会议室开？"
_UPDATE_OLD = (
    Phrasing(U, "对了，启动会订的是{value}会议室。"),
    Phrasing(A, "启动会我订了{value}会议室，只剩那间空着。"),
    Phrasing(U, "启动会在二楼的{value}会议室。"),
    Phrasing(U, "行政把启动会安排在{value}会议室了。"),
    Phrasing(A, "启动会的邀请上写的是{value}会议室，大家会去那儿。"),
    Phrasing(U, "启动会还是老地方，{value}会议室。"),
)
_UPDATE = (
    Phrasing(U, "算了，刚才说的不算。启动会改在{value}会议室开吧。", _ROOM_Q),
    Phrasing(U, "再想了想，启动会还是放在{value}会议室，另一间没有投影。", _ROOM_Q),
    Phrasing(U, "更正一下：启动会现在在{value}会议室，不是{old}了。", _ROOM_Q),
    Phrasing(U, "我前面说的启动会地点作废，行政把我们挪到了{value}会议室。", _ROOM_Q),
    Phrasing(U, "等等，我把预订搞混了，启动会是在{value}会议室。", _ROOM_Q),
    Phrasing(A, "提醒一下：行政刚确认，启动会从{old}挪到了{value}会议室。", _ROOM_Q),
)

_PO_Q = "该付款的是哪张采购单？"
_NEAR_DUPLICATE = (
    Phrasing(U, "要付的采购单是 {value}；{distractor} 是取消掉的那张，只是系统里还挂着。", _PO_Q),
    Phrasing(U, "注意有两张长得很像：{distractor} 是旧报价，{value} 才是现行的。", _PO_Q),
    Phrasing(U, "批 {value}，别批 {distractor}（那张是有人手工录重复了）。", _PO_Q),
    Phrasing(A, "小心，{distractor} 和 {value} 很像；只有 {value} 有效，{distractor} 已作废。",
             _PO_Q),
    Phrasing(U, "我老是搞混，是 {value}。{distractor} 是另一家供应商的。", _PO_Q),
    Phrasing(A, "{distractor} 作为重复单关掉了，所以该付的是 {value}。", _PO_Q),
)  # fmt: skip

_SERIAL_Q = "{subject} 的记录里序列号是多少？"
_TOOL_ONLY = (
    Phrasing("assistant", '{{"资产": "{subject}", "序列号": "{value}", "使用人": "小周", '
             '"位置": "三楼 B 区工位", "保修": "到明年春天"}}', _SERIAL_Q),
    Phrasing("assistant", "资产：{subject}\n序列号：{value}\n使用人：老马\n状态：在用\n上次检查："
             "通过，电池 91%", _SERIAL_Q),
    Phrasing("assistant", "资产,序列号,使用人,状态\n{subject},{value},小林,备用\n", _SERIAL_Q),
    Phrasing("assistant", "资产: {subject}\n  硬件:\n    序列号: {value}\n    型号: 14 寸笔记本\n"
             "  持有人: 阿杰\n  备注: 夏天换过屏幕", _SERIAL_Q),
    Phrasing("assistant", "前台登记 {subject}（经办：小周）：扫码序列号 {value}，缺充电器，其余"
             "正常", _SERIAL_Q),
    Phrasing("assistant", "| 字段 | 值 |\n| --- | --- |\n| 资产 | {subject} |\n| 序列号 | {value} |"
             "\n| 使用人 | 陈工 |\n| 状态 | 已归还 |", _SERIAL_Q),
)  # fmt: skip

FACTS: dict[str, tuple[Phrasing, ...]] = {
    "id": _ID,
    "path": _PATH,
    "url": _URL,
    "amount": _AMOUNT,
    "name": _NAME,
    "code_word": _CODE_WORD,
    "decision": _DECISION,
    "constraint": _CONSTRAINT,
    "update_old": _UPDATE_OLD,
    "update": _UPDATE,
    "near_duplicate": _NEAR_DUPLICATE,
    "tool_only": _TOOL_ONLY,
}

NAMES = ("顾清妍", "欧阳振宇", "沈若琳", "邓家豪", "韩雨萱", "许明哲")
CODE_WORDS = ("金盏花", "冻土", "游隼", "山葵", "西风", "蓝鲸")
ROOMS = ("果园", "灯塔", "船坞", "天文台", "温室", "中庭")
DECISIONS = (
    Decision("分析库", "ClickHouse", "BigQuery", "我们的查询大多是按时间做汇总", "按时间做汇总"),
    Decision("移动端", "Flutter", "React Native", "设计要求两端界面像素级一致", "像素级一致"),
    Decision("支付", "Adyen", "Stripe", "巴西那边需要本地收单", "本地收单"),
    Decision("文档站", "Docusaurus", "GitBook", "文档得跟代码一起做版本管理",
             "跟代码一起做版本管理"),
    Decision("CI", "Buildkite", "CircleCI", "构建机可以放在我们自己的机房", "自己的机房"),
    Decision("团建", "那个农庄", "市区酒店", "全组人能住在一个院子里", "一个院子"),
)  # fmt: skip
RULES = (
    Rule("直接往主分支推代码", "主分支"),
    Rule("把测试版安装包发到公司外面", "测试版安装包"),
    Rule("在线上数据库上跑迁移", "线上数据库"),
    Rule("给客户承诺交付日期", "交付日期"),
    Rule("删共享盘里的任何东西", "共享盘"),
    Rule("在公开频道提收购的事", "收购"),
)
ABSTENTIONS = (
    "场地的详细地址是什么？",
    "客户的增值税号是多少？",
    "外包人员的电话号码是多少？",
    "客户经理的邮箱地址是什么？",
    "公司的税号是多少？",
    "餐饮供应商的联系人叫什么名字？",
)
