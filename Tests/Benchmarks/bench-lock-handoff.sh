#!/usr/bin/env bash
# `prefs lock` hand-offs, on files and on a local 3-member etcd cluster: how long after a holder's
# COMMAND ends the next waiter's COMMAND starts (the waiter sleeps on inotify / an etcd watch, never
# polls), and after a holder's prefs is killed with SIGKILL (files: the kernel drops the flock;
# etcd: the lease runs out, TTL 2 s). Medians and maxima of RUNS each, from timestamps the COMMANDs
# print (`date +%s%N`). Then the cut-off trials: a holder reaching the cluster through a proxy that
# goes silent (Tests/Tools/etcd-proxy.py silent-when:) while a second holder, direct to the
# cluster, waits; a trial overlaps when the second holder's COMMAND starts before the first one's
# SIGTERM trap ran. Prints the count of overlaps of TRIALS. Not a test: figures only.
#   Tests/Benchmarks/bench-lock-handoff.sh [RUNS TRIALS | --smoke]    (needs etcd, etcdctl, openssl, python3)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ "${1:-}" = --smoke ]; then runs=2 trials=1; else runs=${1:-20} trials=${2:-100}; fi
for tool in etcd etcdctl openssl python3; do
  command -v $tool >/dev/null || { echo "needs $tool (apt-get install etcd-server etcd-client openssl python3)" >&2; exit 1; }
done
. "$root/Tests/Benchmarks/common.sh"
bench_prefs
bench_scratch
bench_etcd_cluster
export XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data XDG_STATE_HOME=$work/state XDG_DATA_DIRS=$work/none XDG_CONFIG_DIRS=$work/none
PREFS=$prefs WORK=$work RUNS=$runs TRIALS=$trials ENDPOINTS=$endpoints PROXY="$root/Tests/Tools/etcd-proxy.py" python3 - <<'PY'
import os, signal, statistics, subprocess, time
prefs, work, runs, trials = os.environ["PREFS"], os.environ["WORK"], int(os.environ["RUNS"]), int(os.environ["TRIALS"])
endpoints = os.environ["ENDPOINTS"]
stores = {"files": None, "etcd": "etcd://" + endpoints + "/bench"}

def env(store, **extra):
    e = dict(os.environ, PREFS_ETCD_TIMEOUT="1", **extra)
    e.pop("PREFS_STORE", None)
    if store: e["PREFS_STORE"] = store
    return e

def fifo(name):
    path = os.path.join(work, name)
    if os.path.exists(path): os.unlink(path)
    os.mkfifo(path)
    return path

def handoff(store, crash):
    """Milliseconds from the holder's end (its COMMAND's last timestamp, or the SIGKILL) to the waiter's COMMAND."""
    held, go = fifo("held"), fifo("go")
    a = subprocess.Popen([prefs, "lock", "h", "--ttl", "2", "--", "sh", "-c", f'echo > {held}; read x < {go}; date +%s%N'],
                         env=env(store), stdout=subprocess.PIPE, text=True)
    open(held).read()
    b = subprocess.Popen([prefs, "lock", "h", "--ttl", "2", "--", "date", "+%s%N"], env=env(store), stdout=subprocess.PIPE, text=True)
    time.sleep(0.3)  # let the waiter start waiting (this is a figure, not a test)
    if crash:
        end = time.time_ns()
        a.send_signal(signal.SIGKILL)
        a.wait()
        try:  # the COMMAND, if it outlived prefs, may go (no reader: it is gone, and nothing waits)
            fd = os.open(go, os.O_WRONLY | os.O_NONBLOCK); os.write(fd, b"\n"); os.close(fd)
        except OSError: pass
    else:
        with open(go, "w") as g: g.write("\n")
        end = int(a.communicate()[0].strip())
    start = int(b.communicate()[0].strip())
    return (start - end) / 1e6

for name, store in stores.items():
    for crash in (False, True):
        figures = [handoff(store, crash) for _ in range(runs)]
        what = "after a SIGKILL of prefs" if crash else "after a release      "
        print(f"{name:5} next waiter {what}: median {statistics.median(figures):8.1f} ms, max {max(figures):8.1f} ms ({runs} runs)")

# The cut-off trials.
proxy = subprocess.Popen(["python3", os.environ["PROXY"], "0", endpoints.split(",")[0], "silent-when:" + os.path.join(work, "silent")],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
port = proxy.stdout.readline().strip()
overlaps, statuses, lost = 0, {}, []
for trial in range(trials):
    silent = os.path.join(work, "silent")
    if os.path.exists(silent): os.unlink(silent)
    # A fresh proxy connection state: the proxy reads the flag on every request.
    log = os.path.join(work, f"log{trial}")
    held = fifo("held")
    a = subprocess.Popen([prefs, "lock", f"cut{trial}", "--ttl", "2", "--", "sh", "-c",
                          f'trap "echo stopped >> {log}; exit 0" TERM; echo started-A >> {log}; echo > {held}; sleep 1000 & wait'],
                         env=env(f"etcd://127.0.0.1:{port}/bench"), stderr=subprocess.PIPE, text=True)
    open(held).read()
    open(silent, "w").close()
    b = subprocess.run([prefs, "lock", f"cut{trial}", "--ttl", "2", "--", "sh", "-c", f"echo started-B >> {log}"], env=env(stores["etcd"]))
    a.wait()
    events = open(log).read().split()
    ok = events[:3] == ["started-A", "stopped", "started-B"]
    overlaps += not ok
    statuses[(a.returncode, b.returncode)] = statuses.get((a.returncode, b.returncode), 0) + 1
    err = a.stderr.read()
    if "no keep-alive for " in err: lost.append(float(err.split("no keep-alive for ")[1].split()[0]))
print(f"cut-off trials: {trials}, overlaps: {overlaps} (the second holder started before the first one's COMMAND was stopped)")
print(f"  exit statuses (cut-off holder, second holder): {statuses}")
if lost: print(f"  the cut-off holder stopped its COMMAND after {min(lost):.1f}-{max(lost):.1f} s without a keep-alive (TTL 2 s)")
proxy.stdin.close()
proxy.terminate()
PY
