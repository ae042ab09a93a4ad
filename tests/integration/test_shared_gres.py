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
