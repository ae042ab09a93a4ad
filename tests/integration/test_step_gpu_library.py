"""A step's launcher holds the GPU management library where the spec says it
needs it: under AutoDetect=nvml, gantrystepd loads and starts NVML for a
step with --gpu-freq, and for GPU usage accounting of a step with a GPU
(unless JobAcctGatherParams=DisableGPUAcct); otherwise it loads none, so
other processes may reset the GPUs. Observed through the fake NVML mapped
into the launcher's process while the step runs, and its stepd.log."""

import shutil
from pathlib import Path

from gantry_cluster import BUILD, REPO, wait_for

HOSTS = REPO / "tests" / "fixtures" / "hosts"
FAKE_NVML = BUILD / "tests" / "fakes" / "libgantry_fake_nvml.so"
HOST = "nvlink8-2socket"  # eight H100s behind NVLink, two sockets


def nvml_cluster(cluster_factory, extra_conf="", library=FAKE_NVML):
    node = {"name": "hx", "cpus": 4, "gres": "gpu:8", "host_root": HOSTS / HOST,
            "env": {"GANTRY_NVML_LIBRARY": str(library),
                    "GANTRY_FAKE_NVML_FILE": str(HOSTS / HOST / "fake-nvml.txt")}}
    return cluster_factory(nodes=[node], gres_conf="AutoDetect=nvml\n", extra_conf=extra_conf)


def run_batch_step(cluster, *sbatch_args):
    """Runs a batch job that waits for a file; reads its launcher's memory map
    while it runs, then lets it end. Returns (maps, the launcher's log)."""
    release = cluster.root / f"release-{len(list(cluster.root.glob('release-*')))}"
    job_id = cluster.sbatch(*sbatch_args, "--wrap", f"while [ ! -e {release} ]; do sleep 0.1; done")
    directory = cluster.root / "spool" / "hx" / "steps" / f"{job_id}.batch"
    state = directory / "state"
    wait_for(lambda: state.exists() and state.read_text().strip() == "running",
             what=f"job {job_id}'s batch step to run")
    maps = Path(f"/proc/{int((directory / 'pid').read_text())}/maps").read_text()
    # Held open: the agent removes the step directory once the step ended.
    with open(directory / "stepd.log") as log:
        release.touch()
        assert cluster.wait_job(job_id) == "COMPLETED"
        return maps, log.read()


def test_a_gpu_step_with_gpu_freq_holds_nvml_until_it_ends(cluster_factory):
    cluster = nvml_cluster(cluster_factory)
    maps, log = run_batch_step(cluster, "--gres=gpu:2", "--gpu-freq=high")
    assert str(FAKE_NVML) in maps
    assert f"gpu: holding NVML ({FAKE_NVML}) for --gpu-freq" in log
    assert f"gpu: released NVML ({FAKE_NVML})" in log
    assert log.index("gpu: released NVML") < log.index("step done:")


def test_no_library_without_gpu_freq_while_accounting_is_off(cluster_factory):
    cluster = nvml_cluster(cluster_factory)
    for args in (["--gres=gpu:3"], []):
        maps, log = run_batch_step(cluster, *args)
        assert "libgantry_fake_nvml" not in maps, args
        assert "gpu: holding" not in log, args


def test_gpu_accounting_holds_nvml_for_a_gpu_step(cluster_factory):
    cluster = nvml_cluster(cluster_factory, extra_conf="JobAcctGatherType=jobacct_gather/linux")
    maps, log = run_batch_step(cluster, "--gres=gpu:1")
    assert str(FAKE_NVML) in maps
    assert f"gpu: holding NVML ({FAKE_NVML}) for GPU accounting" in log
    maps, _ = run_batch_step(cluster)  # no GPU: nothing to account
    assert "libgantry_fake_nvml" not in maps


def test_disable_gpu_acct_leaves_only_gpu_freq(cluster_factory):
    cluster = nvml_cluster(cluster_factory, extra_conf="JobAcctGatherType=jobacct_gather/linux\n"
                                                       "JobAcctGatherParams=DisableGPUAcct")
    maps, _ = run_batch_step(cluster, "--gres=gpu:1")
    assert "libgantry_fake_nvml" not in maps
    maps, log = run_batch_step(cluster, "--gres=gpu:1", "--gpu-freq=low")
    assert str(FAKE_NVML) in maps
    assert f"gpu: holding NVML ({FAKE_NVML}) for --gpu-freq" in log


def test_an_nvml_that_cannot_be_opened_is_logged_and_the_step_still_runs(cluster_factory, tmp_path):
    library = tmp_path / "libnvidia-ml-vanishing.so"
    shutil.copy(FAKE_NVML, library)
    cluster = nvml_cluster(cluster_factory, library=library)
    library.unlink()  # detection is done; the step's launcher finds none
    maps, log = run_batch_step(cluster, "--gres=gpu:1", "--gpu-freq=medium")
    assert "libnvidia-ml-vanishing" not in maps
    assert "gpu: cannot hold a GPU library for --gpu-freq: gpu/nvml: cannot load its library" in log
    assert "; the step runs without it" in log


def test_an_srun_step_holds_nvml_for_its_own_gpu_freq(cluster_factory):
    cluster = nvml_cluster(cluster_factory)
    # The task's parent is its launcher.
    show = ["sh", "-c", "grep -c libgantry_fake_nvml /proc/$PPID/maps || true"]
    held = cluster.cli("srun", "--gres=gpu:1", "--gpu-freq=highm1", *show).stdout.split()
    assert held and int(held[0]) > 0
    plain = cluster.cli("srun", "--gres=gpu:1", *show).stdout.split()
    assert plain == ["0"]
