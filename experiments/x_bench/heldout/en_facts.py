"""The held-out split's English facts: at least six phrasings per fact family, most of them a fact
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
    Phrasing(U, "Oh, and the login bug finally has a ticket, {value}, if you need to reference it.",
             "What is the ticket number of the login bug?"),
    Phrasing(U, "Finance says the refund went in as {value}, so that part is handled.",
             "Under which reference did the refund go in?"),
    Phrasing(A, "I'll link {value}, the ticket tracking the flaky upload, in the notes so "
             "people can follow along.", "Which ticket tracks the flaky upload?"),
    Phrasing(U, "(Support logged the customer's complaint as {value} this morning, by the way.)",
             "Under what reference did support log the customer's complaint?"),
    Phrasing(U, "The vendor read out their order reference on the call, {value}, which I "
             "guess we'll need later.", "What order reference did the vendor give on the call?"),
    Phrasing(A, "For what it's worth, the change request for the DNS switch went through "
             "as {value} and it's approved.",
             "What is the change request number of the DNS switch?"),
)  # fmt: skip

_PATH = (
    Phrasing(U, "I dropped the draft into {value} last night, whenever you get to it.",
             "Where did I drop the draft (its path)?"),
    Phrasing(A, "I saved the cleaned-up outline to {value} so it doesn't get lost.",
             "Where did you save the cleaned-up outline (its path)?"),
    Phrasing(U, "The staging config lives at {value}, which is weird, but that's where it is.",
             "Where does the staging config live (its path)?"),
    Phrasing(U, "Grab the speaker list from {value} if you need names.",
             "Where is the speaker list (its path)?"),
    Phrasing(U, "For some reason the export ended up in {value} instead of the shared folder.",
             "Where did the export end up (its path)?"),
    Phrasing(A, "The backup job writes to {value}, so that's the file to check if anything breaks.",
             "Which file does the backup job write to (its path)?"),
)  # fmt: skip

_URL = (
    Phrasing(U, "In case anyone asks during the demo, the status page is {value}.",
             "What is the status page's URL?"),
    Phrasing(A, "I pinned the recording at {value} so latecomers can catch up.",
             "Where is the recording pinned (its URL)?"),
    Phrasing(U, "Sign-ups go through {value} now, not the old form.",
             "Through which URL do sign-ups go now?"),
    Phrasing(U, "The vendor finally sent the API docs link ({value}); no idea why it took a week.",
             "What is the link to the vendor's API docs?"),
    Phrasing(U, "If the dashboard acts up again, the fallback one is {value}.",
             "What is the fallback dashboard's URL?"),
    Phrasing(A, "The webhook points at {value} now, so events should start flowing.",
             "Which URL does the webhook point at?"),
)  # fmt: skip

_AMOUNT = (
    Phrasing(U, "The venue quoted us {value} dollars all-in, which is more than I'd hoped.",
             "How much did the venue quote, in dollars?"),
    Phrasing(U, "We're capped at ${value} for the contractor, so plan around that.",
             "What is the cap for the contractor, in dollars?"),
    Phrasing(A, "On the annual plan it comes to ${value} a year, which still fits the budget.",
             "What does the annual plan cost per year, in dollars?"),
    Phrasing(U, "The insurance renewal came in at {value} USD, annoyingly.",
             "What did the insurance renewal come in at, in USD?"),
    Phrasing(U, "Legal signed off on settling for ${value}, so that one's closed.",
             "For how much did legal sign off on settling, in dollars?"),
    Phrasing(A, "I booked the flights; the total was ${value} with bags included.",
             "What was the flights' total, in dollars?"),
)  # fmt: skip

_NAME = (
    Phrasing(U, "Chen is driving this one and {value} is the designated reviewer, so keep it "
             "readable for someone outside the team.", "Who is the designated reviewer?"),
    Phrasing(U, "Loop in {value} on anything legal-related; that's who handles the contracts now.",
             "Who handles the contracts now?"),
    Phrasing(A, "Since {value} is signing off on the budget, I'd send the short version first.",
             "Who is signing off on the budget?"),
    Phrasing(U, "I was on a call with {value}, the new account manager on the vendor side, "
             "and they asked about the timeline.", "Who is the vendor's new account manager?"),
    Phrasing(U, "{value} took over on-call from Marcus this week, so page them instead.",
             "Who took over on-call this week?"),
    Phrasing(A, "The intro email went to {value}, who runs partnerships at the venue.",
             "Who runs partnerships at the venue?"),
)  # fmt: skip

_CODE_WORD = (
    Phrasing(U, "The front desk wants a code word this week, it's {value}, otherwise they won't "
             "let you up.", "What code word does the front desk want this week?"),
    Phrasing(U, "We're calling the project {value} internally until the announcement, so no real "
             "name in any slides.", "What is the project called internally?"),
    Phrasing(A, "The Wi-Fi passphrase at the venue is {value}; I've put it on the run sheet.",
             "What is the Wi-Fi passphrase at the venue?"),
    Phrasing(U, "If the demo goes sideways, type {value} in the chat and ops will cut to the "
             "recording.", "What should be typed in the chat if the demo goes sideways?"),
    Phrasing(U, "Heads-up that the shared vault's unlock phrase got reset to {value}, so update "
             "your notes.", "What was the shared vault's unlock phrase reset to?"),
    Phrasing(A, "The guest list sits under the codename {value} in the booking system, to keep it "
             "quiet.", "Under which codename is the guest list in the booking system?"),
)  # fmt: skip

_DECISION_Q = "What did we choose for {area}, and for what reason?"
_DECISION = (
    Phrasing(U, "Okay, settled: {choice} it is for {area}. {alt} looked fine on paper, but "
             "{reason}.", _DECISION_Q),
    Phrasing(A, "Having compared them, I'd go with {choice} over {alt} for {area}: {reason}, and "
             "that outweighs the rest.", _DECISION_Q),
    Phrasing(U, "We went back and forth on {area} and landed on {choice}, mostly since {reason}.",
             _DECISION_Q),
    Phrasing(A, "Given that {reason}, {choice} is the better fit for {area}; {alt} would need "
             "workarounds.", _DECISION_Q),
    Phrasing(U, "Let's not reopen {area}: {choice}, final answer. What tipped it was that "
             "{reason}.", _DECISION_Q),
    Phrasing(U, "We're dropping {alt} for {area}; {reason}, so it's {choice} from here on.",
             _DECISION_Q),
)  # fmt: skip

_RULE_Q = "What is the one thing that must not be done?"
_CONSTRAINT = (
    Phrasing(U, "Under no circumstances should anyone {action}.", _RULE_Q),
    Phrasing(U, "Whatever else slips, nobody is to {action}; that one is non-negotiable.", _RULE_Q),
    Phrasing(U, "We can bend on most things, but we can't {action}, legal was very clear.",
             _RULE_Q),
    Phrasing(A, "Just so we're aligned, the plan assumes nobody will {action}; that was the one "
             "hard line from legal.", _RULE_Q),
    Phrasing(U, "House rule from today: no one gets to {action}, even if it looks harmless.",
             _RULE_Q),
    Phrasing(U, "Please make sure the new folks know they mustn't {action}.", _RULE_Q),
    Phrasing(A, "Noted that it's off limits to {action}; I'll flag it in the onboarding doc.",
             _RULE_Q),
)  # fmt: skip

_ROOM_Q = "Which room is the kickoff in?"
_UPDATE_OLD = (
    Phrasing(U, "We've got the {value} room for the kickoff, by the way."),
    Phrasing(A, "I booked the {value} room for the kickoff; it was the only one free."),
    Phrasing(U, "The kickoff is in {value}, the room on the second floor."),
    Phrasing(U, "Facilities put us in the {value} room for the kickoff."),
    Phrasing(A, "The kickoff invite says {value}, so that's where people will go."),
    Phrasing(U, "Kickoff's in the {value} room as usual."),
)
_UPDATE = (
    Phrasing(U, "Actually, scratch that. Let's instead do the kickoff in the {value} room.",
             _ROOM_Q),
    Phrasing(U, "On second thought, the kickoff should be in {value}; the other room has no "
             "screen.", _ROOM_Q),
    Phrasing(U, "Small correction: the kickoff is in the {value} room now, not {old}.", _ROOM_Q),
    Phrasing(U, "Ignore what I said earlier about the kickoff room, facilities moved us to "
             "{value}.", _ROOM_Q),
    Phrasing(U, "Wait, I mixed up the bookings, the kickoff is in {value}.", _ROOM_Q),
    Phrasing(A, "Heads-up: facilities just confirmed the kickoff moved from {old} to the {value} "
             "room.", _ROOM_Q),
)  # fmt: skip

_PO_Q = "Which purchase order is the one to pay?"
_NEAR_DUPLICATE = (
    Phrasing(U, "The PO we're paying is {value}; {distractor} was the cancelled one, it's just "
             "still in the system.", _PO_Q),
    Phrasing(U, "Heads-up, there are two that look alike: {distractor} is the old quote and "
             "{value} is the live one.", _PO_Q),
    Phrasing(U, "Approve {value}, not {distractor} (that's a duplicate someone typed in by hand).",
             _PO_Q),
    Phrasing(A, "Careful, {distractor} and {value} look alike; only {value} is valid, "
             "{distractor} got voided.", _PO_Q),
    Phrasing(U, "I keep mixing them up: it's {value}. {distractor} belongs to the other vendor.",
             _PO_Q),
    Phrasing(A, "{distractor} was closed as a duplicate, so the one to pay is {value}.", _PO_Q),
)  # fmt: skip

_SERIAL_Q = "What serial number did the record of {subject} show?"
_TOOL_ONLY = (
    Phrasing("assistant", '{{"asset": "{subject}", "serial": "{value}", "owner": "Priya", '
             '"location": "third floor, desk cluster B", "warranty": "until next spring"}}',
             _SERIAL_Q),
    Phrasing("assistant", "Asset: {subject}\nSerial no.: {value}\nAssigned to: Jonas\nState: in "
             "use\nLast check: passed, battery at 91%", _SERIAL_Q),
    Phrasing("assistant", "asset,serial,owner,state\n{subject},{value},Lea,spare\n", _SERIAL_Q),
    Phrasing("assistant", "asset: {subject}\n  hardware:\n    serial: {value}\n    model: 14-inch "
             "laptop\n  holder: Omar\n  notes: screen replaced in the summer", _SERIAL_Q),
    Phrasing("assistant", "check-in {subject} by Marcus: serial {value} scanned at the front "
             "desk, charger missing, otherwise fine", _SERIAL_Q),
    Phrasing("assistant", "| field | value |\n| --- | --- |\n| asset | {subject} |\n| serial | "
             "{value} |\n| owner | Chen |\n| status | returned |", _SERIAL_Q),
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

NAMES = ("Noor Haddad", "Tomasz Wojcik", "Priyanka Raman", "Kwame Mensah", "Sofia Lindgren",
         "Mateo Alvarez")  # fmt: skip
CODE_WORDS = ("marigold", "tundra", "sparrowhawk", "pimento", "zephyr", "quokka")
ROOMS = ("Orchard", "Lighthouse", "Boathouse", "Observatory", "Conservatory", "Atrium")
DECISIONS = (
    Decision("the analytics store", "ClickHouse", "BigQuery",
             "most of our queries are time-series rollups", "time-series rollups"),
    Decision("the mobile app", "Flutter", "React Native",
             "the designers want pixel-identical screens on both platforms", "pixel-identical"),
    Decision("payments", "Adyen", "Stripe", "we need local acquiring in Brazil",
             "local acquiring"),
    Decision("the docs site", "Docusaurus", "GitBook",
             "the docs have to be versioned alongside the code", "versioned alongside the code"),
    Decision("CI", "Buildkite", "CircleCI", "we can run the agents on our own hardware",
             "own hardware"),
    Decision("the offsite", "the farmhouse", "the city hotel",
             "the whole team fits under one roof there", "one roof"),
)  # fmt: skip
RULES = (
    Rule("push straight to the main branch", "main branch"),
    Rule("share the beta build outside the company", "beta build"),
    Rule("run migrations against the live database", "live database"),
    Rule("promise the client a delivery date", "delivery date"),
    Rule("delete anything from the shared drive", "shared drive"),
    Rule("mention the acquisition in public channels", "acquisition"),
)
ABSTENTIONS = (
    "What is the venue's street address?",
    "What is the client's VAT number?",
    "What is the contractor's phone number?",
    "What is the account manager's email address?",
    "What is the company's tax ID?",
    "What is the name of the caterer's contact person?",
)
