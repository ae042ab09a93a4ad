"""A whole Gantry cluster on loopback for integration tests and the demo.

Starts its own munged (with a fresh key), one gantryctld and N gantryd
agents, each agent with its own spool directory and optionally its own
fixture host tree, all under one temporary directory. Everything it starts
it also stops.
"""

import contextlib
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("GANTRY_BUILD_DIR", REPO / "build"))


def binary(name):
    candidate = BUILD / "bin" / name
    if candidate.exists():
        return str(candidate)
    raise FileNotFoundError(f"{name} not found in {BUILD / 'bin'}; build first")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate, timeout=30.0, interval=0.1, what="condition"):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(interval)
    raise TimeoutError(f"timed out after {timeout}s waiting for {what} (last: {last!r})")


def process_alive(pid):
    """True while `pid` exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def process_state(pid):
    """The state letter of /proc/PID/stat (R, S, T, Z, ...), "" when gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return ""
    return stat[stat.rindex(")") + 2]


def _kill_processes_of(uid):
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if entry.stat().st_uid == uid:
                os.kill(int(entry.name), signal.SIGKILL)
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            pass


@contextlib.contextmanager
def local_users(count):
    """Creates `count` throw-away local users (needs root) and yields their
    names; afterwards ends whatever still runs as them and removes them."""
    names = []
    try:
        for i in range(count):
            name = f"gtest{os.getpid() % 100000}x{i}"
            subprocess.run(["useradd", "--no-create-home", "--user-group", "--shell", "/bin/sh", name],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            names.append(name)
        yield names
    finally:
        for name in names:
            _kill_processes_of(pwd.getpwnam(name).pw_uid)
            subprocess.run(["userdel", "--force", name], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            subprocess.run(["groupdel", name], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def as_user(user, cmd):
    """`cmd` prefixed so that it runs as `user` (with only the user's own group)."""
    entry = pwd.getpwnam(user)
    return ["setpriv", f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}", "--clear-groups", *cmd]


class Cluster:
    """nodes: list of dicts {name, cpus, memory, gres, host_root, extra, env, args}."""

    def __init__(self, nodes=None, partitions=None, extra_conf="", gres_conf="",
                 slurmd_timeout=30, root=None, conf_files=None, ctld_env=None):
        self.root = Path(root or tempfile.mkdtemp(prefix="gantry-it-"))
        self.root.mkdir(parents=True, exist_ok=True)
        # Non-root test users must reach the munge socket and read the config.
        os.chmod(self.root, 0o755)
        self.conf_dir = self.root / "conf"
        self.conf_dir.mkdir(parents=True, exist_ok=True)
        self.munge_dir = self.root / "munge"
        self.munge_dir.mkdir(exist_ok=True)
        os.chmod(self.munge_dir, 0o755)
        self.munge_socket = self.munge_dir / "munge.sock"
        self.nodes = nodes or [
            {"name": "n1", "cpus": 4, "memory": 4096},
            {"name": "n2", "cpus": 4, "memory": 4096},
        ]
        for node in self.nodes:
            node.setdefault("port", free_port())
        self.partitions = partitions or [
            f"PartitionName=debug Nodes={','.join(n['name'] for n in self.nodes)} Default=YES MaxTime=INFINITE State=UP"]
        self.ctld_port = free_port()
        self.extra_conf = extra_conf
        self.gres_conf = gres_conf
        # Other files of the configuration folder: {"cgroup.conf": text, ...}
        self.conf_files = conf_files or {}
        self.slurmd_timeout = slurmd_timeout
        # Extra environment for gantryctld (and so for what it starts).
        self.ctld_env = ctld_env or {}
        self.ctld = None
        self.agents = {}
        self.munged_started = False
        self.write_conf()

    # ------------------------------------------------------------ config
    def write_conf(self):
        lines = [
            "ClusterName=itest",
            f"SlurmctldHost=localhost(127.0.0.1)",
            f"SlurmctldPort={self.ctld_port}",
            "AuthType=auth/munge",
            f"AuthInfo=socket={self.munge_socket}",
            f"StateSaveLocation={self.root}/ctld",
            f"SlurmdSpoolDir={self.root}/spool/%n",
            f"SlurmctldLogFile={self.root}/gantryctld.log",
            f"SlurmdLogFile={self.root}/gantryd-%n.log",
            f"SlurmdTimeout={self.slurmd_timeout}",
            "SlurmdParameters=config_overrides",
            "GresTypes=gpu,shard,mps",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core_Memory",
            "JobRequeue=1",
            # A requeued job may start again at once, not after Slurm's 121 s;
            # a test of the delay itself sets its own.
            "SchedulerParameters=requeue_delay=0",
        ]
        for node in self.nodes:
            cpus = node.get("cpus", 4)
            line = (f"NodeName={node['name']} NodeAddr=127.0.0.1 Port={node['port']} "
                    f"CPUs={cpus} Sockets={node.get('sockets', 1)} "
                    f"CoresPerSocket={node.get('cores_per_socket', cpus // node.get('sockets', 1))} "
                    f"ThreadsPerCore=1 RealMemory={node.get('memory', 4096)}")
            if node.get("gres"):
                line += f" Gres={node['gres']}"
            if node.get("extra"):
                line += " " + node["extra"]
            lines.append(line)
        lines += self.partitions
        if self.extra_conf:
            lines.append(self.extra_conf)
        (self.conf_dir / "gantry.conf").write_text("\n".join(lines) + "\n")
        if self.gres_conf:
            (self.conf_dir / "gres.conf").write_text(self.gres_conf)
        for name, text in self.conf_files.items():
            (self.conf_dir / name).write_text(text)
        for path in self.conf_dir.iterdir():
            os.chmod(path, 0o644)
        os.chmod(self.conf_dir, 0o755)

    def env(self):
        env = dict(os.environ)
        env["GANTRY_CONF_DIR"] = str(self.conf_dir)
        return env

    # ------------------------------------------------------------ processes
    def start_munge(self):
        key = self.munge_dir / "munge.key"
        subprocess.run(["mungekey", "-c", "-f", "-k", str(key)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.chmod(key, 0o600)
        subprocess.run(["munged", "-f", "-S", str(self.munge_socket), f"--key-file={key}",
                        f"--log-file={self.munge_dir}/munged.log",
                        f"--pid-file={self.munge_dir}/munged.pid",
                        f"--seed-file={self.munge_dir}/munged.seed"], check=True)
        self.munged_started = True

    def start_controller(self, *extra_args):
        self.ctld = subprocess.Popen([binary("gantryctld"), "--conf-dir", str(self.conf_dir), *extra_args],
                                     stdout=open(self.root / "gantryctld.stdout", "ab"),
                                     stderr=subprocess.STDOUT, env={**os.environ, **self.ctld_env})
        wait_for(lambda: self.cli_ok("sinfo", "-h"), what="controller to answer")

    def start_agent(self, name):
        node = next(n for n in self.nodes if n["name"] == name)
        args = [binary("gantryd"), "--conf-dir", str(self.conf_dir), "--name", name,
                "--port", str(node["port"]), "--state-dir", str(self.root / "spool" / name)]
        if node.get("host_root"):
            args += ["--host-root", str(node["host_root"])]
        # node["args"]: extra gantryd options (e.g. --systemd).
        args += [str(a) for a in node.get("args", [])]
        # node["env"]: extra environment for this agent (e.g. the fake NVML).
        env = {**os.environ, **node.get("env", {})}
        self.agents[name] = subprocess.Popen(args, stdout=open(self.root / f"gantryd-{name}.stdout", "ab"),
                                             stderr=subprocess.STDOUT, env=env)

    def start(self):
        self.start_munge()
        self.start_controller()
        for node in self.nodes:
            self.start_agent(node["name"])
        self.wait_nodes_up()
        return self

    def wait_nodes_up(self, names=None, timeout=30):
        names = names or [n["name"] for n in self.nodes]

        def up():
            nodes = self.nodes_json()
            states = {n["name"]: n["state"] for n in nodes}
            return all(states.get(name, "").split("+")[0] in ("IDLE", "MIXED", "ALLOCATED")
                       for name in names) and states
        return wait_for(up, timeout=timeout, what=f"nodes {names} to register")

    def kill_controller(self, sig=signal.SIGKILL):
        if self.ctld and self.ctld.poll() is None:
            self.ctld.send_signal(sig)
            self.ctld.wait(timeout=30)

    def kill_agent(self, name, sig=signal.SIGKILL):
        proc = self.agents.get(name)
        if proc and proc.poll() is None:
            proc.send_signal(sig)
            proc.wait(timeout=30)

    def stop(self):
        for name in list(self.agents):
            self.kill_agent(name, signal.SIGTERM)
        self.kill_controller(signal.SIGTERM)
        # Steps run in sessions of their own; end any left behind.
        for pidfile in self.root.glob("spool/*/steps/*/pid"):
            try:
                os.killpg(int(pidfile.read_text().strip()), signal.SIGKILL)
            except (ValueError, ProcessLookupError, PermissionError):
                pass
            try:
                os.kill(int(pidfile.read_text().strip()), signal.SIGKILL)
            except (ValueError, ProcessLookupError, PermissionError):
                pass
        if self.munged_started:
            subprocess.run(["munged", "-s", "-S", str(self.munge_socket)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            self.munged_started = False

    def cleanup(self):
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    # ------------------------------------------------------------ CLI
    def cli(self, *args, user=None, check=True, input=None, cwd=None, timeout=60):
        cmd = [binary("gantry"), *args]
        if user:
            cmd = as_user(user, cmd)
        result = subprocess.run(cmd, env=self.env(), capture_output=True, text=True, input=input,
                                cwd=cwd or self.root, timeout=timeout)
        if check and result.returncode != 0:
            raise AssertionError(f"gantry {' '.join(args)} failed ({result.returncode}): "
                                 f"{result.stderr.strip()}")
        return result

    def cli_ok(self, *args):
        try:
            return self.cli(*args, check=False, timeout=10).returncode == 0
        except subprocess.TimeoutExpired:
            return False

    def sbatch(self, *args, **kwargs):
        out = self.cli("sbatch", "--parsable", *args, **kwargs).stdout.strip()
        return int(out.split(";")[0])

    def jobs_json(self, *ids):
        args = ["squeue", "--json"]
        if ids:
            args += ["-j", ",".join(str(i) for i in ids)]
        return json.loads(self.cli(*args).stdout)["jobs"]

    def job(self, job_id):
        out = self.cli("scontrol", "show", "job", str(job_id), "--json").stdout
        data = json.loads(out)
        jobs = data["jobs"] if isinstance(data, dict) and "jobs" in data else data
        return jobs[0]

    def job_state(self, job_id):
        return self.job(job_id)["state"]

    def nodes_json(self):
        try:
            out = self.cli("scontrol", "show", "node", "--json", check=False, timeout=10)
        except subprocess.TimeoutExpired:
            return []
        if out.returncode != 0:
            return []
        data = json.loads(out.stdout)
        return data["nodes"] if isinstance(data, dict) else data

    def wait_job(self, job_id, states=("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL"),
                 timeout=60):
        return wait_for(lambda: self.job_state(job_id) in states and self.job_state(job_id),
                        timeout=timeout, what=f"job {job_id} to reach {states}")
