"""Slurm's words where scripts read them, on a loopback cluster: sinfo's
node filters (-t/--states with Slurm's flag-state meanings, -n, -r, -d,
-e, -a, -O StateComplete) and the refusals users grep for."""

import pytest

from gantry_cluster import Cluster, wait_for

NODES = [
    {"name": "gx1", "cpus": 6, "memory": 3000},
    {"name": "gx2", "cpus": 6, "memory": 3000},
    {"name": "gx3", "cpus": 6, "memory": 3000},
]
PARTITIONS = [
    "PartitionName=left Nodes=gx[1-2] Default=YES MaxTime=INFINITE State=UP",
    "PartitionName=solo Nodes=gx1 MaxTime=INFINITE State=UP",
    "PartitionName=right Nodes=gx3 MaxTime=INFINITE State=UP",
]


@pytest.fixture(scope="module")
def busy_cluster(tmp_path_factory):
    """gx1 runs a one-CPU job (mixed), gx2 is drained, gx3 is idle."""
    cluster = Cluster(nodes=[dict(n) for n in NODES], partitions=PARTITIONS,
                      root=tmp_path_factory.mktemp("slurm-texts"))
    try:
        cluster.start()
        job = cluster.sbatch("-p", "solo", "-n1", "--wrap", "sleep 600")
        wait_for(lambda: cluster.job_state(job) == "RUNNING", what="the job to run")
        cluster.cli("scontrol", "update", "NodeName=gx2", "State=DRAIN", "Reason=fan")
        yield cluster
    finally:
        cluster.cleanup()


def listed(cluster, *args):
    return cluster.cli("sinfo", "-h", "-N", "-o", "%N", *args).stdout.split()


@pytest.mark.parametrize("states,nodes", [
    ("drain", ["gx2"]),
    ("IDLE", ["gx2", "gx3"]),
    ("mix", ["gx1"]),
    ("alloc", ["gx1"]),
    ("drained,mixed", ["gx1", "gx2"]),
    ("idle&drain", ["gx2"]),
    ("down,maint", []),
    ("idle+~drain", ["gx3"]),
    ("!drain", ["gx1", "gx3"]),
    ("all", ["gx1", "gx2", "gx3"]),
])
def test_sinfo_states_select_nodes_as_slurm_does(busy_cluster, states, nodes):
    assert listed(busy_cluster, "-t", states) == nodes
    assert listed(busy_cluster, f"--states={states}") == nodes


def test_sinfo_refuses_an_unknown_state_and_names_the_valid_ones(busy_cluster):
    result = busy_cluster.cli("sinfo", "-t", "idle,sleepy", check=False)
    assert result.returncode == 1
    assert result.stdout == ""
    first, second = result.stderr.splitlines()
    assert first == 'sinfo: error: Bad state string: "sleepy"'
    assert second.startswith("sinfo: error: valid states: unknown,down,idle,allocated,")


def test_sinfo_nodes_takes_a_hostlist_and_refuses_a_broken_one(busy_cluster):
    assert listed(busy_cluster, "-n", "gx[2-3]") == ["gx2", "gx3"]
    assert listed(busy_cluster, "--nodes=gx3", "-t", "idle") == ["gx3"]
    broken = busy_cluster.cli("sinfo", "-n", "gx[2-", check=False)
    assert broken.returncode == 1
    assert broken.stderr == "sinfo: error: 'gx[2-' invalid entry for --nodes\n"


def test_sinfo_responding_and_dead(busy_cluster):
    assert listed(busy_cluster, "-r") == ["gx1", "gx2", "gx3"]
    assert listed(busy_cluster, "--dead") == []


def test_a_partition_emptied_by_a_filter_is_not_listed(busy_cluster):
    rows = busy_cluster.cli("sinfo", "-h", "-t", "drain", "-o", "%P %D").stdout.splitlines()
    assert rows == ["left* 1"]
    unfiltered = busy_cluster.cli("sinfo", "-h", "-e", "-a", "-o", "%P").stdout.split()
    assert unfiltered == ["left*", "solo", "right"]


def test_sinfo_state_complete_names_base_and_flags(busy_cluster):
    out = busy_cluster.cli("sinfo", "-h", "-N", "-O", "NodeList:6,StateComplete:30").stdout
    rows = [line.split() for line in out.splitlines()]
    assert rows == [["gx1", "mixed"], ["gx2", "idle+drain"], ["gx3", "idle"]]


# Partition "left" has two nodes of six CPUs.
@pytest.mark.parametrize("shape,text", [
    (["-N3"], "Node count specification invalid"),
    (["-n13"], "More processors requested than permitted"),
    (["-N2", "--ntasks-per-node=4", "-c2"], "More processors requested than permitted"),
])
def test_a_job_its_partition_can_never_hold_is_refused_in_slurms_words(busy_cluster, shape, text):
    batch = busy_cluster.cli("sbatch", "-p", "left", *shape, "--wrap", "true", check=False)
    assert batch.returncode != 0
    assert text in batch.stderr
    step = busy_cluster.cli("srun", "-p", "left", *shape, "true", check=False)
    assert step.returncode != 0
    assert step.stderr.startswith(f"srun: error: Unable to allocate resources: {text}")
    shell = busy_cluster.cli("salloc", "-p", "left", *shape, "true", check=False)
    assert shell.returncode != 0
    assert shell.stderr.startswith(f"salloc: error: Job submit/allocate failed: {text}")


def test_a_job_that_fits_its_partition_is_still_taken(busy_cluster):
    assert busy_cluster.cli("srun", "-p", "left", "-N1", "-n2", "true").returncode == 0


@pytest.mark.parametrize("gres", ["gpu:2:x", "gpu:a:b:c", "gpu:0"])
def test_a_malformed_gres_is_refused_in_slurms_words(busy_cluster, gres):
    result = busy_cluster.cli("sbatch", f"--gres={gres}", "--wrap", "true", check=False)
    assert result.returncode != 0
    assert "Invalid generic resource (gres) specification" in result.stderr


def test_squeue_refuses_a_job_id_that_is_not_a_number(busy_cluster):
    result = busy_cluster.cli("squeue", "-j", "12,abc", check=False)
    assert result.returncode == 1
    assert result.stderr == "squeue: error: Invalid job id: abc\n"


def test_a_node_count_takes_slurms_k_suffix(busy_cluster):
    # 1k nodes are 1024 CPUs at least: Slurm checks the CPUs first.
    result = busy_cluster.cli("srun", "-p", "left", "-N", "1k", "true", check=False)
    assert result.returncode != 0
    assert result.stderr.startswith("srun: error: Unable to allocate resources: More processors requested "
                                    "than permitted: 1024 CPUs requested, the partition's nodes have 12")
    # Within the CPUs, the node count is what is refused.
    result = busy_cluster.cli("srun", "-p", "left", "-N", "3", "true", check=False)
    assert result.stderr.startswith("srun: error: Unable to allocate resources: Node count specification "
                                    "invalid: 3 nodes requested, the partition has 2")
