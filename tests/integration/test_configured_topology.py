"""SlurmdParameters=config_overrides: gres.conf's Cores= are checked against
the topology of the node's gantry.conf line, not the machine's CPUs, and
`gantryd --check-config` agrees with a real start on the same files. The
fixture host has one socket of 16 cores; the node line says 4 sockets of 8
cores."""

import subprocess

from gantry_cluster import REPO, Cluster, binary, free_port

HOST = REPO / "tests" / "fixtures" / "hosts" / "pcie4-linked-pairs"
NODE = {"name": "wide1", "cpus": 32, "sockets": 4, "cores_per_socket": 8, "memory": 4000,
        "gres": "gpu:1", "host_root": HOST}


def gres_conf(cores):
    return f"AutoDetect=off\nName=gpu File=/dev/nvidia0 Cores={cores}\n"


def check_config(cluster):
    return subprocess.run([binary("gantryd"), "--conf-dir", str(cluster.conf_dir), "--name", "wide1",
                           "--host-root", str(HOST), "--check-config"],
                          capture_output=True, text=True, timeout=30)


def start_fails(cluster):
    return subprocess.run([binary("gantryd"), "--conf-dir", str(cluster.conf_dir), "--name", "wide1",
                           "--host-root", str(HOST), "--port", str(free_port()),
                           "--state-dir", str(cluster.root / "spool" / "refused")],
                          capture_output=True, text=True, timeout=30)


def test_cores_beyond_the_machine_but_within_the_configured_node_start_and_check(cluster_factory):
    # Cores 16-23 are the configured third socket; the machine has 16 cores.
    cluster = cluster_factory(nodes=[dict(NODE)], gres_conf=gres_conf("16-23"))
    check = check_config(cluster)
    assert check.returncode == 0, check.stdout + check.stderr
    assert cluster.cli("srun", "--gpus=1", "-n1", "echo", "ok", timeout=30).stdout.strip() == "ok"


def refused_by_both(cores, message):
    cluster = Cluster(nodes=[dict(NODE)], gres_conf=gres_conf(cores))
    try:
        check = check_config(cluster)
        assert check.returncode == 1
        assert message in check.stdout, check.stdout
        start = start_fails(cluster)
        assert start.returncode == 1
        log = cluster.root / "gantryd-wide1.log"
        logged = log.read_text() if log.exists() else ""
        assert message in start.stdout + start.stderr + logged
    finally:
        cluster.cleanup()


def test_cores_that_split_a_configured_socket_are_refused_by_check_and_start():
    refused_by_both("12-13", "gres/gpu GRES core specification 12-13 for node wide1 doesn't match socket "
                             "boundaries. (Socket 1 is cores 8-15)")


def test_cores_beyond_the_configured_node_are_refused_by_check_and_start():
    refused_by_both("32-39", "gres/gpu GRES core specification 32-39 for node wide1 names cores beyond the "
                             "node's 32 cores (0-31)")
