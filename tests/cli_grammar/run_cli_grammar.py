#!/usr/bin/env python3
"""One grammar for every covkit command (docs/command-line.md), checked over
every command covkit lists (`covkit --help`, and the subcommands of trace,
live and sample): a command the tables below do not know fails the test, so
a new command cannot skip the rules.

  run_cli_grammar.py --covkit build/covkit --work DIR outputs|help_layout

outputs        every command that writes a file: `-o -` writes to standard
               output (no file named '-'), `-o FILE.ext` writes the format
               the extension names, `--json` means JSON (to stdout, to -o's
               FILE, or to its own FILE) or is refused in one line by the
               commands that have no JSON; commands that write a directory
               refuse `-o -` in one line.
help_layout    every --help: Usage first, then the description, Options, the
               exit status, examples; -o's [default: ...] after its FILE or
               DIR; `covkit help COMMAND...` prints it too.
documented     the manuals and --help agree: every option a command's --help
               lists is in its manual (docs/covkit-COMMAND.md; for report's
               options the subcommands that take them all, in
               covkit-report.md), and every covkit command line shown in
               README.md and docs/*.md names a command that exists, with
               options its --help lists.

The short-option rule (a letter means one thing) is checked over the
commands' definitions themselves: tests/unit/command_spec_test.cc, ShortOptions.

Exit 77 (skip) when gcc-12 is missing."""
import argparse
import glob
import json
import shlex
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


def run(argv, cwd, timeout=120, stdin=None):
    return subprocess.run([str(a) for a in argv], cwd=cwd, capture_output=True, timeout=timeout, stdin=stdin)


# ------------------------------------------------------------------ fixtures

PROG_C = r"""#include <stdio.h>
#include <stdlib.h>
static int square(int v) { return v * v; }
int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 12;
  if (n > 100) puts("big");
  printf("%d %d\n", fib(n), square(n));
  return 0;
}
"""

SERVER_C = r"""#include <stdio.h>
static int seen;
static void touch(int c) { seen += c; }
int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  puts("ready");
  int c;
  while ((c = getchar()) != EOF) touch(c);
  return seen == 0;
}
"""


class Fixtures:
    """Inputs of every command, made once: a --coverage build that ran, a
    trace, a -pg program's gmon.out, a sample recording, a running --coverage
    process."""

    def __init__(self, covkit, work):
        self.covkit, self.work = covkit, work
        if not shutil.which("gcc-12"):
            raise SystemExit(77)
        src = os.path.join(work, "prog.c")
        open(src, "w").write(PROG_C)
        open(os.path.join(work, "server.c"), "w").write(SERVER_C)
        self.build = os.path.join(work, "build")
        os.makedirs(self.build)
        self.cc(["--coverage", "-O0", "-o", os.path.join(self.build, "prog"), src], cwd=self.build)
        run([os.path.join(self.build, "prog")], self.build)
        self.tprog = os.path.join(work, "tprog")
        self.cc(["-finstrument-functions", "-O0", "-g", "-o", self.tprog, src])
        self.trace = os.path.join(work, "trace")
        r = run([covkit, "trace", "record", "-o", self.trace, "--", self.tprog], work)
        check(r.returncode == 0, f"fixture: trace record: {r.stderr.decode()}")
        self.pg = os.path.join(work, "pgprog")
        self.cc(["-pg", "-O0", "-o", self.pg, src])
        r = run([self.pg, "25"], work)
        self.gmon = os.path.join(work, "gmon.out")
        check(os.path.exists(self.gmon), "fixture: no gmon.out")
        self.plain = os.path.join(work, "plain")
        self.cc(["-O0", "-g", "-o", self.plain, src])
        self.sample = os.path.join(work, "rec")
        r = run([covkit, "sample", "record", "--mode", "breakpoint", "-o", self.sample, "--", self.plain], work)
        check(r.returncode == 0, f"fixture: sample record: {r.stderr.decode()}")
        # A block file and its block trace: trace-pc hooks run with
        # libcovkit-blocks (beside covkit).
        self.bprog = os.path.join(work, "bprog")
        libdir = os.path.dirname(os.path.abspath(covkit))
        self.cc(["-fsanitize-coverage=trace-pc", "-O0", "-g", "-o", self.bprog, src, "-L", libdir, "-lcovkit-blocks",
                 "-Wl,-rpath," + libdir])
        self.blocks = os.path.join(work, "blocks.txt")
        subprocess.run([self.bprog], cwd=work, capture_output=True, timeout=120,
                       env=dict(os.environ, COVKIT_BLOCKS_FILE=self.blocks, COVKIT_BLOCKS_TRACE="64k"))
        check(os.path.exists(self.blocks) and os.path.exists(self.blocks + ".trace"), "fixture: no block file or trace")
        self.server_build = os.path.join(work, "srv")
        os.makedirs(self.server_build)
        self.cc(["--coverage", "-O0", "-o", os.path.join(self.server_build, "server"),
                 os.path.join(work, "server.c")], cwd=self.server_build)
        self.server = None

    def cc(self, args, cwd=None):
        r = run(["gcc-12"] + args, cwd or self.work)
        check(r.returncode == 0, f"fixture: gcc-12 {' '.join(args)}: {r.stderr.decode()}")

    def start_server(self):
        self.server = subprocess.Popen([os.path.join(self.server_build, "server")], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, cwd=self.server_build)
        line = self.server.stdout.readline()
        check(line.strip() == b"ready", f"fixture: the server said {line!r}")
        self.server.stdin.write(b"abc")
        self.server.stdin.flush()
        return self.server.pid

    def stop_server(self):
        if self.server and self.server.poll() is None:
            self.server.kill()
            self.server.wait()


# ------------------------------------------------------------------ what each output holds

def is_json(data):
    try:
        json.loads(data)
        return True
    except (ValueError, UnicodeDecodeError):
        return False


SIGNATURES = {
    "lcov": lambda d: b"SF:" in d and b"end_of_record" in d,
    "cobertura": lambda d: d.startswith(b"<?xml") and b"<coverage" in d,
    "json": is_json,
    "markdown": lambda d: d.startswith(b"## ") and b"| File |" in d,
    "table": lambda d: b"TOTAL" in d and b"Lines" in d,
    "html": None,  # a directory
    "text": lambda d: len(d) > 0 and not is_json(d),
    "dot": lambda d: d.lstrip().startswith(b"digraph"),
    "svg": lambda d: b"<svg" in d,
    "png": lambda d: d.startswith(b"\x89PNG"),
    "callgrind": lambda d: b"events:" in d and b"fn=" in d,
    "csv": lambda d: d.count(b",") == 5 and d.endswith(b"\n"),
    "gprof": lambda d: b"Flat profile" in d or b"Call graph" in d,
}


class Command:
    """How one command writes: `writes` is "file", "dir" or "none"; `args`
    its inputs; `extensions` the formats -o FILE.ext gives; `json` whether it
    has JSON output; `default` what -o - writes."""

    def __init__(self, words, writes, args=(), extensions=None, json=False, default=None, live=False):
        self.words, self.writes, self.args = list(words), writes, list(args)
        self.extensions = extensions or {}
        self.json, self.default, self.live = json, default, live


def commands(fx):
    report_ext = {".info": "lcov", ".lcov": "lcov", ".xml": "cobertura", ".json": "json", ".md": "markdown",
                  ".txt": "table"}
    t = fx.trace
    return [
        Command(["report"], "file", [fx.build], report_ext, json=True, default="table"),
        Command(["merge"], "file", [], {".info": "lcov", ".json": "json"}, json=True, default="lcov"),
        Command(["gcov"], "exempt"),
        Command(["gprof"], "file", [fx.pg, fx.gmon],
                {".txt": "gprof", ".dot": "dot", ".svg": "svg", ".png": "png", ".callgrind": "callgrind",
                 ".json": "json"},
                json=True, default="gprof"),
        Command(["trace", "record"], "dir", ["--", fx.tprog]),
        Command(["trace", "report"], "file", [t], {".txt": "text", ".json": "json"}, json=True, default="text"),
        Command(["trace", "graph"], "file", [t],
                {".dot": "dot", ".gv": "dot", ".svg": "svg", ".png": "png", ".callgrind": "callgrind", ".json": "json"},
                json=True, default="dot"),
        Command(["trace", "timeline"], "file", [t], {".json": "json"}, json=True, default="json"),
        Command(["trace", "replay"], "file", [t], {".txt": "text"}, default="text"),
        Command(["trace", "dump"], "file", [t], {".txt": "text"}, default="text"),
        Command(["trace", "attach"], "none"),
        Command(["live", "dump"], "dir", ["PID"], live=True),
        Command(["live", "reset"], "none"),
        Command(["live", "report"], "file", ["PID"], report_ext, json=True, default="table", live=True),
        Command(["live", "unpack"], "dir", [os.path.join(fx.work, "no-stream")]),
        Command(["sample", "record"], "dir", ["--mode", "breakpoint", "--", fx.plain]),
        Command(["sample", "report"], "file", [fx.sample], report_ext, json=True, default="table"),
        Command(["sample", "compare"], "file", [fx.sample, "--against", fx.build],
                {".txt": "text", ".json": "json", ".csv": "csv"}, json=True, default="text"),
        Command(["sample", "dump"], "file", [fx.sample], {".txt": "text"}, default="text"),
        Command(["sample", "import-perf"], "dir", [os.path.join(fx.work, "no-perf.data")]),
        Command(["blocks", "report"], "file", [fx.blocks], report_ext, json=True, default="table"),
        Command(["blocks", "dump"], "file", [fx.blocks + ".trace"], {".txt": "text"}, default="text"),
        Command(["doctor"], "file", [], {".txt": "text", ".json": "json"}, json=True, default="text"),
        Command(["completion"], "file", ["bash"], {".bash": "text"}, default="text"),
    ]


def listed_commands(covkit, work):
    """Every command and subcommand covkit's own help lists."""
    out = []
    top = run([covkit, "--help"], work).stdout.decode()
    for name in re.findall(r"^  ([a-z][a-z0-9-]+)\s", top.split("Commands:", 1)[1].split("\n\n", 1)[0], re.M):
        sub = run([covkit, name, "--help"], work).stdout.decode()
        if "Subcommands:" in sub:
            block = sub.split("Subcommands:", 1)[1].split("\n\n", 1)[0]
            out += [[name, s] for s in re.findall(r"^  ([a-z][a-z0-9-]+)\s", block, re.M)]
        else:
            out.append([name])
    return out


def merge_inputs(fx, d):
    """Two tracefiles for merge, from report."""
    a, b = os.path.join(d, "a.info"), os.path.join(d, "b.info")
    for f in (a, b):
        r = run([fx.covkit, "report", "-q", "--lcov", f, fx.build], d)
        check(r.returncode == 0, f"merge inputs: {r.stderr.decode()}")
    return [a, b]


def scenario_outputs(covkit, work):
    fx = Fixtures(covkit, work)
    table = commands(fx)
    known = {" ".join(c.words) for c in table}
    for words in listed_commands(covkit, work):
        check(" ".join(words) in known, f"covkit {' '.join(words)}: no entry in the grammar tables of {__file__}")
    checked = 0
    try:
        for c in table:
            if c.writes in ("exempt", "none"):
                continue
            d = os.path.join(work, "-".join(c.words))
            os.makedirs(d, exist_ok=True)
            args = merge_inputs(fx, d) if c.words == ["merge"] else list(c.args)
            if c.live:
                args = [str(fx.start_server()) if a == "PID" else a for a in args]
            try:
                checked += check_command(covkit, c, args, d)
            finally:
                if c.live:
                    fx.stop_server()
    finally:
        fx.stop_server()
    print(f"outputs: {checked} checks over {len(table)} commands")


def check_command(covkit, c, args, d):
    name = "covkit " + " ".join(c.words)
    base = [covkit] + c.words
    n = 0
    if c.writes == "dir":
        r = run(base + ["-o", "-"] + args, d)
        err = r.stderr.decode()
        check(r.returncode == 1 and err.count("\n") == 1 and "standard output" in err,
              f"{name} -o -: a directory cannot go to standard output; got {r.returncode} {err!r}")
        check(not os.path.exists(os.path.join(d, "-")), f"{name} -o -: created a file named '-'")
        r = run(base + ["--json"] + args, d)
        check(r.returncode == 1 and "--json" in r.stderr.decode(), f"{name} --json: not refused: {r.stderr!r}")
        return 2
    # -o -: standard output, no file named '-'.
    r = run(base + ["-o", "-"] + args, d)
    check(r.returncode == 0, f"{name} -o -: exit {r.returncode}: {r.stderr.decode()}")
    check(not os.path.exists(os.path.join(d, "-")), f"{name} -o -: wrote a file named '-'")
    check(SIGNATURES[c.default](r.stdout), f"{name} -o -: not {c.default} on stdout: {r.stdout[:200]!r}")
    n += 1
    # -o FILE.ext: the format of the extension.
    for ext, fmt in c.extensions.items():
        out = os.path.join(d, "out" + ext)
        r = run(base + ["-o", out] + args, d)
        check(r.returncode == 0, f"{name} -o out{ext}: exit {r.returncode}: {r.stderr.decode()}")
        data = open(out, "rb").read()
        check(SIGNATURES[fmt](data), f"{name} -o out{ext}: not {fmt}: {data[:200]!r}")
        n += 1
    # --json: the same meaning everywhere.
    if c.json:
        r = run(base + ["--json"] + args, d)
        check(r.returncode == 0 and is_json(r.stdout), f"{name} --json: no JSON on stdout: {r.returncode} "
                                                       f"{r.stderr.decode()} {r.stdout[:200]!r}")
        out = os.path.join(d, "via-o.json")
        r = run(base + ["--json", "-o", out] + args, d)
        check(r.returncode == 0 and is_json(open(out, "rb").read()), f"{name} --json -o FILE: {r.stderr.decode()}")
        out = os.path.join(d, "own.json")
        r = run(base + ["--json", out] + args, d)
        check(r.returncode == 0 and is_json(open(out, "rb").read()), f"{name} --json FILE: {r.stderr.decode()}")
        n += 3
    else:
        r = run(base + ["--json"] + args, d)
        err = r.stderr.decode()
        check(r.returncode == 1 and "--json" in err and err.count("\n") == 1,
              f"{name} --json: a command without JSON output refuses it in one line; got {r.returncode} {err!r}")
        n += 1
    return n


# ------------------------------------------------------------------ help

def scenario_help_layout(covkit, work):
    problems = []
    for words in listed_commands(covkit, work):
        r = run([covkit] + words + ["--help"], work)
        text = r.stdout.decode()
        name = "covkit " + " ".join(words)
        if r.returncode != 0:
            problems.append(f"{name} --help: exit {r.returncode}")
            continue
        lines = text.splitlines()
        if not lines or not lines[0].startswith("Usage: " + name):
            problems.append(f"{name} --help: the first line is not 'Usage: {name} ...': {lines[:1]}")
        order = [text.find(h) for h in ("Options:", "Exit status:", "Examples:")]
        if -1 in order or order != sorted(order):
            problems.append(f"{name} --help: not Usage, description, Options:, Exit status:, Examples: in order")
        # -o's "[default: ...]" ends its description ("Write the text
        # [default: standard output] to FILE" read wrong).
        for line in lines:
            if re.match(r"^\s{1,8}-", line) and re.search(r"\[default: [^\]]*\].* (to FILE|into DIR)", line):
                problems.append(f"{name} --help: a [default: ...] inside a description: {line.strip()}")
        # `covkit help WORDS` is the same page, as git's and cargo's help.
        h = run([covkit, "help"] + words, work)
        if (h.returncode, h.stdout, h.stderr) != (0, r.stdout, b""):
            problems.append(f"covkit help {' '.join(words)}: exit {h.returncode}, not what {name} --help prints")
    h = run([covkit, "help", "reprot"], work)
    if h.returncode != 1 or h.stdout or h.stderr.decode().count("\n") != 1 or "'report'" not in h.stderr.decode():
        problems.append(f"covkit help reprot: not one line suggesting report: {h.returncode} {h.stderr!r}")
    check(not problems, "\n  ".join(problems))


# ------------------------------------------------------------------ documented

def help_options(text):
    """The options an --help lists in its option lines ("  -o,--output FILE  ...")."""
    found = set()
    for line in text.splitlines():
        m = re.match(r"^\s{1,8}(-[^\s].*?)(?:\s{2,}|$)", line)
        if m:
            for opt in re.findall(r"(?<![\w-])(--?[A-Za-z0-9][\w-]*)", m.group(1)):
                # gprof's -pSYM, -qFROM/TO: a letter with its value attached.
                found.add(opt[:2] if re.match(r"^-[A-Za-z][A-Z]{2,}", opt) else opt)
    return found


def code_lines(path):
    """(line number, text) of each line of the Markdown file's code: fenced
    blocks and blocks indented by four spaces after a blank line."""
    out, fence, indented, blank = [], False, False, True
    for n, line in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
        if line.startswith("```"):
            fence = not fence
            continue
        indented = line.startswith("    ") and (indented or blank) or (indented and not line.strip())
        blank = not line.strip()
        if fence or indented:
            out.append((n, line))
    return out


def documented_commands(line):
    """The covkit command lines in a shell line: [words after covkit], comments
    dropped, split at ;, &&, ||, | and &."""
    found = []
    for part in re.split(r"&&|\|\||;|\||&", re.sub(r"(^|\s)#.*$", "", line)):
        m = re.match(r"^\s*(?:\$ )?(?:[A-Z_]+=\S+\s+)*(covkit(?:-gcov)?)\s+(\S.*)$", part)
        if m:
            try:
                words = shlex.split(m.group(2))
            except ValueError:
                words = m.group(2).split()
            found.append((["gcov"] if m.group(1) == "covkit-gcov" else []) + words)
    return found


def scenario_documented(covkit, work):
    source = os.path.normpath(os.path.join(HERE, "..", ".."))
    helps = {}
    for words in listed_commands(covkit, work):
        helps[tuple(words)] = help_options(run([covkit] + words + ["--help"], work).stdout.decode())
        if len(words) == 2:
            helps.setdefault((words[0],), set())
    report_options = helps[("report",)]
    problems = []
    # --help -> manual.
    for words, options in sorted(helps.items()):
        manual = os.path.join(source, "docs", f"covkit-{words[0]}.md")
        if not os.path.isfile(manual):
            manual = os.path.join(source, "docs", "covkit.md")  # completion: a section of covkit(1)
        text = open(manual, encoding="utf-8").read()
        for opt in sorted(options - {"-h", "--help"}):
            if re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(opt), text):
                continue
            if opt in report_options and "[covkit report options]" in text:
                continue  # live/sample/blocks report: documented in covkit-report.md
            problems.append(f"covkit {' '.join(words)} --help lists {opt}, {os.path.relpath(manual, source)} does not")
    # Manuals -> commands and options.
    files = [os.path.join(source, "README.md")] + sorted(glob.glob(os.path.join(source, "docs", "*.md")))
    shown = 0
    for path in files:
        for n, line in code_lines(path):
            for words in documented_commands(line):
                if not re.match(r"^[a-z][a-z-]*$", words[0]) or any(w.endswith(":") for w in words[:2]):
                    continue  # covkit --version, COMMAND, 0.1.0, or a message ("covkit sample report: note: ...")
                if not line.lstrip().startswith(("covkit", "$ covkit")) and (words[0],) not in helps:
                    continue  # prose in an example's output ("... (GCC 12.2's layout); covkit reads it")
                where = f"{os.path.relpath(path, source)}:{n}"
                key = (words[0],)
                if key not in helps:
                    problems.append(f"{where}: no command covkit {words[0]}: {line.strip()}")
                    continue
                rest = words[1:]
                if rest and key + (rest[0],) in helps:
                    key, rest = key + (rest[0],), rest[1:]
                shown += 1
                for w in rest:
                    if w == "--":
                        break  # the traced program's own arguments
                    if not re.match(r"^--?[A-Za-z]", w):
                        continue
                    opt = w.split("=")[0] if w.startswith("--") else w[:2]
                    if opt not in helps[key]:
                        problems.append(f"{where}: covkit {' '.join(key)} has no option {opt}: {line.strip()}")
    check(shown >= 100, f"the manuals show covkit command lines ({shown} found: is code_lines right?)")
    check(not problems, "\n  ".join(problems))


SCENARIOS = {"outputs": scenario_outputs, "help_layout": scenario_help_layout, "documented": scenario_documented}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--covkit", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("scenario", choices=sorted(SCENARIOS))
    args = ap.parse_args()
    work = os.path.join(os.path.abspath(args.work), args.scenario)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    try:
        SCENARIOS[args.scenario](os.path.abspath(args.covkit), work)
    except Failure as e:
        print(f"FAIL {args.scenario}: {e}", file=sys.stderr)
        return 1
    print(f"ok {args.scenario}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
