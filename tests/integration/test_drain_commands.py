"""The per-device drain commands as an outsider and as an administrator who
types them wrong: a plain user is refused every change, each malformed
request is refused with an error that names what is wrong and changes
nothing, SetDrain can be repeated, the JSON form of `gantry api POST /tres/`
drains and resumes, and `scontrol --json show node` carries the drain
fields. The node has four GPUs with a saved order; the card at index 3 was
taken out (drain_absent_gres keeps the node up with the slot drained)."""

import json

import pytest

from drain_harness import (DEGRADED_FLAG, GpuHost, drained_listing, node_json, restart_agent, scontrol_update,
                           set_node_state, show_node, start_cluster)
from gantry_cluster import local_users

NODE = "k4"
LIMIT = "gres/gpu:3,cpu:2"
EMPTY_SLOT = f"NodeName={NODE} TresName=gres/gpu Index=3 Reason=gres/gpu:not_found"
EMPTY_SLOT_LEFT = f"gres/gpu index 3 of {NODE} stays drained: no device there"
DENIED = "Access/permission denied"


@pytest.fixture(scope="module")
def outsider():
    with local_users(1) as names:
        yield names[0]


@pytest.fixture(scope="module")
def setup(tmp_path_factory, outsider):
    host = GpuHost(tmp_path_factory.mktemp("drain-commands") / "host", 4)
    # The cluster's own folder (not under pytest's private one) so that the
    # outsider can read its configuration.
    cluster = start_cluster(
        nodes=[{"name": NODE, "cpus": 4, "memory": 4000, "gres": "gpu:h100:4", "host_root": host.root,
                "extra": f"MaxDrainedTres={LIMIT}"}],
        gres_conf="AutoDetect=nvidia\n", extra_conf="SlurmctldParameters=drain_absent_gres")
    gone = host.uuid(3)
    host.remove(3)
    restart_agent(cluster, NODE)
    assert drained_listing(cluster) == [EMPTY_SLOT]
    yield cluster, host, gone
    cluster.cleanup()


@pytest.fixture
def cluster(setup):
    """The module's cluster, with everything but the empty slot resumed
    after each test (so that one failure does not spread)."""
    yield setup[0]
    for tres, selector in (("gres/gpu", "Index=ALL"), ("cpu", "Count=ALL"), ("mem", "Count=ALL")):
        scontrol_update(setup[0], f"TresName={tres}", f"NodeName={NODE}", selector, "Action=Resume", check=False)
    set_node_state(setup[0], NODE, "RESUME")


def snapshot(cluster):
    node = node_json(cluster, NODE)
    return drained_listing(cluster), node["drained_tres"], node["state"], node["reason"]


def tres_words(*words):
    return ["TresName=gres/gpu", f"NodeName={NODE}", *words]


def test_a_plain_user_is_denied_every_change_and_nothing_changes(cluster, outsider):
    scontrol_update(cluster, *tres_words("Index=1", "Action=Drain", "Reason=by_root"))
    before = snapshot(cluster)
    for words in (tres_words("Index=0", "Action=Drain", "Reason=mine"),
                  tres_words("Index=1", "Action=Resume"),
                  tres_words("Index=ALL", "Action=SetDrain", "Reason=mine"),
                  ["TresName=mem", f"NodeName={NODE}", "Count=10", "Action=Drain", "Reason=mine"],
                  [f"NodeName={NODE}", "State=RESUME"],
                  [f"NodeName={NODE}", "State=UNDRAIN"],
                  [f"NodeName={NODE}", "State=RESUME_KEEP_TRES"]):
        refused = scontrol_update(cluster, *words, user=outsider, check=False)
        assert refused.returncode == 1, (words, refused.stdout, refused.stderr)
        assert DENIED in refused.stderr, (words, refused.stderr)
        assert snapshot(cluster) == before, words
    body = json.dumps({"name": "gres/gpu", "nodes": NODE, "index": "0", "reason": "mine", "action": "drain"})
    refused = cluster.cli("api", "POST", "/tres/", input=body, user=outsider, check=False)
    assert refused.returncode == 1
    answer = json.loads(refused.stdout)
    assert answer["warnings"] == [] and DENIED in answer["errors"][0]["error"], answer
    assert snapshot(cluster) == before


# One row per rule: the words after `scontrol update` and what the error
# must say. {gone} is the UUID of the card taken out of slot 3.
MALFORMED = [
    ("drain_needs_a_reason", tres_words("Index=0", "Action=Drain"), "Reason= is required for Action=Drain"),
    ("set_drain_needs_a_reason", tres_words("Index=0", "Action=SetDrain"), "Reason= is required for Action=SetDrain"),
    ("one_selector_per_command", tres_words("Index=0", "Uuid=GPU-1234", "Action=Drain", "Reason=r"),
     "Uuid= is a second selector; give one of Index=, Uuid= and Count= (one TRES per command)"),
    ("devices_are_not_drained_by_count", tres_words("Count=1", "Action=Drain", "Reason=r"),
     f"gres/gpu has devices on {NODE}; select them with Index= or Uuid=, not Count="),
    ("cpus_take_no_numeric_count", ["TresName=cpu", f"NodeName={NODE}", "Count=2", "Action=Drain", "Reason=r"],
     "a numeric Count= is refused for cpu; select CPUs with Index= (Count=ALL drains every core)"),
    ("shared_gres_is_drained_through_its_gpu",
     ["TresName=gres/shard", f"NodeName={NODE}", "Index=0", "Action=Drain", "Reason=r"],
     "gres/shard is shared and cannot be drained directly; drain the GPU that backs it"),
    ("the_node_must_exist", ["TresName=gres/gpu", "NodeName=nosuch7", "Index=0", "Action=Drain", "Reason=r"],
     "nosuch7"),
    ("uuid_does_not_select_an_empty_slot", tres_words("Uuid={gone}", "Action=Drain", "Reason=r"),
     "Uuid={gone} left " + NODE + "; its empty slot is gres/gpu Index=3"),
    ("an_empty_slot_cannot_be_resumed", tres_words("Index=3", "Action=Resume"),
     f"gres/gpu index 3 of {NODE} has no device; it stays drained until a device fills it"),
    ("an_unknown_uuid_is_named", tres_words("Uuid=GPU-00000000-dead", "Action=Drain", "Reason=r"),
     f"no gres/gpu on {NODE} has Uuid=GPU-00000000-dead"),
    ("an_index_must_be_a_device", tres_words("Index=6", "Action=Drain", "Reason=r"),
     f"gres/gpu Index=6 is not a device of {NODE} (indexes 0-3)"),
    ("a_typed_name_must_match_a_type", ["TresName=gres/gpu:a100", f"NodeName={NODE}", "Index=0", "Action=Drain",
                                        "Reason=r"], f"{NODE} has no gres/gpu:a100"),
    ("a_cpu_index_must_be_a_cpu", ["TresName=cpu", f"NodeName={NODE}", "Index=4", "Action=Drain", "Reason=r"],
     f"cpu Index=4 is not a CPU of {NODE}"),
    ("memory_beyond_the_node", ["TresName=mem", f"NodeName={NODE}", "Count=4001", "Action=Drain", "Reason=r"],
     f"draining 4001 of mem is more than the 4000 {NODE} has"),
    ("the_action_is_drain_setdrain_or_resume", tres_words("Index=0", "Action=Undrain"),
     "Action=Undrain is not Drain, SetDrain or Resume"),
    ("unknown_keys_are_named", tres_words("Index=0", "Slot=1", "Action=Drain", "Reason=r"),
     "unknown key Slot= for a TRES drain"),
    ("the_tres_is_cpu_mem_or_gres", ["TresName=gpu", f"NodeName={NODE}", "Index=0", "Action=Drain", "Reason=r"],
     "TresName=gpu cannot be drained; name cpu, mem or gres/NAME[:TYPE]"),
]


@pytest.mark.parametrize("words,message", [row[1:] for row in MALFORMED], ids=[row[0] for row in MALFORMED])
def test_a_malformed_request_is_refused_naming_what_is_wrong_and_changes_nothing(setup, cluster, words, message):
    gone = setup[2]
    words = [w.replace("{gone}", gone) for w in words]
    message = message.replace("{gone}", gone)
    before = snapshot(cluster)
    refused = scontrol_update(cluster, *words, check=False)
    assert refused.returncode == 1, (refused.stdout, refused.stderr)
    assert refused.stderr.startswith("scontrol: error: "), refused.stderr
    assert message in refused.stderr, refused.stderr
    assert refused.stdout == ""
    assert snapshot(cluster) == before


def test_set_drain_is_idempotent_and_names_the_empty_slot_it_leaves_drained(cluster):
    for _ in range(2):
        done = scontrol_update(cluster, *tres_words("Index=0,2", "Action=SetDrain", "Reason=burn_in"))
        assert done.stdout.splitlines() == [EMPTY_SLOT_LEFT]
        assert show_node(cluster, NODE)["DrainedTRES"] == "gpu(IDX:0,2)(burn_in),gpu(IDX:3)(gres/gpu:not_found)"
    # SetDrain of one index resumes the other.
    scontrol_update(cluster, *tres_words("Index=2", "Action=SetDrain", "Reason=burn_in"))
    assert show_node(cluster, NODE)["DrainedTRES"] == "gpu(IDX:2)(burn_in),gpu(IDX:3)(gres/gpu:not_found)"
    # A typed name selects the cards of that type; keys and actions are read in any case.
    scontrol_update(cluster, "tresname=gres/gpu:h100", f"nodename={NODE}", "index=1", "action=drain", "Reason=fw")
    assert show_node(cluster, NODE)["DrainedTRES"] == \
        "gpu(IDX:1)(fw),gpu(IDX:2)(burn_in),gpu(IDX:3)(gres/gpu:not_found)"
    resumed = scontrol_update(cluster, *tres_words("Index=ALL", "Action=Resume"))
    assert resumed.stdout.splitlines() == [EMPTY_SLOT_LEFT]
    # State=RESUME names the slot it cannot resume, too.
    assert set_node_state(cluster, NODE, "RESUME").stdout.splitlines() == [EMPTY_SLOT_LEFT]


def api(cluster, *args, body=None):
    result = cluster.cli("api", *args, input=body, check=False)
    return result.returncode, result.stdout, result.stderr


def test_the_api_drains_and_resumes_and_refuses_an_index_of_all(cluster):
    drain = json.dumps({"name": "gres/gpu", "nodes": NODE, "index": "1", "reason": "xid_13", "action": "drain"})
    code, out, err = api(cluster, "POST", "/tres/", body=drain)
    assert code == 0, err
    assert json.loads(out) == {"errors": [], "warnings": []}
    assert f"NodeName={NODE} TresName=gres/gpu Index=1 Uuid=" in drained_listing(cluster)[0]
    assert drained_listing(cluster)[0].endswith(" Reason=xid_13")

    before = snapshot(cluster)
    every = json.dumps({"name": "gres/gpu", "nodes": NODE, "index": "ALL", "reason": "x", "action": "drain"})
    code, out, _ = api(cluster, "POST", "/tres/", body=every)
    assert code == 1
    assert json.loads(out) == {"errors": [{"error": "\"index\": \"ALL\" is refused; ask for every index with "
                                                    "\"select_all\": true"}], "warnings": []}
    assert snapshot(cluster) == before

    resume = json.dumps({"name": "gres/gpu", "nodes": NODE, "select_all": True, "action": "resume"})
    code, out, err = api(cluster, "POST", "/tres/", "--data", resume)
    assert code == 0, err
    assert json.loads(out) == {"errors": [], "warnings": [EMPTY_SLOT_LEFT]}

    # Only POST /tres/ is served; anything else is refused before it is sent.
    for args in (("GET", "/tres/"), ("POST", "/nodes/")):
        code, _, err = api(cluster, *args, body=drain)
        assert code == 2, args
        assert err.strip(), args
    assert drained_listing(cluster) == [EMPTY_SLOT]


def test_json_show_node_has_the_drain_fields(cluster):
    data = json.loads(cluster.cli("scontrol", "--json", "show", "node", NODE).stdout)
    node = (data["nodes"] if isinstance(data, dict) else data)[0]
    assert node["drained_tres"] == "gpu(IDX:3)(gres/gpu:not_found)"
    assert node["max_drained_tres"] == LIMIT
    assert "DEGRADED" in node["state"].split("+")
    assert node["state_flags"] & DEGRADED_FLAG


# ---------------------------------------------------------------- several nodes

@pytest.fixture(scope="module")
def pair(outsider):
    """Two nodes without UUIDs (drains stay on their indexes), p1 with three
    GPUs and p2 with two, and node listings private to administrators."""
    cluster = start_cluster(
        nodes=[{"name": "p1", "cpus": 2, "memory": 2000, "gres": "gpu:3"},
               {"name": "p2", "cpus": 2, "memory": 2000, "gres": "gpu:2"}],
        gres_conf="NodeName=p1 Name=gpu File=/dev/nvidia[0-2]\nNodeName=p2 Name=gpu File=/dev/nvidia[0-1]\n",
        extra_conf="PrivateData=nodes")
    yield cluster
    cluster.cleanup()


def test_a_host_list_request_refused_on_one_node_changes_none(pair):
    refused = scontrol_update(pair, "TresName=gres/gpu", "NodeName=p[1-2]", "Index=2", "Action=Drain",
                              "Reason=psu", check=False)
    assert refused.returncode == 1
    assert "gres/gpu Index=2 is not a device of p2 (indexes 0-1)" in refused.stderr
    assert drained_listing(pair) == []

    scontrol_update(pair, "TresName=gres/gpu", "NodeName=p[1-2]", "Index=1", "Action=Drain", "Reason=psu")
    assert drained_listing(pair) == ["NodeName=p1 TresName=gres/gpu Index=1 Reason=psu",
                                     "NodeName=p2 TresName=gres/gpu Index=1 Reason=psu"]
    assert drained_listing(pair, "p2") == ["NodeName=p2 TresName=gres/gpu Index=1 Reason=psu"]
    assert drained_listing(pair, "NodeName=p1") == ["NodeName=p1 TresName=gres/gpu Index=1 Reason=psu"]
    scontrol_update(pair, "TresName=gres/gpu", "NodeName=p[1-2]", "Index=ALL", "Action=Resume")
    assert drained_listing(pair) == []


@pytest.mark.parametrize("state", ["UNDRAIN", "RESUME_KEEP_TRES", "IDLE"])
def test_states_that_clear_only_the_node_drain_keep_drained_tres(pair, state):
    scontrol_update(pair, "TresName=gres/gpu", "NodeName=p1", "Index=0", "Action=Drain", "Reason=xid_74")
    set_node_state(pair, "p1", "DRAIN", reason="bios_update")
    assert "DRAIN" in show_node(pair, "p1")["State"].split("+")
    set_node_state(pair, "p1", state)
    shown = show_node(pair, "p1")
    assert shown["State"] == "IDLE+DEGRADED"
    assert shown["DrainedTRES"] == "gpu(IDX:0)(xid_74)"
    set_node_state(pair, "p1", "RESUME")
    assert show_node(pair, "p1")["State"] == "IDLE"


def test_with_private_data_nodes_a_plain_user_sees_no_drains(pair, outsider):
    scontrol_update(pair, "TresName=gres/gpu", "NodeName=p2", "Index=0", "Action=Drain", "Reason=xid_45")
    assert drained_listing(pair) == ["NodeName=p2 TresName=gres/gpu Index=0 Reason=xid_45"]
    assert drained_listing(pair, user=outsider) == []
    assert drained_listing(pair, "p2", user=outsider) == []
    scontrol_update(pair, "TresName=gres/gpu", "NodeName=p2", "Index=0", "Action=Resume")
