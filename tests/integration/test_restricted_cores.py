"""RestrictedCoresPerGPU on a loopback cluster: scontrol show node names the
cores kept, a job without GPUs gets only the other cores (and one asking
more than those is refused at submit), a GPU job gets its own GPU's kept
cores and never the other GPU's. The node is our own: two sockets of three
cores, one GPU on each, two cores kept per GPU."""

import re

from gantry_cluster import REPO

HOST = REPO / "tests" / "fixtures" / "hosts" / "pcie4-linked-pairs"
NODE = {"name": "kc1", "cpus": 6, "sockets": 2, "cores_per_socket": 3, "memory": 4000,
        "gres": "gpu:2", "host_root": HOST, "extra": "RestrictedCoresPerGPU=2"}
GRES = "AutoDetect=off\nName=gpu File=/dev/nvidia0 Cores=0-2\nName=gpu File=/dev/nvidia1 Cores=3-5\n"


def job_cpus(cluster, job):
    shown = cluster.cli("scontrol", "-d", "show", "job", str(job)).stdout
    ids = re.search(r"CPU_IDs=(\S+)", shown).group(1)
    cpus = set()
    for block in ids.split(","):
        first, _, last = block.partition("-")
        cpus.update(range(int(first), int(last or first) + 1))
    return cpus


def running(cluster, *args):
    job = cluster.sbatch(*args, "--wrap", "sleep 300")
    cluster.wait_job(job, states=("RUNNING",), timeout=30)
    return job


def test_kept_cores_go_only_to_jobs_holding_their_gpu(cluster_factory):
    cluster = cluster_factory(nodes=[dict(NODE)], gres_conf=GRES)
    assert "RestrictedCoresPerGPU=2(0-1,3-4)" in cluster.cli("scontrol", "show", "node", "kc1").stdout
    refused = cluster.cli("sbatch", "-n3", "--wrap", "true", check=False)
    assert refused.returncode == 1
    assert "Requested node configuration is not available" in refused.stderr
    cpu_only = running(cluster, "-n2")
    assert job_cpus(cluster, cpu_only) == {2, 5}
    cluster.cli("scancel", str(cpu_only))
    cluster.wait_job(cpu_only, timeout=30)
    gpu_job = running(cluster, "-n3", "--gpus=1")
    cpus = job_cpus(cluster, gpu_job)
    gpu = re.search(r"IDX:(\d)", cluster.cli("scontrol", "-d", "show", "job", str(gpu_job)).stdout).group(1)
    own, other = ({0, 1}, {3, 4}) if gpu == "0" else ({3, 4}, {0, 1})
    assert own <= cpus and not (other & cpus), (gpu, cpus)
