"""Port= on a NodeName line of several nodes: a range gives each node its own
port, as Slurm allows, and the agents started without --port listen on
their node's port; the controller reaches each of them there."""

import socket
import subprocess

from gantry_cluster import Cluster, binary, wait_for


def two_consecutive_free_ports():
    for _ in range(50):
        with socket.socket() as first:
            first.bind(("127.0.0.1", 0))
            port = first.getsockname()[1]
            if port >= 65535:
                continue
            with socket.socket() as second:
                try:
                    second.bind(("127.0.0.1", port + 1))
                except OSError:
                    continue
                return port, port + 1
    raise RuntimeError("no two consecutive free ports")


def test_a_port_range_gives_each_node_of_the_line_its_own_port():
    low, high = two_consecutive_free_ports()
    cluster = Cluster(nodes=[{"name": "pr1", "cpus": 2, "port": low}, {"name": "pr2", "cpus": 2, "port": high}])
    try:
        conf = cluster.conf_dir / "gantry.conf"
        lines = [line for line in conf.read_text().splitlines() if not line.startswith("NodeName=")]
        lines.insert(len(lines) - 1, f"NodeName=pr[1-2] NodeAddr=127.0.0.1 Port={low}-{high} CPUs=2 Sockets=1 "
                                     "CoresPerSocket=2 ThreadsPerCore=1 RealMemory=2000")
        conf.write_text("\n".join(lines) + "\n")
        cluster.start_munge()
        cluster.start_controller()
        for name in ("pr1", "pr2"):
            # No --port: each agent takes its node's port from the range.
            cluster.agents[name] = subprocess.Popen(
                [binary("gantryd"), "--conf-dir", str(cluster.conf_dir), "--name", name,
                 "--state-dir", str(cluster.root / "spool" / name)],
                stdout=open(cluster.root / f"gantryd-{name}.stdout", "ab"), stderr=subprocess.STDOUT)
        cluster.wait_nodes_up(["pr1", "pr2"])
        ports = {node["name"]: node.get("port") for node in cluster.nodes_json()}
        assert ports == {"pr1": low, "pr2": high}
        shown = cluster.cli("scontrol", "show", "node", "pr2").stdout
        assert f"Port={high}" in shown
        # A step on both nodes: the controller launches on each agent's own port.
        ran = cluster.cli("srun", "-N2", "-n2", "echo", "here", timeout=60).stdout.split()
        assert ran == ["here", "here"]
    finally:
        cluster.cleanup()


def test_a_port_range_of_the_wrong_length_is_refused_naming_the_line(tmp_path):
    (tmp_path / "gantry.conf").write_text(
        "ClusterName=ports\nSlurmctldHost=localhost\nNodeName=pr[1-3] Port=31050-31051 CPUs=2\n")
    check = subprocess.run([binary("gantryctld"), "--conf-dir", str(tmp_path), "--check-config"],
                           capture_output=True, text=True, timeout=30)
    assert check.returncode != 0
    assert "gantry.conf:3: Port=31050-31051: names 2 ports for 3 nodes" in check.stdout + check.stderr
