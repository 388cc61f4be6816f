"""`qosforge compile --base`: a GCU patch per switch next to its config_db.json."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import jsonpatch

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tlt-testbed.yaml"
Run = Callable[..., tuple[int, str, str]]


def _running_config() -> dict[str, object]:
    return {
        "DEVICE_METADATA": {"localhost": {"hostname": "aurora720", "hwsku": "Arista-7060CX-32S-C32"}},
        "PORT": {f"Ethernet{4 * i}": {"lanes": str(4 * i + 1), "speed": "40000"} for i in range(32)},
        "LOOPBACK_INTERFACE": {"Loopback0|10.1.0.1/32": {}},
        "SCHEDULER": {"scheduler.0": {"type": "DWRR", "weight": "14"}},
    }


def _compiled(tmp_path: Path, run_cli: Run) -> dict[str, object]:
    code, _, err = run_cli("compile", str(EXAMPLE), "--target", "sonic", "-o", str(tmp_path / "plain"), "-q")
    assert code == 0, err
    return dict(json.loads((tmp_path / "plain" / "aurora720" / "config_db.json").read_text()))


def _running_with(compiled: dict[str, object], **changes: object) -> dict[str, object]:
    """The running config with the compiled QoS already in place, but WRED thresholds 1 kB lower:
    a change GCU carries (WRED_PROFILE has no field-operation validator)."""
    running = {**_running_config(), **json.loads(json.dumps(compiled))}
    for entry in running["WRED_PROFILE"].values():  # type: ignore[attr-defined]
        for field in entry:
            if field.endswith("_threshold"):
                entry[field] = str(int(entry[field]) - 1000)
    running.update(changes)
    return running


def test_base_file_writes_a_patch_that_gcu_can_apply(tmp_path: Path, run_cli: Run) -> None:
    compiled = _compiled(tmp_path, run_cli)
    running = _running_with(compiled)
    base = tmp_path / "running.json"
    base.write_text(json.dumps(running))
    code, _, err = run_cli("compile", str(EXAMPLE), "--target", "sonic", "-o", str(tmp_path / "out"), "--base", str(base), "--format", "json")
    assert code == 0 and err == ""
    patch = json.loads((tmp_path / "out" / "aurora720" / "gcu-patch.json").read_text())
    assert {op["path"].split("/")[1] for op in patch} == {"WRED_PROFILE"}
    assert jsonpatch.apply_patch(running, patch) == {**running, **compiled}


def test_a_patch_gcu_would_refuse_is_not_written_and_the_deploy_path_is_given(tmp_path: Path, run_cli: Run) -> None:
    # No pools on the switch yet: the patch would 'add /BUFFER_POOL', which GCU's field-operation
    # validators refuse on every ASIC (before: written silently, and 'config apply-patch' failed).
    base = tmp_path / "running.json"
    base.write_text(json.dumps(_running_config()))
    out = tmp_path / "out"
    code, _, err = run_cli("compile", str(EXAMPLE), "--target", "sonic", "-o", str(out), "--base", str(base), "-q")
    # Exit 3: the configs are written, the patch asked for is not (a script must be able to tell).
    assert code == 3 and "Traceback" not in err
    assert (out / "aurora720" / "config_db.json").is_file() and not (out / "aurora720" / "gcu-patch.json").exists()
    assert "note: aurora720: no gcu-patch.json" in err and "add /BUFFER_POOL" in err
    assert f"sudo config qos clear && sudo config load {out / 'aurora720' / 'config_db.json'} -y" in err


def test_a_base_of_another_asic_is_refused(tmp_path: Path, run_cli: Run) -> None:
    # The case: a Trident2 (Arista-7050-QX32) running config for an intent compiled for
    # another chip used to get that chip's pools patched in.
    running = _running_with(_compiled(tmp_path, run_cli), DEVICE_METADATA={"localhost": {"hwsku": "Arista-7050-QX32", "platform": "x86_64-arista_7050_qx32"}})
    base = tmp_path / "running.json"
    base.write_text(json.dumps(running))
    code, _, err = run_cli("compile", str(EXAMPLE), "--target", "sonic", "-o", str(tmp_path / "out"), "--base", str(base))
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "DEVICE_METADATA|localhost.hwsku" in err and "Trident2" in err and "broadcom-tomahawk" in err and "broadcom-trident2" in err
    assert not (tmp_path / "out").exists()


def test_a_base_of_another_vendor_is_refused(tmp_path: Path, run_cli: Run) -> None:
    metadata = {"localhost": {"hwsku": "Custom-Lab-SKU", "platform": "x86_64-mlnx_msn2700-r0"}}
    base = tmp_path / "running.json"
    base.write_text(json.dumps(_running_with(_compiled(tmp_path, run_cli), DEVICE_METADATA=metadata)))
    code, _, err = run_cli("compile", str(EXAMPLE), "--target", "sonic", "-o", str(tmp_path / "out"), "--base", str(base))
    assert code == 2 and "DEVICE_METADATA|localhost.platform" in err and "mellanox switch" in err and not (tmp_path / "out").exists()


def test_ports_whose_qos_the_patch_removes_are_named(tmp_path: Path, run_cli: Run) -> None:
    running = _running_with(_compiled(tmp_path, run_cli))
    running["PORT"] = {**running["PORT"], "Ethernet200": {"lanes": "201", "speed": "40000"}}  # type: ignore[dict-item]
    running["PORT_QOS_MAP"] = {**running["PORT_QOS_MAP"], "Ethernet200": {"dscp_to_tc_map": "AZURE"}}  # type: ignore[dict-item]
    running["QUEUE"] = {**running["QUEUE"], "Ethernet200|3": {"scheduler": "scheduler.1"}}  # type: ignore[dict-item]
    base = tmp_path / "running.json"
    base.write_text(json.dumps(running))
    code, _, err = run_cli("compile", str(EXAMPLE), "--target", "sonic", "-o", str(tmp_path / "out"), "--base", str(base), "-q")
    patch = json.loads((tmp_path / "out" / "aurora720" / "gcu-patch.json").read_text())
    assert code == 0 and {"op": "remove", "path": "/QUEUE/Ethernet200|3"} in patch
    assert "warning: aurora720: the change removes the QoS of 1 port(s) the intent does not list: Ethernet200" in err


def test_garbage_base_is_exit_2_and_writes_nothing(tmp_path: Path, run_cli: Run) -> None:
    base = tmp_path / "running.json"
    base.write_text('["not", "a", "config"]')
    out = tmp_path / "out"
    code, _, err = run_cli("compile", str(EXAMPLE), "--target", "sonic", "-o", str(out), "--base", str(base))
    assert code == 2
    assert err.startswith(f"error: {base}: a config_db.json is a JSON object of tables") and "Traceback" not in err
    assert not out.exists()


def test_dynamic_buffer_model_base_is_exit_2_and_writes_nothing(tmp_path: Path, run_cli: Run) -> None:
    running = _running_config()
    running["DEVICE_METADATA"] = {"localhost": {"hostname": "aurora720", "buffer_model": "dynamic"}}
    base = tmp_path / "running.json"
    base.write_text(json.dumps(running))
    out = tmp_path / "out"
    code, _, err = run_cli("compile", str(EXAMPLE), "--target", "sonic", "-o", str(out), "--base", str(base))
    assert code == 2 and "Traceback" not in err
    assert "buffer_model" in err and "traditional" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_base_needs_the_sonic_target(tmp_path: Path, run_cli: Run) -> None:
    code, _, err = run_cli("compile", str(EXAMPLE), "--target", "sai", "-o", str(tmp_path / "out"), "--base", str(tmp_path))
    assert code == 2 and "--base needs the sonic target" in err


def test_a_base_that_does_not_exist_says_so(tmp_path: Path, run_cli: Run) -> None:
    code, _out, err = run_cli("compile", str(EXAMPLE), "--target", "sonic", "--base", str(tmp_path / "no-such-folder"), "-o", str(tmp_path / "out"))
    assert code == 2 and "no such file or folder" in err and not (tmp_path / "out").exists()


def test_a_base_whose_ports_run_at_another_speed_is_refused(tmp_path: Path, run_cli: Run) -> None:
    running = _running_config()
    running["PORT"] = {name: {**entry, "speed": "100000"} for name, entry in running["PORT"].items()}  # type: ignore[attr-defined]
    base = tmp_path / "running.json"
    base.write_text(json.dumps(running))
    code, _out, err = run_cli("compile", str(EXAMPLE), "--target", "sonic", "-o", str(tmp_path / "out"), "--base", str(base))
    assert code == 2 and "run at another speed than the intent says" in err and "runs at 100G, compiled for 40G" in err
    assert not (tmp_path / "out").exists()


def _with_base(run_cli: Run, intent: Path, out: Path, base: Path,
               *more: str) -> tuple[int, str, str]:
    """``compile INTENT --target sonic -o OUT --base BASE [MORE]``."""
    return run_cli("compile", str(intent), "--target", "sonic", "-o", str(out), "--base", str(base),
                   *more)


def _plain(run_cli: Run, intent: Path, out: Path, switch: str) -> dict[str, object]:
    """The config_db.json ``compile INTENT --target sonic`` writes for ``switch``."""
    code, _, err = run_cli("compile", str(intent), "--target", "sonic", "-o", str(out), "-q")
    assert code == 0, err
    return dict(json.loads((out / switch / "config_db.json").read_text()))


def test_a_refused_patch_removes_the_earlier_one(tmp_path: Path, run_cli: Run) -> None:
    # A gcu-patch.json from an earlier base must not survive beside a config it no longer matches.
    accepted, refused = tmp_path / "accepted.json", tmp_path / "refused.json"
    accepted.write_text(json.dumps(_running_with(_compiled(tmp_path, run_cli))))
    refused.write_text(json.dumps(_running_config()))
    out = tmp_path / "out"
    assert _with_base(run_cli, EXAMPLE, out, accepted, "-q")[0] == 0
    assert (out / "aurora720" / "gcu-patch.json").is_file()
    code, _, err = _with_base(run_cli, EXAMPLE, out, refused, "-q")
    assert code == 3 and "no gcu-patch.json" in err
    assert not (out / "aurora720" / "gcu-patch.json").exists()


def _intent_for(tmp_path: Path, profile: str) -> Path:
    """tlt-testbed with its switch compiled for ``profile``."""
    text = EXAMPLE.read_text()
    assert "profile: broadcom-tomahawk\n" in text
    path = tmp_path / f"{profile}.yaml"
    path.write_text(text.replace("profile: broadcom-tomahawk\n", f"profile: {profile}\n"))
    return path


#: One Trident (BCM56840, 10G only) switch: a profile GCU has no ASIC name for.
TRIDENT = """apiVersion: qosforge/v1
kind: Fabric
metadata: {name: trident}
topology:
  switches:
    - name: tor1
      profile: broadcom-trident
      ports:
        - {name: "Ethernet[0-12/4]", speed: 10G, cable: 3m, peer: host}
classes:
  - {name: bulk, transport: dctcp, dscp: [10]}
"""


def test_an_asic_gcu_names_is_refused_under_a_profile_gcu_has_no_name_for(tmp_path: Path,
                                                                          run_cli: Run) -> None:
    # A Trident2 running config (GCU's td2) is no Trident. Before: the ASIC check needed the
    # profile's GCU name and let it through.
    intent = tmp_path / "trident.yaml"
    intent.write_text(TRIDENT)
    compiled = _plain(run_cli, intent, tmp_path / "plain", "tor1")
    metadata = {"hwsku": "Arista-7050-QX32", "platform": "x86_64-arista_7050_qx32"}
    ports = {f"Ethernet{4 * i}": {"lanes": str(4 * i + 1), "speed": "10000"} for i in range(4)}
    base = tmp_path / "running.json"
    running = {"DEVICE_METADATA": {"localhost": metadata}, "PORT": ports, **compiled}
    base.write_text(json.dumps(running))
    code, _, err = _with_base(run_cli, intent, tmp_path / "out", base)
    assert code == 2 and len(err.strip().splitlines()) == 1 and not (tmp_path / "out").exists()
    assert "DEVICE_METADATA|localhost.hwsku" in err and "Trident2" in err
    assert "an ASIC GCU has no name for" in err and "broadcom-trident2" in err  # the profile to use


def test_a_real_switch_is_refused_under_the_simulated_profile(tmp_path: Path, run_cli: Run) -> None:
    # softswitch is qosforge's simulated switch: no running SONiC is one. A Spectrum-2 (GCU's
    # spc2) by HWSKU, and a Mellanox switch GCU cannot name by its platform, are both refused.
    intent = _intent_for(tmp_path, "softswitch")
    compiled = _plain(run_cli, intent, tmp_path / "plain", "aurora720")
    spectrum_2 = {"hwsku": "ACS-MSN3700", "platform": "x86_64-mlnx_msn3700-r0"}
    unnamed = {"hwsku": "Lab-SKU", "platform": "x86_64-mlnx_msn2700-r0"}
    cases = ((spectrum_2, "hwsku", "Spectrum-2"), (unnamed, "platform", "mellanox switch"))
    for metadata, field, shown in cases:
        base = tmp_path / "running.json"
        running = _running_with(compiled, DEVICE_METADATA={"localhost": metadata})
        base.write_text(json.dumps(running))
        code, _, err = _with_base(run_cli, intent, tmp_path / "out", base)
        assert code == 2 and f"DEVICE_METADATA|localhost.{field}" in err and shown in err, err
        assert "a simulated switch" in err and not (tmp_path / "out").exists()


def test_the_running_sonic_branch_is_honoured_where_the_base_gives_it(tmp_path: Path,
                                                                      run_cli: Run) -> None:
    # A dynamic_th change on a Spectrum-2: GCU allows "Dynamic threshold tuning" on spc2 from
    # branch 20191100 (gcu_field_operation_validators.conf.json); a 201811 image refuses it.
    intent = _intent_for(tmp_path, "mellanox-spectrum-2")
    compiled = _plain(run_cli, intent, tmp_path / "plain", "aurora720")
    running = json.loads(json.dumps({**_running_config(), **compiled}))
    localhost = {"hwsku": "ACS-MSN3700", "platform": "x86_64-mlnx_msn3700-r0"}
    running["DEVICE_METADATA"] = {"localhost": localhost}
    profiles = running["BUFFER_PROFILE"]
    name = next(name for name, entry in profiles.items() if "dynamic_th" in entry)
    profiles[name]["dynamic_th"] = str(int(profiles[name]["dynamic_th"]) - 1)
    base, out = tmp_path / "running.json", tmp_path / "out"
    for version, expected in (("SONiC.20181130.85", 3), ("SONiC.20191130.52", 0), (None, 0)):
        localhost.pop("build_version", None)
        if version is not None:
            localhost["build_version"] = version
        base.write_text(json.dumps(running))
        code, _, err = _with_base(run_cli, intent, out, base, "-q")
        assert code == expected, (version, err)
        written = (out / "aurora720" / "gcu-patch.json").exists()
        if version == "SONiC.20181130.85":
            assert not written
            assert "needs SONiC branch 20191100 or later; the running image is branch 20181130" \
                in err
        elif version is None:  # unknown: written, with the branch it needs said
            assert written and "GCU accepts gcu-patch.json on SONiC branch 20191100 or later" in err
        else:
            assert written and err == ""


def test_the_readme_example_running_config_gets_a_wred_only_patch(
    tmp_path: Path, run_cli: Run
) -> None:
    """examples/running/roce-pod-leaf1.json (the README's --base example): leaf1 as SONiC prints
    it, an earlier tcp ECN threshold in place; the patch is those two thresholds and nothing else
    (a compile change that touches other tables makes this example stale: refresh its QoS
    tables)."""
    examples = EXAMPLE.parent
    running = json.loads((examples / "running" / "roce-pod-leaf1.json").read_text())
    code, _, err = run_cli(
        "compile",
        str(examples / "roce-pod.yaml"),
        "--switch",
        "leaf1",
        "--base",
        str(examples / "running" / "roce-pod-leaf1.json"),
        "-o",
        str(tmp_path / "out"),
        "-q",
    )
    assert code == 0, err
    patch = json.loads((tmp_path / "out" / "leaf1" / "gcu-patch.json").read_text())
    assert patch == [
        {"op": "replace", "path": "/WRED_PROFILE/tcp_100G/green_max_threshold", "value": "64500"},
        {"op": "replace", "path": "/WRED_PROFILE/tcp_100G/green_min_threshold", "value": "64500"},
    ]
    compiled = json.loads((tmp_path / "out" / "leaf1" / "config_db.json").read_text())
    assert jsonpatch.apply_patch(running, patch) == {**running, **compiled}
