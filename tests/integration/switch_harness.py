"""Helpers for the switch/lua scenario suites (test_switch_*.py): a cluster
running the example script conf/switch-lua/switch.lua with its directives
on, and the checks every scenario makes: what `scontrol show` says of the
job and its nodes, how many times the script says it was called, and that
no process of a call is left behind."""

import json
import os
import re
from datetime import datetime
from pathlib import Path

from gantry_cluster import REPO, Cluster, wait_for

EXAMPLE_SCRIPT = REPO / "conf" / "switch-lua" / "switch.lua"

# The numbers of these suites (the spec's own are 60s and 3 retries).
TIMEOUT = 3
RETRIES = 2
NODES = ("sw1", "sw2", "sw3")
DRAIN_REASON = "Switch job complete failed"


# Appended to the example: each controller call, as it starts, adds a line
# to a ledger file in the state folder. The controller writes a call's log
# lines when the call reports, so a call killed with its controller (kill -9,
# a reconfigure) leaves no line in the log, but it is in the ledger.
LEDGER = """
local function ledger(what, job)
  local file = io.open(stateDir() .. "/calls", "a")
  if file then
    file:write(what, " JobId=", job.job_id, "\\n")
    file:close()
  end
end
local ledgerStart, ledgerComplete = slurm_switch_job_start, slurm_switch_job_complete
function slurm_switch_job_start(job)
  ledger("job_start", job)
  return ledgerStart(job)
end
function slurm_switch_job_complete(job, jobinfo)
  ledger("job_complete", job)
  return ledgerComplete(job, jobinfo)
end
"""


def example_script(block=False, special=False, extra=""):
    """The example switch.lua with directives allowed, the two boolean
    answers set, the ledger, and `extra` Lua appended (it may wrap the
    functions)."""
    text = EXAMPLE_SCRIPT.read_text()
    for name, value in (("ALLOW_DIRECTIVES", True), ("BLOCK_JOB_COMPLETE", block),
                        ("SETUP_SPECIAL_STEPS", special)):
        line = f"local {name} = false"
        assert line in text, f"{EXAMPLE_SCRIPT} has no line {line!r}"
        text = text.replace(line, f"local {name} = {'true' if value else 'false'}", 1)
    return text + LEDGER + extra


def switch_cluster(timeout=TIMEOUT, retries=RETRIES, drain=True, block=False, special=False,
                   extra_script="", extra_conf="", nodes=NODES):
    """A started cluster under SwitchType=switch/lua. The controller's
    environment names the script's state folder, which also marks every
    process a call starts (see call_processes)."""
    conf = ("SwitchType=switch/lua\n"
            f"SlurmctldParameters=switch_timeout={timeout},switch_retries={retries},"
            f"switch_drain_on_failure={'yes' if drain else 'no'}\n" + extra_conf)
    # Jobs go to the first two nodes by default (sbatch has no -w); "all"
    # reaches every node.
    partitions = [f"PartitionName=pair Nodes={','.join(nodes[:2])} Default=YES MaxTime=INFINITE State=UP",
                  f"PartitionName=all Nodes={','.join(nodes)} MaxTime=INFINITE State=UP"]
    cluster = Cluster(nodes=[{"name": n, "cpus": 2, "memory": 1024} for n in nodes], partitions=partitions,
                      extra_conf=conf)
    state = cluster.root / "switch-state"
    state.mkdir()
    os.chmod(state, 0o777)
    cluster.ctld_env = {"SWITCHLUA_STATE_DIR": str(state)}
    script = cluster.conf_dir / "switch.lua"
    script.write_text(example_script(block, special, extra_script))
    os.chmod(script, 0o644)
    try:
        return cluster.start()
    except BaseException:
        cluster.cleanup()
        raise


def set_script(cluster, **kwargs):
    """Replaces the cluster's switch.lua (the controller reads it afresh for
    each call; the boolean answers only at start and reconfigure)."""
    (cluster.conf_dir / "switch.lua").write_text(example_script(**kwargs))


# ------------------------------------------------------------ the log

def log_text(cluster):
    path = cluster.root / "gantryctld.log"
    return path.read_text(errors="replace") if path.exists() else ""


def script_calls(cluster, function, job_id):
    """How many times the script itself logged a call of `function`
    ("job_start" or "job_complete") for the job."""
    marker = f"slurm_switch_{function}: switchlua: {function}(): JobId={job_id} sluid="
    return log_text(cluster).count(marker)


def script_lines(cluster, function, job_id):
    marker = f"slurm_switch_{function}: switchlua: {function}(): JobId={job_id} sluid="
    return [line for line in log_text(cluster).splitlines() if marker in line]


def ledger_lines(cluster):
    path = Path(cluster.ctld_env["SWITCHLUA_STATE_DIR"]) / "calls"
    return path.read_text().splitlines() if path.exists() else []


def job_log(cluster, job_id):
    """The controller's lines about the job (for assertion messages)."""
    return "\n".join(l for l in log_text(cluster).splitlines()
                     if re.search(rf"JobId={job_id}\b", l) or "reconfigur" in l or "listening" in l)


def started_calls(cluster, function, job_id):
    """How many calls of `function` for the job the script began (the ledger)."""
    return ledger_lines(cluster).count(f"{function} JobId={job_id}")


def wait_started(cluster, function, job_id, count, timeout=20):
    return wait_for(lambda: started_calls(cluster, function, job_id) >= count, timeout=timeout,
                    what=f"{count} {function} calls for job {job_id} to start")


def controller_announced(cluster, function, job_id):
    """The controller's own line for each call it starts."""
    return len(re.findall(rf"(?<!slurm_switch_{function}: )switchlua: {function}\(\): JobId={job_id}\b(?! sluid=)",
                          log_text(cluster)))


def wait_calls(cluster, function, job_id, count, timeout=20):
    return wait_for(lambda: script_calls(cluster, function, job_id) >= count, timeout=timeout,
                    what=f"{count} {function} calls for job {job_id}")


def wait_log(cluster, phrase, timeout=20):
    return wait_for(lambda: phrase in log_text(cluster), timeout=timeout, what=f"log line {phrase!r}")


def log_time(cluster, phrase):
    """When the first log line holding `phrase` was written, in seconds."""
    for line in log_text(cluster).splitlines():
        if phrase in line:
            stamp = re.match(r"\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})\]", line)
            assert stamp, line
            return datetime.strptime(stamp.group(1), "%Y-%m-%dT%H:%M:%S.%f").timestamp()
    raise AssertionError(f"no log line holds {phrase!r}")


def assert_within_ten_percent(cluster, start_phrase, end_phrase, seconds):
    """The two log lines are `seconds` apart, to within 10%."""
    gap = log_time(cluster, end_phrase) - log_time(cluster, start_phrase)
    assert seconds * 0.9 <= gap <= seconds * 1.1, f"{gap:.3f}s between {start_phrase!r} and {end_phrase!r}"


def assert_log_order(cluster, *phrases):
    """Each phrase is in the log, after the one before it."""
    text = log_text(cluster)
    at = 0
    for phrase in phrases:
        found = text.find(phrase, at)
        assert found >= 0, f"{phrase!r} missing (or out of order) in the controller log:\n{text[-4000:]}"
        at = found + len(phrase)


# ------------------------------------------------------------ processes

def call_processes(cluster):
    """Pids of the processes of this cluster's calls: every process (the
    gantryswitchcall helper, whatever the script started) that inherited
    the controller's marked environment, the controller itself aside."""
    marker = f"SWITCHLUA_STATE_DIR={cluster.ctld_env['SWITCHLUA_STATE_DIR']}".encode()
    ctld = cluster.ctld.pid if cluster.ctld else None
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == ctld:
            continue
        try:
            if marker in (entry / "environ").read_bytes().split(b"\0"):
                stat = (entry / "stat").read_text()
                if stat[stat.rindex(")") + 2] != "Z":
                    found.append(int(entry.name))
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            pass
    return found


def assert_no_call_left(cluster, timeout=5):
    """The call processes end with their call (killed with their group)."""
    wait_for(lambda: not call_processes(cluster), timeout=timeout,
             what="every process of a switch/lua call to be gone")


def call_running(cluster):
    return bool(call_processes(cluster))


# ------------------------------------------------------------ scontrol show

def _fields(text):
    """Key=Value pairs of `scontrol show` text; a value runs to the next key."""
    fields = {}
    for line in text.splitlines():
        for part in re.split(r"\s+(?=[A-Za-z][A-Za-z0-9_:/]*=)", line.strip()):
            if "=" in part:
                key, value = part.split("=", 1)
                fields.setdefault(key, value)
    return fields


def show_job(cluster, job_id):
    return _fields(cluster.cli("scontrol", "show", "job", str(job_id)).stdout)


def show_node(cluster, name):
    return _fields(cluster.cli("scontrol", "show", "node", name).stdout)


def job_is(cluster, job_id, state):
    return show_job(cluster, job_id).get("JobState") == state


def wait_job_state(cluster, job_id, *states, timeout=30):
    return wait_for(lambda: (s := show_job(cluster, job_id).get("JobState")) in states and s,
                    timeout=timeout, interval=0.1, what=f"job {job_id} to be {states}")


def squeue_state(cluster, job_id):
    out = cluster.cli("squeue", "-h", "-t", "all", "-j", str(job_id), "-o", "%t").stdout.split()
    return out[0] if out else ""


def node_state(cluster, name):
    return show_node(cluster, name).get("State", "")


def sinfo_state(cluster, name):
    """The node's state as `sinfo -N` shows it (a node in two partitions has
    two lines with the same state)."""
    for line in cluster.cli("sinfo", "-h", "-N", "-o", "%N %T").stdout.splitlines():
        words = line.split()
        if len(words) == 2 and words[0] == name:
            return words[1]
    return ""


def assert_in_service(cluster, *names):
    for name in names:
        node = show_node(cluster, name)
        assert "DRAIN" not in node.get("State", ""), (name, node)
        assert "COMPLETING" not in node.get("State", ""), (name, node)
        assert DRAIN_REASON not in node.get("Reason", ""), (name, node)


def assert_drained(cluster, *names):
    for name in names:
        node = show_node(cluster, name)
        assert "DRAIN" in node.get("State", ""), (name, node)
        assert node.get("Reason", "").startswith(DRAIN_REASON), (name, node)


def wait_in_service(cluster, *names, timeout=20):
    def free():
        states = [node_state(cluster, n) for n in names]
        return all(s.split("+")[0] == "IDLE" and "COMPLETING" not in s and "DRAIN" not in s
                   for s in states) and states
    return wait_for(free, timeout=timeout, what=f"{names} to be back in service")


def resume(cluster, nodelist):
    cluster.cli("scontrol", "update", f"nodename={nodelist}", "state=RESUME")


# ------------------------------------------------------------ jobs

def submit(cluster, directives, *args, wrap="true"):
    """A batch job asking for the network `switchlua:<directives>`."""
    return cluster.sbatch(f"--network=switchlua:{directives}", *args, "--wrap", wrap)


def job_named(cluster, name):
    jobs = json.loads(cluster.cli("squeue", "--json", "-t", "all").stdout)["jobs"]
    found = [j["job_id"] for j in jobs if j.get("spec", {}).get("name") == name]
    return found[-1] if found else None
