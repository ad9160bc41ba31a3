"""The CSS and script of ``index.html``, inlined so the page is self-contained.

Wide screens show the claims as a table; below 760 px each claim becomes a card whose cells carry
their column's name (``data-label``), and the other tables scroll inside their own box, so the
page never scrolls sideways. Plots scale to the column, and on narrow screens keep a minimum
width (scrolling in their box) so their text stays readable. Fonts: system UI fonts, then
CJK-capable ones, so Chinese renders wherever such a font exists.
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
  --match: #1a7f37; --match-bg: #e9f7ee; --differs: #9a5b00; --differs-bg: #fff4de; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: #fff; line-height: 1.55;
  font: 16px/1.55 """
    + FONTS
    + """; }
:lang(zh) { font-family: "Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC",
  "Hiragino Sans GB", "Microsoft YaHei", "WenQuanYi Micro Hei", sans-serif; }
main { max-width: 1180px; margin: 0 auto; padding: 2rem 1.5rem 4rem; }
h1 { font-size: 1.9rem; line-height: 1.25; margin: 0 0 .75rem; }
h2 { font-size: 1.35rem; margin: 2.5rem 0 .75rem; padding-bottom: .3rem;
  border-bottom: 1px solid var(--line); }
p.intro { max-width: 72ch; color: #30363d; }
p.summary { font-size: 1.1rem; font-weight: 600; margin: 1rem 0; }
p.summary .match { color: var(--match); } p.summary .differs { color: var(--differs); }
nav a { margin-right: 1rem; }
a { color: #0969da; text-decoration: none; } a:hover { text-decoration: underline; }
table { border-collapse: collapse; width: 100%; font-size: .9rem; }
th, td { border-bottom: 1px solid var(--line); padding: .45rem .6rem; text-align: left;
  vertical-align: top; }
td { overflow-wrap: anywhere; }
th { background: var(--head); font-weight: 600; white-space: nowrap; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
code, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace;
  font-size: .85em; }
.claim-id { display: block; font-weight: 600; white-space: nowrap; }
.source { display: block; color: var(--muted); font-size: .8rem; }
.claim td.note { color: #30363d; font-size: .85rem; }
tr.status-match { box-shadow: inset 4px 0 0 var(--match); }
tr.status-differs { box-shadow: inset 4px 0 0 var(--differs); background: #fffbf2; }
.badge { display: inline-block; padding: .05rem .55rem; border-radius: 999px;
  font-size: .8rem; font-weight: 600; white-space: nowrap; overflow-wrap: normal; }
.status-match .badge { color: var(--match); background: var(--match-bg); }
.status-differs .badge { color: var(--differs); background: var(--differs-bg); }
tr.status-mixed { box-shadow: inset 4px 0 0 var(--differs); }
td.status-match .badge { color: var(--match); background: var(--match-bg); }
td.status-differs .badge { color: var(--differs); background: var(--differs-bg); }
.claim .model { font-weight: 600; }
th.model-head { white-space: normal; overflow-wrap: anywhere; }
th.model-head .model { display: block; font-weight: 400; color: var(--muted); font-size: .8rem; }
.filter { display: flex; gap: .75rem; align-items: center; margin: .5rem 0 .75rem; }
.filter select { font: inherit; padding: .2rem .4rem; }
.filter .shown { color: var(--muted); font-size: .9rem; }
figure { margin: 1.5rem 0 2rem; }
figure img { max-width: 100%; height: auto; border: 1px solid var(--line); }
figcaption { color: var(--muted); font-size: .9rem; max-width: 80ch; margin-top: .4rem; }
footer { margin-top: 3rem; color: var(--muted); font-size: .85rem; }
p.sources, p.models { max-width: 72ch; }
.gloss { color: var(--muted); }
cite { font-style: normal; }
nav { display: flex; flex-wrap: wrap; gap: .25rem 1rem; } nav a { margin-right: 0; }
.scroll { overflow-x: auto; max-width: 100%; }
.scroll table { min-width: 640px; }
.plot { overflow-x: auto; max-width: 100%; }
@media (max-width: 760px) {
  main { padding: 1.25rem .9rem 3rem; }
  h1 { font-size: 1.5rem; }
  .filter { flex-wrap: wrap; }
  #claims-table, #claims-table tbody { display: block; width: 100%; }
  #claims-table thead { display: none; }
  #claims-table tr { display: grid; grid-template-columns: repeat(auto-fit, minmax(6.5rem, 1fr));
    border: 1px solid var(--line); border-radius: 6px; margin: 0 0 .9rem;
    padding: .35rem .2rem .35rem .5rem; }
  #claims-table tr[hidden] { display: none; }
  #claims-table td { display: block; width: auto !important; min-width: 0; border: 0;
    padding: .25rem .5rem; overflow-wrap: break-word; }
  #claims-table td:first-child, #claims-table td.note { grid-column: 1 / -1; }
  #claims-table td[data-label]:empty { display: none; }
  #claims-table td[data-label]::before { content: attr(data-label); display: block;
    color: var(--muted); font-size: .75rem; font-weight: 600; text-transform: uppercase;
    letter-spacing: .03em; }
  .claim-id { white-space: normal; }
  .plot img { min-width: 600px; }
}
"""
)

SCRIPT = """
(function () {
  var select = document.getElementById("experiment-filter");
  var rows = document.querySelectorAll("#claims-table tbody tr");
  var shown = document.getElementById("claims-shown");
  function apply() {
    var count = 0;
    rows.forEach(function (row) {
      row.hidden = select.value !== "all" && row.dataset.experiment !== select.value;
      if (!row.hidden) { count += 1; }
    });
    shown.textContent = count + " of " + rows.length + " claims shown";
  }
  select.addEventListener("change", apply);
  apply();
})();
"""
