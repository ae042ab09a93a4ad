"""GPU placement through the CLI on a local cluster: device links
(enforce-links waits for a linked pair, ignore-links takes what is free) and
device chunks (aligned sizes only, whole domains across nodes)."""

from gantry_cluster import wait_for

# g1: four GPUs in two linked pairs, 0-1 and 2-3.
LINKED_PAIRS = "\n".join([
    "NodeName=g1 Name=gpu Type=a6000 File=/dev/nvidia0 Links=-1,4,0,0",
    "NodeName=g1 Name=gpu Type=a6000 File=/dev/nvidia1 Links=4,-1,0,0",
    "NodeName=g1 Name=gpu Type=a6000 File=/dev/nvidia2 Links=0,0,-1,4",
    "NodeName=g1 Name=gpu Type=a6000 File=/dev/nvidia3 Links=0,0,4,-1",
]) + "\n"

# c1, c2: eight GPUs each, allocatable in aligned chunks of 1, 2, 4 or 8.
CHUNKED = "NodeName=c[1-2] Name=gpu Type=h100 File=/dev/nvidia[0-7] ChunkSizes=1,2,4,8\n"


def devices_of(cluster, job_id):
    gres = cluster.job(job_id)["allocation"][0]["gres"]
    return gres[gres.index("(IDX:") + 5:gres.index(")")]


def test_enforce_links_waits_for_a_linked_pair_and_ignore_links_does_not(cluster_factory):
    cluster = cluster_factory(
        nodes=[{"name": "g1", "cpus": 8, "memory": 8000, "gres": "gpu:a6000:4"}],
        gres_conf=LINKED_PAIRS)
    one = cluster.sbatch("--gres=gpu:1", "--gres-flags=ignore-links", "--wrap", "sleep 60")
    two = cluster.sbatch("--gres=gpu:2", "--gres-flags=ignore-links", "--wrap", "sleep 60")
    three = cluster.sbatch("--gres=gpu:1", "--gres-flags=ignore-links", "--wrap", "sleep 60")
    for job_id in (one, two, three):
        wait_for(lambda: cluster.job_state(job_id) == "RUNNING", what=f"job {job_id} to run")
    assert devices_of(cluster, one) == "0"
    assert devices_of(cluster, two) == "1-2"
    assert devices_of(cluster, three) == "3"
    cluster.cli("scancel", str(two))
    cluster.wait_job(two)

    # GPUs 1 and 2 are free but not linked to each other.
    linked = cluster.sbatch("--gres=gpu:2", "--gres-flags=enforce-links", "--wrap", "sleep 60")
    shown = cluster.cli("scontrol", "show", "job", str(linked)).stdout
    assert "GresEnforceLinks=Yes" in shown
    wait_for(lambda: cluster.job(linked)["reason"] == "Resources", what="the linked job to wait")
    assert cluster.job_state(linked) == "PENDING"

    anyway = cluster.sbatch("--gres=gpu:2", "--gres-flags=ignore-links", "--wrap", "sleep 60")
    wait_for(lambda: cluster.job_state(anyway) == "RUNNING", what="the ignore-links job to run")
    assert devices_of(cluster, anyway) == "1-2"
    assert "GresIgnoreLinks=Yes" in cluster.cli("scontrol", "show", "job", str(anyway)).stdout

    for job_id in (one, three, anyway):
        cluster.cli("scancel", str(job_id))
    wait_for(lambda: cluster.job_state(linked) == "RUNNING", what="the linked job to start")
    assert devices_of(cluster, linked) in ("0-1", "2-3")


def test_chunked_nodes_refuse_unaligned_and_partial_multi_node_requests(cluster_factory):
    cluster = cluster_factory(
        nodes=[{"name": "c1", "cpus": 16, "memory": 8000, "gres": "gpu:h100:8"},
               {"name": "c2", "cpus": 16, "memory": 8000, "gres": "gpu:h100:8"}],
        gres_conf=CHUNKED)
    three = cluster.cli("sbatch", "-N1", "--gres=gpu:3", "--wrap", "true", check=False)
    assert three.returncode != 0
    assert "Requested node configuration is not available" in three.stderr

    partial = cluster.cli("sbatch", "-N2", "--gpus-per-node=2", "--wrap", "true", check=False)
    assert partial.returncode != 0
    assert "Requested node configuration is not available" in partial.stderr

    pair = cluster.sbatch("-N1", "--gres=gpu:2", "--wrap", "true")
    assert cluster.wait_job(pair) == "COMPLETED"
    whole = cluster.sbatch("-N2", "--gpus-per-node=8", "--wrap", "true")
    assert cluster.wait_job(whole) == "COMPLETED"
    node = cluster.cli("scontrol", "show", "node", "-d", "c1").stdout
    assert "GresChunks=" in node


# k1, k2: eight GPUs each in aligned chunks of 2, 4 or 8 (no size 1); x1:
# four Flags=explicit GPUs in chunks of 2 or 4, in a partition of its own.
CHUNKED_AND_EXPLICIT = (
    "NodeName=k[1-2] Name=gpu Type=l40s File=/dev/nvidia[0-7] ChunkSizes=2,4,8\n"
    "NodeName=x1 Name=gpu Type=l40s File=/dev/nvidia[0-3] ChunkSizes=2,4 Flags=explicit\n")


def device_count(cluster, job_id):
    shown = devices_of(cluster, job_id)
    count = 0
    for part in shown.split(","):
        first, _, last = part.partition("-")
        count += int(last or first) - int(first) + 1
    return count


def test_chunk_rules_follow_how_the_job_may_spread(cluster_factory):
    cluster = cluster_factory(
        nodes=[{"name": "k1", "cpus": 12, "memory": 8000, "gres": "gpu:l40s:8"},
               {"name": "k2", "cpus": 12, "memory": 8000, "gres": "gpu:l40s:8"},
               {"name": "x1", "cpus": 6, "memory": 8000, "gres": "gpu:l40s:4"}],
        partitions=["PartitionName=chunked Nodes=k1,k2 Default=YES MaxTime=INFINITE State=UP",
                    "PartitionName=explicit Nodes=x1 MaxTime=INFINITE State=UP"],
        gres_conf=CHUNKED_AND_EXPLICIT)

    # -N1 keeps every task on one node, so part of a domain is allowed.
    for shape, gpus in ((["-N1", "-n5", "--gres=gpu:4"], 4),
                        (["-N1", "-n2", "--gpus-per-task=2"], 4),
                        (["-N1", "-n2", "--tres-per-task=gres/gpu=1"], 2),
                        (["-N1", "-n4", "--gpus=4", "--gpus-per-task=1"], 4),
                        # Without AllowSpecResourcesUsage the node stays shared.
                        (["--core-spec=1", "--gres=gpu:2"], 2),
                        (["--thread-spec=2", "--gres=gpu:4"], 4)):
        job_id = cluster.sbatch(*shape, "--wrap", "sleep 30")
        wait_for(lambda: cluster.job_state(job_id) == "RUNNING", what=f"{shape} to run")
        assert device_count(cluster, job_id) == gpus, shape
        cluster.cli("scancel", str(job_id))
        cluster.wait_job(job_id)

    # A node range or loose tasks could spread; --core-spec does not make a whole node.
    for shape in (["--nodes=1-2", "--gres=gpu:4"], ["-n3", "--gres=gpu:2"],
                  ["--core-spec=1", "--gres=gpu:3"]):
        refused = cluster.cli("sbatch", *shape, "--wrap", "true", check=False)
        assert refused.returncode != 0, shape
        assert "Requested node configuration is not available" in refused.stderr, shape
    whole = cluster.sbatch("--nodes=1-2", "--gres=gpu:8", "--wrap", "true")
    assert cluster.wait_job(whole) == "COMPLETED"

    loose = cluster.cli("sbatch", "--gpus-per-task=2", "--wrap", "true", check=False)
    assert loose.returncode != 0
    assert "Requires the job to specify a task count" in loose.stderr

    # Flags=explicit: the whole node, but only the three GPUs asked for.
    explicit = cluster.sbatch("-p", "explicit", "--exclusive", "--gres=gpu:3", "--wrap", "sleep 30")
    wait_for(lambda: cluster.job_state(explicit) == "RUNNING", what="the exclusive job to run")
    assert device_count(cluster, explicit) == 3
    cluster.cli("scancel", str(explicit))


def test_gpu_options_beyond_gres_need_cons_tres(cluster_factory):
    cluster = cluster_factory(
        nodes=[{"name": "r1", "cpus": 4, "memory": 4000, "gres": "gpu:3"}],
        extra_conf="SelectType=select/cons_res",
        gres_conf="NodeName=r1 Name=gpu File=/dev/nvidia[0-2]\n")
    for option in ("--gpus=2", "--gpus-per-node=2", "--cpus-per-gpu=1", "--mem-per-gpu=100"):
        refused = cluster.cli("sbatch", option, "--wrap", "true", check=False)
        assert refused.returncode != 0, option
        assert "Requested GRES option unsupported by configured SelectType plugin" in refused.stderr, option
        assert option.split("=")[0] in refused.stderr
    plain = cluster.sbatch("--gres=gpu:2", "--wrap", "true")
    assert cluster.wait_job(plain) == "COMPLETED"
