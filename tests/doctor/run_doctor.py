#!/usr/bin/env python3
"""`covkit doctor` on this machine and on faked machines: /proc, /sys, /boot
and container markers written into a directory (--root) and fake compilers
on PATH that write .gcno files of a chosen version, each scenario with the
lines it must give.

  run_doctor.py --covkit build/covkit SCENARIO      (--list for the names)

Exit 0 on success, 1 on a failure.
"""
import argparse
import json
import os
import re
import stat
import subprocess
import sys
import tempfile


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


def write(root, rel, text, mode=None):
    path = os.path.join(root, rel.lstrip("/"))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    if mode is not None:
        os.chmod(path, mode)
    return path


def status_text(uid, caps, seccomp=0):
    return ("Name:\tcovkit\nUmask:\t0022\nState:\tR (running)\nUid:\t{0}\t{0}\t{0}\t{0}\nGid:\t{0}\t{0}\t{0}\t{0}\n"
            "CapInh:\t0000000000000000\nCapPrm:\t{1:016x}\nCapEff:\t{1:016x}\nCapBnd:\t000001ffffffffff\n"
            "Seccomp:\t{2}\n").format(uid, caps, seccomp)


ALL_CAPS = 0x1ffffffffff
NO_PTRACE = ALL_CAPS & ~(1 << 19)

LIMITS = """Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max file size             {fsize}            {fsize}            bytes
Max locked memory         8388608              8388608              bytes
Max open files            {nofile_soft}                 {nofile_hard}                 files
"""


def cpuinfo(vendor, flags, cpus=2):
    block = "processor\t: {n}\nvendor_id\t: {v}\nmodel name\t: Fake CPU\nflags\t\t: {f}\n\n"
    return "".join(block.format(n=n, v=vendor, f=" ".join(flags)) for n in range(cpus))


def base_tree(root, *, uid=0, caps=ALL_CAPS, seccomp=0, vendor="AuthenticAMD", flags=("fpu", "tsc"),
              paranoid="2", clocksource="tsc", available="tsc hpet acpi_pm", fsize="unlimited",
              nofile=("1024", "1048576"), release="6.1.0-fake"):
    write(root, "/proc/self/status", status_text(uid, caps, seccomp))
    write(root, "/proc/self/uid_map", "         0          0 4294967295\n")
    write(root, "/proc/self/limits", LIMITS.format(fsize=fsize, nofile_soft=nofile[0], nofile_hard=nofile[1]))
    write(root, "/proc/cpuinfo", cpuinfo(vendor, flags))
    write(root, "/proc/sys/kernel/osrelease", release + "\n")
    write(root, "/proc/sys/kernel/pid_max", "4194304\n")
    write(root, "/proc/sys/kernel/threads-max", "63000\n")
    write(root, "/proc/sys/kernel/perf_event_mlock_kb", "516\n")
    write(root, "/proc/sys/kernel/perf_event_max_sample_rate", "100000\n")
    if paranoid is not None:
        write(root, "/proc/sys/kernel/perf_event_paranoid", paranoid + "\n")
    write(root, "/proc/mounts", "proc /proc proc rw 0 0\nsysfs /sys sysfs rw 0 0\n")
    write(root, "/proc/1/cgroup", "0::/init.scope\n")
    for d in ("software", "tracepoint", "breakpoint", "uprobe"):
        write(root, "/sys/bus/event_source/devices/%s/type" % d, "1\n")
    write(root, "/sys/devices/system/clocksource/clocksource0/current_clocksource", clocksource + "\n")
    write(root, "/sys/devices/system/clocksource/clocksource0/available_clocksource", available + " \n")


class Doctor:
    def __init__(self, covkit):
        self.covkit = covkit

    def run(self, root=None, path=None, json_out=True):
        cmd = [self.covkit, "doctor"] + (["--json"] if json_out else []) + (["--root", root] if root else [])
        env = dict(os.environ)
        if path is not None:
            env["PATH"] = path
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
        check(p.returncode == 0, "covkit doctor exit %d: %s" % (p.returncode, p.stderr))
        check(p.stderr == "", "covkit doctor printed on stderr: %r" % p.stderr)
        return json.loads(p.stdout) if json_out else p.stdout


def finding(doc, area, what):
    found = [f for f in doc["findings"] if f["area"] == area and what in f["what"]]
    check(len(found) == 1, "one %s finding about %r: %s" % (area, what, [f["what"] for f in doc["findings"]
                                                                       if f["area"] == area]))
    return found[0]


def expect(doc, area, what, status, *, detail=(), remedy=(), enables=()):
    f = finding(doc, area, what)
    check(f["status"] == status, "%s / %s: %s, not %s (%s)" % (area, what, f["status"], status, f["detail"]))
    for d in detail:
        check(d in f["detail"], "%s / %s: the detail says %r: %r" % (area, what, d, f["detail"]))
    for r in remedy:
        check(r in f["remedy"], "%s / %s: the remedy says %r: %r" % (area, what, r, f["remedy"]))
    for e in enables:
        check(e in f["enables"], "%s / %s: enables %r: %r" % (area, what, e, f["enables"]))
    return f


def no_compilers():
    """A PATH with no compiler at all (an empty directory of the scenario's)."""
    d = os.path.join(SCRATCH[0], "no-compilers")
    os.makedirs(d, exist_ok=True)
    return d


SCRATCH = [None]


# ---------------------------------------------------------------- scenarios

def scenario_vm(d, tmp):
    """This VM's kind of machine: AMD, hypervisor, no PMU, root with every
    capability in a docker container, no Yama, kvm-clock, no kernel gcov."""
    root = os.path.join(tmp, "root")
    base_tree(root, flags=("fpu", "tsc", "constant_tsc", "nonstop_tsc", "hypervisor"), clocksource="kvm-clock",
              available="kvm-clock tsc hpet acpi_pm")
    write(root, "/.dockerenv", "")
    doc = d.run(root, no_compilers())
    check(doc["kernel"] == "Linux 6.1.0-fake", "the kernel release is the tree's: %r" % doc["kernel"])
    check("2 CPUs" in doc["machine"] and "AuthenticAMD" in doc["machine"], "machine line: %r" % doc["machine"])
    expect(doc, "compilers", "no C compiler", "missing", remedy=["apt-get install gcc"])
    expect(doc, "ptrace", "did not start", "ok", detail=["root, with CAP_SYS_PTRACE", "in a docker container",
                                                         "no Yama", "any process, of any user"],
           enables=["live dump", "trace attach", "sample record --pid"])
    expect(doc, "perf events", "perf_event_paranoid 2", "ok", detail=["user space of one's own processes"])
    expect(doc, "perf events", "hardware PMU", "missing", detail=["virtual machine"], remedy=["pmu=on"])
    expect(doc, "perf events", "branch records", "missing", detail=["no LBR, BRS or BRBE"],
           remedy=["single-stepping"], enables=["--mode branch --source perf"])
    expect(doc, "kernel gcov", "kernel coverage", "missing", detail=["debugfs is not mounted"],
           remedy=["mount -t debugfs"])
    expect(doc, "clock", "trace clock", "ok", detail=["vDSO", "kvm-clock"], remedy=["echo tsc"])
    expect(doc, "limits", "kernel.pid_max 4194304", "info")
    expect(doc, "limits", "open files 1024 (hard 1048576)", "info")
    expect(doc, "limits", "file size unlimited", "info")
    expect(doc, "limits", "locked memory 8.0 MiB", "info", detail=["516 KiB per user"])
    # Nothing is probed in a faked tree: no measured clock.
    check("costs" not in finding(doc, "clock", "trace clock")["detail"], "the clock is not timed under --root")


def scenario_intel_user(d, tmp):
    """A workstation: Intel with LBR, a user under Yama 1 and Debian's
    paranoid 3, the invariant TSC, kernel gcov in debugfs."""
    root = os.path.join(tmp, "root")
    base_tree(root, uid=1000, caps=0, vendor="GenuineIntel",
              flags=("fpu", "tsc", "constant_tsc", "nonstop_tsc", "pdcm"), paranoid="3")
    write(root, "/proc/sys/kernel/yama/ptrace_scope", "1\n")
    write(root, "/sys/bus/event_source/devices/cpu/type", "4\n")
    write(root, "/sys/bus/event_source/devices/cpu/caps/branches", "32\n")
    write(root, "/proc/mounts", "proc /proc proc rw 0 0\ndebugfs /sys/kernel/debug debugfs rw 0 0\n")
    write(root, "/sys/kernel/debug/gcov/reset", "")
    doc = d.run(root, no_compilers())
    expect(doc, "ptrace", "children", "ok")
    expect(doc, "ptrace", "did not start", "missing", detail=["not root", "Yama ptrace_scope 1",
                                                              "only covkit's own descendants"],
           remedy=["ptrace_scope=0", "run covkit as root"])
    expect(doc, "perf events", "perf_event_paranoid 3", "missing", remedy=["perf_event_paranoid=2", "CAP_PERFMON"])
    expect(doc, "perf events", "software events", "missing")
    expect(doc, "perf events", "hardware PMU", "ok", detail=["cpu"])
    expect(doc, "perf events", "branch records", "missing", detail=["Intel LBR (32 entries)", "not permitted"],
           remedy=["perf_event_paranoid=2"])
    expect(doc, "kernel gcov", "kernel coverage", "ok", detail=["/sys/kernel/debug/gcov"])
    expect(doc, "clock", "trace clock", "ok", detail=["the TSC", "invariant"])
    # The same as root with CAP_PERFMON: the branch records work.
    write(root, "/proc/self/status", status_text(0, 1 << 38))
    doc = d.run(root, no_compilers())
    expect(doc, "perf events", "branch records", "ok", detail=["Intel LBR (32 entries)"])


def scenario_amd_container(d, tmp):
    """A CI container: root without CAP_SYS_PTRACE under a seccomp filter,
    AMD with BRS, an hpet clocksource, a file-size limit and few files."""
    root = os.path.join(tmp, "root")
    base_tree(root, caps=NO_PTRACE, seccomp=2, vendor="AuthenticAMD", flags=("fpu", "tsc", "brs"),
              clocksource="hpet", available="hpet acpi_pm", fsize="1048576", nofile=("1024", "1024"))
    write(root, "/proc/1/cgroup", "0::/system.slice/docker-0123abcd.scope\n")
    write(root, "/sys/bus/event_source/devices/cpu/type", "4\n")
    write(root, "/boot/config-6.1.0-fake", "CONFIG_X=y\n# CONFIG_GCOV_KERNEL is not set\n")
    write(root, "/proc/mounts", "debugfs /sys/kernel/debug debugfs rw 0 0\n")
    doc = d.run(root, no_compilers())
    expect(doc, "ptrace", "did not start", "limited", detail=["without CAP_SYS_PTRACE", "in a docker container",
                                                              "under a seccomp filter"],
           remedy=["--cap-add=SYS_PTRACE"])
    expect(doc, "perf events", "branch records", "ok", detail=["AMD BRS"])
    expect(doc, "kernel gcov", "kernel coverage", "missing", detail=["without CONFIG_GCOV_KERNEL"])
    expect(doc, "clock", "trace clock", "limited", detail=["system call", "hpet"])
    expect(doc, "limits", "file size 1.0 MiB", "limited", remedy=["ulimit -f unlimited"])
    expect(doc, "limits", "open files 1024 (hard 1024)", "limited", remedy=["ulimit -Hn"])


def scenario_scope3_and_gzip_config(d, tmp):
    """Yama 3 refuses everyone; the kernel configuration from
    /proc/config.gz; AMD's LbrExtV2."""
    import gzip as gz
    root = os.path.join(tmp, "root")
    base_tree(root, flags=("fpu", "amd_lbr_v2"))
    write(root, "/proc/sys/kernel/yama/ptrace_scope", "3\n")
    write(root, "/sys/bus/event_source/devices/cpu/type", "4\n")
    write(root, "/proc/mounts", "debugfs /sys/kernel/debug debugfs rw 0 0\n")
    os.makedirs(os.path.join(root, "proc"), exist_ok=True)
    with gz.open(os.path.join(root, "proc", "config.gz"), "wt") as f:
        f.write("CONFIG_A=y\nCONFIG_GCOV_KERNEL=y\n")
    doc = d.run(root, no_compilers())
    for what in ("children", "did not start"):
        expect(doc, "ptrace", what, "missing", detail=["Yama ptrace_scope 3"], remedy=["reboot"])
    expect(doc, "perf events", "branch records", "ok", detail=["AMD LbrExtV2"])
    expect(doc, "kernel gcov", "kernel coverage", "missing", detail=["CONFIG_GCOV_KERNEL", "not readable"])


def scenario_hostile_tree(d, tmp):
    """Nothing a tree holds makes the doctor hang, crash or print control
    characters: an empty tree, a FIFO as cpuinfo, garbage numbers, escapes."""
    empty = os.path.join(tmp, "empty")
    os.makedirs(empty)
    doc = d.run(empty, no_compilers())
    expect(doc, "perf events", "perf events", "missing", detail=["perf_event_paranoid"])
    expect(doc, "clock", "trace clock", "limited", detail=["an unknown clocksource"])
    check(doc["kernel"] == "Linux (release unknown)", "kernel: %r" % doc["kernel"])
    root = os.path.join(tmp, "root")
    base_tree(root, paranoid="lots")
    os.remove(os.path.join(root, "proc", "cpuinfo"))
    os.mkfifo(os.path.join(root, "proc", "cpuinfo"))
    write(root, "/run/systemd/container", "lxc\x1b[31m\x07\n")
    write(root, "/proc/sys/kernel/pid_max", "99999999999999999999999\n")
    write(root, "/proc/self/status", "Uid:\tnot a number\nCapEff:\tzzzz\n")
    text = d.run(root, no_compilers(), json_out=False)
    check("\x1b" not in text and "\x07" not in text, "no control characters in the text: %r" % text[:300])
    check("lxc" in text, "the container is named: %s" % text[:400])
    check("kernel.pid_max" not in text, "an overflowing pid_max is not shown as a number")
    doc = d.run(root, no_compilers())
    expect(doc, "perf events", "perf events", "missing")  # "lots" is no level


FAKE_COMPILER = r"""#!/bin/sh
# A compiler that answers --version and writes a .gcno of version {word!r}.
case "$1" in
  --version) echo "{banner}"; exit 0 ;;
esac
{fail}
out=
while [ $# -gt 0 ]; do
  if [ "$1" = "-o" ]; then out=$2; shift; fi
  shift
done
printf 'oncg{le}' > "${{out%.o}}.gcno"
: > "$out"
"""


def fake_compiler(bin_dir, name, banner, word, fail=False):
    le = word[::-1]
    path = write(bin_dir, "/" + name, FAKE_COMPILER.format(word=word, banner=banner, le=le,
                                                           fail='echo "cc1: fatal error: no libgcc" >&2; exit 1'
                                                           if fail else ""))
    os.chmod(path, 0o755)
    return path


def scenario_compilers(d, tmp):
    """The compilers on PATH, each by the .gcno it really writes."""
    bin_dir = os.path.join(tmp, "bin")
    os.makedirs(bin_dir)
    fake_compiler(bin_dir, "gcc-13", "gcc-13 (Fake 13.2.0-1) 13.2.0", "B32*")
    os.symlink("gcc-13", os.path.join(bin_dir, "gcc"))
    os.symlink("gcc-13", os.path.join(bin_dir, "cc"))
    fake_compiler(bin_dir, "gcc-12", "gcc-12 (Fake 12.2.0-14) 12.2.0", "B22*")
    fake_compiler(bin_dir, "gcc-99", "gcc-99 (Fake) 99.1.0", "J91*")
    fake_compiler(bin_dir, "clang-19", "Fake clang version 19.1.0", "408*")
    fake_compiler(bin_dir, "gcc-7", "gcc-7 (Fake) 7.5.0", "A75*", fail=True)
    write(bin_dir, "/gcc-notes", "not a compiler name\n", 0o755)
    empty = os.path.join(tmp, "empty")
    os.makedirs(empty)
    doc = d.run(empty, bin_dir)
    names = [f["what"] for f in doc["findings"] if f["area"] == "compilers"]
    check(len(names) == 5, "five compilers (gcc, cc are gcc-13): %s" % names)
    expect(doc, "compilers", "gcc-13 13.2.0 (also cc, gcc)", "limited", detail=["'B32*'", "GCC 13.2's layout",
                                                                                 "not GCC 13's"],
           remedy=["gcc-11 or gcc-12"], enables=["covkit gcov"])
    expect(doc, "compilers", "gcc-12 12.2.0", "ok", detail=["'B22*'"], enables=["live"])
    expect(doc, "compilers", "gcc-99 99.1.0", "missing", detail=["'J91*'", "covkit reads GCC 8 to 14"])
    expect(doc, "compilers", "clang-19 19.1.0", "ok", detail=["'408*'", "llvm-cov gcov"])
    expect(doc, "compilers", "gcc-7 7.5.0", "missing", detail=["cannot compile with --coverage", "no libgcc"])


def scenario_this_machine(d, tmp):
    """The machine itself: the facts the doctor states are the ones /proc and
    /sys give, and its probes ran."""
    doc = d.run()
    for f in doc["findings"]:
        check(f["status"] in ("ok", "limited", "missing", "info"), "a status word: %r" % f)
        check(f["what"] and f["detail"], "every finding says what and how: %r" % f)
        if f["status"] in ("limited", "missing"):
            check(f["remedy"], "a limited or missing finding says how to get it: %r" % f)
    # gcc-12 is installed here (install-deps.sh): it writes GCC 12's layout.
    gcc12 = [f for f in doc["findings"] if f["area"] == "compilers" and f["what"].startswith("gcc-12 ")]
    check(gcc12 and "'B2" in gcc12[0]["detail"] and gcc12[0]["status"] == "ok", "gcc-12: %s" % gcc12)
    paranoid = open("/proc/sys/kernel/perf_event_paranoid").read().strip()
    finding(doc, "perf events", "kernel.perf_event_paranoid %s" % paranoid)
    source = open("/sys/devices/system/clocksource/clocksource0/current_clocksource").read().strip()
    clock = finding(doc, "clock", "trace clock")
    check(source in clock["detail"] and "ns here" in clock["detail"], "the clock line names %s and its cost: %r" %
          (source, clock["detail"]))
    pid_max = open("/proc/sys/kernel/pid_max").read().strip()
    finding(doc, "limits", "kernel.pid_max %s" % pid_max)
    # The probes ran: the child ptrace and the perf counters say so.
    child = finding(doc, "ptrace", "children")
    check("PTRACE_SEIZE" in child["detail"], "the ptrace probe ran: %r" % child["detail"])
    soft = finding(doc, "perf events", "software events")
    check("opens on this machine" in soft["detail"] or "perf_event_open" in soft["detail"] or
          soft["status"] == "missing", "the cpu-clock probe ran: %r" % soft)
    # Text and JSON say the same.
    text = d.run(json_out=False)
    for f in doc["findings"]:
        check(re.search(r"^  %-8s%s: " % (f["status"], re.escape(f["what"])), text, re.M),
              "the text has the line of %r" % f["what"])
    check(text.count("\n          for: ") == sum(1 for f in doc["findings"] if f["enables"]), "a for: line each")


SCENARIOS = {
    "vm": scenario_vm,
    "intel_user": scenario_intel_user,
    "amd_container": scenario_amd_container,
    "scope3_and_gzip_config": scenario_scope3_and_gzip_config,
    "hostile_tree": scenario_hostile_tree,
    "compilers": scenario_compilers,
    "this_machine": scenario_this_machine,
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--covkit")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("scenario", nargs="?")
    a = ap.parse_args()
    if a.list:
        print("\n".join(SCENARIOS))
        return 0
    with tempfile.TemporaryDirectory(prefix="covkit-doctor-") as tmp:
        SCRATCH[0] = tmp
        try:
            SCENARIOS[a.scenario](Doctor(os.path.abspath(a.covkit)), tmp)
        except Failure as f:
            print("FAIL: %s" % f)
            return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
