"""The node agent's start on fixture host trees: which detection mechanisms
it tries and skips, the neuron devices of AutoDetect=nrt, `gantryd -C`'s
UpTime line, the checks that stop a start (and that --check-config runs
too), how they are logged, ConstrainDevices on a node that cannot confine
devices, and which GPU library the running agent keeps loaded."""

import os
import re
import subprocess
from pathlib import Path

from gantry_cluster import BUILD, REPO, binary, wait_for

HOSTS = REPO / "tests" / "fixtures" / "hosts"
FAKE_NVML = BUILD / "tests" / "fakes" / "libgantry_fake_nvml.so"
FAKE_RSMI = BUILD / "tests" / "fakes" / "libgantry_fake_rsmi.so"


def conf_dir(path, node_line, gres_conf=None, extra=""):
    path.mkdir(parents=True, exist_ok=True)
    (path / "gantry.conf").write_text(
        "ClusterName=start\nSlurmctldHost=localhost\nGresTypes=gpu\n" + extra + node_line + "\n")
    if gres_conf is not None:
        (path / "gres.conf").write_text(gres_conf)
    return path


def gantryd(conf, host, *args, env=None):
    return subprocess.run([binary("gantryd"), "--conf-dir", str(conf), "--name", "node0",
                           "--host-root", str(HOSTS / host), *args],
                          capture_output=True, text=True, timeout=30, env={**os.environ, **(env or {})})


def nvml_env(host):
    return {"GANTRY_NVML_LIBRARY": str(FAKE_NVML), "GANTRY_FAKE_NVML_FILE": str(HOSTS / host / "fake-nvml.txt")}


def test_full_autodetect_skips_a_rocm_smi_that_cannot_start_and_finds_the_nvidia_gpus(tmp_path):
    conf = conf_dir(tmp_path / "conf", "NodeName=node0 CPUs=32 Gres=gpu:4", gres_conf="AutoDetect=full\n")
    # No NVML; ROCm SMI installed but failing rsmi_init (no amdgpu on this node).
    env = {"GANTRY_NVML_LIBRARY": "libgantry-absent-nvml.so", "GANTRY_RSMI_LIBRARY": str(FAKE_RSMI)}
    env_without_rsmi_data = {k: v for k, v in os.environ.items() if k != "GANTRY_FAKE_RSMI_FILE"}
    result = subprocess.run([binary("gantryd"), "--conf-dir", str(conf), "--name", "node0",
                             "--host-root", str(HOSTS / "pcie4-linked-pairs"), "-C"],
                            capture_output=True, text=True, timeout=30, env={**env_without_rsmi_data, **env})
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].endswith("Gres=gpu:nvidia_rtx_a6000:4")
    assert lines[1] == "Found gpu:nvidia_rtx_a6000:4 with Autodetect=nvidia (Substring of gpu name may be used instead)"
    assert "AutoDetect=full: skipping rsmi: AutoDetect=rsmi: rsmi_init failed (ROCm SMI status 8)" in result.stderr

    started = subprocess.run([binary("gantryd"), "--conf-dir", str(conf), "--name", "node0",
                              "--host-root", str(HOSTS / "pcie4-linked-pairs"), "-G"],
                             capture_output=True, text=True, timeout=30, env={**env_without_rsmi_data, **env})
    assert started.returncode == 0, started.stderr
    assert started.stdout.count("Name=gpu Type=nvidia_rtx_a6000") == 4


def test_nrt_detects_neuron_devices_and_C_ends_with_uptime(tmp_path):
    conf = conf_dir(tmp_path / "conf", "NodeName=node0 CPUs=48 Gres=gpu:trainium2:6", gres_conf="AutoDetect=nrt\n")
    gres = gantryd(conf, "neuron6-ring", "-G")
    assert gres.returncode == 0, gres.stderr
    records = gres.stdout.splitlines()
    assert len(records) == 6
    assert records[5] == "Name=gpu Type=trainium2 Count=1 Index=5 File=/dev/neuron10 Links=1,0,0,0,1,-1"

    node = gantryd(conf, "neuron6-ring", "-C")
    assert node.returncode == 0, node.stderr
    assert node.stdout.splitlines() == [
        "NodeName=node0 CPUs=48 Boards=1 SocketsPerBoard=2 CoresPerSocket=12 ThreadsPerCore=2 RealMemory=393216 "
        "Gres=gpu:trainium2:6",
        "Found gpu:trainium2:6 with Autodetect=nrt (Substring of gpu name may be used instead)",
        "UpTime=2-07:48:05"]
    # A host tree without /proc/uptime still gets the line.
    other = gantryd(conf_dir(tmp_path / "other", "NodeName=node0 CPUs=16"), "a100-mig", "-C")
    assert re.fullmatch(r"UpTime=\d+-\d\d:\d\d:\d\d", other.stdout.splitlines()[-1]), other.stdout


def test_check_config_refuses_cores_that_split_a_socket_as_the_start_does(tmp_path):
    # a100-mig has 2 sockets of 8 cores: Cores=0-2 is part of socket 0.
    conf = conf_dir(tmp_path / "conf", "NodeName=node0 CPUs=32 Gres=gpu:1",
                    gres_conf="AutoDetect=off\nName=gpu File=/dev/nvidia0 Cores=0-2\n")
    message = ("gres.conf:2: gres/gpu GRES core specification 0-2 for node node0 doesn't match socket boundaries. "
               "(Socket 0 is cores 0-7)")
    check = gantryd(conf, "a100-mig", "--check-config")
    assert check.returncode == 1
    assert message in check.stdout
    start = gantryd(conf, "a100-mig")
    assert start.returncode == 1
    assert message in start.stderr

    (conf / "gres.conf").write_text("AutoDetect=off\nName=gpu File=/dev/nvidia0 Cores=8-15\n")
    good = gantryd(conf, "a100-mig", "--check-config")
    assert good.returncode == 0, good.stdout


def test_the_socket_alignment_error_is_logged_at_error_level_in_the_spec_words(tmp_path):
    conf = conf_dir(tmp_path / "conf", "NodeName=node0 CPUs=32 Gres=gpu:2", gres_conf="AutoDetect=nvml\n")
    start = gantryd(conf, "many-l3-1socket", env=nvml_env("many-l3-1socket"))
    assert start.returncode == 1
    lines = start.stderr.splitlines()
    wanted = ("gantryd error: _check_core_range_matches_sock: gres/gpu GRES autodetected core affinity 8-9 on node "
              "node0 doesn't match socket boundaries. (Socket 0 is cores 0-15)")
    assert any(re.fullmatch(r"\[[0-9T:.-]+\] " + re.escape(wanted), line) for line in lines), start.stderr
    assert not any("critical" in line and "_check_core_range_matches_sock" in line for line in lines)
    # Every line of the log has its time and level.
    assert all(re.match(r"\[[0-9T:.-]+\] gantryd (error|warning|info|critical): ", line) for line in lines), lines


def test_constrain_devices_says_at_start_that_devices_cannot_be_confined(cluster_factory):
    cluster = cluster_factory(
        nodes=[{"name": "mig1", "cpus": 4, "gres": "gpu:2", "host_root": HOSTS / "a100-mig"}],
        gres_conf="AutoDetect=nvidia\n",
        extra_conf="TaskPlugin=task/cgroup",
        conf_files={"cgroup.conf": "ConstrainDevices=yes\n"})
    log = (cluster.root / "gantryd-mig1.log").read_text()
    assert re.search(r"gantryd warning: ConstrainDevices=yes but \S*a100-mig/sys/fs/cgroup is not a cgroup v2 "
                     r"hierarchy; steps are not device-confined", log), log


def agent_maps(cluster, name):
    return Path(f"/proc/{cluster.agents[name].pid}/maps").read_text()


def test_the_agent_keeps_nvml_loaded_only_for_gpu_energy(cluster_factory):
    node = {"name": "pairs", "cpus": 4, "gres": "gpu:4", "host_root": HOSTS / "pcie4-linked-pairs",
            "env": nvml_env("pcie4-linked-pairs")}
    energy = cluster_factory(nodes=[dict(node)], gres_conf="AutoDetect=nvml\n",
                             extra_conf="AcctGatherEnergyType=acct_gather_energy/gpu")
    assert str(FAKE_NVML) in agent_maps(energy, "pairs")
    log = (energy.root / "gantryd-pairs.log").read_text()
    assert f"gpu: keeping NVML ({FAKE_NVML}) loaded for AcctGatherEnergyType=acct_gather_energy/gpu" in log
    energy.stop()

    plain = cluster_factory(nodes=[dict(node)], gres_conf="AutoDetect=nvml\n")
    assert "libgantry_fake_nvml" not in agent_maps(plain, "pairs")
    assert "gpu: no GPU management library kept loaded after detection (plugin gpu/nvml" in \
        (plain.root / "gantryd-pairs.log").read_text()
