#!/usr/bin/env python3
"""The HTML report in a real browser (headless Chromium).

Compiles sample/ (sample.c and lib/*.c) with gcc --coverage -O0, runs it,
writes the site with `covkit report --html OUT .`, and then checks what a
reader sees, not just the bytes covkit wrote:

  * --dump-dom of sample.c's page: the line marked MARK:never-called and the
    one marked MARK:branch-not-taken have class "uncovered", the `if` before
    the latter is "partial", tabs and markup survive;
  * --dump-dom of index.html#sort=<key>-<dir>: sort.js orders the files
    table as asked (directories by their totals, files within them by theirs);
  * through the DevTools pipe: clicking a header sorts ascending, a second
    click reverses (and records #sort=... in the address), a directory's
    toggle hides its files;
  * a partial line's branch badge opens the list of its branches;
  * the nested view: the index links the lib directory to its page, which
    lists lib's files; a lib file's header links back to it;
  * syntax highlighting: keywords, comments and preprocessor lines are
    spans whose colour differs from plain code, in light and dark mode;
  * screenshots of index.html, the lib directory page and the sample.c page
    (light, and dark through prefers-color-scheme emulation, and with a
    branch list open) into --screenshots.

Exit status: 0 passed, 1 failed (reasons listed), 77 skipped (no Chromium
or no gcc).
"""
import argparse
import html
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, HERE)
from devtools_pipe import Chromium  # noqa: E402

SKIP = 77
SOURCES = ["sample.c", "lib/full.c", "lib/half.c"]


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


def run(cmd, cwd, timeout=120):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {p.returncode}:\n{p.stdout}{p.stderr}")
    return p.stdout


class Checks:
    def __init__(self):
        self.failures = []

    def expect(self, ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            self.failures.append(what)


def headless(chromium, profile, *args):
    return [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
            "--hide-scrollbars", f"--user-data-dir={profile}", *args]


def dump_dom(chromium, profile, url):
    return run(headless(chromium, profile, "--virtual-time-budget=3000", "--dump-dom", url), cwd=HERE)


def screenshot(chromium, profile, url, path):
    run(headless(chromium, profile, f"--screenshot={path}", "--window-size=1280,900", url), cwd=HERE)
    return os.path.getsize(path) > 1000


def marker_line(path, marker):
    with open(path, encoding="utf-8") as f:
        for number, text in enumerate(f, 1):
            if marker in text:
                return number
    raise RuntimeError(f"{marker} not found in {path}")


def row_class(dom, number):
    m = re.search(rf'<tr id="L{number}" class="([a-z]+)">', dom)
    return m.group(1) if m else None


def row_code(dom, number):
    m = re.search(rf'<tr id="L{number}" [^>]*>.*?<td class="code">(.*?)</td></tr>', dom, re.S)
    return m.group(1) if m else None


def table_rows(index_html):
    """(kind, name, {key: value}) of the files table's rows, in document order."""
    rows = []
    for m in re.finditer(r'<tr class="(group|file)" ([^>]*)>', index_html):
        attrs = dict(re.findall(r'data-([a-z]+)="([^"]*)"', m.group(2)))
        rows.append((m.group(1), html.unescape(attrs.pop("name")), {k: float(v) for k, v in attrs.items()}))
    return rows


def expected_order(rows, key, ascending):
    """File names in the order sort.js must produce (see its comparator)."""
    def sort_key(row):
        value = row[1].lower() if key == "name" else row[2][key]
        if not ascending:
            value = _Reversed(value)
        return (value, row[1].lower())

    groups = []
    for kind, name, values in rows:
        if kind == "group":
            groups.append(((kind, name, values), []))
        else:
            groups[-1][1].append((kind, name, values))
    groups.sort(key=lambda g: sort_key(g[0]))
    return [f[1] for _, files in groups for f in sorted(files, key=sort_key)]


class _Reversed:
    """Inverts one sort key, leaving the name tie-break ascending as sort.js does."""

    def __init__(self, v):
        self.v = v

    def __lt__(self, other):
        return other.v < self.v

    def __eq__(self, other):
        return self.v == other.v


def file_names_in(dom):
    return [html.unescape(n) for n in re.findall(r'<tr class="file" data-name="([^"]*)"', dom)]


def build_site(args, work):
    src = os.path.join(work, "src")
    shutil.copytree(os.path.join(HERE, "sample"), src)
    run([args.gcc, "--coverage", "-O0", "-o", "prog", *SOURCES], cwd=src)
    run(["./prog"], cwd=src)
    help_text = subprocess.run([args.covkit, "report", "--help"], capture_output=True, text=True)
    if help_text.returncode != 0 or "--html" not in help_text.stdout:
        raise RuntimeError(f"{args.covkit} has no `report --html`:\n{help_text.stdout}{help_text.stderr}")
    out = os.path.join(work, "site")
    run([args.covkit, "report", "--html", out, "."], cwd=src)
    return src, out


def check_source_page(c, chromium, profile, src, page_url, page_path):
    dom = dump_dom(chromium, profile, page_url)
    c.expect('data-ready="1"' in dom, "sort.js ran on the source page")
    sample = os.path.join(src, "sample.c")
    never = marker_line(sample, "MARK:never-called")
    not_taken = marker_line(sample, "MARK:branch-not-taken")
    c.expect(row_class(dom, never) == "uncovered", f"L{never} (in never_called) is uncovered: {row_class(dom, never)}")
    c.expect(row_class(dom, not_taken) == "uncovered",
             f"L{not_taken} (the branch never taken) is uncovered: {row_class(dom, not_taken)}")
    c.expect(row_class(dom, not_taken - 1) == "partial",
             f"L{not_taken - 1} (its if) is partial: {row_class(dom, not_taken - 1)}")
    main_line = marker_line(sample, "int main(void)")
    c.expect(row_class(dom, main_line) == "covered", f"L{main_line} (main) is covered")
    c.expect(row_class(dom, 1) == "nocode", "L1 (a comment) has no code")
    tab_line = marker_line(sample, "a tab-indented line")
    c.expect((row_code(dom, tab_line) or "").startswith("\ttotal +="), f"L{tab_line} keeps its tab")
    printf_line = marker_line(sample, "printf(")
    c.expect("total &lt;%d&gt; &amp; done" in (row_code(dom, printf_line) or ""), f"L{printf_line} is escaped")
    m = re.search(r'<tr class="uncovered" data-name="never_called"[^>]*>.*?<td class="num-cell calls">(\d+)</td>', dom)
    c.expect(bool(m) and m.group(1) == "0", "function table: never_called ran 0 times")
    m = re.search(rf'<tr id="L{not_taken - 1}" .*?<summary title="[^"]*">(\d+)/(\d+)</summary>', dom)
    c.expect(bool(m) and m.group(1) != m.group(2), f"L{not_taken - 1} shows some branches not taken")
    c.expect(screenshot(chromium, profile, page_url, page_path), f"screenshot {page_path}")


def check_directory_pages(c, chromium, profile, site, dir_path):
    """index -> lib's page -> half.c's page -> back to lib's page."""
    with open(os.path.join(site, "index.html"), encoding="utf-8") as f:
        index = f.read()
    m = re.search(r'<tr class="group" data-name="lib"[^>]*>.*?<a href="([^"]+)">lib</a>', index)
    c.expect(bool(m), "the index links the lib directory to its page")
    if not m:
        return
    lib_page = html.unescape(m.group(1))
    dom = dump_dom(chromium, profile, "file://" + os.path.join(site, lib_page))
    c.expect('data-ready="1"' in dom, "sort.js ran on the directory page")
    c.expect(file_names_in(dom) == ["full.c", "half.c"], f"lib's page lists its files: {file_names_in(dom)}")
    m = re.search(r'<tr class="file" data-name="half.c"[^>]*><td class="name"><a href="([^"]+)"', dom)
    half = dump_dom(chromium, profile, "file://" + os.path.join(site, html.unescape(m.group(1)))) if m else ""
    c.expect(f'<span class="crumb"> / <a href="{lib_page}">lib</a>/half.c</span>' in half,
             "half.c's header links lib to its page")
    c.expect(screenshot(chromium, profile, "file://" + os.path.join(site, lib_page), dir_path), f"screenshot {dir_path}")


HIGHLIGHT_JS = """(() => {
  const source = document.getElementById('source');
  const colour = sel => { const e = source.querySelector(sel); return e && getComputedStyle(e).color; };
  return {plain: colour('tr.nocode td.code'), keyword: colour('td.code span.k'), comment: colour('td.code span.c'),
          directive: colour('td.code span.p'), string: colour('td.code span.s'), number: colour('td.code span.n')};
})()"""


def check_highlighting(c, browser, scheme):
    colours = browser.evaluate(HIGHLIGHT_JS)
    kinds = ["keyword", "comment", "directive", "string", "number"]
    c.expect(all(colours[k] for k in kinds), f"{scheme}: every kind of token is highlighted: {colours}")
    c.expect(all(colours[k] != colours["plain"] for k in kinds) and len({colours[k] for k in kinds}) == len(kinds),
             f"{scheme}: each kind has its own colour, none the plain text's: {colours}")


def check_index_sorting(c, chromium, profile, index_url, index_path, site):
    with open(os.path.join(site, "index.html"), encoding="utf-8") as f:
        rows = table_rows(f.read())
    default = file_names_in(dump_dom(chromium, profile, index_url))
    c.expect(default == ["sample.c", "full.c", "half.c"], f"index lists files by directory, then name: {default}")
    for key, ascending in (("line", True), ("line", False), ("branch", True), ("func", False), ("name", False)):
        spec = f"{key}-{'asc' if ascending else 'desc'}"
        dom = dump_dom(chromium, profile, f"{index_url}#sort={spec}")
        got, want = file_names_in(dom), expected_order(rows, key, ascending)
        c.expect(got == want, f"#sort={spec}: {got} == {want}")
        direction = "ascending" if ascending else "descending"
        c.expect(re.search(rf'<th [^>]*data-sort="{key}"[^>]*aria-sort="{direction}"', dom) is not None,
                 f"#sort={spec}: its header shows {direction}")
    asc = expected_order(rows, "line", True)
    c.expect(asc != default, f"sorting by line % changes the order ({asc})")
    c.expect(screenshot(chromium, profile, index_url, index_path), f"screenshot {index_path}")


ORDER_JS = "Array.from(document.querySelectorAll('#files tr.file')).map(r => r.dataset.name)"


def check_interaction(c, chromium, profile, index_url, page_url, partial_line, shots):
    with Chromium(chromium, profile) as browser:
        browser.open(index_url)
        default = browser.evaluate(ORDER_JS)
        browser.evaluate("document.querySelector('#files th[data-sort=\"line\"]').click()")
        first = browser.evaluate(ORDER_JS)
        hash_after_first = browser.evaluate("location.hash")
        browser.evaluate("document.querySelector('#files th[data-sort=\"line\"]').click()")
        second = browser.evaluate(ORDER_JS)
        c.expect(first != default, f"a click on Lines sorts: {default} -> {first}")
        c.expect(hash_after_first == "#sort=line-asc", f"the click records the order: {hash_after_first}")
        c.expect(second != first, f"a second click reverses: {second}")
        c.expect(browser.evaluate("location.hash") == "#sort=line-desc", "the second click records line-desc")
        groups = browser.evaluate("Array.from(document.querySelectorAll('#files tr.group'))"
                                  ".map(r => parseFloat(r.dataset.line))")
        c.expect(groups == sorted(groups, reverse=True), f"directories by line % descending: {groups}")
        hidden = browser.evaluate(
            "(() => { const g = Array.from(document.querySelectorAll('#files tr.group'))"
            ".find(r => r.dataset.name === 'lib'); g.querySelector('button.toggle').click();"
            " return Array.from(g.parentElement.querySelectorAll('tr.file'))"
            ".map(r => getComputedStyle(r).display); })()")
        c.expect(hidden == ["none", "none"], f"the lib toggle hides its files: {hidden}")

        # A partial line's branch badge opens a list of its branches over the code.
        browser.open(page_url)
        popup = browser.evaluate(
            f"(() => {{ const d = document.querySelector('#L{partial_line} details.branches');"
            " d.querySelector('summary').click(); const r = d.querySelector('ul').getBoundingClientRect();"
            " return {open: d.open, text: d.querySelector('ul').innerText, height: r.height,"
            " right: r.right, width: innerWidth}; })()")
        c.expect(popup["open"] and popup["height"] > 20 and popup["right"] <= popup["width"],
                 f"L{partial_line}'s branch list opens on screen: {popup}")
        c.expect("branches taken" in popup["text"] and "never taken" in popup["text"],
                 f"it lists the branches: {popup['text']!r}")
        browser.screenshot(os.path.join(shots, "html-source-branches.png"))
        check_highlighting(c, browser, "light")

        # The dark palette, as a reader with a dark system theme sees it.
        browser.prefer_dark(True)
        browser.open(index_url)
        c.expect(browser.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(13, 17, 23)",
                 "prefers-color-scheme: dark switches the palette")
        browser.screenshot(os.path.join(shots, "html-index-dark.png"))
        browser.open(page_url)
        browser.screenshot(os.path.join(shots, "html-source-dark.png"))
        check_highlighting(c, browser, "dark")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--covkit", required=True)
    ap.add_argument("--workdir", required=True, help="scratch directory (emptied first)")
    ap.add_argument("--screenshots", required=True, help="where the .png files go")
    ap.add_argument("--gcc", default="gcc")
    ap.add_argument("--docs-images", help="also copy the light screenshots here (docs/images)")
    args = ap.parse_args()
    # Commands run in the scratch tree: paths given relative to here must still work.
    if os.sep in args.covkit:
        args.covkit = os.path.abspath(args.covkit)
    args.screenshots = os.path.abspath(args.screenshots)

    chromium = find_chromium()
    if not chromium:
        print("SKIP: no chromium (apt-get install chromium fonts-dejavu-core) - the HTML browser test needs it")
        return SKIP
    if not shutil.which(args.gcc):
        print(f"SKIP: no {args.gcc} to compile the sample program")
        return SKIP

    work = os.path.abspath(args.workdir)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.makedirs(args.screenshots, exist_ok=True)
    profile = os.path.join(work, "chromium-profile")
    try:
        src, site = build_site(args, work)
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
        print(f"FAIL: could not build the sample site: {e}")
        return 1

    with open(os.path.join(site, "index.html"), encoding="utf-8") as f:
        m = re.search(r'<tr class="file" data-name="sample.c"[^>]*><td class="name"><a href="([^"]+)"', f.read())
    if not m:
        print("FAIL: index.html has no row linking sample.c")
        return 1
    page = html.unescape(m.group(1))
    index_url = "file://" + os.path.join(site, "index.html")
    page_url = "file://" + os.path.join(site, page)
    index_png = os.path.join(args.screenshots, "html-index.png")
    source_png = os.path.join(args.screenshots, "html-source.png")

    c = Checks()
    check_source_page(c, chromium, profile, src, page_url, source_png)
    check_index_sorting(c, chromium, profile, index_url, index_png, site)
    directory_png = os.path.join(args.screenshots, "html-directory.png")
    check_directory_pages(c, chromium, profile, site, directory_png)
    partial_line = marker_line(os.path.join(src, "sample.c"), "MARK:branch-not-taken") - 1
    check_interaction(c, chromium, profile, index_url, page_url, partial_line, args.screenshots)

    if c.failures:
        print(f"\n{len(c.failures)} check(s) failed")
        return 1
    if args.docs_images:
        os.makedirs(args.docs_images, exist_ok=True)
        for png in (index_png, source_png, directory_png):
            shutil.copy(png, args.docs_images)
    print(f"\nall checks passed; screenshots in {args.screenshots}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
