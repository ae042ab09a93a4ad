"""Helpers for the per-device drain suites (test_drain_*.py): a GPU host
tree whose NVIDIA GPUs a test can replace, remove and reorder between agent
restarts, a cluster that can give a node two threads per core, and readers
for what `scontrol show node`, `scontrol show drainedtres`, `sinfo -R` and
a job's own environment say.

The GPU host is a copy of the 8-GPU fixture tree cut to the number of GPUs
asked for. The agent runs with AutoDetect=nvidia, which reads one
information file per GPU under proc/driver/nvidia/gpus and reports the GPUs
in PCI bus order, so "index i" here is the i-th bus folder: rewriting the
"GPU UUID:" line of a folder is putting another card in that slot."""

import re
import shutil
import signal
from pathlib import Path

from gantry_cluster import REPO, Cluster, wait_for

HOSTS = REPO / "tests" / "fixtures" / "hosts"
EIGHT_GPU_TREE = HOSTS / "nvlink8-2socket"
ORDER_MISMATCH = "GPU UUID order does not match the saved order"
DEGRADED_FLAG = 4  # NODE_FLAG_DEGRADED of types.proto


class GpuHost:
    """A fixture host tree with `count` NVIDIA GPUs under `folder`."""

    def __init__(self, folder, count):
        self.root = Path(folder)
        shutil.copytree(EIGHT_GPU_TREE, self.root, symlinks=True)
        self.gpus_dir = self.root / "proc" / "driver" / "nvidia" / "gpus"
        buses = sorted(p.name for p in self.gpus_dir.iterdir())
        assert len(buses) >= count, f"{EIGHT_GPU_TREE} has only {len(buses)} GPUs"
        for bus in buses[count:]:
            shutil.rmtree(self.gpus_dir / bus)
        self.buses = buses[:count]
        # Folders of GPUs taken out of the machine, by bus, to put back later.
        self.aside = self.root.parent / (self.root.name + "-removed")
        self.aside.mkdir(exist_ok=True)

    def _information(self, index):
        return self.gpus_dir / self.buses[index] / "information"

    def uuid(self, index):
        text = self._information(index).read_text()
        return re.search(r"^GPU UUID:\s*(\S+)", text, re.M).group(1)

    def uuids(self):
        return [self.uuid(i) for i in range(len(self.buses)) if self.present(i)]

    def present(self, index):
        return (self.gpus_dir / self.buses[index]).exists()

    def set_uuid(self, index, uuid):
        """A different card in slot `index` (same model, new UUID)."""
        path = self._information(index)
        text = re.sub(r"^(GPU UUID:\s*)\S+", lambda m: m.group(1) + uuid, path.read_text(), count=1, flags=re.M)
        path.write_text(text)

    def swap(self, first, second):
        """The driver reports the cards of two slots the other way round."""
        a, b = self.uuid(first), self.uuid(second)
        self.set_uuid(first, b)
        self.set_uuid(second, a)

    def remove(self, index):
        shutil.move(str(self.gpus_dir / self.buses[index]), str(self.aside / self.buses[index]))

    def put_back(self, index):
        shutil.move(str(self.aside / self.buses[index]), str(self.gpus_dir / self.buses[index]))


class DrainCluster(Cluster):
    """A Cluster whose node dicts may also say threads_per_core (the base
    class writes ThreadsPerCore=1); give cores_per_socket with it."""

    def write_conf(self):
        super().write_conf()
        path = self.conf_dir / "gantry.conf"
        text = path.read_text()
        for node in self.nodes:
            threads = node.get("threads_per_core")
            if threads:
                text = re.sub(rf"^(NodeName={re.escape(node['name'])} .*?)ThreadsPerCore=1\b",
                              lambda m: m.group(1) + f"ThreadsPerCore={threads}", text, count=1, flags=re.M)
        path.write_text(text)


def start_cluster(**kwargs):
    cluster = DrainCluster(**kwargs)
    try:
        return cluster.start()
    except BaseException:
        cluster.cleanup()
        raise


# ------------------------------------------------------------ agents

def agent_log(cluster, name):
    path = cluster.root / f"gantryd-{name}.log"
    return path.read_text(errors="replace") if path.exists() else ""


def restart_agent(cluster, name, sig=signal.SIGTERM):
    """Restarts the node's agent and waits until the new one has registered
    (the controller has then judged what it reported)."""
    cluster.kill_agent(name, sig)
    # The old agent is gone: whatever the log says from here on is the new one's.
    start = len(agent_log(cluster, name))
    cluster.start_agent(name)
    wait_for(lambda: "registered with the controller" in agent_log(cluster, name)[start:], timeout=30,
             what=f"{name} to register again")


def restart_controller(cluster):
    """kill -9 of the controller and a fresh one on the same state; then each
    agent is restarted, so that it registers with the new controller now
    rather than at its next retry."""
    cluster.kill_controller(signal.SIGKILL)
    cluster.start_controller()
    for name in list(cluster.agents):
        restart_agent(cluster, name)


# ------------------------------------------------------------ what the commands show

def node_json(cluster, name):
    return next(n for n in cluster.nodes_json() if n["name"] == name)


def show_node(cluster, name):
    """`scontrol show node NAME` as {key: value}; Reason= runs to the end of its line."""
    text = cluster.cli("scontrol", "show", "node", name).stdout
    fields = {}
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("Reason="):
            fields["Reason"] = stripped[len("Reason="):]
            continue
        for word in stripped.split():
            key, _, value = word.partition("=")
            fields.setdefault(key, value)
    fields["_text"] = text
    return fields


def drained_listing(cluster, *args, user=None):
    """The lines of `scontrol show drainedtres [ARGS]`."""
    return cluster.cli("scontrol", "show", "drainedtres", *args, user=user).stdout.splitlines()


def reasons(cluster):
    """`sinfo -R` as {node list: (reason, user)}."""
    out = cluster.cli("sinfo", "-R", "-h", "-o", "%E|%u|%N").stdout
    rows = {}
    for line in out.splitlines():
        reason, user, nodes = line.rsplit("|", 2)
        rows[nodes.strip()] = (reason.strip(), user.strip())
    return rows


def reason_time(cluster, node):
    """The TIMESTAMP sinfo -R gives the node's row."""
    out = cluster.cli("sinfo", "-R", "-h", "-o", "%H|%N").stdout
    return next(line.split("|")[0].strip() for line in out.splitlines() if line.split("|")[1].strip() == node)


def scontrol_update(cluster, *words, user=None, check=True):
    return cluster.cli("scontrol", "update", *words, user=user, check=check)


def drain_gpu(cluster, node, reason, index=None, uuid=None, tres="gres/gpu"):
    selector = f"Index={index}" if uuid is None else f"Uuid={uuid}"
    return scontrol_update(cluster, f"TresName={tres}", f"NodeName={node}", selector, "Action=Drain",
                           f"Reason={reason}")


def resume_tres(cluster, node, selector, tres="gres/gpu"):
    return scontrol_update(cluster, f"TresName={tres}", f"NodeName={node}", selector, "Action=Resume")


def set_node_state(cluster, node, state, reason=None):
    words = [f"NodeName={node}", f"State={state}"] + ([f"Reason={reason}"] if reason else [])
    return scontrol_update(cluster, *words)


def wait_node(cluster, name, predicate, what, timeout=20):
    return wait_for(lambda: predicate(node_json(cluster, name)) and node_json(cluster, name), timeout=timeout,
                    what=what)


# ------------------------------------------------------------ jobs

def allocated_devices(cluster, job_id):
    """GPU indexes the controller gave the job on its (single) node."""
    return sorted(cluster.job(job_id)["allocation"][0]["devices"])


def run_gpu_job(cluster, gpus, extra=()):
    """Runs a batch job of `gpus` GPUs to its end and returns what it was
    given: the controller's allocated indexes, the indexes in the job's
    SLURM_JOB_GPUS, and its CUDA_VISIBLE_DEVICES as a list (UUIDs when the
    GPUs have Flags=env_uuid)."""
    out = cluster.root / "gpu-job-%j.out"
    job_id = cluster.sbatch(f"--gres=gpu:{gpus}", *extra, "-o", str(out),
                            "--wrap", "echo JOB_GPUS=$SLURM_JOB_GPUS VISIBLE=$CUDA_VISIBLE_DEVICES")
    assert cluster.wait_job(job_id) == "COMPLETED", cluster.job(job_id)
    text = Path(str(out).replace("%j", str(job_id))).read_text()
    job_gpus = [int(i) for i in re.search(r"JOB_GPUS=(\S*)", text).group(1).split(",") if i]
    visible = [v for v in re.search(r"VISIBLE=(\S*)", text).group(1).split(",") if v]
    return allocated_devices(cluster, job_id), job_gpus, visible


def wait_pending_for_drains(cluster, job_id, node_drained_tres):
    """Waits until the job is PENDING for drained resources and returns its reason."""
    def reason():
        job = cluster.job(job_id)
        return job["state"] == "PENDING" and job["reason"].startswith("Resources (drained: ") and job["reason"]
    found = wait_for(reason, timeout=20, what=f"job {job_id} to wait for drained resources")
    assert node_drained_tres in found, found
    return found


def device_uuids(cluster, name, absent=False):
    """{index: UUID} of the node's GPUs as the controller lists them
    (`scontrol show node -d` GresDevice lines); with absent=True, those of
    the empty slots instead (an "Absent" line keeps the UUID that left)."""
    found = {}
    for line in node_json(cluster, name)["gres_devices"]:
        index = re.search(r"\bIndex=(\d+)", line)
        uuid = re.search(r"\bUUID=(\S+)", line)
        if index and uuid and (" Absent" in line) == absent:
            found[int(index.group(1))] = uuid.group(1)
    return found
