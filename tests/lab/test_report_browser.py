"""``index.html`` in a real browser: at phone (390 px) and desktop (1280 px) widths nothing
makes the page scroll sideways, no plot is wider than its frame, the verdict matrix sits in the
first screen (the first 1,000 px at 1280 px, the first two 844 px screens at 390 px) below the
claims table's filter, the claim cards stay short and the whole page stays under its height
bound (:data:`HEIGHT_PER_CLAIM`); the pages behind its links (the mutation matrix, a claim's
evidence) read on a phone without scrolling sideways.

Uses Debian's ``chromium`` headless (``apt-get install chromium``; ``.ci/run`` installs it) and
skips, saying so, when it is absent. The page is loaded in an iframe of each width (headless
windows have a minimum width above 390 px); a script measures the iframe's document and writes
the result into the DOM that ``--dump-dom`` prints.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support.paths import ROOT
from support.report_inputs import built_copy

from lab import claims

WIDTHS = (390, 1280)
SCREENS = {390: 844, 1280: 1000}
"""The height of one screen at each width (a 390 px phone shows 844 px)."""
MATRIX_BOTTOM = {390: 2 * SCREENS[390], 1280: SCREENS[1280]}
"""Where the verdict matrix must end at the latest: the page's budget for its answer."""
CARD_HEIGHT = 420
"""The tallest a section's claim card may be at 390 px (its note folded away)."""


def _chromium() -> str | None:
    named = os.environ.get("CTXLAB_CHROMIUM")
    return named or shutil.which("chromium") or shutil.which("chromium-browser")


CHROMIUM = _chromium()
pytestmark = [
    pytest.mark.slow,  # a real browser: `pytest -m slow` (.ci/run and CI run it)
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="no chromium: install Debian's package (apt-get install chromium) to run the "
        "browser test; .ci/run installs it",
    ),
]

PROBE = """<!DOCTYPE html><html><body style="margin:0">%(frames)s
<script>
var results = {}, frames = document.querySelectorAll("iframe");
function measure(frame) {
  var doc = frame.contentDocument, width = doc.documentElement.clientWidth, over = [];
  doc.querySelectorAll("body *").forEach(function (el) {
    var box = el.getBoundingClientRect(), parent = el.parentElement;
    var scrolls = parent && parent.closest(".scroll");  // inside a box that scrolls
    if (box.width && !scrolls && (box.right > width + 0.5 || box.left < -0.5)) {
      over.push(el.tagName.toLowerCase() + "." + el.className + " right=" + Math.round(box.right));
    }
  });
  // A long unbroken word overflows as text: its element's box stays inside the page.
  var walker = doc.createTreeWalker(doc.body, NodeFilter.SHOW_TEXT), node;
  while ((node = walker.nextNode())) {
    if (node.parentElement.closest(".scroll")) { continue; }
    var range = doc.createRange();
    range.selectNodeContents(node);
    var text = range.getBoundingClientRect();
    if (text.width && (text.right > width + 0.5 || text.left < -0.5)) {
      over.push("text " + JSON.stringify(node.textContent.slice(0, 60)) + " right=" +
        Math.round(text.right));
    }
  }
  var results_of = {height: doc.documentElement.scrollHeight};
  if (!doc.getElementById("claims-table")) {  // a page behind a link: its fit and height
    results[frame.width] = {inner: frame.contentWindow.innerWidth, client: width,
      scroll: doc.documentElement.scrollWidth, over: over.slice(0, 15),
      height: results_of.height};
    return done();
  }
  var matrix = doc.querySelector("#verdicts table.matrix").getBoundingClientRect();
  var filter = doc.getElementById("claims-filter").getBoundingClientRect();
  var plots = [];
  doc.querySelectorAll(".plot img").forEach(function (img) {
    var box = img.getBoundingClientRect(), frameBox = img.parentElement.getBoundingClientRect();
    plots.push({name: img.closest("figure").id, width: box.width, frame: frameBox.width,
      left: box.left, right: box.right, natural: img.naturalWidth});
  });
  var cards = [];
  doc.querySelectorAll("#claims-table tr.claim-row").forEach(function (row) {
    cards.push([Math.round(row.getBoundingClientRect().height),
      row.querySelector(".claim-id").textContent]);
  });
  var shown = function () {
    return Array.prototype.filter.call(doc.querySelectorAll("#claims-table tr.claim-row"),
      function (row) { return !row.hidden; }).length;
  };
  var filtered = {all: shown()};
  doc.getElementById("only-differs").click();
  filtered.differs = shown();
  var status = doc.getElementById("filter-status"), kind = doc.getElementById("filter-kind");
  status.value = "mixed";
  status.dispatchEvent(new Event("change"));
  filtered.mixed = shown();
  status.value = "";
  kind.value = "ctxlab";
  kind.dispatchEvent(new Event("change"));
  filtered.ctxlab = shown();
  results[frame.width] = {inner: frame.contentWindow.innerWidth, client: width,
    scroll: doc.documentElement.scrollWidth, over: over.slice(0, 15),
    matrix: {top: matrix.top, bottom: matrix.bottom}, plots: plots, cards: cards,
    filtered: filtered, height: results_of.height, filter: filter.top};
  done();
}
function done() {
  if (Object.keys(results).length === frames.length) {
    var out = document.createElement("pre");
    out.id = "probe";
    out.textContent = JSON.stringify(results);
    document.body.appendChild(out);
  }
}
frames.forEach(function (frame) {
  if (frame.contentDocument && frame.contentDocument.readyState === "complete" &&
      frame.contentDocument.body.lastElementChild) { measure(frame); }
  else { frame.addEventListener("load", function () { measure(frame); }); }
});
</script></body></html>
"""


def measure(folder: Path, page: str = "index.html") -> dict[str, dict[str, Any]]:
    """``page`` of ``folder`` measured in an iframe of each width."""
    frames = "".join(
        f'<iframe src="{page}" width="{w}" height="{SCREENS[w]}" style="border:0"></iframe>'
        for w in WIDTHS
    )
    probe = folder / "probe.html"
    probe.write_text(PROBE % {"frames": frames}, encoding="utf-8")
    assert CHROMIUM is not None
    command = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--allow-file-access-from-files",
        f"--user-data-dir={folder / 'profile'}",
        "--window-size=1800,1000",
        "--virtual-time-budget=15000",
        "--dump-dom",
        probe.as_uri(),
    ]
    ran = subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)
    probe.unlink()
    found = re.search(r'<pre id="probe">(.*?)</pre>', ran.stdout)
    assert found, f"chromium printed no measurement (status {ran.returncode}): {ran.stderr}"
    data: dict[str, dict[str, Any]] = json.loads(found.group(1).replace("&quot;", '"'))
    return data


def assert_fits(results: dict[str, dict[str, Any]], plotted: bool = True) -> None:
    for width in WIDTHS:
        seen = results[str(width)]
        assert seen["inner"] == width, seen
        assert seen["scroll"] == seen["client"], f"at {width} px the page scrolls sideways: {seen}"
        assert seen["over"] == [], f"at {width} px these overflow the viewport: {seen['over']}"
        if not plotted:
            continue
        assert seen["plots"], f"at {width} px the page shows no plot"
        for plot in seen["plots"]:
            assert plot["width"] <= plot["frame"] + 0.5, f"at {width} px {plot} is cropped"
            assert plot["left"] >= -0.5 and plot["right"] <= seen["client"] + 0.5, plot


def assert_answer_first(results: dict[str, dict[str, Any]]) -> None:
    for width in WIDTHS:
        matrix = results[str(width)]["matrix"]
        assert 0 < matrix["top"] < matrix["bottom"] <= MATRIX_BOTTOM[width], (
            f"at {width} px the verdict matrix spans {matrix}, past {MATRIX_BOTTOM[width]} px"
        )


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The committed report built once for the tests that only read it."""
    return built_copy(ROOT / "reports", tmp_path_factory.mktemp("browser") / "reports")


@pytest.fixture(scope="module")
def index(built: Path) -> dict[str, dict[str, Any]]:
    """``index.html`` of :func:`built` measured once, for the tests that read the measurement."""
    return measure(built)


def test_the_report_fits_phone_and_desktop_widths(
    built: Path, index: dict[str, dict[str, Any]]
) -> None:
    folder, results = built, index
    assert_fits(results)
    assert_answer_first(results)
    phone = results["390"]
    tall = [card for card in phone["cards"] if card[0] > CARD_HEIGHT]
    assert phone["cards"] and not tall, f"cards taller than {CARD_HEIGHT} px at 390 px: {tall}"
    # The plots scale down to the phone's column rather than scroll in a box of their own.
    assert any(p["width"] < p["natural"] for p in phone["plots"])
    # The claims table's filters, clicked in the browser, show the claims they name.
    with (folder / "claims.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    groups: dict[tuple[str, str], set[str]] = {}
    kinds: dict[tuple[str, str], str] = {}
    for row in rows:
        groups.setdefault((row["experiment"], row["claim_id"]), set()).add(row["status"])
        kinds[(row["experiment"], row["claim_id"])] = row["kind"]
    status = {k: next(iter(s)) if len(s) == 1 else "mixed" for k, s in groups.items()}
    assert results["1280"]["filtered"] == {
        "all": len(groups),
        "differs": sum(s == "differs" for s in status.values()),
        "mixed": sum(s == "mixed" for s in status.values()),
        "ctxlab": sum(k == "ctxlab" for k in kinds.values()),
    }


def test_an_extra_claims_column_still_fits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Columns added to the claims table (a "kind", say) get their own cell and card label.
    monkeypatch.setattr(claims, "CLAIM_COLUMNS", [*claims.CLAIM_COLUMNS, "probe_column"])
    folder = tmp_path / "reports"
    shutil.copytree(ROOT / "reports", folder)
    path = folder / "claims.csv"
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, [*rows[0], "probe_column"], lineterminator="\n")
        writer.writeheader()
        writer.writerows({**row, "probe_column": "a-long-unbroken-value-" * 3} for row in rows)
    built_copy(folder, tmp_path / "built")
    page = (tmp_path / "built" / "index.html").read_text(encoding="utf-8")
    assert f'data-label="Probe column">{"a-long-unbroken-value-" * 3}</td>' in page
    assert_fits(measure(tmp_path / "built"))


HEIGHT_PER_CLAIM = {390: 40_000 / 134, 1280: 15_000 / 134}
"""How tall ``index.html`` may be at each width, per claim row of ``reports/claims.csv``: the
answer first, the detail behind links (the claims once, in one table; the mutation matrix and
each claim's evidence on pages of their own). Set as 40,000 and 15,000 px when the table held
134 claims; the page grows with the claims it lists, never with anything per claim beyond that."""


def height_bound(folder: Path, width: int) -> int:
    with (folder / "claims.csv").open(encoding="utf-8", newline="") as handle:
        claims = len({row["claim_id"] for row in csv.DictReader(handle)})
    return int(HEIGHT_PER_CLAIM[width] * claims)


def test_the_page_is_short_and_its_filter_on_top(
    built: Path, index: dict[str, dict[str, Any]]
) -> None:
    folder, results = built, index
    for width in WIDTHS:
        seen = results[str(width)]
        bound = height_bound(folder, width)
        assert seen["height"] <= bound, (
            f"at {width} px index.html is {seen['height']:,} px tall, over {bound:,}"
        )
        # the claims table's filter sits in the first screen, above the verdicts
        assert 0 < seen["filter"] < min(seen["matrix"]["top"], SCREENS[width]), seen


@pytest.mark.parametrize(
    "page", ["mutations.html", "evidence/E3-RECALL.html", "evidence/X-BENCH-GATE-ADDS.html"]
)
def test_the_pages_behind_the_links_read_on_a_phone(built: Path, page: str) -> None:
    assert (built / page).is_file(), f"{page} was not built"
    assert_fits(measure(built, page), plotted=False)
