"""What the Python benchmark scripts share: waiting for a quiet machine.

On a shared machine another process's build takes the cores a parallel
measurement needs, so the scripts wait for idle cores before they measure."""

import time


def cpu_idle(seconds=0.5):
    """The share of all cores idle over `seconds` (from /proc/stat)."""

    def sample():
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
        return fields[3] + fields[4], sum(fields)

    idle0, total0 = sample()
    time.sleep(seconds)
    idle1, total1 = sample()
    return (idle1 - idle0) / max(1, total1 - total0)


def wait_for_quiet(threshold=0.9, patience=600):
    """Waits (up to `patience` seconds) until the machine is at least
    `threshold` idle. Returns the idle share seen."""
    deadline = time.monotonic() + patience
    while True:
        idle = cpu_idle()
        if idle >= threshold or time.monotonic() > deadline:
            return idle
        time.sleep(2)
