#!/usr/bin/env python3
"""covkit live on a real server under load: lighttpd from Debian 12's source
package, built with --coverage, serving a static file over loopback to wrk
and ab while `covkit live dump --reset` takes its counters every second.

  run_lighttpd.py --covkit build/covkit --work DIR [--dumps 8] [--keep]

The server comes from tests/realcode/fetch_and_build.sh (apt-get source
lighttpd, a deb-src entry added when root; built with gcc-12 `--coverage -O1
-g -fprofile-update=atomic`, cached in $COVKIT_REALCODE_CACHE, else --cache, else WORK/realcode).
wrk and ab are installed with apt-get when missing and root.

What is asserted:
  1. no request fails because of a dump: wrk reports no socket error and no
     non-2xx response, ab no failed and no non-2xx request;
  2. every dump is accepted: `covkit report --json` reads each dump directory
     with the server's .gcno files, exit 0. One kind of warning is expected
     and allowed in a single delta, and only that one: "suspicious counter
     value -1" in a function that was running when a dump stopped the
     server. gcov instruments arcs, not blocks; a block's count is what
     flows in and out of it. A thread stopped inside a function (the event
     loop server_main_loop -> fdevent_poll -> epoll_wait is always on the
     stack; under load any request handler may be) has taken the arc into
     its current block before one --reset and takes the arc out of it after:
     that delta sees one more leaving than entering, -1 per frame. libgcov's
     own __gcov_dump(); __gcov_reset() inside the program gives the same
     files. The sum of all deltas of a phase (`covkit merge`) runs from one
     idle instant to another and must read without any warning;
  3. the counts are exact. The function counted is mod_staticfile_subrequest
     (mod_staticfile.c; lighttpd 1.4.69 links mod_staticfile into the
     executable, while mod_accesslog is a dlopen'ed .so, so both kinds of
     module are dumped): lighttpd calls a module's handle_subrequest_start
     hook once per request whose handler is not chosen yet, and in this
     configuration that is every request (the file exists: no 404 ends a
     request before it). Keep-alive does not matter: the hook runs per
     request, not per connection.
       - warm-up: ab -n 7, then a dump without --reset counts 7, then
         `covkit live reset` zeroes it;
       - ab phase: ab -n N with dumps --reset every second, then a final dump
         --reset: the dumps add up to exactly N (ab sends exactly N
         requests and reports them all complete);
       - wrk phase: wrk runs until the test stops it (SIGINT, once 8 dumps
         --reset a second apart were taken), with requests still in flight: it counts the responses it read, the server counted every
         request it handled, including the last ones wrk sent but no longer
         read. So here wrk's count <= the dumps' sum <= wrk's count + the
         connections (at most one request in flight per connection);
       - the exact oracle for the wrk phase is the server's own access log
         (mod_accesslog writes one line per request handled, flushed when the
         server stops): 7 + wrk-phase sum + ab-phase sum == its line count.

Exit 0 pass, 1 fail, 77 skip (not root and lighttpd, gcc-12, wrk or ab cannot
be had). In CI (CI set) everything can be installed, so a skip is a failure
there (scripts/test.sh).
"""
import argparse
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FETCH = os.path.join(HERE, "..", "realcode", "fetch_and_build.sh")
FUNCTION = "mod_staticfile_subrequest"
SKIP = 77


def log(msg):
    print(msg, flush=True)


def fail(msg):
    print(f"FAIL: {msg}", flush=True)
    sys.exit(1)


def skip(msg):
    print(f"SKIP: {msg}", flush=True)
    sys.exit(SKIP)


def have_tools():
    return shutil.which("wrk") and shutil.which("ab")


def install_tools():
    if have_tools():
        return
    if os.geteuid() != 0:
        skip("wrk or ab (apache2-utils) missing and not root to install them")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update", "-q"], stdout=subprocess.DEVNULL, env=env)
    r = subprocess.run(["apt-get", "install", "-y", "-q", "--no-install-recommends", "wrk", "apache2-utils"],
                       stdout=subprocess.DEVNULL, env=env)
    if r.returncode != 0 or not have_tools():
        skip("cannot install wrk and apache2-utils")


def build_server(cache):
    r = subprocess.run(["bash", FETCH, "lighttpd", cache, "12", "O1"])
    if r.returncode == SKIP:
        sys.exit(SKIP)
    if r.returncode != 0:
        fail("building lighttpd failed")
    return os.path.join(os.path.realpath(cache), "lighttpd-gcc12-O1")


def listening_socket():
    """A socket listening on a port of 127.0.0.1 that the kernel chose, held
    until lighttpd has it: a port found free and closed again (as this test
    did) can be taken by another program, a client's connection among them,
    before the server binds it, which then fails to start or, worse, the
    test talks to the other program."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(1024)
    return s


def start_server(tree, work, listener, accesslog):
    """lighttpd serving on `listener`, handed over as systemd's socket
    activation does (fd 3, LISTEN_FDS, LISTEN_PID "parent:PID"), once it
    says it started."""
    port = listener.getsockname()[1]
    www = os.path.join(work, "www")
    os.makedirs(www, exist_ok=True)
    with open(os.path.join(www, "index.html"), "w") as f:
        f.write("<html><body>" + "covkit live lighttpd " * 20 + "</body></html>\n")
    conf = os.path.join(work, "lighttpd.conf")
    modules = '"mod_access", "mod_accesslog", "mod_staticfile"' if accesslog else '"mod_access", "mod_staticfile"'
    with open(conf, "w") as f:
        f.write(f'server.document-root = "{www}"\n'
                f'server.port = {port}\n'
                'server.bind = "127.0.0.1"\n'
                f'server.modules = ( {modules} )\n'
                'server.max-worker = 0\n'
                'server.systemd-socket-activation = "enable"\n'
                f'server.errorlog = "{work}/error.log"\n'
                'index-file.names = ( "index.html" )\n')
        if accesslog:
            f.write(f'accesslog.filename = "{work}/access.log"\n')
    # -D: in the foreground (the PID is this child's: sh execs it), -m:
    # modules of the tree. The socket goes to fd 3, its other number closed.
    fd = listener.fileno()
    errorlog = os.path.join(work, "error.log")
    # (Already fd 3 when nothing else is open, as when run by hand: then
    # moving it would close it.)
    move = f"exec 3<&{fd} {fd}<&-; " if fd != 3 else ""
    p = subprocess.Popen(["sh", "-c", move + 'exec "$@"', "sh",
                          os.path.join(tree, "src", "lighttpd"), "-D", "-f", conf, "-m",
                          os.path.join(tree, "src", ".libs")], cwd=work, pass_fds=(fd,),
                         env=dict(os.environ, LISTEN_FDS="1", LISTEN_PID=f"parent:{os.getpid()}"))
    # Connections to the socket succeed from now on (the kernel queues them
    # until the server accepts): lighttpd's own word says when it serves.
    deadline = time.monotonic() + 120  # a bound for a server that never starts, not a wait
    while time.monotonic() < deadline:
        if p.poll() is not None:
            fail(f"lighttpd exited with {p.returncode} at start (see {errorlog})")
        if os.path.exists(errorlog) and "server started" in open(errorlog).read():
            return p
        time.sleep(0.05)
    p.kill()
    fail(f"lighttpd did not start within 120 s (see {errorlog})")


def stop_server(p):
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


class Dumper:
    """`covkit live dump --reset PID -o DIR/N` every `interval` seconds in a
    thread, until stopped; records each dump's pause."""

    def __init__(self, covkit, pid, outdir, interval=1.0, first=0):
        self.covkit, self.pid, self.outdir, self.interval = covkit, pid, outdir, interval
        self.n = first
        self.dirs, self.pauses, self.walls, self.errors = [], [], [], []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def dump(self):
        d = os.path.join(self.outdir, f"{self.n:03d}")
        self.n += 1
        t = time.monotonic()
        r = subprocess.run([self.covkit, "live", "dump", "--reset", str(self.pid), "-o", d],
                           capture_output=True, text=True)
        self.walls.append((time.monotonic() - t) * 1000)
        if r.returncode != 0:
            self.errors.append(f"dump {d}: exit {r.returncode}: {r.stderr.strip()}")
            return
        m = re.search(r"(\d+) threads? stopped for ([0-9.]+) ms", r.stdout)
        if not m:
            self.errors.append(f"dump {d}: no 'threads stopped for X ms' in: {r.stdout.strip()}")
        else:
            self.pauses.append(float(m.group(2)))
        self.dirs.append(d)

    def _run(self):
        while not self._stop.wait(self.interval):
            self.dump()

    def start(self):
        self._thread.start()

    def stop(self):
        self._stop.set()
        self._thread.join()


# -1 per frame of the function on the stack; lighttpd does not recurse on
# this path, but a few frames of one function would be as legitimate.
IN_FLIGHT = re.compile(r": function (\S+) \(line \d+\): suspicious counter value -[1-9] \(negative")
IN_FLIGHT_SEEN = set()


def function_count(covkit, tree, d, allow_in_flight=False):
    """The call count of FUNCTION in dump directory d, read by covkit report
    (which must accept the dump; with allow_in_flight, the only warnings
    allowed are -1 counts of functions running at a dump, see above)."""
    out = d + ".json"
    r = subprocess.run([covkit, "report", "--object-directory", os.path.join(tree, "src"), "--json", out, d],
                       capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"covkit report did not accept {d}: exit {r.returncode}: {r.stderr.strip()[:2000]}")
    warnings = [w for w in r.stderr.splitlines() if w.strip()]
    in_flight = [w for w in warnings if IN_FLIGHT.search(w)]
    if len(in_flight) != len(warnings) or (warnings and not allow_in_flight):
        fail(f"covkit report on {d}: " + "\n".join(warnings[:20]))
    for w in in_flight:
        IN_FLIGHT_SEEN.add(IN_FLIGHT.search(w).group(1))
    with open(out) as f:
        data = json.load(f)
    total, seen = 0, False
    for file in data.get("files", []):
        for fn in file.get("functions", []):
            if fn.get("name") == FUNCTION:
                seen = True
                total += fn.get("execution_count", 0)
    if not seen:
        fail(f"{d}: {FUNCTION} is not in covkit's report")
    return total


def start_wrk(url, threads, connections, bound=600):
    """wrk under way, to be stopped by finish_wrk (wrk's SIGINT ends its run
    as its duration does, and it reports); `bound` seconds only end it if
    the test never does. Returned once wrk takes SIGINT (before it does,
    the signal is ignored: it would run to its bound) and its connections
    are open at the server."""
    port = int(url.split(":")[2].split("/")[0])
    p = subprocess.Popen(["wrk", f"-t{threads}", f"-c{connections}", f"-d{bound}s", "--latency", url],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def ready():
        if p.poll() is not None:
            fail(f"wrk exited {p.returncode} at start: {p.communicate()}")
        try:
            with open(f"/proc/{p.pid}/status") as f:
                caught = int(re.search(r"^SigCgt:\s*([0-9a-f]+)", f.read(), re.M).group(1), 16)
        except (OSError, AttributeError):
            return False
        return caught & (1 << (signal.SIGINT - 1)) and established_at(port) >= connections

    deadline = time.monotonic() + 120
    while not ready():
        if time.monotonic() > deadline:
            p.kill()
            fail(f"wrk's {connections} connections were not open after 120 s")
        time.sleep(0.01)
    return p


def established_at(port):
    """The established TCP connections whose local end is 127.0.0.1:port
    (the server's ends of its clients' connections)."""
    local = f"0100007F:{port:04X}"
    with open("/proc/net/tcp") as f:
        return sum(1 for line in f.readlines()[1:] if line.split()[1] == local and line.split()[3] == "01")


def wait_idle(server, port):
    """Until the server is idle: every client connection closed on its side
    (none ESTABLISHED or CLOSE_WAIT, which it has not handled yet) and its
    thread asleep in epoll_wait. A dump --reset there is the instant the
    phases' sums run between (see above); a server still handling the
    closes of a client that just ended is inside its loop."""
    local = f"0100007F:{port:04X}"

    def idle():
        with open("/proc/net/tcp") as f:
            if any(l.split()[1] == local and l.split()[3] in ("01", "08") for l in f.readlines()[1:]):
                return False
        with open(f"/proc/{server.pid}/wchan") as f:
            wchan = f.read()
        return "epoll" in wchan or "ep_poll" in wchan

    deadline = time.monotonic() + 120
    while not idle():
        if server.poll() is not None or time.monotonic() > deadline:
            fail("the server did not come back to its idle wait")
        time.sleep(0.01)


def finish_wrk(p):
    """wrk stopped (SIGINT) and its report read."""
    if p.poll() is not None:
        fail(f"wrk ended before the test stopped it: {p.communicate()}")
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    if p.returncode != 0:
        fail(f"wrk failed: {err}")
    m = re.search(r"(\d+) requests in ([0-9.]+)(\w+)", out)
    if not m:
        fail(f"cannot read wrk's output:\n{out}")
    rps = re.search(r"Requests/sec:\s+([0-9.]+)", out)
    errors = re.search(r"Socket errors: (.*)", out)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return {"requests": int(m.group(1)), "rps": float(rps.group(1)) if rps else 0.0,
            "socket_errors": errors.group(1) if errors else None,
            "non2xx": int(non2xx.group(1)) if non2xx else 0, "out": out}


def run_ab(url, n, concurrency, keepalive):
    argv = ["ab", "-q", "-n", str(n), "-c", str(concurrency)] + (["-k"] if keepalive else []) + [url]
    r = subprocess.run(argv, capture_output=True, text=True)
    out = r.stdout
    if r.returncode != 0:
        fail(f"ab failed ({' '.join(argv)}): {r.stderr}{out}")

    def field(name):
        m = re.search(rf"^{name}:\s+(\d+)", out, re.M)
        return int(m.group(1)) if m else 0
    m = re.search(r"Requests per second:\s+([0-9.]+)", out)
    return {"complete": field("Complete requests"), "failed": field("Failed requests"),
            "non2xx": field("Non-2xx responses"), "rps": float(m.group(1)) if m else 0.0, "out": out}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--covkit", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--dumps", type=int, default=8, help="dumps --reset, a second apart, while wrk runs")
    ap.add_argument("--connections", type=int, default=8)
    ap.add_argument("--ab-requests", type=int, default=60000)
    ap.add_argument("--cache", help="package cache (default $COVKIT_REALCODE_CACHE, else WORK/realcode)")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    covkit = os.path.abspath(args.covkit)
    os.makedirs(args.work, exist_ok=True)
    cache = os.environ.get("COVKIT_REALCODE_CACHE") or args.cache or os.path.join(args.work, "realcode")

    if not shutil.which("gcc-12") and os.geteuid() != 0:
        skip("gcc-12 missing and not root to install it")
    install_tools()
    tree = build_server(cache)

    work = os.path.join(os.path.abspath(args.work), "lighttpd-run")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    dumps = os.path.join(work, "dumps")
    listener = listening_socket()
    port = listener.getsockname()[1]
    url = f"http://127.0.0.1:{port}/index.html"
    server = start_server(tree, work, listener, accesslog=True)
    listener.close()  # lighttpd's alone now
    ok = False
    try:
        # Warm-up: 7 requests, one dump without --reset counts exactly 7, then
        # `live reset` zeroes the counters.
        ab0 = run_ab(url, 7, 1, False)
        if ab0["complete"] != 7 or ab0["failed"] or ab0["non2xx"]:
            fail(f"warm-up: {ab0['out']}")
        warm = os.path.join(work, "warm")
        r = subprocess.run([covkit, "live", "dump", str(server.pid), "-o", warm], capture_output=True, text=True)
        if r.returncode != 0:
            fail(f"live dump: {r.stderr}")
        log(r.stdout.strip())
        c = function_count(covkit, tree, warm)
        if c != 7:
            fail(f"warm-up: {FUNCTION} counted {c}, 7 requests were made")
        wait_idle(server, port)
        r = subprocess.run([covkit, "live", "reset", str(server.pid)], capture_output=True, text=True)
        if r.returncode != 0:
            fail(f"live reset: {r.stderr}")

        # wrk phase: --dumps dumps --reset a second apart while wrk runs (it
        # runs until stopped: how many dumps a loaded machine fits in a fixed
        # time is no part of the test), then one more once it stopped.
        dumper = Dumper(covkit, server.pid, os.path.join(dumps, "wrk"))
        wrk_run = start_wrk(url, 2, args.connections)
        for k in range(args.dumps):
            time.sleep(dumper.interval)  # the spacing of the dumps, not a wait for anything
            dumper.dump()
        wrk = finish_wrk(wrk_run)
        wait_idle(server, port)
        dumper.dump()
        wrk_dumps = list(dumper.dirs)
        log(f"wrk: {wrk['requests']} requests, {wrk['rps']:.0f} req/s, socket errors: {wrk['socket_errors']}, "
            f"non-2xx: {wrk['non2xx']}; {len(wrk_dumps)} dumps --reset")

        # ab phase: exactly N requests, dumps --reset every second.
        dumper2 = Dumper(covkit, server.pid, os.path.join(dumps, "ab"))
        dumper2.start()
        ab = run_ab(url, args.ab_requests, 4, True)
        dumper2.stop()
        wait_idle(server, port)
        dumper2.dump()
        ab_dumps = list(dumper2.dirs)
        log(f"ab -k: {ab['complete']} complete, {ab['failed']} failed, {ab['non2xx']} non-2xx, "
            f"{ab['rps']:.0f} req/s; {len(ab_dumps)} dumps --reset")
        errors = dumper.errors + dumper2.errors
        if errors:
            fail("dumps failed:\n" + "\n".join(errors))
        if server.poll() is not None:
            fail(f"lighttpd exited ({server.returncode}) during the test")
    finally:
        if server.poll() is None:
            stop_server(server)

    pauses = dumper.pauses + dumper2.pauses
    log(f"{len(pauses)} dumps --reset: pause min {min(pauses):.2f} ms, median {statistics.median(pauses):.2f} ms, "
        f"max {max(pauses):.2f} ms; whole command median {statistics.median(dumper.walls + dumper2.walls):.0f} ms")

    # 1. No request failed.
    if wrk["socket_errors"] is not None:
        fail(f"wrk reports socket errors: {wrk['socket_errors']}\n{wrk['out']}")
    if wrk["non2xx"]:
        fail(f"wrk reports {wrk['non2xx']} non-2xx responses\n{wrk['out']}")
    if ab["failed"] or ab["non2xx"] or ab["complete"] != args.ab_requests:
        fail(f"ab: {ab['complete']} complete of {args.ab_requests}, {ab['failed']} failed, "
             f"{ab['non2xx']} non-2xx\n{ab['out']}")
    if wrk["requests"] == 0 or len(wrk_dumps) != args.dumps + 1:
        fail(f"too little happened: {wrk['requests']} wrk requests, {len(wrk_dumps)} dumps")

    # 2 and 3. Every dump read by covkit report; the sums exact.
    wrk_counts = [function_count(covkit, tree, d, True) for d in wrk_dumps]
    ab_counts = [function_count(covkit, tree, d, True) for d in ab_dumps]
    s_wrk, s_ab = sum(wrk_counts), sum(ab_counts)
    log(f"{FUNCTION} per dump, wrk phase: {wrk_counts} = {s_wrk}")
    log(f"{FUNCTION} per dump, ab phase: {ab_counts} = {s_ab}")
    if IN_FLIGHT_SEEN:
        log(f"single deltas with a -1 count (running at a dump): {', '.join(sorted(IN_FLIGHT_SEEN))}")
    # Each phase's sum runs from an idle server to an idle server: it must
    # read clean, and give the same count as the single deltas.
    for name, dirs, total in (("wrk", wrk_dumps, s_wrk), ("ab", ab_dumps, s_ab)):
        merged = os.path.join(work, f"sum-{name}")
        r = subprocess.run([covkit, "merge", "-o", merged] + dirs, capture_output=True, text=True)
        if r.returncode != 0:
            fail(f"covkit merge of the {name} dumps: {r.stderr}")
        c = function_count(covkit, tree, merged)
        if c != total:
            fail(f"{name} phase: the merged dumps count {c}, the single ones {total}")
    if s_ab != ab["complete"]:
        fail(f"ab phase: the dumps count {s_ab} calls of {FUNCTION}, ab completed {ab['complete']} requests")
    if not wrk["requests"] <= s_wrk <= wrk["requests"] + args.connections:
        fail(f"wrk phase: the dumps count {s_wrk} calls of {FUNCTION}, wrk read {wrk['requests']} responses "
             f"over {args.connections} connections")
    with open(os.path.join(work, "access.log")) as f:
        logged = sum(1 for _ in f)
    if logged != 7 + s_wrk + s_ab:
        fail(f"the access log has {logged} requests, the dumps count 7 + {s_wrk} + {s_ab} = {7 + s_wrk + s_ab}")
    log(f"PASS: access log {logged} = 7 (warm-up) + {s_wrk} (wrk: {wrk['requests']} read, "
        f"{s_wrk - wrk['requests']} in flight at its end) + {s_ab} (ab)")
    ok = True
    if ok and not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
