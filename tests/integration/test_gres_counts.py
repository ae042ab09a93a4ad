"""GRES counts with size suffixes end to end: a request written with K/M/G/T
is the same count gantry.conf's Gres= writes that way (factors of 1024)."""


def test_a_count_with_a_size_suffix_can_be_requested(cluster_factory):
    cluster = cluster_factory(nodes=[{"name": "b1", "cpus": 4, "memory": 4000, "gres": "bandwidth:gpfs:6G"}],
                              extra_conf="GresTypes=gpu,shard,mps,bandwidth")
    out = cluster.cli("srun", "--gres=bandwidth:gpfs:3G", "echo", "ran", timeout=30).stdout
    assert out.strip() == "ran"
    out = cluster.cli("srun", "--gres=bandwidth:gpfs:6144M", "echo", "ran", timeout=30).stdout
    assert out.strip() == "ran"
    too_much = cluster.cli("srun", "--gres=bandwidth:gpfs:7G", "true", check=False, timeout=30)
    assert too_much.returncode != 0
    assert "not a number" not in too_much.stderr
