"""Reading a process's state from /proc, for the test harnesses."""


def process_state(pid):
    """The state letter of /proc/PID/stat (its main thread's: R, S, Z...), or None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None
