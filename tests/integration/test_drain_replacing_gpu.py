"""Replacing a GPU with the real daemons: drain the bad card by UUID, keep
running jobs on the others, drain the node for the repair, and bring it
back after the card was replaced, taken out, or the driver reported the
cards in another order; and the drains and saved order across a controller
killed with SIGKILL. The node is a six-GPU fixture host whose cards the
tests change between agent restarts (drain_harness.GpuHost)."""

import re

import pytest

from drain_harness import (DEGRADED_FLAG, ORDER_MISMATCH, GpuHost, device_uuids, drain_gpu, drained_listing,
                           node_json, reason_time, reasons, restart_agent, restart_controller, run_gpu_job,
                           set_node_state, show_node, start_cluster, wait_pending_for_drains)

NODE = "gx6"
GPUS = 6
NEW_CARD = "GPU-0d1e2f30-4152-4637-8899-aabbccddeeff"


def six_gpu_cluster(tmp_path, extra_conf=""):
    host = GpuHost(tmp_path / "host", GPUS)
    cluster = start_cluster(nodes=[{"name": NODE, "cpus": 8, "memory": 8000, "gres": f"gpu:{GPUS}",
                                    "host_root": host.root}],
                            # env_uuid: a job's CUDA_VISIBLE_DEVICES names its cards by UUID.
                            gres_conf="AutoDetect=nvidia\nName=gpu Flags=env_uuid\n", extra_conf=extra_conf,
                            root=tmp_path / "cluster")
    return cluster, host


@pytest.fixture
def six(tmp_path):
    cluster, host = six_gpu_cluster(tmp_path)
    yield cluster, host
    cluster.cleanup()


@pytest.fixture
def six_absent_ok(tmp_path):
    cluster, host = six_gpu_cluster(tmp_path, extra_conf="SlurmctldParameters=drain_absent_gres")
    yield cluster, host
    cluster.cleanup()


def others(*left_out):
    return [i for i in range(GPUS) if i not in left_out]


def assert_job_gets(cluster, host, gpus, indexes):
    """A job of `gpus` GPUs is given exactly the cards at `indexes`: by the
    controller's allocation, by the job's SLURM_JOB_GPUS and by the UUIDs it
    sees, which are those of the cards now in those slots of the host."""
    allocated, job_gpus, visible = run_gpu_job(cluster, gpus)
    assert allocated == indexes
    assert job_gpus == indexes
    assert visible == [host.uuid(i) for i in indexes]


def test_a_replaced_gpu_takes_the_bad_ones_index_undrained_and_undrain_keeps_other_drains(six):
    cluster, host = six
    bad = host.uuid(4)
    assert show_node(cluster, NODE)["State"] == "IDLE"

    # 1. Drain the bad card by its UUID: the node stays up, DEGRADED.
    drain_gpu(cluster, NODE, "xid_79", uuid=bad)
    shown = show_node(cluster, NODE)
    assert shown["State"] == "IDLE+DEGRADED"
    assert shown["DrainedTRES"] == "gpu(IDX:4)(xid_79)"
    assert drained_listing(cluster) == [f"NodeName={NODE} TresName=gres/gpu Index=4 Uuid={bad} Reason=xid_79"]
    assert reasons(cluster) == {NODE: ("gpu(IDX:4)(xid_79)", "root")}
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", reason_time(cluster, NODE))
    assert node_json(cluster, NODE)["state_flags"] & DEGRADED_FLAG

    # 2. Jobs get the other cards, never the drained one; one that needs
    # every card waits for the drained one.
    assert_job_gets(cluster, host, 5, others(4))
    whole = cluster.sbatch(f"--gres=gpu:{GPUS}", "--wrap", "true")
    wait_pending_for_drains(cluster, whole, f"{NODE} gpu(IDX:4)(xid_79)")
    cluster.cli("scancel", str(whole))

    # A second card goes bad too; it is not replaced in this window.
    drain_gpu(cluster, NODE, "row_remap", index=1)
    assert show_node(cluster, NODE)["DrainedTRES"] == "gpu(IDX:1)(row_remap),gpu(IDX:4)(xid_79)"

    # 3. The maintenance window: the node itself is drained.
    set_node_state(cluster, NODE, "DRAIN", reason="swap_gpu4")
    shown = show_node(cluster, NODE)
    assert "DRAIN" in shown["State"].split("+"), shown["State"]
    assert shown["Reason"].startswith("swap_gpu4")
    assert reasons(cluster)[NODE][0] == "swap_gpu4"

    # 4. A new card in slot 4: the old card's drain is gone with it, the new
    # card is not drained, the other drain and the node drain stay.
    host.set_uuid(4, NEW_CARD)
    restart_agent(cluster, NODE)
    assert device_uuids(cluster, NODE)[4] == NEW_CARD
    shown = show_node(cluster, NODE)
    assert shown["DrainedTRES"] == "gpu(IDX:1)(row_remap)"
    assert drained_listing(cluster) == [
        f"NodeName={NODE} TresName=gres/gpu Index=1 Uuid={host.uuid(1)} Reason=row_remap"]
    assert "DRAIN" in shown["State"].split("+"), shown["State"]

    # 5. UNDRAIN returns the node and keeps the other card drained.
    set_node_state(cluster, NODE, "UNDRAIN")
    shown = show_node(cluster, NODE)
    assert shown["State"] == "IDLE+DEGRADED"
    assert shown["DrainedTRES"] == "gpu(IDX:1)(row_remap)"
    assert reasons(cluster) == {NODE: ("gpu(IDX:1)(row_remap)", "root")}
    assert_job_gets(cluster, host, 5, others(1))

    # 6. RESUME returns the remaining card as well.
    set_node_state(cluster, NODE, "RESUME")
    shown = show_node(cluster, NODE)
    assert shown["State"] == "IDLE"
    assert "DrainedTRES" not in shown
    assert drained_listing(cluster) == []
    assert reasons(cluster) == {}
    assert_job_gets(cluster, host, GPUS, others())


def test_a_removed_gpu_leaves_drained_empty_slots_and_without_drain_absent_gres_the_node_is_drained(six):
    cluster, host = six
    gone = host.uuid(2)
    drain_gpu(cluster, NODE, "xid_94", uuid=gone)
    # Two cards leave: the drained one, and one nothing was drained on.
    host.remove(2)
    host.remove(5)
    restart_agent(cluster, NODE)

    listing = drained_listing(cluster)
    # An empty slot is listed by its index; the UUID that left is not printed.
    assert sorted(listing) == [f"NodeName={NODE} TresName=gres/gpu Index=2 Reason=xid_94",
                               f"NodeName={NODE} TresName=gres/gpu Index=5 Reason=gres/gpu:not_found"]
    shown = show_node(cluster, NODE)
    assert shown["DrainedTRES"] == "gpu(IDX:2)(xid_94),gpu(IDX:5)(gres/gpu:not_found)"
    assert "DRAIN" in shown["State"].split("+"), shown["State"]
    invalid = "gres/gpu count reported lower than configured (4 < 6)"
    assert shown["Reason"].startswith(invalid)
    assert reasons(cluster)[NODE][0] == invalid

    # RESUME cannot resume a slot with no card in it, and says so.
    resumed = set_node_state(cluster, NODE, "RESUME")
    assert sorted(resumed.stdout.splitlines()) == [f"gres/gpu index 2 of {NODE} stays drained: no device there",
                                                   f"gres/gpu index 5 of {NODE} stays drained: no device there"]
    assert sorted(drained_listing(cluster)) == sorted(listing)


def test_with_drain_absent_gres_a_removed_gpu_leaves_the_node_up_until_a_new_card_fills_the_slot(six_absent_ok):
    cluster, host = six_absent_ok
    host.remove(3)
    restart_agent(cluster, NODE)
    empty = "gpu(IDX:3)(gres/gpu:not_found)"
    shown = show_node(cluster, NODE)
    assert shown["State"] == "IDLE+DEGRADED"
    assert shown["DrainedTRES"] == empty
    assert drained_listing(cluster) == [f"NodeName={NODE} TresName=gres/gpu Index=3 Reason=gres/gpu:not_found"]
    assert reasons(cluster) == {NODE: (empty, "root")}

    # Jobs keep the saved indexes: the cards after the hole are still 4 and 5.
    assert_job_gets(cluster, host, 5, others(3))
    whole = cluster.sbatch(f"--gres=gpu:{GPUS}", "--wrap", "true")
    wait_pending_for_drains(cluster, whole, f"{NODE} {empty}")

    # A new card in the empty slot fills it undrained; the waiting job starts.
    host.put_back(3)
    host.set_uuid(3, NEW_CARD)
    restart_agent(cluster, NODE)
    assert device_uuids(cluster, NODE)[3] == NEW_CARD
    shown = show_node(cluster, NODE)
    assert shown["State"].split("+")[0] in ("IDLE", "MIXED", "ALLOCATED")
    assert "DEGRADED" not in shown["State"]
    assert "DrainedTRES" not in shown
    assert cluster.wait_job(whole) == "COMPLETED"


def test_a_reordered_report_drains_the_node_and_resume_saves_the_new_order_across_a_controller_kill(six):
    cluster, host = six
    drain_gpu(cluster, NODE, "pcie_aer", index=0)

    # The driver reports cards 1 and 3 the other way round: refused.
    host.swap(1, 3)
    restart_agent(cluster, NODE)
    shown = show_node(cluster, NODE)
    assert "DRAIN" in shown["State"].split("+"), shown["State"]
    assert shown["Reason"].startswith(ORDER_MISMATCH)
    assert reasons(cluster)[NODE][0] == ORDER_MISMATCH
    assert shown["DrainedTRES"] == "gpu(IDX:0)(pcie_aer)"

    # A report that fits the saved order again lifts that drain.
    host.swap(1, 3)
    restart_agent(cluster, NODE)
    shown = show_node(cluster, NODE)
    assert shown["State"] == "IDLE+DEGRADED"
    assert shown["DrainedTRES"] == "gpu(IDX:0)(pcie_aer)"

    # The new order is the right one: RESUME drops the saved order, and the
    # next registration saves the order then reported.
    host.swap(1, 3)
    restart_agent(cluster, NODE)
    assert show_node(cluster, NODE)["Reason"].startswith(ORDER_MISMATCH)
    set_node_state(cluster, NODE, "RESUME")
    restart_agent(cluster, NODE)
    shown = show_node(cluster, NODE)
    assert shown["State"] == "IDLE"
    assert "DrainedTRES" not in shown
    assert [device_uuids(cluster, NODE)[i] for i in range(GPUS)] == host.uuids()
    assert_job_gets(cluster, host, GPUS, others())

    # A drain and the saved order survive a controller killed with SIGKILL.
    drain_gpu(cluster, NODE, "fan_fail", index=2)
    restart_controller(cluster)
    shown = show_node(cluster, NODE)
    assert shown["State"] == "IDLE+DEGRADED"
    assert shown["DrainedTRES"] == "gpu(IDX:2)(fan_fail)"
    assert drained_listing(cluster) == [
        f"NodeName={NODE} TresName=gres/gpu Index=2 Uuid={host.uuid(2)} Reason=fan_fail"]
    # The first order is now a move against the saved one.
    host.swap(1, 3)
    restart_agent(cluster, NODE)
    assert show_node(cluster, NODE)["Reason"].startswith(ORDER_MISMATCH)
    assert show_node(cluster, NODE)["DrainedTRES"] == "gpu(IDX:2)(fan_fail)"


def test_show_node_details_list_the_cards_at_their_saved_indexes(six_absent_ok):
    cluster, host = six_absent_ok
    saved = {i: host.uuid(i) for i in range(GPUS)}
    # A refused order leaves the saved one in force, and that is what is shown.
    host.swap(0, 1)
    restart_agent(cluster, NODE)
    assert show_node(cluster, NODE)["Reason"].startswith(ORDER_MISMATCH)
    assert device_uuids(cluster, NODE) == saved
    # A card taken out leaves its index empty; the others keep theirs.
    host.swap(0, 1)
    host.remove(2)
    restart_agent(cluster, NODE)
    assert device_uuids(cluster, NODE) == {i: saved[i] for i in others(2)}
    assert device_uuids(cluster, NODE, absent=True) == {2: saved[2]}
