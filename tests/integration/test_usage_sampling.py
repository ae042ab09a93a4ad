"""Usage sampling in the step launcher, carried to the controller: each task
of a step gets its CPU time and memory from /proc and its wait4() rusage,
and gres/gpumem and gres/gpuutil from whoever reads its GPUs (NVML, ROCm SMI,
or the kernel's dmem counters of a shard under device memory enforcement).
What the agent sends in the StepComplete report is read back from its
debug log (one line per task), with the launcher's own lines beside it.

The fake NVML and ROCm SMI answer per process from `proc` records
(tests/fakes/README.md); tasks exec programs of their own names so that each
task's records are its own."""

import re
import shutil
from pathlib import Path

from gantry_cluster import BUILD, REPO, wait_for

HOSTS = REPO / "tests" / "fixtures" / "hosts"
FAKE_NVML = BUILD / "tests" / "fakes" / "libgantry_fake_nvml.so"
FAKE_RSMI = BUILD / "tests" / "fakes" / "libgantry_fake_rsmi.so"
MIB = 1024 * 1024
GATHER = "JobAcctGatherType=jobacct_gather/linux\nSlurmdDebug=debug\n"
USAGE_LINE = re.compile(r"job (\d+) step (\S+): task (\d+) usage reported: (.*)$")


def fake_data(tmp_path, host, name, records):
    """The fixture host's fake library data with per-process records added."""
    data = tmp_path / name
    data.write_text((HOSTS / host / name).read_text() + "".join(line + "\n" for line in records))
    return data


def programs(tmp_path, *names):
    """Copies of sleep under names of their own: /proc/<pid>/comm tells the
    tasks apart for the fakes' records."""
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    for name in names:
        shutil.copy(shutil.which("sleep"), folder / name)
    folder.chmod(0o755)
    return folder


def per_task(cli_program):
    """A task command: some CPU work, then exec the program named after the
    task's rank with its sleep time (`<folder>/<name><rank> <seconds>`)."""
    return ["sh", "-c", "i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done; " + cli_program]


def reported_usage(cluster, node):
    """{(job, step, task): {field: int or None}} from the agent's log."""
    usage = {}
    for line in (cluster.root / f"gantryd-{node}.log").read_text().splitlines():
        match = USAGE_LINE.search(line)
        if not match:
            continue
        fields = {}
        for pair in match.group(4).split():
            key, _, value = pair.partition("=")
            fields[key] = None if value == "none" else int(value)
        usage[(int(match.group(1)), match.group(2), int(match.group(3)))] = fields
    return usage


def step_usage(cluster, node):
    """{task: fields} of the one step the test ran, once the agent reported it
    (srun may return before the agent's report)."""
    log = cluster.root / f"gantryd-{node}.log"
    wait_for(lambda: " step 0: exit " in log.read_text(), what="the step's report")
    found = {task: fields for (_, _, task), fields in reported_usage(cluster, node).items()}
    assert found, log.read_text()[-4000:]
    return found


def nvml_cluster(cluster_factory, tmp_path, records, extra_conf=GATHER + "AccountingStorageTRES=gres/gpu\n"):
    data = fake_data(tmp_path, "nvlink8-2socket", "fake-nvml.txt", records)
    node = {"name": "hx", "cpus": 4, "gres": "gpu:8", "host_root": HOSTS / "nvlink8-2socket",
            "env": {"GANTRY_NVML_LIBRARY": str(FAKE_NVML), "GANTRY_FAKE_NVML_FILE": str(data)}}
    return cluster_factory(nodes=[node], gres_conf="AutoDetect=nvml\n",
                           extra_conf=extra_conf + "JobAcctGatherFrequency=task=1\n")


# The first two GPUs of the fixture in NVML's order (PCI bus order).
GPU0, GPU1 = "00000000:18:00.0", "00000000:2a:00.0"


def two_task_nvml_step(cluster, folder):
    # Every GPU of the node, so that the records' GPUs are the step's.
    cluster.cli("srun", "-n2", "--gres=gpu:8", *per_task(f"exec {folder}/nap$SLURM_PROCID 3"))
    return step_usage(cluster, "hx")


def test_two_tasks_on_nvml_report_their_own_gpu_and_cpu_usage(cluster_factory, tmp_path):
    folder = programs(tmp_path, "nap0", "nap1")
    cluster = nvml_cluster(cluster_factory, tmp_path, [
        f"proc|{GPU0}|nap0|1536|63", f"proc|{GPU1}|nap1|704|29", f"proc|{GPU1}|nap0|32|7"])
    usage = two_task_nvml_step(cluster, folder)
    assert sorted(usage) == [0, 1], usage
    # Task 0 uses both GPUs: its figures add up over them.
    assert usage[0]["gpu_mem_bytes"] == (1536 + 32) * MIB, usage
    assert usage[0]["gpu_util_percent"] == 63 + 7, usage
    assert usage[1]["gpu_mem_bytes"] == 704 * MIB, usage
    assert usage[1]["gpu_util_percent"] == 29, usage
    for task in usage.values():
        assert task["cpu_usec"] > 20000, usage  # the shell's loop before it exec'd
        assert task["mem_peak_bytes"] > 0, usage
        assert task["vmem_peak_bytes"] > 0, usage


def test_an_nvml_error_on_the_per_process_call_gives_no_gpu_sample(cluster_factory, tmp_path):
    folder = programs(tmp_path, "nap0", "nap1")
    cluster = nvml_cluster(cluster_factory, tmp_path, [
        f"proc|{GPU0}|nap0|1536|63", f"proc|{GPU1}|nap1|704|29", f"procerror|{GPU1}|999"])
    usage = two_task_nvml_step(cluster, folder)
    assert usage[0]["gpu_mem_bytes"] == 1536 * MIB, usage
    assert usage[1]["gpu_mem_bytes"] is None and usage[1]["gpu_util_percent"] is None, usage
    log = (cluster.root / "gantryd-hx.log").read_text()
    assert "gpu/nvml: cannot read the processes on GPU 0000:2a:00.0 (NVML error 999)" in log


def test_untracked_gpu_usage_gives_cpu_and_memory_but_no_gpu_fields(cluster_factory, tmp_path):
    folder = programs(tmp_path, "nap0", "nap1")
    # gres/gpu is not in AccountingStorageTRES (a typed GPU does not bring
    # gpumem and gpuutil).
    cluster = nvml_cluster(cluster_factory, tmp_path, [f"proc|{GPU0}|any|1536|63", f"proc|{GPU1}|any|704|29"],
                           extra_conf=GATHER + "AccountingStorageTRES=gres/gpu:nvidia_h100_80gb_hbm3\n")
    usage = two_task_nvml_step(cluster, folder)
    for task in usage.values():
        assert task["gpu_mem_bytes"] is None and task["gpu_util_percent"] is None, usage
        assert task["cpu_usec"] > 20000, usage


def test_disable_gpu_acct_gives_no_gpu_fields(cluster_factory, tmp_path):
    folder = programs(tmp_path, "nap0", "nap1")
    cluster = nvml_cluster(cluster_factory, tmp_path, [f"proc|{GPU0}|any|1536|63", f"proc|{GPU1}|any|704|29"],
                           extra_conf=GATHER + "AccountingStorageTRES=gres/gpu\nJobAcctGatherParams=DisableGPUAcct\n")
    usage = two_task_nvml_step(cluster, folder)
    assert sorted(usage) == [0, 1]
    for task in usage.values():
        assert task["gpu_mem_bytes"] is None and task["gpu_util_percent"] is None, usage


def test_jobacct_gather_none_reports_no_task_usage(cluster_factory, tmp_path):
    folder = programs(tmp_path, "nap0", "nap1")
    cluster = nvml_cluster(cluster_factory, tmp_path, [f"proc|{GPU0}|any|1536|63"],
                           extra_conf="SlurmdDebug=debug\nAccountingStorageTRES=gres/gpu\n")
    cluster.cli("srun", "-n2", "--gres=gpu:2", *per_task(f"exec {folder}/nap$SLURM_PROCID 1"))
    log = cluster.root / "gantryd-hx.log"
    wait_for(lambda: " step 0: exit " in log.read_text(), what="the step's report")
    assert not reported_usage(cluster, "hx"), log.read_text()[-3000:]


def rsmi_cluster(cluster_factory, tmp_path, records, interval="1"):
    data = fake_data(tmp_path, "amd8-xgmi", "fake-rsmi.txt", records)
    node = {"name": "mx", "cpus": 4, "gres": "gpu:8", "host_root": HOSTS / "amd8-xgmi",
            "env": {"GANTRY_RSMI_LIBRARY": str(FAKE_RSMI), "GANTRY_FAKE_RSMI_FILE": str(data)}}
    return cluster_factory(nodes=[node], gres_conf="AutoDetect=rsmi\n",
                           extra_conf=GATHER + "AccountingStorageTRES=gres/gpu\n"
                                      f"JobAcctGatherFrequency=task={interval}\n")


def test_rsmi_reports_gpumem_and_cu_occupancy(cluster_factory, tmp_path):
    folder = programs(tmp_path, "nap0", "nap1")
    # Task 1's process occupies 26 of the 208 CUs of two GPUs read: 12 %.
    cluster = rsmi_cluster(cluster_factory, tmp_path, [
        "proc|0|nap0|3072|52|104|ok", "proc|0|nap1|96|26|104|ok", "proc|1|nap1|32|0|104|ok"])
    cluster.cli("srun", "-n2", "--gres=gpu:2", *per_task(f"exec {folder}/nap$SLURM_PROCID 3"))
    usage = step_usage(cluster, "mx")
    assert usage[0]["gpu_mem_bytes"] == 3072 * MIB and usage[0]["gpu_util_percent"] == 50, usage
    assert usage[1]["gpu_mem_bytes"] == 128 * MIB and usage[1]["gpu_util_percent"] == 12, usage


def test_rsmi_invalid_or_above_100_gives_gpumem_without_gpuutil(cluster_factory, tmp_path):
    folder = programs(tmp_path, "nap0", "nap1")
    cluster = rsmi_cluster(cluster_factory, tmp_path, [
        "proc|0|nap0|2560|40|104|ok", "proc|1|nap0|0|0|104|invalid",  # a GPU without the counter
        "proc|2|nap1|448|150|104|ok"])  # 144 %: a wrong value
    cluster.cli("srun", "-n2", "--gres=gpu:2", *per_task(f"exec {folder}/nap$SLURM_PROCID 3"))
    usage = step_usage(cluster, "mx")
    assert usage[0]["gpu_mem_bytes"] == 2560 * MIB and usage[0]["gpu_util_percent"] is None, usage
    assert usage[1]["gpu_mem_bytes"] == 448 * MIB and usage[1]["gpu_util_percent"] is None, usage


def test_rsmi_failed_read_gives_neither_and_one_line_per_process_per_poll(cluster_factory, tmp_path):
    folder = programs(tmp_path, "short0", "long1")
    # Only at the end (interval 0): a poll as each task ends. The first end
    # polls both tasks' processes, the second only the one left: 3 lines.
    cluster = rsmi_cluster(cluster_factory, tmp_path, ["proc|0|any|2560|40|104|fail"], interval="0")
    cluster.cli("srun", "-n2", "--gres=gpu:2", "sh", "-c",
                f'if [ "$SLURM_PROCID" = 0 ]; then exec {folder}/short0 1; else exec {folder}/long1 4; fi')
    usage = step_usage(cluster, "mx")
    for task in usage.values():
        assert task["gpu_mem_bytes"] is None and task["gpu_util_percent"] is None, usage
    log = (cluster.root / "gantryd-mx.log").read_text()
    lines = [line for line in log.splitlines() if "gantrystepd " in line and "RSMI: Failed to get usage" in line]
    assert len(lines) == 3, lines


def test_a_dmem_enforced_shard_takes_gpumem_from_the_kernel_counters(cluster_factory, tmp_path):
    host = tmp_path / "host"
    shutil.copytree(HOSTS / "mixed3-dmem", host, symlinks=True)
    region = "nvidia/0000:b3:00/vidmem"
    cluster = cluster_factory(
        nodes=[{"name": "d1", "cpus": 32, "cores_per_socket": 32, "memory": 64000, "gres": "gpu:l4:1,shard:12",
                "host_root": host}],
        extra_conf="TaskPlugin=task/cgroup\n" + GATHER + "AccountingStorageTRES=gres/gpumem\n"
                   "JobAcctGatherFrequency=task=1\n",
        gres_conf="AutoDetect=off\nName=gpu Type=l4 File=/dev/nvidia1\nName=shard Count=12 File=/dev/nvidia1\n",
        conf_files={"cgroup.conf": "CgroupMountpoint=/sys/fs/cgroup\nConstrainDevices=yes\n"
                                   "ConstrainDeviceMemory=yes\n"})
    # The fixture's cgroup tree is a plain folder: the task plays the kernel
    # and writes its step's dmem counters.
    cgroup = host / "sys/fs/cgroup"
    script = (f"s={cgroup}/gantry/$SLURM_JOB_SLUID/step_$SLURM_STEP_ID; "
              f"echo '{region} 301989888' > $s/dmem.current; "
              f"echo '{region} 872415232' > $s/dmem.peak; sleep 2")
    cluster.cli("srun", "--gres=shard:5", "sh", "-c", script)
    usage = step_usage(cluster, "d1")
    assert usage[0]["gpu_mem_bytes"] == 872415232, usage
    assert usage[0]["gpu_util_percent"] is None, usage  # no vendor library reads it
