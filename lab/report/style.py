"""The CSS and script of ``index.html``, inlined so the page is self-contained.

Wide screens show the claims as one table and each experiment's text beside its plot; below
760 px each claim becomes a short card whose cells carry their column's name (``data-label``;
a model without a value for the claim shows nothing), and the provenance tables scroll inside
their own box, so the page never scrolls sideways. Plots scale to the column (tap one to see it
at full size, scrolling in its box). The script filters the claims table by status, kind,
experiment and model (with a model chosen, the status is that model's), counts the claims
shown, and a section's "in the table" link shows its experiment's claims. Fonts: system UI
fonts, then CJK-capable ones, so Chinese renders wherever such a font exists.
"""

from __future__ import annotations

__all__ = ["CSS", "FONTS", "SCRIPT"]

FONTS = (
    'system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Noto Sans CJK SC", '
    '"Source Han Sans SC", "PingFang SC", "Hiragino Sans GB", "Microsoft YaHei", '
    '"WenQuanYi Micro Hei", sans-serif'
)
"""The page's font stack: Latin UI fonts first, then CJK-capable ones."""

CSS = (
    """
:root { --ink: #1f2328; --muted: #59636e; --line: #d8dee4; --head: #f3f5f7;
  --match: #1a7f37; --match-bg: #e9f7ee; --differs: #b35900; --differs-bg: #fff1dc;
  --mixed: #6f42c1; --mixed-bg: #f1eafc; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: #fff;
  font: 16px/1.5 """
    + FONTS
    + """; }
:lang(zh) { font-family: "Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC",
  "Hiragino Sans GB", "Microsoft YaHei", "WenQuanYi Micro Hei", sans-serif; }
main { max-width: 1240px; margin: 0 auto; padding: 1.25rem 1.5rem 4rem;
  overflow-wrap: break-word; }
h1 { font-size: 1.6rem; line-height: 1.25; margin: 0 0 .5rem; }
h2 { font-size: 1.3rem; margin: 2.25rem 0 .6rem; padding-bottom: .3rem;
  border-bottom: 1px solid var(--line); }
h3 { font-size: 1.05rem; margin: 1.25rem 0 .4rem; }
#verdicts h2 { margin-top: 1rem; }
p { margin: .4rem 0; }
p.intro, p.models, p.about, p.sources { max-width: 80ch; color: #30363d; }
p.models { font-size: .92rem; }
p.headline { font-weight: 600; }
p.unit, p.once { color: var(--muted); font-size: .85rem; }
a { color: #0969da; text-decoration: none; } a:hover { text-decoration: underline; }
table { border-collapse: collapse; width: 100%; font-size: .9rem; }
th, td { border-bottom: 1px solid var(--line); padding: .4rem .55rem; text-align: left;
  vertical-align: top; }
td { overflow-wrap: anywhere; }
th { background: var(--head); font-weight: 600; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
code, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace;
  font-size: .85em; }
.n { font-weight: 600; white-space: nowrap; }
.n.match { color: var(--match); } .n.differs { color: var(--differs); }
.n.mixed { color: var(--mixed); }
table.matrix { width: auto; min-width: 60%; max-width: 100%; }
table.matrix th.model-head { font-weight: 600; overflow-wrap: anywhere; min-width: 7rem; }
table.matrix td, table.matrix th { padding: .35rem .7rem; }
a.cell { display: block; color: inherit; }
td.absent { color: var(--muted); }
ul.verdict-lines { padding-left: 1.1rem; margin: .6rem 0; max-width: 90ch; }
ul.verdict-lines li { margin: .2rem 0; }
ul.verdict-lines .what { color: var(--muted); }
nav { display: flex; flex-wrap: wrap; gap: .25rem .9rem; margin: .6rem 0; font-size: .9rem; }
dl.reasons { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem;
  font-size: .9rem; margin: .4rem 0; }
dl.reasons dt { font-weight: 600; } dl.reasons dd { margin: 0; }
.claim-id { font-weight: 600; margin-right: .3rem; }
.source, .reason { display: block; color: var(--muted); font-size: .8rem; }
.reason { color: var(--differs); }
.badge { display: inline-block; padding: 0 .5rem; border-radius: 999px; font-size: .78rem;
  font-weight: 600; white-space: nowrap; overflow-wrap: normal; border: 1px solid; }
.badge.match { color: var(--match); background: var(--match-bg); }
.badge.differs { color: var(--differs); background: var(--differs-bg); }
.badge.mixed { color: var(--mixed); background: var(--mixed-bg); }
tr.status-match { box-shadow: inset 4px 0 0 var(--match); }
tr.status-differs { box-shadow: inset 4px 0 0 var(--differs); }
tr.status-mixed { box-shadow: inset 4px 0 0 var(--mixed); }
th.claim-head { width: 36%; }
th.model-head { overflow-wrap: anywhere; }
.model { font-weight: 600; }
.same { color: var(--muted); font-size: .85rem; }
.kind { color: var(--muted); font-size: .78rem; white-space: nowrap; }
#claims-table { font-size: .82rem; line-height: 1.3; }
#claims-table { table-layout: fixed; }
#claims-table th.claim-head { width: 40%; }
#claims-table th.article-head { width: 17%; }
#claims-table td, #claims-table th { padding: .22rem .4rem; }
#claims-table tr.group-head th { background: #fff; border-bottom: 2px solid var(--line);
  padding-top: .9rem; font-size: .95rem; }
#claims-table .what, .experiment .what { color: var(--muted); font-weight: 400; }
#claims-table .claim-id { display: inline; }
#claims-table .reason { display: inline; }
#claims-table td.absent { padding: 0; }
#claims-table tbody[hidden], #claims-table tr[hidden] { display: none; }
.experiment .body { display: grid; grid-template-columns: minmax(0, 21rem) minmax(0, 1fr);
  gap: 0 1.5rem; align-items: start; }
.experiment .body > .text { grid-column: 1; grid-row: 1 / span 4; }
.experiment .body > figure { grid-column: 2; margin-top: 0; }
.experiment .plot img { max-height: 440px; width: auto; }
.experiment .body > .text:only-child { grid-column: 1 / -1; }
header .filter { margin: .7rem 0 0; padding: .45rem .6rem; background: var(--head);
  border-radius: 6px; }
.filter-what { font-weight: 600; }
nav.top { margin: .6rem 0 0; }
details summary { cursor: pointer; color: #0969da; font-size: .82rem; }
details p { margin: .25rem 0; font-size: .85rem; color: #30363d; }
td details { margin-top: .2rem; }
details.provenance { margin: .9rem 0 0; }
details.provenance > summary { font-size: .9rem; }
p.files { font-size: .85rem; }
.filter { display: flex; flex-wrap: wrap; gap: .5rem .9rem; align-items: center;
  margin: .5rem 0 .75rem; font-size: .9rem; }
.filter select, .filter button { font: inherit; padding: .15rem .4rem; }
.filter .shown { color: var(--muted); }
figure { margin: 1rem 0 1.25rem; }
.plot { max-width: 100%; }
.plot img { display: block; max-width: 100%; height: auto; border: 1px solid var(--line);
  cursor: zoom-in; }
.plot.full { overflow-x: auto; }
.plot.full img { max-width: none; cursor: zoom-out; }
figcaption { color: var(--muted); font-size: .88rem; max-width: 90ch; margin-top: .35rem; }
footer { margin-top: 3rem; color: var(--muted); font-size: .85rem; }
.gloss { color: var(--muted); }
cite { font-style: normal; }
.scroll { overflow-x: auto; max-width: 100%; }
.scroll table { min-width: 640px; }
@media (max-width: 760px) {
  main { padding: 1rem .8rem 3rem; }
  h1 { font-size: 1.35rem; }
  table.matrix { width: 100%; min-width: 0; }
  table.matrix th.model-head { min-width: 0; font-size: .78rem; }
  table.matrix td, table.matrix th { padding: .3rem .4rem; }
  .experiment .body { display: block; }
  #claims-table, #claims-table tbody { display: block; }
  #claims-table thead { display: none; }
  #claims-table tr.group-head { display: block; }
  #claims-table tr.group-head th { display: block; padding: .6rem .2rem .3rem; }
  #claims-table tr.claim-row { display: grid;
    grid-template-columns: repeat(auto-fit, minmax(9.5rem, 1fr)); border: 1px solid var(--line);
    border-radius: 6px; margin: 0 0 .5rem; padding: .25rem .2rem .25rem .45rem; }
  #claims-table tr.claim-row[hidden], #claims-table tbody[hidden] { display: none; }
  #claims-table td { display: block; border: 0; padding: .15rem .4rem; min-width: 0;
    overflow-wrap: break-word; }
  #claims-table td.absent { display: none; }
  #claims-table td.claim-cell { grid-column: 1 / -1; }
  #claims-table tr.claim-row { grid-template-columns: 1fr; }
  #claims-table td[data-label]::before { content: attr(data-label) ": "; color: var(--muted);
    font-size: .7rem; font-weight: 600; overflow-wrap: anywhere; }
  dl.reasons { grid-template-columns: 1fr; } dl.reasons dd { margin: 0 0 .3rem; }
}
"""
)

SCRIPT = """
(function () {
  var table = document.getElementById("claims-table");
  if (table) {
    var rows = table.querySelectorAll("tr.claim-row");
    var groups = table.querySelectorAll("tbody");
    var selects = document.querySelectorAll("#claims-filter select");
    var shown = document.getElementById("claims-shown");
    var value = function (name) {
      var select = document.getElementById("filter-" + name);
      return select ? select.value : "";
    };
    var statusOf = function (row, model) {
      var found = "";
      row.dataset.statuses.split(" ").forEach(function (pair) {
        var at = pair.lastIndexOf("=");
        if (pair.slice(0, at) === model) { found = pair.slice(at + 1); }
      });
      return found;
    };
    var apply = function () {
      var count = 0, status = value("status"), model = value("model");
      rows.forEach(function (row) {
        var own = model ? statusOf(row, model) : row.dataset.status;
        var keep = (!value("experiment") || row.dataset.experiment === value("experiment")) &&
          (!value("kind") || row.dataset.kind === value("kind")) && own !== "" &&
          (!status || (status === "mixed" ? row.dataset.status === "mixed" : own === status));
        row.hidden = !keep;
        if (keep) { count += 1; }
      });
      groups.forEach(function (group) {
        group.hidden = !group.querySelector("tr.claim-row:not([hidden])");
      });
      shown.textContent = count + " of " + rows.length + " claims shown";
    };
    selects.forEach(function (select) { select.addEventListener("change", apply); });
    document.getElementById("only-differs").addEventListener("click", function () {
      selects.forEach(function (select) {
        select.value = select.dataset.filter === "status" ? "differs" : "";
      });
      apply();
    });
    document.querySelectorAll("a[data-show]").forEach(function (link) {
      link.addEventListener("click", function () {
        selects.forEach(function (select) {
          select.value = select.dataset.filter === "experiment" ? link.dataset.show : "";
        });
        apply();
      });
    });
    apply();
  }
  document.querySelectorAll(".plot img").forEach(function (img) {
    img.addEventListener("click", function () { img.parentElement.classList.toggle("full"); });
  });
})();
"""
