"""gres.conf Flags=env_uuid: a step's CUDA_VISIBLE_DEVICES names its GPUs by
UUID instead of by index. The fixture host has four NVIDIA cards whose
UUIDs the driver's files give."""

import re

from gantry_cluster import REPO

HOST = REPO / "tests" / "fixtures" / "hosts" / "pcie4-linked-pairs"
SHOW = ["sh", "-c", "echo $CUDA_VISIBLE_DEVICES"]


def fixture_uuids():
    """The cards' UUIDs in device order (by PCI bus id)."""
    cards = []
    for info in sorted((HOST / "proc" / "driver" / "nvidia" / "gpus").glob("*/information")):
        cards.append(re.search(r"GPU UUID:\s+(\S+)", info.read_text()).group(1))
    return cards


def four_gpu_cluster(cluster_factory, gres_conf):
    return cluster_factory(nodes=[{"name": "uv1", "cpus": 4, "memory": 4000, "gres": "gpu:4", "host_root": HOST}],
                           gres_conf=gres_conf)


def test_env_uuid_puts_the_gpus_uuids_in_cuda_visible_devices(cluster_factory):
    cluster = four_gpu_cluster(cluster_factory, "AutoDetect=nvidia\nName=gpu Flags=env_uuid\n")
    visible = cluster.cli("srun", "-n1", "--gpus=3", *SHOW, timeout=30).stdout.strip().split(",")
    assert len(visible) == 3
    assert visible == fixture_uuids()[:3]


def test_without_env_uuid_cuda_visible_devices_has_indexes(cluster_factory):
    cluster = four_gpu_cluster(cluster_factory, "AutoDetect=nvidia\n")
    visible = cluster.cli("srun", "-n1", "--gpus=3", *SHOW, timeout=30).stdout.strip()
    assert visible == "0,1,2"
