"""The held-out split's English talk around the facts: a small product team getting a launch and
an offsite ready. No word here is a planted value (the generator checks)."""

from __future__ import annotations

from experiments.x_bench.heldout.phrasing import Filler

__all__ = ["FILLER"]

FILLER = Filler(
    topics=(
        "the launch checklist", "the onboarding doc", "the pricing page", "the release notes",
        "the offsite agenda", "the customer survey", "the hiring plan", "the weekly update",
        "the demo script", "the support rota",
    ),
    asks=(
        "Can you tighten the wording on {topic}?",
        "What's missing from {topic}, do you think?",
        "Give me three bullet points for {topic}.",
        "Is {topic} in good enough shape to share?",
        "How would you structure {topic} for people who weren't in the meeting?",
        "Any risks with {topic} I should raise tomorrow?",
        "Can you sum up where we are with {topic}?",
        "What would you cut from {topic}?",
        "Who should see {topic} before it goes out?",
        "How long should {topic} be, realistically?",
    ),
    openers=(
        "Morning!", "Sorry, juggling three things at once.", "Just got out of the planning call.",
        "Quick one before lunch.", "Okay, next thing.", "Bear with me, long day.",
    ),
    sentences=(
        "I'd lead with the one decision people need to make, then the background.",
        "Most readers stop after the first screen, so put the ask up top.",
        "It reads fine, but two of the sections say the same thing in different words.",
        "I'd cut the history part; nobody needs it to act on this.",
        "A short table would make the comparison easier to scan.",
        "The tone is a bit formal for an internal note; shorter sentences would help.",
        "It's worth naming an owner for each open item, otherwise they drift.",
        "The risk is mostly timing: if one piece slips, the rest waits.",
        "Sharing it early, even rough, usually saves a round of rework.",
        "I'd keep it to one page and link out to the details.",
        "Three bullets is about right; more than five and people skim.",
        "Anyone who has to sign something should see it first.",
        "The numbers section needs a date on it, or people will quote stale figures.",
        "A quick read-through by someone new to the project catches most of the jargon.",
        "It would help to say what happens if we do nothing.",
        "I'd move the open questions to the end so they don't bury the plan.",
        "The first paragraph already answers most of what people will ask.",
        "If it goes to the whole company, drop the internal nicknames.",
    ),
    acks=("Noted.", "Thanks for the heads-up.", "Good to know.", "", "", ""),
    components=("billing", "checkout", "search", "notifications", "the mobile client",
                "the admin panel"),
    ticket_titles=(
        "export times out on large workspaces", "typo on the settings screen",
        "slow first load after login", "wrong currency symbol in receipts",
        "duplicate emails on password reset", "filter resets after refresh",
        "tooltip hidden behind the sidebar", "retry button does nothing offline",
        "dates shown in the wrong timezone", "avatar upload rejects small images",
    ),
    ticket_states=("open", "in progress", "waiting on customer", "needs review"),
    owners=("Marcus", "Chen", "Priya", "Jonas", "Lea", "Omar"),
    tool_asks=(
        "Can you check what's still open for {component}?",
        "What does the queue look like for {component} right now?",
        "Pull the open tickets for {component}, please.",
    ),
    tool_replies=(
        "There are {count} open for {component}; the oldest has been sitting for {age} days.",
        "{count} tickets for {component}, nothing that blocks the launch as far as I can see.",
        "I see {count} for {component}; the one from {age} days ago probably needs a nudge.",
    ),
    continuation=(
        ("Okay, anything else on the list?", "Nothing big, just the small follow-ups."),
        ("Did the reminder go out?", "Yes, it went out an hour ago."),
        ("Can we close the earlier thread?", "Done, I marked it resolved."),
        ("Is the agenda final?", "Final enough; only the order of the last two items may move."),
        ("Anything I need to sign today?", "Not today, the next one comes on Monday."),
        ("Thanks, that helps.", "Happy to help."),
        ("Remind me what's next?", "Reviewing the feedback from the pilot group."),
        ("Are we on track for the end of the week?", "Yes, if the feedback comes in on time."),
        ("Who's taking notes tomorrow?", "Whoever joins last, as usual."),
        ("Did anyone reply to the survey yet?", "Four people so far, all positive."),
        ("Can you move the sync to the afternoon?", "Moved, and the invite is updated."),
        ("Ok, I'm off for lunch.", "Enjoy, I'll keep an eye on the thread."),
    ),
)  # fmt: skip
