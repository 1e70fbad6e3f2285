"""What the Python test scripts share: running a command, a failed check
said at once and counted, and the end of a run (the work directory kept
for a look when something failed, the count, the exit status).

A script puts this folder on its path first:

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
    from script_checks import check, finish, run
"""
import shutil
import subprocess

FAILS = []


def run(cmd, cwd=None, env=None, shell=False, timeout=300):
    """The command's CompletedProcess, its output as text."""
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, shell=shell)


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("  FAIL:", what, flush=True)


def finish(tmp):
    """Removes `tmp` when every check passed, else says where it is kept;
    prints the count of failures and gives the script's exit status."""
    if not FAILS:
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        print("kept", tmp)
    print(f"{len(FAILS)} failure(s)")
    return 1 if FAILS else 0
