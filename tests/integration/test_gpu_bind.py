"""--gpu-bind end to end: srun carries it to the controller, the agent hands
it to gantrystepd with the node's socket layout, and every task gets its own
CUDA_VISIBLE_DEVICES. The node is a fixture host with two sockets of 16
cores and four GPUs given in gres.conf, two on each socket."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HOST = REPO / "tests/fixtures/hosts/nvlink8-2socket"
GRES_CONF = ("AutoDetect=off\n"
             "Name=gpu Type=h100 File=/dev/nvidia[0-1] Cores=0-15\n"
             "Name=gpu Type=h100 File=/dev/nvidia[2-3] Cores=16-31\n")
# Four tasks of eight cores: tasks 0 and 1 on socket 0, 2 and 3 on socket 1.
STEP = ["-n4", "-c8", "--gpus-per-node=4"]
SHOW = ["sh", "-c", "echo $SLURM_PROCID=$CUDA_VISIBLE_DEVICES"]


def two_socket_cluster(cluster_factory):
    return cluster_factory(
        nodes=[{"name": "b1", "cpus": 32, "sockets": 2, "cores_per_socket": 16, "memory": 8000,
                "gres": "gpu:h100:4", "host_root": HOST}],
        gres_conf=GRES_CONF)


def per_task(cluster, *args):
    result = cluster.cli("srun", *STEP, *args, *SHOW)
    seen = dict(line.split("=", 1) for line in result.stdout.split() if "=" in line)
    return [seen.get(str(task)) for task in range(4)], result.stderr


def test_each_gpu_bind_form_gives_each_task_its_own_devices(cluster_factory):
    cluster = two_socket_cluster(cluster_factory)
    cases = {
        "none": ["0,1,2,3"] * 4,
        "closest": ["0,1", "0,1", "2,3", "2,3"],
        "single:1": ["0", "1", "2", "3"],
        "map_gpu:3,0": ["3", "0", "3", "0"],
        "mask_gpu:0x6,0x8": ["1,2", "3", "1,2", "3"],
        "per_task:1": ["0", "1", "2", "3"],
    }
    for bind, expected in cases.items():
        seen, _ = per_task(cluster, f"--gpu-bind={bind}")
        assert seen == expected, (bind, seen)
    # Without the option every task sees the step's four GPUs.
    assert per_task(cluster)[0] == ["0,1,2,3"] * 4


def test_verbose_binding_reports_on_each_task_stderr(cluster_factory):
    cluster = two_socket_cluster(cluster_factory)
    seen, stderr = per_task(cluster, "--gpu-bind=verbose,closest")
    assert seen == ["0,1", "0,1", "2,3", "2,3"]
    assert stderr.count("gpu-bind: b1 task ") == 4, stderr
    assert "task 3 (local 3): GPU(s) 2,3 of the step's 0,1,2,3" in stderr


def test_a_malformed_gpu_bind_is_refused_before_anything_runs(cluster_factory):
    cluster = two_socket_cluster(cluster_factory)
    result = cluster.cli("srun", "--gpu-bind=map_gpu:0,,1", "true", check=False)
    assert result.returncode != 0
    assert "--gpu-bind: map_gpu: '' is not a GPU id" in result.stderr
    assert cluster.jobs_json() == []
