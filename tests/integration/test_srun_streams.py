"""srun's files and reports on a loopback cluster: -o/-e/-i name files on the
node in place of srun's own streams (per-task patterns, "none"), the lines
srun prints for tasks that failed or a signal ended, and how a step with a
task count and no node count spreads over its job's nodes. Node names and
sizes are our own."""

from gantry_cluster import binary

NODES = [{"name": f"sx{i}", "cpus": 2, "memory": 2048} for i in (1, 2)]


def test_srun_writes_the_named_files_instead_of_its_streams(cluster_factory, tmp_path):
    cluster = cluster_factory(nodes=[dict(n) for n in NODES])
    (tmp_path / "in.txt").write_text("first line\nsecond line\n")
    result = cluster.cli("srun", "-n2", "-N1", "-o", "out-%t.txt", "-e", "err.txt", "-i", "in.txt",
                         "sh", "-c", "cat; echo complaint-$SLURM_PROCID >&2", cwd=tmp_path)
    assert result.stdout == ""
    assert "complaint" not in result.stderr
    # Standard input went to task 0 only; each task wrote its own file.
    assert (tmp_path / "out-0.txt").read_text() == "first line\nsecond line\n"
    assert (tmp_path / "out-1.txt").read_text() == ""
    assert sorted((tmp_path / "err.txt").read_text().split()) == ["complaint-0", "complaint-1"]


def test_srun_output_alone_takes_stderr_too_and_none_discards(cluster_factory, tmp_path):
    cluster = cluster_factory(nodes=[dict(n) for n in NODES])
    cluster.cli("srun", "-o", "both.txt", "sh", "-c", "echo to-out; echo to-err >&2", cwd=tmp_path)
    assert sorted((tmp_path / "both.txt").read_text().split()) == ["to-err", "to-out"]
    quiet = cluster.cli("srun", "--output=none", "sh", "-c", "echo hidden; echo hidden-err >&2", cwd=tmp_path)
    assert "hidden" not in quiet.stdout + quiet.stderr
    assert not (tmp_path / "none").exists()
    shown_err = cluster.cli("srun", "--error=none", "sh", "-c", "echo visible; echo gone >&2", cwd=tmp_path)
    assert shown_err.stdout == "visible\n"
    assert "gone" not in shown_err.stderr


def test_srun_names_the_tasks_that_failed_or_were_signalled(cluster_factory):
    cluster = cluster_factory(nodes=[dict(n) for n in NODES])
    failed = cluster.cli("srun", "-n2", "-N1", "sh", "-c", "exit 5", check=False)
    assert failed.returncode == 5
    assert "srun: error: sx1: tasks 0-1: Exited with exit code 5" in failed.stderr, failed.stderr
    killed = cluster.cli("srun", "-n2", "-N1", "sh", "-c", "[ $SLURM_PROCID = 1 ] && kill -TERM $$; exit 0",
                         check=False)
    assert killed.returncode == 128 + 15
    assert "sx1: task 1: Terminated" in killed.stderr, killed.stderr
    assert "task 0" not in killed.stderr
    fine = cluster.cli("srun", "-n2", "true")
    assert "srun: error" not in fine.stderr


def test_a_step_with_a_task_count_spreads_over_the_jobs_nodes(cluster_factory):
    cluster = cluster_factory(nodes=[dict(n) for n in NODES])
    out = cluster.root / "spread.out"
    job = cluster.sbatch("-N2", "-n4", "-o", str(out), "--wrap",
                         f"{binary('gantry')} srun -n2 sh -c 'echo $SLURM_STEP_ID:$SLURMD_NODENAME'; "
                         f"{binary('gantry')} srun -n1 sh -c 'echo $SLURM_STEP_ID:$SLURMD_NODENAME'")
    assert cluster.wait_job(job, timeout=30) == "COMPLETED", out.read_text() if out.exists() else ""
    lines = out.read_text().split()
    assert sorted(line for line in lines if line.startswith("0:")) == ["0:sx1", "0:sx2"]
    assert len([line for line in lines if line.startswith("1:")]) == 1
