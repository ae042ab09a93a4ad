"""Shared GPUs through shards on a local cluster: several jobs share one
GPU at once, a whole-GPU job waits until the shards are released, and
GresUsed shows the usage in the spec's form at each point."""

from gantry_cluster import wait_for

SHARDED = ("NodeName=s1 Name=gpu Type=a100 File=/dev/nvidia0\n"
           "NodeName=s1 Name=shard Count=8 File=/dev/nvidia0\n")


def gres_used(cluster):
    lines = cluster.cli("sinfo", "-h", "-N", "-O", "NodeList:10,GresUsed:60").stdout.split()
    return lines[1]


def test_three_shard_jobs_share_a_gpu_and_a_whole_gpu_job_waits(cluster_factory):
    cluster = cluster_factory(
        nodes=[{"name": "s1", "cpus": 8, "memory": 8000, "gres": "gpu:a100:1,shard:8"}],
        gres_conf=SHARDED)
    assert gres_used(cluster) == "gpu:a100:0(IDX:N/A),shard:0(0/8)"

    out = cluster.root / "shard-%j.out"
    shards = [cluster.sbatch("--gres=shard:2", "-o", str(out),
                             "--wrap", "echo SHARDS=$SLURM_SHARDS_ON_NODE; sleep 30") for _ in range(3)]
    for job_id in shards:
        wait_for(lambda: cluster.job_state(job_id) == "RUNNING", what=f"shard job {job_id} to run")
    assert gres_used(cluster) == "gpu:a100:0(IDX:N/A),shard:6(6/8)"

    whole = cluster.sbatch("--gres=gpu:1", "--wrap", "sleep 30")
    wait_for(lambda: cluster.job(whole)["reason"] == "Resources", what="the whole-GPU job to wait")
    assert cluster.job_state(whole) == "PENDING"

    wait_for(lambda: (cluster.root / f"shard-{shards[0]}.out").exists()
             and "SHARDS=" in (cluster.root / f"shard-{shards[0]}.out").read_text(), what="shard job output")
    assert "SHARDS=2" in (cluster.root / f"shard-{shards[0]}.out").read_text()

    for job_id in shards:
        cluster.cli("scancel", str(job_id))
    wait_for(lambda: cluster.job_state(whole) == "RUNNING", what="the whole-GPU job to start")
    assert gres_used(cluster) == "gpu:a100:1(IDX:0),shard:0(-/8)"
    cluster.cli("scancel", str(whole))


# The per-type form: Name=shard/mps Type=... Count=N gives N to every GPU of
# that type (the most specific Type wins), so Gres= declares per-type node
# totals, or one untyped total equal to their sum.
PER_TYPE = ("NodeName=pt[1-2] Name=gpu Type=h200_nvl File=/dev/nvidia[0-1]\n"
            "NodeName=pt[1-2] Name=gpu Type=l40 File=/dev/nvidia2\n"
            "NodeName=pt[1-2] Name=shard Type=H200 Count=5\n"
            "NodeName=pt[1-2] Name=shard Type=h200_nvl Count=12\n"
            "NodeName=pt[1-2] Name=shard Type=l40 Count=7\n")


def node_record(cluster, name):
    return next(n for n in cluster.nodes_json() if n["name"] == name)


def test_per_type_shard_counts_are_per_gpu_and_typed_requests_run(cluster_factory):
    cluster = cluster_factory(
        nodes=[{"name": "pt1", "cpus": 4, "memory": 4000,
                "gres": "gpu:h200_nvl:2,gpu:l40:1,shard:h200_nvl:24,shard:l40:7"},
               {"name": "pt2", "cpus": 4, "memory": 4000, "gres": "gpu:h200_nvl:2,gpu:l40:1,shard:31"}],
        partitions=["PartitionName=p1 Nodes=pt1 Default=YES State=UP", "PartitionName=p2 Nodes=pt2 State=UP"],
        gres_conf=PER_TYPE)
    for name in ("pt1", "pt2"):
        record = node_record(cluster, name)
        assert (record["state"], record["reason"]) == ("IDLE", ""), record
    rows = cluster.cli("sinfo", "-h", "-N", "-O", "NodeList:10,GresUsed:80").stdout.split()
    assert rows[1].endswith("shard:0(0/12,0/12,0/7)"), rows
    assert rows[3].endswith("shard:0(0/12,0/12,0/7)"), rows

    for partition in ("p1", "p2"):
        out = cluster.cli("srun", "-p", partition, "--gres=shard:l40:7", "printenv", "SLURM_SHARDS_ON_NODE").stdout
        assert out.strip() == "7"
        out = cluster.cli("srun", "-p", partition, "--gres=shard:h200_nvl:12",
                          "printenv", "SLURM_SHARDS_ON_NODE").stdout
        assert out.strip() == "12"


def test_per_type_mps_counts_are_per_gpu(cluster_factory):
    gres_conf = ("Name=gpu Type=v100s File=/dev/nvidia[0-1]\n"
                 "Name=mps Type=v100 Count=300\n")
    cluster = cluster_factory(nodes=[{"name": "m1", "cpus": 4, "memory": 4000, "gres": "gpu:v100s:2,mps:600"}],
                              gres_conf=gres_conf)
    record = node_record(cluster, "m1")
    assert (record["state"], record["reason"]) == ("IDLE", ""), record
    out = cluster.cli("srun", "--gres=mps:v100s:300", "printenv", "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE").stdout
    assert out.strip() == "100"


def test_chunk_sizes_on_a_shard_line_drain_the_node(cluster_factory):
    gres_conf = ("Name=gpu Type=l40 File=/dev/nvidia[0-1]\n"
                 "Name=shard File=/dev/nvidia[0-1] Count=6 ChunkSizes=2\n")
    cluster = cluster_factory(nodes=[{"name": "c1", "cpus": 4, "memory": 4000, "gres": "gpu:l40:2,shard:6"}],
                              gres_conf=gres_conf)
    wait_for(lambda: node_record(cluster, "c1")["reason"] != "", timeout=10, what="a drain reason")
    record = node_record(cluster, "c1")
    assert record["state"] == "IDLE+DRAIN"
    assert "ChunkSizes cannot be used on shared GRES" in record["reason"], record
