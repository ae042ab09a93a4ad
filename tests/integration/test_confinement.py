"""Confinement on the node: steps in cgroup v2 (frozen by scontrol suspend,
thawed by resume) on the machine's real hierarchy, and the resctrl group a
job joins, on a fixture resctrl tree."""

import os
import shutil
import time
from pathlib import Path

import pytest

from gantry_cluster import wait_for

REPO = Path(__file__).resolve().parents[2]
CGROUP_V2 = Path("/sys/fs/cgroup/unified")
if not (CGROUP_V2 / "cgroup.controllers").exists():
    CGROUP_V2 = Path("/sys/fs/cgroup")


def cgroup_v2_writable():
    return (CGROUP_V2 / "cgroup.controllers").exists() and os.access(CGROUP_V2, os.W_OK)


@pytest.mark.skipif(not cgroup_v2_writable(), reason="skipped: no writable cgroup v2 hierarchy on this machine")
def test_suspend_freezes_the_job_cgroup_and_resume_thaws_it(cluster_factory):
    cluster = cluster_factory(
        extra_conf="TaskPlugin=task/cgroup",
        conf_files={"cgroup.conf": f"CgroupMountpoint={CGROUP_V2}\nConstrainCores=yes\nConstrainRAMSpace=yes\n"})
    ticks = cluster.root / "ticks"
    job_id = cluster.sbatch("--mem=100", "-o", str(cluster.root / "c-%j.out"), "--wrap",
                            f"cat /proc/self/cgroup; while true; do date +%s.%N >> {ticks}; sleep 0.1; done")
    wait_for(lambda: ticks.exists() and len(ticks.read_text().splitlines()) > 3, what="the job to tick")
    out = (cluster.root / f"c-{job_id}.out").read_text()
    assert "/gantry/" in out and "step_batch" in out, out
    cgroup_dir = CGROUP_V2 / out.strip().split("::")[-1].lstrip("/")
    if "memory" in (CGROUP_V2 / "cgroup.controllers").read_text().split():
        assert (cgroup_dir / "memory.max").read_text().strip() == str(100 * 1024 * 1024)
    else:
        log = (cluster.root / "gantryd-n1.log").read_text() + (cluster.root / "gantryd-n2.log").read_text()
        assert "memory controller is not available" in log

    cluster.cli("scontrol", "suspend", str(job_id))
    wait_for(lambda: cluster.job_state(job_id) == "SUSPENDED", what="SUSPENDED")
    wait_for(lambda: "frozen 1" in (cgroup_dir / "cgroup.events").read_text(), what="the cgroup to freeze")
    count = len(ticks.read_text().splitlines())
    time.sleep(1.0)
    assert len(ticks.read_text().splitlines()) == count, "the task kept running while suspended"

    cluster.cli("scontrol", "resume", str(job_id))
    wait_for(lambda: len(ticks.read_text().splitlines()) > count + 3, what="the task to continue")
    assert cluster.job_state(job_id) == "RUNNING"
    cluster.cli("scancel", str(job_id))
    assert cluster.wait_job(job_id) == "CANCELLED"
    wait_for(lambda: not any(p.exists() for p in [cgroup_dir / "cgroup.procs"]) or
             not (cgroup_dir / "cgroup.procs").read_text().strip(), what="the step cgroup to empty")


RESCTRL_YAML = """groups:
  - name: cpu_only
    schemata: |
      MB:0=2000;1=2000
  - name: gpu_one_per_socket
    schemata: |
      MB:0=4000;1=4000
  - name: gpu_two_per_socket
    schemata: |
      MB:0=8000;1=8000
"""


def test_jobs_join_the_resctrl_group_their_gpus_call_for(cluster_factory, tmp_path):
    # A four-GPU single-socket node whose kernel has resctrl mounted.
    host = tmp_path / "host"
    shutil.copytree(REPO / "tests/fixtures/hosts/pcie4-linked-pairs", host, symlinks=True)
    shutil.copytree(REPO / "tests/fixtures/resctrl/host", host, symlinks=True, dirs_exist_ok=True)
    cluster = cluster_factory(
        nodes=[{"name": "r1", "cpus": 32, "cores_per_socket": 32, "memory": 64000, "gres": "gpu:4",
                "host_root": host}],
        gres_conf="AutoDetect=nvidia\n",
        extra_conf="TaskPlugin=task/resctrl",
        conf_files={"resctrl.yaml": RESCTRL_YAML})
    resctrl = host / "sys/fs/resctrl"
    for group in ("cpu_only", "gpu_one_per_socket", "gpu_two_per_socket"):
        assert (resctrl / group / "schemata").exists(), group

    cases = {"cpu_only": [], "gpu_one_per_socket": ["--gpus-per-node=1"],
             "gpu_two_per_socket": ["--gpus-per-node=2"]}
    for group, options in cases.items():
        job_id = cluster.sbatch(*options, "--wrap", "true")
        assert cluster.wait_job(job_id) == "COMPLETED"
        assert (resctrl / group / "tasks").read_text().strip(), f"nothing joined {group}"
    log = (cluster.root / "gantryd-r1.log").read_text()
    assert "gpu_two_per_socket" in log and "resctrl: job" in log
