"""scontrol show node and partition say what a node offers (CfgTRES), what
its jobs hold there (AllocTRES), when it was last busy (LastBusyTime) and
when its agent started (SlurmdStartTime); a partition sums its nodes' TRES."""

import re
import time

from gantry_cluster import wait_for

NODE = {"name": "tr1", "cpus": 6, "memory": 3000, "gres": "tok:2", "extra": "TmpDisk=2048 Weight=7"}
TYPES = "GresTypes=gpu,shard,mps,tok"


def field(text, key):
    found = re.search(r"(?:^|\s)" + re.escape(key) + r"=(\S*)", text)
    assert found, f"{key}= missing from:\n{text}"
    return found.group(1)


def epoch(stamp):
    return time.mktime(time.strptime(stamp, "%Y-%m-%dT%H:%M:%S"))


def show_node(cluster):
    return cluster.cli("scontrol", "show", "node", "tr1").stdout


def summary_counts(cluster):
    lines = cluster.cli("sinfo", "-s", "-h").stdout.split()
    return lines[3]


def test_node_tres_busy_time_and_agent_start(cluster_factory):
    before = time.time() - 2
    cluster = cluster_factory(nodes=[dict(NODE)], extra_conf=TYPES)
    idle = show_node(cluster)
    assert field(idle, "CfgTRES") == "cpu=6,mem=3000M,billing=6,gres/tok=2"
    assert field(idle, "AllocTRES") == ""
    started = epoch(field(idle, "SlurmdStartTime"))
    assert before <= started <= time.time() + 1
    assert epoch(field(idle, "LastBusyTime")) >= started - 1

    partition = cluster.cli("scontrol", "show", "partition").stdout
    assert field(partition, "TRES") == "cpu=6,mem=3000M,node=1,billing=6,gres/tok=2"

    assert summary_counts(cluster) == "0/1/0/1"  # sinfo -s: allocated/idle/other/total
    job = cluster.sbatch("-n2", "--mem=500", "--gres=tok:1", "--wrap", "sleep 60")
    wait_for(lambda: cluster.job_state(job) == "RUNNING", timeout=30, what="the job to run")
    assert summary_counts(cluster) == "1/0/0/1"
    busy = show_node(cluster)
    assert field(busy, "AllocTRES") == "cpu=2,mem=500M,gres/tok=1"
    busy_at = epoch(field(busy, "LastBusyTime"))
    assert busy_at >= time.time() - 3  # a busy node is busy now

    cluster.cli("scancel", str(job))
    wait_for(lambda: field(show_node(cluster), "AllocTRES") == "", timeout=30, what="the job to leave the node")
    time.sleep(2)
    left = show_node(cluster)
    left_at = epoch(field(left, "LastBusyTime"))
    assert busy_at - 1 <= left_at <= time.time() - 1  # when its job left, not now


def test_sinfo_long_views_show_the_configured_disk_and_weight(cluster_factory):
    cluster = cluster_factory(nodes=[dict(NODE)], extra_conf=TYPES)
    lines = cluster.cli("sinfo", "-N", "-l").stdout.splitlines()
    time.strptime(lines[0], "%a %b %d %H:%M:%S %Y")  # the date line comes first
    header, row = lines[1].split(), lines[2].split()
    assert header[:10] == ["NODELIST", "NODES", "PARTITION", "STATE", "CPUS", "S:C:T", "MEMORY",
                           "TMP_DISK", "WEIGHT", "AVAIL_FE"]
    assert row[0] == "tr1" and row[7] == "2048" and row[8] == "7"
    shown = cluster.cli("scontrol", "show", "node", "tr1").stdout
    assert field(shown, "TmpDisk") == "2048" and field(shown, "Weight") == "7"
    row = cluster.cli("sinfo", "-l", "-h").stdout.split()
    # PARTITION AVAIL TIMELIMIT JOB_SIZE ROOT OVERSUBS GROUPS NODES STATE NODELIST
    assert row[3:8] == ["1-infinite", "no", "NO", "all", "1"], row
