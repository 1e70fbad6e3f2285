#!/usr/bin/env python3
"""covkit as a user gets it: `cmake --install` into a prefix, the Debian
package, man pages, shell completions and the CMake package, each used as a
user would, from outside the build tree.

  run_install_tests.py --build BUILD --source SRC --prefix P SCENARIO

Scenarios (one ctest test each; `prefix` installs once for the others):
  prefix         cmake --install BUILD --prefix P (P is emptied first)
  layout         what the prefix holds: the program, the covkit-gcov and gcov
                 links, runtimes, firmware runtime, CMake package, docs, one
                 version everywhere
  relocated      P copied elsewhere, then the build and source trees hidden
                 (a mount namespace): trace record (preloaded and --static),
                 sample record, live dump, report --html, covkit-gcov, the
                 firmware runtime compiled, all from the copy
  man            every man page renders without warnings and is the manual
                 it comes from; `man covkit-report` finds it under P
  completion     every option of every --help is in the bash, zsh and fish
                 scripts; bash, zsh and fish complete commands, options,
                 files, directories, processes and fixed words
  cmake_package  a small CMake project finds the installed package and uses
                 covkit_enable_coverage, covkit_enable_tracing and
                 covkit_add_coverage_report end to end, gates included
  uninstall      the uninstall target removes what `cmake --install` put in
                 a prefix (and under DESTDIR), covkit's own directories with
                 it, and nothing else
  deb            cpack -G DEB: the .deb's name, contents, shared-library
                 Depends and lintian; unpacked with dpkg -x and run on the
                 bundled example

Exit 0 on success, 1 on a failure, 77 when a tool the scenario needs is
missing (install-deps.sh installs them all). Without a mount namespace
(neither root nor user namespaces) `relocated` runs with the trees visible.
"""
import argparse
import glob
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


class Failure(Exception):
    pass


class Skip(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


def run(cmd, cwd=None, env=None, ok=True, timeout=600, input=None):
    p = subprocess.run(cmd, cwd=cwd, env=env, input=input, capture_output=True, text=True, timeout=timeout)
    if ok and p.returncode != 0:
        raise Failure("%s: exit %d\n%s%s" % (" ".join(cmd), p.returncode, p.stdout[-3000:], p.stderr[-3000:]))
    return p


def need(tool):
    if not shutil.which(tool):
        raise Skip("%s is not installed (scripts/install-deps.sh installs it)" % tool)


def version_of(covkit):
    out = run([covkit, "--version"]).stdout
    m = re.match(r"covkit (\S+)\n", out)
    check(m, "covkit --version's first line is 'covkit VERSION': %r" % out[:80])
    return m.group(1)


class Env:
    def __init__(self, a):
        self.build = os.path.abspath(a.build)
        self.source = os.path.abspath(a.source)
        self.prefix = os.path.abspath(a.prefix)
        self.covkit = os.path.join(self.build, "covkit")

    def installed(self):
        if not os.path.isfile(os.path.join(self.prefix, "bin", "covkit")):
            raise Failure("no install in %s: the install.prefix test must run first" % self.prefix)
        return self.prefix

    def libdir(self, root):
        """The installed private library directory (lib/covkit or lib/ARCH/covkit)."""
        found = [d for d in glob.glob(os.path.join(root, "lib", "covkit")) + glob.glob(os.path.join(root, "lib", "*", "covkit"))
                 if os.path.isfile(os.path.join(d, "libcovkit-trace.so"))]
        check(len(found) == 1, "one LIBDIR/covkit under %s: %s" % (root, found))
        return found[0]


# ---------------------------------------------------------------- prefix

def scenario_prefix(e):
    shutil.rmtree(e.prefix, ignore_errors=True)
    run(["cmake", "--install", e.build, "--prefix", e.prefix])
    check(os.path.isfile(os.path.join(e.prefix, "bin", "covkit")), "bin/covkit installed")


# ---------------------------------------------------------------- layout

def scenario_layout(e):
    p = e.installed()
    lib = e.libdir(p)
    expect_files = [
        "bin/covkit",
        "share/covkit/gcov_stream/gcov_stream.c",
        "share/covkit/gcov_stream/gcov_stream.h",
        "share/doc/covkit/README.md",
        "share/doc/covkit/copyright",
        "share/doc/covkit/covkit-report.md",
        "share/doc/covkit/covkit-doctor.md",
        "share/man/man1/covkit.1.gz",
        "share/man/man1/covkit-report.1.gz",
        "share/man/man1/covkit-doctor.1.gz",
        "share/man/man5/covkit-trace-format.5.gz",
        "share/bash-completion/completions/covkit",
        "share/zsh/site-functions/_covkit",
        "share/fish/vendor_completions.d/covkit.fish",
    ]
    for rel in expect_files:
        check(os.path.isfile(os.path.join(p, rel)), "%s installed" % rel)
    for name in ("libcovkit-trace.so", "libcovkit-sample.so", "libcovkit-trace.a", "libcovkit-blocks.so",
                 "libcovkit-blocks.a"):
        check(os.path.isfile(os.path.join(lib, name)), "%s in %s" % (name, lib))
    # The links: relative, so that the prefix can move.
    for link, target in (("bin/covkit-gcov", "covkit"),):
        path = os.path.join(p, link)
        check(os.path.islink(path) and os.readlink(path) == target, "%s -> %s" % (link, target))
    gcov = os.path.join(lib, "bin", "gcov")
    check(os.path.islink(gcov) and not os.path.isabs(os.readlink(gcov)), "LIBDIR/covkit/bin/gcov is a relative link")
    check(os.path.realpath(gcov) == os.path.realpath(os.path.join(p, "bin", "covkit")), "bin/gcov -> covkit")
    # Nothing of the build tree in the prefix: no RUNPATH into it, no text naming it.
    dyn = run(["readelf", "-d", os.path.join(p, "bin", "covkit")]).stdout
    check("RUNPATH" not in dyn and "RPATH" not in dyn, "the installed covkit has no RUNPATH: %s" %
          [l for l in dyn.splitlines() if "PATH" in l])
    for cfg in glob.glob(os.path.join(p, "lib", "**", "cmake", "covkit", "*.cmake"), recursive=True):
        text = open(cfg, encoding="utf-8").read()
        check(e.build not in text and e.source not in text, "%s names no build or source path" % cfg)
    # One version: the program, covkit-gcov -v, the CMake package, the man pages.
    version = version_of(os.path.join(p, "bin", "covkit"))
    gcov_v = run([os.path.join(p, "bin", "covkit-gcov"), "-v"]).stdout.splitlines()[0]
    check(gcov_v == "gcov (covkit %s) 12.2.0" % version, "covkit-gcov -v: %r" % gcov_v)
    cfgv = glob.glob(os.path.join(p, "lib", "**", "covkitConfigVersion.cmake"), recursive=True)
    check(len(cfgv) == 1, "one covkitConfigVersion.cmake: %s" % cfgv)
    check('set(PACKAGE_VERSION "%s")' % version in open(cfgv[0]).read(), "the CMake package's version is %s" % version)
    page = gzip.open(os.path.join(p, "share/man/man1/covkit.1.gz"), "rt").read()
    check('"covkit %s"' % version in page.split("\n", 3)[1] + page.split("\n", 3)[0], "the man page's version")
    out = run([os.path.join(p, "bin", "covkit"), "--version"]).stdout
    check(re.search(r"^commit [0-9a-f]{12}(-modified)?$|^commit unknown$", out, re.M), "--version names the commit: %r" % out)
    check("built with:" in out and "libcovkit-trace" in out, "--version lists the parts built in: %r" % out)


# ---------------------------------------------------------------- relocated

PROGRAMS = {
    "hello.c": None,  # examples/hello/hello.c
    "waiter.c": r"""
/* Counts, says it is ready, then waits for its stdin to close: a server
   that never exits on its own, for covkit live dump. */
#include <stdio.h>
#include <unistd.h>
static int work(int n) { int s = 0; for (int i = 0; i < n; i++) s += i % 3 ? i : -i; return s; }
int main(int argc, char **argv) {
  int s = work(1000);
  FILE *f = fopen(argv[1], "w");
  fprintf(f, "%d\n", s);
  fclose(f);
  char c;
  while (read(0, &c, 1) > 0) {}
  return 0;
}
""",
}

RELOCATED_SCRIPT = r"""
set -eu
P=$1
cd "$2"
if [ "$HIDDEN" = 1 ]; then
  test ! -e "$BUILD/covkit" || { echo "the build tree is still visible"; exit 1; }
  test ! -e "$SOURCE/CMakeLists.txt" || { echo "the source tree is still visible"; exit 1; }
fi
"$P/bin/covkit" --version | head -1

# trace record, the runtime preloaded from P/LIBDIR/covkit.
gcc -finstrument-functions -g -O1 -o hello-trace hello.c
"$P/bin/covkit" trace record -o trace.data -- ./hello-trace 50 > trace.out
"$P/bin/covkit" trace report trace.data > trace.report
grep -q 'is_prime' trace.report

# trace record --static, the program linked with the installed archive.
gcc -finstrument-functions -g -O1 -o hello-static hello.c "$LIBDIR/libcovkit-trace.a" -pthread
"$P/bin/covkit" trace record --static -o static.data -- ./hello-static 50 > static.out
"$P/bin/covkit" trace report static.data | grep -q 'is_prime'

# blocks report: -fsanitize-coverage hooks run by the installed runtime,
# linked as a shared library (and its block trace dumped), and from the
# archive.
gcc -fsanitize-coverage=trace-pc -g -O0 -o hello-blocks hello.c -L"$LIBDIR" -Wl,-rpath,"$LIBDIR" -lcovkit-blocks
COVKIT_BLOCKS_FILE=$PWD/blocks.%p COVKIT_BLOCKS_TRACE=1M ./hello-blocks 50 > blocks.out
"$P/bin/covkit" blocks report -q --lcov blocks.info blocks.[0-9]*[0-9]
grep -q 'FNDA:[1-9][0-9]*,is_prime' blocks.info
"$P/bin/covkit" blocks dump blocks.[0-9]*[0-9] | grep -q 'is_prime+0x'
gcc -fsanitize-coverage=trace-pc -g -O0 -o hello-blocks-static hello.c "$LIBDIR/libcovkit-blocks.a"
COVKIT_BLOCKS_FILE=$PWD/static-blocks ./hello-blocks-static 50 > blocks-static.out
"$P/bin/covkit" blocks report -q --lcov - static-blocks | grep -q 'FNDA:[1-9][0-9]*,is_prime'

# sample record in breakpoint mode: libcovkit-sample.so preloaded, and
# covkit serving its plan.
gcc -O1 -g -o hello-plain hello.c
"$P/bin/covkit" sample record --mode breakpoint -o rec -- ./hello-plain 50 > sample.out
"$P/bin/covkit" sample report rec --lcov sample.info > /dev/null
grep -q 'SF:.*hello.c' sample.info

# live dump of a running --coverage program.
gcc --coverage -O0 -o waiter waiter.c
rm -f ready
mkfifo hold
./waiter ready < hold &
pid=$!
exec 3> hold
i=0
# (a bound for a hang only: a loaded machine starts the waiter late)
while [ ! -s ready ] && [ $i -lt 2400 ]; do sleep 0.05; i=$((i + 1)); done
test -s ready || { echo "waiter did not get ready"; exit 1; }
"$P/bin/covkit" live dump "$pid" -o snap > live.out 2>&1 || { cat live.out; exit 1; }
exec 3>&-
wait "$pid"
test -n "$(find snap -name 'waiter.gcda')"

# report --html and covkit-gcov from a --coverage build.
gcc --coverage -O0 -c hello.c -o hello.o
gcc --coverage -o hello-cov hello.o
./hello-cov 40 > /dev/null
"$P/bin/covkit" report --html html --lcov cov.info . > report.out
test -s html/index.html
grep -q 'SF:.*hello.c' cov.info
"$P/bin/covkit-gcov" -b hello.c > gcov.out
cp hello.c.gcov via-link.gcov
"$P/bin/covkit" gcov -b hello.c > /dev/null
cmp hello.c.gcov via-link.gcov
PATH="$LIBDIR/bin:$PATH" gcov -b hello.c > /dev/null
cmp hello.c.gcov via-link.gcov

# The firmware runtime's source compiles as shipped.
gcc -std=c11 -ffreestanding -Wall -Wextra -Werror -c "$P/share/covkit/gcov_stream/gcov_stream.c" -o stream.o
echo relocated-ok
"""


def mount_namespace_prefix():
    """The command that runs a shell in a private mount namespace."""
    need("unshare")
    if os.geteuid() == 0:
        probe = ["unshare", "--mount", "--propagation", "private", "true"]
        if subprocess.run(probe, capture_output=True).returncode == 0:
            return ["unshare", "--mount", "--propagation", "private"]
    probe = ["unshare", "--user", "--map-root-user", "--mount", "true"]
    if subprocess.run(probe, capture_output=True).returncode == 0:
        return ["unshare", "--user", "--map-root-user", "--mount"]
    return None


def scenario_relocated(e):
    need("gcc")
    p = e.installed()
    namespace = mount_namespace_prefix()
    with tempfile.TemporaryDirectory(prefix="covkit-relocated-") as tmp:
        # Elsewhere, so that nothing can be found by the place it was installed at.
        moved = os.path.join(tmp, "moved-prefix")
        shutil.copytree(p, moved, symlinks=True)
        lib = e.libdir(moved)
        work = os.path.join(tmp, "work")
        os.makedirs(work)
        shutil.copy(os.path.join(e.source, "examples", "hello", "hello.c"), work)
        with open(os.path.join(work, "waiter.c"), "w") as f:
            f.write(PROGRAMS["waiter.c"])
        script = os.path.join(tmp, "relocated.sh")
        with open(script, "w") as f:
            f.write(RELOCATED_SCRIPT)
        hide = "mount -t tmpfs none %s && " % sh_quote(e.build) if not e.build.startswith(e.source + "/") else ""
        hide += "mount -t tmpfs none %s && " % sh_quote(e.source)
        env = dict(os.environ, BUILD=e.build, SOURCE=e.source, LIBDIR=lib, HIDDEN="1")
        command = "exec sh %s %s %s" % (sh_quote(script), sh_quote(moved), sh_quote(work))
        if namespace:
            command = namespace + ["sh", "-c", hide + command]
        else:
            # No mount namespace (a container without the privilege, as CI
            # may be): the moved install still runs everything, the trees
            # merely stay visible (covkit looks only beside itself and in
            # its own LIBDIR/covkit, tests/install checks the layout).
            print("note: no mount namespace here (not root, no user namespaces): the build tree stays visible")
            env["HIDDEN"] = "0"
            command = ["sh", "-c", command]
        p_run = run(command, env=env, ok=False, timeout=300)
        check(p_run.returncode == 0 and "relocated-ok" in p_run.stdout,
              "the moved install works with the build tree hidden (exit %d):\n%s\n%s" %
              (p_run.returncode, p_run.stdout[-2000:], p_run.stderr[-3000:]))


def sh_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


# ---------------------------------------------------------------- man

# manual -> page
MANUALS = {
    "covkit.md": "man1/covkit.1.gz",
    "covkit-gcov.md": "man1/covkit-gcov.1.gz",
    "covkit-report.md": "man1/covkit-report.1.gz",
    "covkit-merge.md": "man1/covkit-merge.1.gz",
    "covkit-trace.md": "man1/covkit-trace.1.gz",
    "covkit-gprof.md": "man1/covkit-gprof.1.gz",
    "covkit-live.md": "man1/covkit-live.1.gz",
    "covkit-sample.md": "man1/covkit-sample.1.gz",
    "covkit-blocks.md": "man1/covkit-blocks.1.gz",
    "covkit-doctor.md": "man1/covkit-doctor.1.gz",
    "report-formats.md": "man5/covkit-report-formats.5.gz",
    "trace-format.md": "man5/covkit-trace-format.5.gz",
    "sample-format.md": "man5/covkit-sample-format.5.gz",
    "covkit-cmake.md": "man7/covkit-cmake.7.gz",
    "covkit-clang.md": "man7/covkit-clang.7.gz",
    "command-line.md": "man7/covkit-command-line.7.gz",
}


def words_of(text):
    """The words of a text, for comparing a manual with its rendered page:
    letters and digits only (markup, hyphenation and fonts differ)."""
    return re.findall(r"[A-Za-z0-9]+", text)


def scenario_man(e):
    need("man")
    need("groff")
    p = e.installed()
    mandir = os.path.join(p, "share", "man")
    docs = os.path.join(e.source, "docs")
    # Every command's manual is a page (a new command needs one).
    commands = [l.split()[0] for l in run([e.covkit, "--help"]).stdout.split("Commands:\n")[1].split("\n\n")[0]
                .splitlines() if l.startswith("  ") and not l.startswith("   ")]
    for c in commands:
        if c == "completion":
            continue  # a section of covkit(1)
        check(os.path.isfile(os.path.join(docs, "covkit-%s.md" % c)), "docs/covkit-%s.md exists" % c)
        # The command's --help points at its manual.
        help_text = run([e.covkit, c, "--help"]).stdout
        check("covkit-%s" % c in help_text, "covkit %s --help names its manual (covkit-%s)" % (c, c))
        check("covkit-%s.md" % c in MANUALS, "covkit-%s.md has a man page" % c)
    # Every manual in docs/ (covkit*.md, *-format*.md: what the install puts
    # in the doc directory) is a page too, a new one included.
    for manual in sorted(os.listdir(docs)):
        if re.match(r"covkit.*\.md$|.*-formats?\.md$", manual):
            check(manual in MANUALS, "docs/%s has a man page (cmake/manuals.cmake)" % manual)
    env = dict(os.environ, LC_ALL="C.UTF-8", MANWIDTH="100", MAN_KEEP_FORMATTING="", MANPAGER="cat", PAGER="cat")
    for manual, page in MANUALS.items():
        path = os.path.join(mandir, page)
        check(os.path.isfile(path), "%s installed" % page)
        raw = gzip.open(path, "rt", encoding="ascii").read()
        # groff itself, all warnings but the layout ones long words give.
        # (A wide table of short words in a narrow terminal is layout, not
        # a fault of the page.)
        g = run(["groff", "-t", "-man", "-Tutf8", "-wall", "-Wbreak", "-z"], input=raw, ok=False)
        warnings = re.sub(r"warning: file '<standard input>', around line \d+:\n\s*table wider than line width\n", "",
                          g.stderr)
        check(g.returncode == 0 and not warnings.strip(), "%s renders without warnings: %s" % (page, warnings[:500]))
        rendered = run(["man", "-l", path], env=env).stdout
        rendered = re.sub(r".\x08", "", rendered)
        check(rendered.lstrip().startswith(os.path.basename(page).split(".")[0].upper()), "%s's header" % page)
        check(re.search(r"^NAME\n\s+\S+ - \S", rendered, re.M), "%s has a NAME line 'name - what'" % page)
        # The page says what the manual says: every word of the manual, in
        # order (rendering joins hyphenated words and drops markup).
        # (A link to another manual shows its text; the file name it points
        # at is not the page's to say.)
        text = open(os.path.join(docs, manual), encoding="utf-8").read()
        text = re.sub(r"\]\((?!https?:)[^)]*\)", "]", text)
        text = text.replace("`", "").replace("**", "")
        source_words = words_of(text)
        page_words = words_of(rendered)
        joined = " ".join(page_words)
        # (Headings are upper case on a page.)
        page_set = {w.lower() for w in page_words}
        missing = [w for w in set(source_words) if w.lower() not in page_set]
        check(not missing, "%s: words of %s missing from the page: %s" % (page, manual, sorted(missing)[:20]))
        check(len(page_words) >= 0.95 * len(source_words), "%s holds the whole manual (%d of %d words)" %
              (page, len(page_words), len(source_words)))
        del joined
    # man finds the pages under the prefix, by name.
    w = run(["man", "-w", "covkit-report"], env=dict(env, MANPATH=mandir)).stdout.strip()
    check(w == os.path.join(mandir, "man1", "covkit-report.1.gz"), "man -w covkit-report: %r" % w)
    # The pages in the build tree are the installed ones (one source).
    for page in MANUALS.values():
        check(open(os.path.join(e.build, "man", page), "rb").read() == open(os.path.join(mandir, page), "rb").read(),
              "%s: the build's page is the installed one" % page)


# ---------------------------------------------------------------- completion

def command_paths(covkit):
    """Every command path with its --help text: ("report",), ("trace", "record")..."""
    top = run([covkit, "--help"]).stdout
    paths = []
    for line in top.split("Commands:\n")[1].split("\n\n")[0].splitlines():
        if line.startswith("  ") and not line.startswith("   "):
            paths.append((line.split()[0],))
    out = []
    for p in paths:
        text = run([covkit, *p, "--help"]).stdout
        out.append((p, text))
        m = re.search(r"^Subcommands:\n((?:  .*\n?)+)", text, re.M)
        if m:
            for sub in m.group(1).splitlines():
                name = sub.split()[0]
                out.append((p + (name,), run([covkit, *p, name, "--help"]).stdout))
    return out


def help_options(text):
    """The options an --help lists: in its option lines ("  -o, --output FILE
    ..."), each -x and --long-name before the description."""
    found = set()
    for line in text.splitlines():
        m = re.match(r"^\s{1,8}(-[^\s].*?)(?:\s{2,}|$)", line)
        if not m:
            continue
        head = m.group(1)
        for opt in re.findall(r"(?<![\w-])(--?[A-Za-z0-9][\w-]*)", head):
            # gprof's -pSYM, -qFROM/TO: a letter with its value attached.
            if re.match(r"^-[A-Za-z][A-Z]{2,}", opt):
                opt = opt[:2]
            found.add(opt)
    return found


def bash_complete(script, words, cwd):
    """COMPREPLY for the command line `words` (the last is the word being
    completed), from the bash script sourced in a clean bash."""
    driver = ("source %s\nCOMP_WORDS=(%s)\nCOMP_CWORD=%d\nCOMPREPLY=()\n_covkit\nprintf '%%s\\n' \"${COMPREPLY[@]}\"\n"
              % (sh_quote(script), " ".join(sh_quote(w) for w in words), len(words) - 1))
    p = run(["bash", "--norc", "--noprofile", "-c", driver], cwd=cwd)
    return [l for l in p.stdout.splitlines() if l]


def fish_complete(script, line, cwd):
    p = run(["fish", "--no-config", "-c", "source %s; complete -C%s" % (sh_quote(script), sh_quote(line))], cwd=cwd)
    return [l.split("\t")[0] for l in p.stdout.splitlines() if l]


ZSH_DRIVER = r"""
# Completes "$2" with zsh's own completion system (compinit, _covkit from
# directory $1) in an interactive zsh on a pseudo-terminal, in directory
# $3: a widget runs the completion and prints every match it added.
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z 'PS1="%% "; PROMPT_EOL_MARK=""'
zpty -w z "fpath=($1 \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w z 'covkit_show() { typeset -ga __ck_matches; __ck_matches=(); compadd() { local -a __ck_m; builtin compadd -O __ck_m "$@"; __ck_matches+=($__ck_m); builtin compadd "$@"; }; _main_complete; unfunction compadd; print -rl -- "" "BEGIN""-MATCHES" $__ck_matches "END""-MATCHES" >/dev/tty; }'
zpty -w z 'zle -C covkit-show complete-word covkit_show; bindkey "^X" covkit-show'
zpty -w z "cd ${(q)3}"
zpty -n -w z "$2"$'\x18'
local out
zpty -r z out '*END-MATCHES*'
print -r -- "$out"
zpty -d z
"""


def zsh_complete(script_dir, line, cwd):
    p = run(["zsh", "-f", "-c", ZSH_DRIVER, "zsh", script_dir, line, cwd], timeout=60, ok=False)
    m = re.search(r"^BEGIN-MATCHES\r?\n(.*?)^END-MATCHES", p.stdout, re.M | re.S)
    check(m, "zsh: no completion listed for %r:\n%s" % (line, p.stdout[-1500:]))
    return set(m.group(1).split())


def scenario_completion(e):
    p = e.installed()
    bash_script = os.path.join(p, "share", "bash-completion", "completions", "covkit")
    zsh_script = os.path.join(p, "share", "zsh", "site-functions", "_covkit")
    fish_script = os.path.join(p, "share", "fish", "vendor_completions.d", "covkit.fish")
    scripts = {"bash": open(bash_script).read(), "zsh": open(zsh_script).read(), "fish": open(fish_script).read()}
    # The installed scripts are what this covkit prints.
    for shell, text in scripts.items():
        check(run([e.covkit, "completion", shell]).stdout == text, "the installed %s script is covkit's own" % shell)
    # Every option of every --help, for its own command, in each script.
    checked = 0
    paths = command_paths(e.covkit)
    check(len([p for p, _ in paths if len(p) == 1]) >= 10, "covkit --help lists its commands")
    for path, text in paths:
        name = " ".join(("covkit",) + path)
        options = help_options(text)
        check(options, "%s --help lists options" % name)
        bash_opts_block = re.search(r"^declare -gA _covkit_opts=\(\n(.*?)^\)", scripts["bash"], re.M | re.S).group(1)
        bash_line = re.search(r"^  \['%s'\]='([^']*)'$" % re.escape(name), bash_opts_block, re.M)
        check(bash_line, "bash: %s has its options" % name)
        bash_opts = set(bash_line.group(1).split())
        fn = "_" + re.sub(r"[^A-Za-z0-9]", "_", name)
        zsh_fn = re.search(r"^%s\(\) \{\n(.*?)^\}$" % re.escape(fn), scripts["zsh"], re.M | re.S)
        check(zsh_fn, "zsh: %s() exists" % fn)
        fish_path = " ".join(path)
        fish_lines = [l for l in scripts["fish"].splitlines() if "__covkit_at '\\''%s'\\''" % fish_path in l
                      or "__covkit_at \\'%s\\'" % fish_path in l]
        check(fish_lines, "fish: completions for %s" % name)
        fish_text = "\n".join(fish_lines)
        for opt in sorted(options):
            check(opt in bash_opts, "bash: %s has %s (from --help)" % (name, opt))
            check(re.search(r"['{,)*]%s(=-|=|\+|-)?[\[':]" % re.escape(opt), zsh_fn.group(1)),
                  "zsh: %s has %s (from --help)" % (name, opt))
            if opt.startswith("--"):
                check(re.search(r" -l '%s'" % re.escape(opt[2:]), fish_text), "fish: %s has %s" % (name, opt))
            else:
                check(re.search(r" -[so] '%s'" % re.escape(opt[1:]), fish_text), "fish: %s has %s" % (name, opt))
            checked += 1
        # And the other way: --help is complete, every option the command
        # defines is in it.
        undocumented = sorted(bash_opts - options)
        check(not undocumented, "%s --help does not list %s" % (name, undocumented))
    check(checked > 150, "options checked: %d" % checked)

    # What completing gives, in the shells themselves.
    need("bash")
    with tempfile.TemporaryDirectory(prefix="covkit-completion-") as cwd:
        os.makedirs(os.path.join(cwd, "subdir"))
        open(os.path.join(cwd, "data.info"), "w").close()
        sleeper = subprocess.Popen(["sleep", "60"])
        try:
            pid = str(sleeper.pid)
            cases = [
                (["covkit", "tr"], {"trace"}, None),
                (["covkit", "trace", "re"], {"record", "report", "replay"}, None),
                (["covkit", "report", "--fail-under-l"], {"--fail-under-line"}, None),
                (["covkit", "report", "--color", ""], {"auto", "always", "never"}, None),
                (["covkit", "report", "--lcov", "da"], {"data.info"}, None),
                (["covkit", "report", "--html", "s"], {"subdir"}, None),
                (["covkit", "live", "dump", pid[:-1]], {pid}, "subset"),
                (["covkit", "sample", "record", "--pid", pid[:-1]], {pid}, "subset"),
                (["covkit", "trace", "attach", pid[:-1]], {pid}, "subset"),
                (["covkit", "trace", "record", "-o", "s"], {"subdir"}, None),
                (["covkit", "trace", "record", "--", "./x", "da"], {"data.info"}, None),
                (["covkit", "gcov", "--object-d"], {"--object-directory"}, None),
                (["covkit", "gprof", "--format", "s"], {"svg"}, None),
                (["covkit", "completion", ""], {"bash", "zsh", "fish"}, None),
                # `covkit help COMMAND [SUBCOMMAND]`: the commands --help lists, and theirs.
                (["covkit", "help", ""], {p[0] for p, _ in paths if len(p) == 1}, None),
                (["covkit", "help", "tr"], {"trace"}, None),
                (["covkit", "help", "trace", "re"], {"record", "report", "replay"}, None),
                (["covkit-gcov", "--branch-c"], {"--branch-counts"}, None),
            ]
            for words, want, how in cases:
                got = set(bash_complete(bash_script, words, cwd))
                ok = want <= got if how == "subset" else got == want
                check(ok, "bash: completing %r gives %s, not %s" % (words, sorted(want), sorted(got)[:20]))
            # Options given as --opt=value (bash splits at '=').
            got = set(bash_complete(bash_script, ["covkit", "report", "--color", "=", "al"], cwd))
            check(got == {"always"}, "bash: --color=al gives always, not %s" % sorted(got))

            need("fish")
            for words, want, how in cases:
                if words[0] != "covkit":
                    continue
                line = " ".join(words)
                got = set(fish_complete(fish_script, line, cwd))
                got = {g.rstrip("/") for g in got}
                ok = want <= got if how == "subset" else want <= got and (len(got) == len(want) or words[-1] == "")
                check(ok, "fish: completing %r gives %s, not %s" % (line, sorted(want), sorted(got)[:20]))

            need("zsh")
            zsh_dir = os.path.dirname(zsh_script)
            for line, want in (("covkit tr", {"trace"}), ("covkit report --fail-under-l", {"--fail-under-line"}),
                               ("covkit report --color ", {"auto", "always", "never"}),
                               ("covkit live dump " + pid[:-1], {pid}), ("covkit trace re", {"record", "report", "replay"}),
                               ("covkit report --lcov da", {"data.info"}),
                               ("covkit-gcov --branch-c", {"--branch-counts"}), ("covkit trace record ec", {"echo"}),
                               ("covkit help tr", {"trace"}), ("covkit help trace re", {"record", "report", "replay"}),
                               ("covkit sample record --mode ", {"branch", "breakpoint", "pc"})):
                got = zsh_complete(zsh_dir, line, cwd)
                check(want <= got, "zsh: completing %r gives %s, not %s" % (line, sorted(want), sorted(got)[:20]))
        finally:
            sleeper.kill()
            sleeper.wait()


# ---------------------------------------------------------------- cmake_package

def scenario_cmake_package(e):
    need("cmake")
    need("ninja")
    need("gcc")
    need("clang")
    p = e.installed()
    project = os.path.join(HERE, "cmake_project")
    with tempfile.TemporaryDirectory(prefix="covkit-cmake-package-") as tmp:
        src = os.path.join(tmp, "src")
        shutil.copytree(project, src)
        build = os.path.join(tmp, "build")
        run(["cmake", "-S", src, "-B", build, "-G", "Ninja", "-DCMAKE_PREFIX_PATH=" + p, "-DCMAKE_C_COMPILER=gcc"])
        cache = open(os.path.join(build, "CMakeCache.txt")).read()
        version = version_of(os.path.join(p, "bin", "covkit"))
        check("covkit_VERSION_FOUND:INTERNAL=%s" % version in cache or ("covkit_DIR:PATH=" + p) in cache,
              "the project found the installed package")
        run(["cmake", "--build", build])
        # The coverage target: zero, run the tests, report, gate (it passes).
        stale = os.path.join(build, "CMakeFiles", "calc.dir", "calc.c.gcda")
        run(["cmake", "--build", build, "--target", "coverage"])
        check(os.path.isfile(os.path.join(build, "coverage", "index.html")), "HTML report written")
        info = open(os.path.join(build, "coverage.info")).read()
        check(re.search(r"^SF:.*calc\.c$", info, re.M), "lcov report names calc.c")
        check(os.path.isfile(os.path.join(build, "coverage.xml")), "Cobertura report written")
        # SONARQUBE: SonarQube's generic coverage XML, the lines of calc.c
        # with the lcov report's counts (covered when DA > 0).
        sonar = open(os.path.join(build, "coverage-sonar.xml")).read()
        check(sonar.startswith('<?xml') and '<coverage version="1">' in sonar, "SonarQube report written")
        sonar_files = {os.path.basename(path): dict(re.findall(r'<lineToCover lineNumber="(\d+)" covered="(true|false)"',
                                                              body))
                       for path, body in re.findall(r'<file path="([^"]*)">(.*?)</file>', sonar, re.S)}
        lcov_files = {os.path.basename(sf): {n: "true" if int(c) > 0 else "false"
                                             for n, c in re.findall(r"^DA:(\d+),(\d+)", body, re.M)}
                      for sf, body in re.findall(r"^SF:([^\n]*)\n(.*?)^end_of_record", info, re.M | re.S)}
        check("calc.c" in sonar_files and sonar_files == lcov_files,
              "the SonarQube report's lines are the lcov report's: %s vs %s" % (sonar_files, lcov_files))
        # COVERALLS: the Coveralls API's JSON, calc.c's lines with the lcov
        # report's counts (null for lines that are no code).
        coveralls = json.load(open(os.path.join(build, "coverage-coveralls.json")))
        calc = [f for f in coveralls["source_files"] if os.path.basename(f["name"]) == "calc.c"]
        check(len(calc) == 1, "the Coveralls report names calc.c once: %s" % [f["name"] for f in coveralls["source_files"]])
        counted = {str(i + 1): str(c) for i, c in enumerate(calc[0]["coverage"]) if c is not None}
        lcov_calc = {n: c for sf, body in re.findall(r"^SF:([^\n]*)\n(.*?)^end_of_record", info, re.M | re.S)
                     if os.path.basename(sf) == "calc.c" for n, c in re.findall(r"^DA:(\d+),(\d+)", body, re.M)}
        check(counted == lcov_calc and lcov_calc, "the Coveralls report's counts are the lcov report's: %s vs %s"
              % (counted, lcov_calc))
        # The counts are one run's: the target zeroes them first.
        line_hits = re.findall(r"^DA:(\d+),(\d+)", info, re.M)
        first = dict(line_hits)
        run(["cmake", "--build", build, "--target", "coverage"])
        second = dict(re.findall(r"^DA:(\d+),(\d+)", open(os.path.join(build, "coverage.info")).read(), re.M))
        check(first == second and any(int(v) > 0 for v in first.values()),
              "a second run reports the same counts (zeroed in between): %s vs %s" % (first, second))
        check(os.path.isfile(stale), "the counters are in the build tree")
        # The gate as the target's result: a project that demands 100% fails.
        gate = run(["cmake", "--build", build, "--target", "coverage_strict"], ok=False)
        check(gate.returncode != 0, "coverage_strict fails its gate")
        check("gate" in (gate.stdout + gate.stderr), "the failure says a gate was not met: %s" % gate.stdout[-800:])
        # A failing test command fails the target, and still writes the report.
        os.remove(os.path.join(build, "failing.info")) if os.path.exists(os.path.join(build, "failing.info")) else None
        bad = run(["cmake", "--build", build, "--target", "coverage_failing_test"], ok=False)
        check(bad.returncode != 0 and "commands failed" in bad.stdout + bad.stderr, "a failing command fails the target")
        check(os.path.isfile(os.path.join(build, "failing.info")), "the report is written anyway")
        # Tracing: the instrumented program, recorded by the installed covkit.
        covkit = os.path.join(p, "bin", "covkit")
        rec = run([covkit, "trace", "record", "-o", os.path.join(tmp, "t1"), "--", os.path.join(build, "traced"), "7"])
        report = run([covkit, "trace", "report", os.path.join(tmp, "t1")]).stdout
        check("fib" in report, "the traced program's calls are recorded: %s" % report[:500])
        rec = run([covkit, "trace", "record", "--static", "-o", os.path.join(tmp, "t2"), "--",
                   os.path.join(build, "traced_static"), "7"])
        report = run([covkit, "trace", "report", os.path.join(tmp, "t2")]).stdout
        check("fib" in report, "the program linked with the runtime is traced (--static): %s" % report[:500])
        del rec
        # The same project built by clang: covkit_enable_coverage gives
        # clang's --coverage, whose files the coverage target reports too.
        cbuild = os.path.join(tmp, "build-clang")
        run(["cmake", "-S", src, "-B", cbuild, "-G", "Ninja", "-DCMAKE_PREFIX_PATH=" + p,
             "-DCMAKE_C_COMPILER=clang"])
        run(["cmake", "--build", cbuild, "--target", "coverage"])
        cinfo = open(os.path.join(cbuild, "coverage.info")).read()
        check(re.search(r"^SF:.*calc\.c$", cinfo, re.M), "clang: the lcov report names calc.c")
        chits = dict(re.findall(r"^DA:(\d+),(\d+)", cinfo, re.M))
        # Each compiler puts a few lines differently (a closing brace, a
        # return); what ran under GCC ran under clang, and the uncalled
        # function stays at zero.
        ran = lambda hits: {line for line, n in hits.items() if int(n) > 0}
        check(ran(first) <= ran(chits) and any(int(n) == 0 for n in chits.values()),
              "clang: the lines that ran under GCC ran, and a never-called line is 0: %s vs GCC's %s" % (chits, first))


# ---------------------------------------------------------------- uninstall

def files_under(top):
    """Every non-directory under `top` (links included), relative, sorted."""
    found = []
    for d, dirs, files in os.walk(top):
        found += [os.path.relpath(os.path.join(d, f), top) for f in files]
        found += [os.path.relpath(os.path.join(d, s), top) for s in dirs if os.path.islink(os.path.join(d, s))]
    return sorted(found)


def scenario_uninstall(e):
    manifest = os.path.join(e.build, "install_manifest.txt")
    uninstall = ["cmake", "--build", e.build, "--target", "uninstall"]
    with tempfile.TemporaryDirectory(prefix="covkit-uninstall-") as tmp:
        p = os.path.join(tmp, "p")
        run(["cmake", "--install", e.build, "--prefix", p])
        installed = open(manifest).read().split()
        check(os.path.join(p, "bin", "covkit") in installed and os.path.join(p, "bin", "covkit-gcov") in installed,
              "the manifest lists what was installed: %s" % installed[:5])
        check(all(os.path.lexists(f) for f in installed), "every file of the manifest is installed")
        # What others put in the same prefix, beside and inside covkit's places.
        theirs = ["bin/other-tool", "share/man/man1/other.1.gz", "share/doc/covkit/my-notes.txt"]
        for f in theirs:
            with open(os.path.join(p, f), "w") as out:
                out.write("not covkit's\n")
        run(uninstall)
        check(files_under(p) == sorted(theirs), "only the others' files are left: %s" % files_under(p))
        owned = {os.path.dirname(f) for f in installed if re.search(r"/covkit(/|$)", os.path.dirname(f))}
        check(len(owned) >= 5, "covkit has directories of its own: %s" % owned)
        for d in owned:
            check(not os.path.exists(d) or d == os.path.join(p, "share", "doc", "covkit"),
                  "covkit's own directory is gone: %s" % d)
        check(os.path.isdir(os.path.join(p, "share", "doc", "covkit")), "a covkit directory holding a user's file stays")
        # Once more: nothing to remove, said in one line, and a failure.
        again = run(uninstall, ok=False)
        check(again.returncode != 0 and "install_manifest.txt: no such file" in again.stdout + again.stderr,
              "a second uninstall says the manifest is gone: %s%s" % (again.stdout[-500:], again.stderr[-500:]))
        # A file that cannot be removed (immutable: root ignores permissions)
        # fails the uninstall, names it, and keeps the manifest for a rerun.
        run(["cmake", "--install", e.build, "--prefix", p])
        stuck = os.path.join(p, "bin", "covkit")
        if run(["chattr", "+i", stuck], ok=False).returncode == 0:
            try:
                failed = run(uninstall, ok=False)
            finally:
                run(["chattr", "-i", stuck])
            check(failed.returncode != 0 and "%s: cannot be removed" % stuck in failed.stdout + failed.stderr,
                  "an unremovable file fails the uninstall, named: %s%s" % (failed.stdout[-800:], failed.stderr[-800:]))
            check(os.path.isfile(manifest) and files_under(p) == sorted(theirs + ["bin/covkit"]),
                  "the manifest kept, everything else removed: %s" % files_under(p))
            rerun = run(uninstall)
            check(files_under(p) == sorted(theirs) and "files listed in" in rerun.stdout,
                  "the rerun removes the rest: %s" % files_under(p))
        else:
            print("(no chattr +i here: the unremovable-file case is not run)")
            run(uninstall)
        # Staged installs (DESTDIR, as packagers do): removed under the same root.
        root = os.path.join(tmp, "stage")
        staged = dict(os.environ, DESTDIR=root)
        run(["cmake", "--install", e.build, "--prefix", "/usr/local"], env=staged)
        check(os.path.isfile(os.path.join(root, "usr", "local", "bin", "covkit")), "DESTDIR install")
        run(uninstall, env=staged)
        check(files_under(root) == [], "nothing of the DESTDIR install is left: %s" % files_under(root))


# ---------------------------------------------------------------- deb

def scenario_deb(e):
    for tool in ("cpack", "dpkg-deb", "dpkg-shlibdeps", "lintian", "gcc"):
        need(tool)
    version = version_of(e.covkit)
    arch = run(["dpkg", "--print-architecture"]).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="covkit-deb-") as tmp:
        run(["cpack", "-G", "DEB", "--config", os.path.join(e.build, "CPackConfig.cmake"), "-B", tmp], timeout=900)
        debs = glob.glob(os.path.join(tmp, "*.deb"))
        check([os.path.basename(d) for d in debs] == ["covkit_%s_%s.deb" % (version, arch)],
              "one covkit_%s_%s.deb: %s" % (version, arch, debs))
        deb = debs[0]
        fields = run(["dpkg-deb", "-f", deb]).stdout
        check(re.search(r"^Version: %s$" % re.escape(version), fields, re.M), "Version is covkit's: %s" % fields)
        depends = re.search(r"^Depends: (.*)$", fields, re.M)
        check(depends, "the package has Depends: %s" % fields)
        deps = depends.group(1)
        # From dpkg-shlibdeps: the libraries covkit really links, with versions.
        names = {d.split()[0] for d in deps.split(", ")}
        check(re.search(r"libc6 \(>= [^)]+\)", deps), "Depends has a version of libc6: %s" % deps)
        # Every library the package's programs and runtimes need (NEEDED) or
        # load with dlopen (the sonames covkit names), by the package that
        # holds it here.
        root = os.path.join(tmp, "root")
        run(["dpkg", "-x", deb, root])
        wanted = {}
        for elf in [os.path.join(root, "usr", "bin", "covkit")] + glob.glob(os.path.join(root, "usr", "lib", "**",
                                                                                      "*.so"), recursive=True):
            dyn = run(["readelf", "-d", elf]).stdout
            for soname in re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dyn):
                wanted[soname] = elf
        strings = run(["strings", "-n", "8", os.path.join(root, "usr", "bin", "covkit")]).stdout
        known = run(["/sbin/ldconfig", "-p"]).stdout
        for soname in set(re.findall(r"^(lib[\w+-]+\.so(?:\.\d+)+)$", strings, re.M)):
            if re.search(r"^\s+%s " % re.escape(soname), known, re.M):
                wanted[soname] = "dlopen"
        check(any(v == "dlopen" for v in wanted.values()), "covkit names the libraries it loads: %s" % wanted)
        for soname, user in sorted(wanted.items()):
            path = re.search(r"^\s+%s \(libc6,x86-64\) => (\S+)$" % re.escape(soname), known, re.M)
            if not path:
                continue
            owner = owning_package(path.group(1))
            check(owner in names, "Depends names %s, which holds %s (%s): %s" % (owner, soname, user, deps))
        contents = run(["dpkg-deb", "-c", deb]).stdout
        for path in ("./usr/bin/covkit", "./usr/bin/covkit-gcov -> covkit", "/covkit/libcovkit-trace.so",
                     "/covkit/libcovkit-sample.so", "/covkit/libcovkit-trace.a",
                     "/covkit/libcovkit-blocks.so", "/covkit/libcovkit-blocks.a", "./usr/share/man/man1/covkit.1.gz",
                     "./usr/share/man/man1/covkit-report.1.gz", "./usr/share/doc/covkit/copyright",
                     "./usr/share/doc/covkit/changelog.gz", "./usr/share/bash-completion/completions/covkit",
                     "./usr/share/zsh/vendor-completions/_covkit", "./usr/share/fish/vendor_completions.d/covkit.fish",
                     "/cmake/covkit/covkitConfig.cmake", "./usr/share/covkit/gcov_stream/gcov_stream.c"):
            check(path in contents, "the package holds %s" % path)
        # lintian: no errors (its warnings are printed for the log).
        lint = run(["lintian", "--fail-on", "error", "--tag-display-limit", "0", deb], ok=False, timeout=600)
        print(lint.stdout[-4000:])
        check(lint.returncode == 0, "lintian finds no error:\n%s%s" % (lint.stdout[-4000:], lint.stderr[-2000:]))
        # Unpacked (never installed) and run on the bundled example.
        covkit = os.path.join(root, "usr", "bin", "covkit")
        check(version_of(covkit) == version, "the unpacked covkit's version")
        work = os.path.join(tmp, "example")
        os.makedirs(work)
        shutil.copy(os.path.join(e.source, "examples", "hello", "hello.c"), work)
        run(["gcc", "--coverage", "-O0", "-g", "-o", "hello", "hello.c"], cwd=work)
        run(["./hello"], cwd=work)
        run(["./hello", "100"], cwd=work)
        run([covkit, "gcov", "-b", "hello.c"], cwd=work)
        gcov_text = open(os.path.join(work, "hello.c.gcov")).read()
        check(re.search(r"^\s+2:\s+16:", gcov_text, re.M), "hello.c.gcov counts main's two runs:\n%s" % gcov_text[:800])
        rep = run([covkit, "report", "--print-summary", "--lcov", "coverage.info", "--cobertura", "coverage.xml",
                   "--html", "html", "."], cwd=work)
        check("hello.c" in rep.stdout and os.path.isfile(os.path.join(work, "html", "index.html")),
              "covkit report on the example: %s" % rep.stdout)
        # The unpacked runtimes are found from the unpacked covkit.
        run(["gcc", "-finstrument-functions", "-g", "-o", "hello-trace", "hello.c"], cwd=work)
        run([covkit, "trace", "record", "-o", "tr", "--", "./hello-trace", "20"], cwd=work)
        check("is_prime" in run([covkit, "trace", "report", "tr"], cwd=work).stdout, "trace record from the .deb")


def owning_package(path):
    """The package that holds a library file (dpkg knows it by one of its
    names: the link or the file, under /lib or /usr/lib with usrmerge)."""
    real = os.path.join(os.path.dirname(path), os.path.basename(os.path.realpath(path)))
    for p in (path, real):
        for candidate in (p, re.sub(r"^/usr/lib/", "/lib/", p), re.sub(r"^/lib/", "/usr/lib/", p)):
            q = subprocess.run(["dpkg-query", "-S", candidate], capture_output=True, text=True)
            if q.returncode == 0:
                return q.stdout.split(":")[0]
    raise Failure("no package holds %s" % path)


SCENARIOS = {
    "prefix": scenario_prefix,
    "layout": scenario_layout,
    "relocated": scenario_relocated,
    "man": scenario_man,
    "completion": scenario_completion,
    "cmake_package": scenario_cmake_package,
    "uninstall": scenario_uninstall,
    "deb": scenario_deb,
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--prefix", required=True)
    ap.add_argument("--list", action="store_true")
    ap.add_argument("scenario", nargs="?")
    a = ap.parse_args()
    if a.list:
        print("\n".join(SCENARIOS))
        return 0
    e = Env(a)
    try:
        SCENARIOS[a.scenario](e)
    except Skip as s:
        print("SKIP: %s" % s)
        return 77
    except Failure as f:
        print("FAIL: %s" % f)
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
