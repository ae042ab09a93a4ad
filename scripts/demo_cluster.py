#!/usr/bin/env python3
"""The demo cluster: a controller and two node agents on loopback, each
agent on its own fake-GPU host tree from tests/fixtures/hosts, a sample GPU
job, its output, squeue and sinfo. Stays up until Ctrl-C unless --stop."""

import argparse
import signal
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "integration"))

from gantry_cluster import Cluster, wait_for  # noqa: E402

HOSTS = REPO / "tests" / "fixtures" / "hosts"


def show(title, text):
    print(f"\n$ {title}\n{text.rstrip()}")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--stop", action="store_true", help="stop the cluster after the sample job")
    parser.add_argument("--root", help="folder for configuration, logs and state (default: a new temporary one)")
    args = parser.parse_args()

    cluster = Cluster(
        root=args.root,
        nodes=[
            {"name": "gpu1", "cpus": 32, "sockets": 1, "cores_per_socket": 32, "memory": 64000,
             "gres": "gpu:4", "host_root": HOSTS / "pcie4-linked-pairs"},
            {"name": "gpu2", "cpus": 64, "sockets": 2, "cores_per_socket": 32, "memory": 128000,
             "gres": "gpu:8", "host_root": HOSTS / "nvlink8-2socket"},
        ],
        gres_conf="AutoDetect=nvidia\n",
    )
    print(f"Gantry demo cluster in {cluster.root} (configuration in {cluster.conf_dir})")
    try:
        cluster.start()
        show("gantry sinfo", cluster.cli("sinfo").stdout)
        out = cluster.root / "demo-%j.out"
        job_id = cluster.sbatch("-J", "gpu-demo", "--gpus-per-node=2", "-o", str(out), "--wrap",
                                "echo job $SLURM_JOB_ID on $SLURMD_NODENAME; "
                                "echo CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES; sleep 2")
        print(f"\nSubmitted batch job {job_id}")
        wait_for(lambda: cluster.job_state(job_id) != "PENDING", timeout=30, what="the job to start")
        show("gantry squeue", cluster.cli("squeue").stdout)
        show(f"gantry scontrol show job -d {job_id}", cluster.cli("scontrol", "show", "job", "-d", str(job_id)).stdout)
        state = cluster.wait_job(job_id, timeout=60)
        show(f"cat {str(out).replace('%j', str(job_id))}  (job ended {state})",
             Path(str(out).replace("%j", str(job_id))).read_text())
        show("gantry sinfo -N -O NodeList,StateLong,CPUs,Gres", cluster.cli("sinfo", "-N", "-O", "NodeList,StateLong,CPUs,Gres").stdout)
        if args.stop:
            return 0
        print(f"\nThe cluster keeps running. In another shell:\n"
              f"  export GANTRY_CONF_DIR={cluster.conf_dir}\n"
              f"  {REPO}/build/bin/gantry squeue\n"
              f"Press Ctrl-C to stop it.")
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        return 0
    finally:
        print("\nstopping the cluster")
        cluster.stop()


if __name__ == "__main__":
    sys.exit(main())
