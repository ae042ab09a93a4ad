"""Shard device memory through the real agent and launcher: a step holding
k shards of a device with a dmem region sees SLURM_SHARD_MEM_PER_GPU with
k slices of that device's memory, and its cgroup (job and step) gets the
matching dmem.max and dmem.min.

The first test runs on a fixture host whose cgroup tree is a plain folder
(the launcher writes the same control files there); the second one on the
machine's real cgroup v2 hierarchy, where the kernel has dmem regions."""

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests/fixtures/hosts/mixed3-dmem"
MIB = 1024 * 1024
REAL_CGROUP = Path("/sys/fs/cgroup")

# Only the second NVIDIA GPU of the fixture (bus b3, minor 1), given by File:
# the node has one GPU, so the step holds every device there is to confine.
SHARDS = 10
GRES_CONF = ("AutoDetect=off\n"
             "Name=gpu Type=l4 File=/dev/nvidia1{region}\n"
             f"Name=shard Count={SHARDS} File=/dev/nvidia1\n")
CGROUP_CONF = "CgroupMountpoint=/sys/fs/cgroup\nConstrainDevices=yes\nConstrainDeviceMemory=yes\n"


def capacity_of(capacity_file, region):
    for line in capacity_file.read_text().splitlines():
        name, _, size = line.partition(" ")
        if name == region:
            return int(size)
    raise AssertionError(f"{region} not in {capacity_file}")


def shard_cluster(cluster_factory, host, region_setting=""):
    return cluster_factory(
        nodes=[{"name": "d1", "cpus": 32, "cores_per_socket": 32, "memory": 64000,
                "gres": f"gpu:l4:1,shard:{SHARDS}", "host_root": host}],
        extra_conf="TaskPlugin=task/cgroup",
        gres_conf=GRES_CONF.format(region=region_setting),
        conf_files={"cgroup.conf": CGROUP_CONF})


def run_shard_step(cluster, shards, cgroup_root):
    """KEY -> lines: the step's SLURM_SHARD_MEM_PER_GPU, and each line of the
    dmem.max and dmem.min of its job and step cgroup (named after the job
    SLUID), as the task itself reads them."""
    script = ("echo MEM=$SLURM_SHARD_MEM_PER_GPU; "
              f"d={cgroup_root}/gantry/$SLURM_JOB_SLUID; s=$d/step_$SLURM_STEP_ID; "
              "sed s/^/JOBMAX=/ $d/dmem.max; sed s/^/JOBMIN=/ $d/dmem.min; "
              "sed s/^/STEPMAX=/ $s/dmem.max; sed s/^/STEPMIN=/ $s/dmem.min")
    out = cluster.cli("srun", f"--gres=shard:{shards}", "sh", "-c", script).stdout
    seen = {}
    for line in out.splitlines():
        key, _, value = line.partition("=")
        seen.setdefault(key, []).append(value)
    return seen


def test_a_shard_step_gets_its_slices_in_the_environment_and_the_cgroup(cluster_factory, tmp_path):
    host = tmp_path / "host"
    shutil.copytree(FIXTURE, host, symlinks=True)
    region = "nvidia/0000:b3:00/vidmem"
    cluster = shard_cluster(cluster_factory, host)
    log = (cluster.root / "gantryd-d1.log").read_text()
    assert f"shard: /dev/nvidia1 shards={SHARDS} region={region}" in log and "dmem=enforced" in log, log

    slice_bytes = capacity_of(host / "sys/fs/cgroup/dmem.capacity", region) // SHARDS
    seen = run_shard_step(cluster, 4, host / "sys/fs/cgroup")
    assert seen["MEM"] == [f"0000:b3:00.0={4 * slice_bytes // MIB}M"], seen
    for key in ("JOBMAX", "JOBMIN", "STEPMAX", "STEPMIN"):
        assert seen.get(key) == [f"{region} {4 * slice_bytes}"], (key, seen)


def real_dmem_regions():
    capacity = REAL_CGROUP / "dmem.capacity"
    if not capacity.exists() or not os.access(REAL_CGROUP, os.W_OK):
        return []
    return [line.split()[0] for line in capacity.read_text().splitlines() if line.strip()]


@pytest.mark.skipif(not real_dmem_regions(),
                    reason="skipped: this machine's cgroup v2 hierarchy has no dmem regions "
                           "(needs Linux 6.14+ with a GPU driver that registers them, and a writable /sys/fs/cgroup)")
def test_a_shard_step_is_limited_on_a_real_dmem_region(cluster_factory, tmp_path):
    # The fixture's GPU is pointed at a region the kernel really has
    # (DmemRegion=), and its cgroup tree is the machine's own.
    region = real_dmem_regions()[0]
    host = tmp_path / "host"
    shutil.copytree(FIXTURE, host, symlinks=True)
    shutil.rmtree(host / "sys/fs/cgroup")
    os.symlink(REAL_CGROUP, host / "sys/fs/cgroup")
    cluster = shard_cluster(cluster_factory, host, region_setting=f" DmemRegion={region}")
    slice_bytes = capacity_of(REAL_CGROUP / "dmem.capacity", region) // SHARDS
    seen = run_shard_step(cluster, 3, REAL_CGROUP)
    assert seen["MEM"] == [f"0000:b3:00.0={3 * slice_bytes // MIB}M"], seen
    # The kernel lists every region of the node; ours carries the limit.
    for key in ("STEPMAX", "STEPMIN"):
        assert f"{region} {3 * slice_bytes}" in seen.get(key, []), (key, seen)
