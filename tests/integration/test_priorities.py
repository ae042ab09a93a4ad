"""priority/multifactor on a real cluster: sprio shows pending jobs'
priorities and the columns of the weighted factors, sshare the users'
shares; --nice lowers a job and a negative one is refused to a plain
user; under priority/basic sprio says only multifactor is supported.
Node names, sizes and weights are our own."""

import re

from gantry_cluster import wait_for

NODE = {"name": "pr1", "cpus": 2, "memory": 2000}
MULTIFACTOR = ("PriorityType=priority/multifactor\nPriorityWeightAge=300\nPriorityWeightFairshare=2000\n"
               "PriorityMaxAge=1-0\nPriorityCalcPeriod=1\n")


def test_sprio_and_sshare_show_priorities_and_shares(cluster_factory, two_users):
    other = two_users[0]
    cluster = cluster_factory(nodes=[dict(NODE)], extra_conf=MULTIFACTOR)
    running = cluster.sbatch("-n2", "--mem=50", "--wrap", "sleep 300")
    wait_for(lambda: cluster.job_state(running) == "RUNNING", what="the node filled")
    waiting = cluster.sbatch("-n2", "--mem=50", "--wrap", "true")
    niced = cluster.sbatch("-n2", "--mem=50", "--nice=500", "--wrap", "true")
    out = cluster.cli("sprio").stdout.splitlines()
    assert out[0].split() == ["JOBID", "PARTITION", "PRIORITY", "SITE", "AGE", "FAIRSHARE"]
    rows = {line.split()[0]: line.split() for line in out[1:]}
    assert set(rows) == {str(waiting), str(niced)}
    assert int(rows[str(waiting)][2]) == int(rows[str(niced)][2]) + 500
    assert rows[str(waiting)][5] == "2000"  # nobody has used anything yet
    weights = cluster.cli("sprio", "-w").stdout.splitlines()
    assert weights[1].split() == ["Weights", "300", "2000"]
    normalized = cluster.cli("sprio", "-n", "-h", "-j", str(waiting)).stdout.split()
    assert normalized[0] == str(waiting) and normalized[-1] == "1.0000000"
    long = cluster.cli("sprio", "-l", "-h", "-j", str(niced)).stdout.split()
    assert "500" in long  # the NICE column
    # sshare: the caller alone, or everyone with -a.
    mine = cluster.cli("sshare", "-n", "-p").stdout.splitlines()
    assert mine[0].startswith("root|")
    assert [line.split("|")[1] for line in mine[1:]] == ["root"]
    everyone = cluster.cli("sshare", "-a", "-P").stdout.splitlines()
    assert everyone[0] == "Account|User|RawShares|NormShares|RawUsage|EffectvUsage|FairShare"
    assert cluster.cli("sshare", "-a", "-p", "-n").stdout.splitlines()[1].endswith("|")
    # A plain user may lower their job, never raise it above the rest.
    refused = cluster.cli("sbatch", "--nice=-5", "--wrap", "true", user=other, check=False)
    assert refused.returncode != 0
    assert "negative --nice" in refused.stderr
    shown = cluster.cli("scontrol", "show", "job", str(niced)).stdout
    assert re.search(r"\bNice=500\b", shown)
    cluster.cli("scontrol", "update", f"JobId={niced}", "Nice=0")
    assert re.search(r"\bNice=0\b", cluster.cli("scontrol", "show", "job", str(niced)).stdout)
    cluster.cli("scancel", str(running), str(waiting), str(niced))


def test_sprio_under_priority_basic_says_multifactor_only(cluster_factory):
    cluster = cluster_factory(nodes=[dict(NODE)])
    result = cluster.cli("sprio", check=False)
    assert result.returncode == 1
    assert "Only 'priority/multifactor' is supported" in result.stderr
    bad = cluster.cli("sbatch", "--nice=lots", "--wrap", "true", check=False)
    assert bad.returncode != 0
    assert "Invalid nice value" in bad.stderr
