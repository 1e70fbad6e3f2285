#include "report/html/html_assets.h"

namespace covkit::report::html {

// Two palettes behind CSS variables: the light one by default, the dark one
// when the reader's system asks for it. System font stacks only (DejaVu is
// the usual fallback on Linux), so nothing is fetched.
std::string_view style_css() {
  return R"css(:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1f2328; --muted: #656d76; --border: #d0d7de; --head: #f6f8fa; --link: #0969da;
  --track: #e6eaef; --hi: #2da44e; --med: #d4a72c; --lo: #cf222e;
  --cov-bg: #dafbe1; --cov-mark: #1a7f37;
  --unc-bg: #ffebe9; --unc-mark: #cf222e;
  --par-bg: #fff8c5; --par-mark: #9a6700;
  --exc-bg: #eef1f4; --exc-fg: #8c959f;
  --target: #ddf4ff; --shadow: rgba(31, 35, 40, 0.15); --badge-fg: #ffffff;
  --syn-k: #8250df; --syn-s: #0a3069; --syn-c: #6e7781; --syn-p: #953800; --syn-n: #0550ae;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117; --fg: #e6edf3; --muted: #8d96a0; --border: #30363d; --head: #161b22; --link: #4493f8;
    --track: #21262d; --hi: #3fb950; --med: #d29922; --lo: #f85149;
    --cov-bg: #12261e; --cov-mark: #3fb950;
    --unc-bg: #3d1619; --unc-mark: #f85149;
    --par-bg: #3a2d0c; --par-mark: #d29922;
    --exc-bg: #1c2128; --exc-fg: #6e7681;
    --target: #1b2f4a; --shadow: rgba(0, 0, 0, 0.5); --badge-fg: #0d1117;
    --syn-k: #d2a8ff; --syn-s: #a5d6ff; --syn-c: #8b949e; --syn-p: #ffa657; --syn-n: #79c0ff;
  }
}
* { box-sizing: border-box; }
body {
  margin: 0; background: var(--bg); color: var(--fg);
  font: 14px/1.5 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", "Liberation Sans", sans-serif;
}
a { color: var(--link); text-decoration: none; }
a:hover { text-decoration: underline; }
header.top {
  display: flex; flex-wrap: wrap; align-items: baseline; justify-content: space-between; gap: 4px 24px;
  padding: 12px 24px; background: var(--head); border-bottom: 1px solid var(--border);
}
header.top h1 { margin: 0; font-size: 20px; font-weight: 600; }
header.top h1 .crumb { color: var(--muted); font-weight: 400; }
header.top .meta { margin: 0; color: var(--muted); font-size: 13px; }
header.top .meta span + span::before { content: "\00b7"; margin: 0 8px; }
main { padding: 16px 24px 40px; }
h2 { font-size: 16px; margin: 24px 0 8px; }
h2.path { font-size: 18px; margin-top: 4px; word-break: break-all; }
.totals { display: grid; grid-template-columns: repeat(auto-fit, minmax(170px, 280px)); gap: 12px; }
.card { border: 1px solid var(--border); border-radius: 6px; padding: 10px 14px; }
.card h3 { margin: 0; font-size: 13px; font-weight: 500; color: var(--muted); }
.card .pct { font-size: 24px; font-weight: 600; font-variant-numeric: tabular-nums; }
.card .bar { display: block; width: 100%; height: 8px; margin: 4px 0; }
.card .frac { color: var(--muted); font-size: 13px; }
.bar { display: inline-block; width: 90px; height: 8px; vertical-align: middle;
       background: var(--track); border-radius: 4px; overflow: hidden; }
.bar > span { display: block; height: 100%; background: var(--lo); }
.hi .bar > span { background: var(--hi); }
.med .bar > span { background: var(--med); }
.na .pct { color: var(--muted); }
table.files, table.functions { border-collapse: collapse; width: 100%; max-width: 1100px; }
table.files th, table.files td, table.functions th, table.functions td {
  padding: 4px 10px; border-bottom: 1px solid var(--border); text-align: left; }
table.files thead th, table.functions thead th {
  background: var(--head); font-weight: 600; font-size: 13px; white-space: nowrap; }
th[data-sort] { cursor: pointer; user-select: none; }
th[data-sort]::after { content: "\2195"; margin-left: 4px; opacity: 0.35; }
th[aria-sort="ascending"]::after { content: "\25b2"; opacity: 0.8; }
th[aria-sort="descending"]::after { content: "\25bc"; opacity: 0.8; }
td.metric { white-space: nowrap; width: 1%; }
td.metric .pct { display: inline-block; min-width: 4.2em; text-align: right; margin: 0 6px;
                 font-variant-numeric: tabular-nums; }
td.metric .frac { display: inline-block; min-width: 6em; color: var(--muted); font-size: 12px;
                  font-variant-numeric: tabular-nums; }
td.num-cell { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; width: 1%; }
tr.group th { background: var(--head); font-weight: 600; overflow-wrap: anywhere; }
tr.group td { background: var(--head); }
tr.group .nfiles { color: var(--muted); font-weight: 400; font-size: 12px; }
tr.file td.name { padding-left: 34px; overflow-wrap: anywhere; }
tbody.files tr.file td.name, tr.subdir td.name { padding-left: 10px; }
button.toggle { background: none; border: 0; color: inherit; font: inherit; cursor: pointer;
                padding: 0 4px 0 0; display: inline-block; transition: transform 0.1s; }
tbody.collapsed button.toggle { transform: rotate(-90deg); }
tbody.collapsed tr.file { display: none; }
table.functions tr.uncovered td.calls { color: var(--unc-mark); font-weight: 600; }
table.functions tr.excluded td { color: var(--exc-fg); }
span.variant { display: inline-block; margin-left: 6px; padding: 0 5px; border-radius: 4px; font-size: 11px;
               color: var(--muted); border: 1px solid var(--border); white-space: nowrap; }
table.functions td.fn { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace;
                        font-size: 12.5px; word-break: break-all; }
ul.legend { list-style: none; display: flex; flex-wrap: wrap; gap: 6px 18px; padding: 0; margin: 12px 0;
            font-size: 13px; color: var(--muted); }
ul.legend li { display: flex; align-items: center; gap: 6px; }
.swatch { display: inline-block; width: 14px; height: 14px; border-radius: 3px; border: 1px solid var(--border); }
.swatch.covered { background: var(--cov-bg); border-color: var(--cov-mark); }
.swatch.uncovered { background: var(--unc-bg); border-color: var(--unc-mark); }
.swatch.partial { background: var(--par-bg); border-color: var(--par-mark); }
.swatch.excluded { background: var(--exc-bg); }
.swatch.nocode { background: var(--bg); }
.swatch.hi { background: var(--hi); border: 0; }
.swatch.med { background: var(--med); border: 0; }
.swatch.lo { background: var(--lo); border: 0; }
.notice { border-left: 4px solid var(--par-mark); background: var(--par-bg); padding: 8px 12px;
          margin: 12px 0; border-radius: 0 6px 6px 0; max-width: 1100px; }
.empty { color: var(--muted); font-style: italic; }
table.source { border-collapse: collapse; min-width: 100%; border: 1px solid var(--border);
  font: 12.5px/1.5 ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, "Liberation Mono", monospace; }
table.source td { padding: 0 8px; vertical-align: top; }
table.source td.num { text-align: right; color: var(--muted); user-select: none; border-right: 1px solid var(--border); }
table.source td.num a { color: inherit; }
table.source td.count { text-align: right; user-select: none; white-space: nowrap; min-width: 6ch;
                        border-right: 1px solid var(--border); font-variant-numeric: tabular-nums; }
table.source td.br { white-space: nowrap; user-select: none; min-width: 5ch; border-right: 1px solid var(--border); }
table.source td.code { white-space: pre; tab-size: 8; -moz-tab-size: 8; width: 100%; }
tr.covered td.count { background: var(--cov-bg); color: var(--cov-mark); }
tr.uncovered td.count { background: var(--unc-bg); color: var(--unc-mark); font-weight: 600; }
tr.uncovered td.code { background: var(--unc-bg); }
tr.partial td.count, tr.partial td.code { background: var(--par-bg); }
tr.partial td.count { color: var(--par-mark); }
tr.excluded td.count, tr.excluded td.code { background: var(--exc-bg); color: var(--exc-fg); }
tr:target td.num, tr:target td.code { background: var(--target); }
td.code .k { color: var(--syn-k); }
td.code .s { color: var(--syn-s); }
td.code .c { color: var(--syn-c); font-style: italic; }
td.code .p { color: var(--syn-p); }
td.code .n { color: var(--syn-n); }
tr.excluded td.code span { color: inherit; }
.star { color: var(--par-mark); margin-left: 1px; }
.inferred { color: var(--par-mark); margin-left: 2px; font-style: italic; }
.beyond { color: var(--muted); font-style: italic; }
details.branches, details.regions { position: relative; display: inline-block; }
details.branches summary, details.regions summary { cursor: pointer; list-style: none; padding: 0 5px;
  border-radius: 4px; font-size: 11.5px; color: var(--badge-fg); background: var(--par-mark); }
details.regions { margin-left: 4px; }
details.branches summary::-webkit-details-marker, details.regions summary::-webkit-details-marker { display: none; }
details.branches.all summary, details.regions.all summary { background: var(--cov-mark); }
details.branches.none summary, details.regions.none summary { background: var(--unc-mark); }
details.branches ul, details.regions ul { position: absolute; z-index: 10; left: 0; top: 100%; margin: 2px 0 0;
  padding: 6px 10px; list-style: none; background: var(--bg); border: 1px solid var(--border); border-radius: 6px;
  box-shadow: 0 4px 12px var(--shadow); font: 12px/1.6 system-ui, "DejaVu Sans", sans-serif; text-align: left; }
details.branches li.caption, details.regions li.caption { font-weight: 600; }
details.branches li.nottaken, details.regions li.nottaken { color: var(--unc-mark); }
tr.instance td.inst { white-space: normal; color: var(--muted); font-size: 12px; padding-left: 24px; }
tr.instance td.inst .icount { display: inline-block; min-width: 6ch; text-align: right; margin-right: 8px;
                              font-variant-numeric: tabular-nums; }
)css";
}

// Sorting and collapsing for the index (and the function tables). Plain ES5,
// no libraries. The files table keeps each directory's rows together:
// directories are ordered by their totals (their subtree's, as their rows
// show) and files within each directory by theirs. The order lives in the address (#sort=line-asc), so a
// reload, a shared link or a headless browser shows that order.
std::string_view sort_js() {
  return R"js((function () {
  'use strict';

  function value(row, key, numeric) {
    var v = row.getAttribute('data-' + key);
    if (numeric) return v === null ? -1 : parseFloat(v);
    return v === null ? '' : v.toLowerCase();
  }

  // Ties fall back to the name, always ascending, so the order is total.
  function comparator(key, numeric, direction) {
    return function (a, b) {
      var x = value(a, key, numeric), y = value(b, key, numeric);
      var c = numeric ? x - y : (x < y ? -1 : x > y ? 1 : 0);
      if (c !== 0) return direction * c;
      var p = value(a, 'name', false), q = value(b, 'name', false);
      return p < q ? -1 : p > q ? 1 : 0;
    };
  }

  function sortTable(table, key, ascending) {
    var th = table.querySelector('th[data-sort="' + key + '"]');
    if (!th) return false;
    var cmp = comparator(key, th.getAttribute('data-type') === 'number', ascending ? 1 : -1);
    var bodies = Array.prototype.slice.call(table.tBodies);
    bodies.forEach(function (body) {
      var rows = Array.prototype.filter.call(body.rows, function (r) { return !r.classList.contains('group'); });
      rows.sort(cmp).forEach(function (r) { body.appendChild(r); });
    });
    var grouped = bodies.length > 1 && bodies.every(function (b) {
      return b.rows.length > 0 && b.rows[0].classList.contains('group');
    });
    if (grouped) {
      bodies.sort(function (a, b) { return cmp(a.rows[0], b.rows[0]); });
      bodies.forEach(function (b) { table.appendChild(b); });
    }
    Array.prototype.forEach.call(table.querySelectorAll('th[data-sort]'), function (h) {
      if (h === th) h.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
      else h.removeAttribute('aria-sort');
    });
    return true;
  }

  function fromHash() {
    var m = /(?:^#|&)sort=([a-z]+)-(asc|desc)(?:&|$)/.exec(window.location.hash);
    return m ? { key: m[1], ascending: m[2] === 'asc' } : null;
  }

  function init() {
    Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), function (table) {
      Array.prototype.forEach.call(table.querySelectorAll('th[data-sort]'), function (th) {
        th.tabIndex = 0;
        var activate = function () {
          // First click sorts ascending (worst coverage first), a second reverses.
          var ascending = th.getAttribute('aria-sort') !== 'ascending';
          var key = th.getAttribute('data-sort');
          sortTable(table, key, ascending);
          if (table.id === 'files' && window.history && history.replaceState) {
            history.replaceState(null, '', '#sort=' + key + '-' + (ascending ? 'asc' : 'desc'));
          }
        };
        th.addEventListener('click', activate);
        th.addEventListener('keydown', function (e) {
          if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); activate(); }
        });
      });
    });
    Array.prototype.forEach.call(document.querySelectorAll('button.toggle'), function (button) {
      button.addEventListener('click', function () {
        var body = button.closest('tbody');
        var collapsed = body.classList.toggle('collapsed');
        button.setAttribute('aria-expanded', collapsed ? 'false' : 'true');
      });
    });
    var files = document.getElementById('files');
    var wanted = fromHash();
    if (files && wanted) sortTable(files, wanted.key, wanted.ascending);
    document.documentElement.setAttribute('data-ready', '1');
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init();
  window.addEventListener('hashchange', function () {
    var files = document.getElementById('files');
    var wanted = fromHash();
    if (files && wanted) sortTable(files, wanted.key, wanted.ascending);
  });
})();
)js";
}

}  // namespace covkit::report::html
