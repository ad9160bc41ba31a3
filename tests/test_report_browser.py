"""``index.html`` in a real browser: at phone (390 px) and desktop (1280 px) widths nothing
makes the page scroll sideways.

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

import pytest
from report_inputs import built_copy

from experiments import claims

ROOT = Path(__file__).resolve().parents[1]
WIDTHS = (390, 1280)


def _chromium() -> str | None:
    named = os.environ.get("CTXLAB_CHROMIUM")
    return named or shutil.which("chromium") or shutil.which("chromium-browser")


CHROMIUM = _chromium()
pytestmark = [
    pytest.mark.slow,  # a real browser, twice: `pytest -m slow` (.ci/run and CI run it)
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
    var scrolls = parent && parent.closest(".scroll, .plot");  // inside a box that scrolls
    if (box.width && !scrolls && (box.right > width + 0.5 || box.left < -0.5)) {
      over.push(el.tagName.toLowerCase() + "." + el.className + " right=" + Math.round(box.right));
    }
  });
  results[frame.width] = {inner: frame.contentWindow.innerWidth, client: width,
    scroll: doc.documentElement.scrollWidth, over: over.slice(0, 15),
    cards: doc.querySelector("#claims-table tr.claim").getBoundingClientRect().height};
  if (Object.keys(results).length === frames.length) {
    var out = document.createElement("pre");
    out.id = "probe";
    out.textContent = JSON.stringify(results);
    document.body.appendChild(out);
  }
}
frames.forEach(function (frame) {
  if (frame.contentDocument && frame.contentDocument.readyState === "complete" &&
      frame.contentDocument.getElementById("claims")) { measure(frame); }
  else { frame.addEventListener("load", function () { measure(frame); }); }
});
</script></body></html>
"""


def measure(folder: Path) -> dict[str, dict[str, object]]:
    frames = "".join(
        f'<iframe src="index.html" width="{w}" height="900" style="border:0"></iframe>'
        for w in WIDTHS
    )
    (folder / "probe.html").write_text(PROBE % {"frames": frames}, encoding="utf-8")
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
        (folder / "probe.html").as_uri(),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)
    found = re.search(r'<pre id="probe">(.*?)</pre>', done.stdout)
    assert found, f"chromium printed no measurement (status {done.returncode}): {done.stderr}"
    data: dict[str, dict[str, object]] = json.loads(found.group(1).replace("&quot;", '"'))
    return data


def assert_fits(results: dict[str, dict[str, object]]) -> None:
    for width in WIDTHS:
        seen = results[str(width)]
        assert seen["inner"] == width, seen
        assert seen["scroll"] == seen["client"], f"at {width} px the page scrolls sideways: {seen}"
        assert seen["over"] == [], f"at {width} px these overflow the viewport: {seen['over']}"


def test_the_report_fits_phone_and_desktop_widths(tmp_path: Path) -> None:
    folder = built_copy(ROOT / "reports", tmp_path / "reports")
    assert_fits(measure(folder))


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
