{# The script of index.html, inlined by templates/index.html.j2 so the page is self-contained
(a Jinja comment: the page carries none of it).

It filters the claims table by status, kind, experiment and model (with a model chosen, the
status is that model's), counts the claims shown, and a section's "in the table" link shows its
experiment's claims; a click on a plot shows it at full size. #}

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
