"""``qosforge.api.whatif``: a calculator's inputs as typed in, the model's result out (no click:
test_no_cli.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from qosforge.api.reporting import StderrReporter
from qosforge.api.whatif import WhatIfRequest, whatif
from qosforge.cli import main
from qosforge.errors import QosforgeError


def test_a_scalar_request_gives_the_models_numbers() -> None:
    outcome = whatif(WhatIfRequest("dctcp", {"rate_bps": "10G", "rtt_s": "100us", "burst_bytes": "1B"}), StderrReporter())
    document = outcome.document()
    # DCTCP §3.4 eq. 13: C·RTT/7 with C = 10 Gb/s / (1500 B · 8) and RTT = 100 us is 11.9 packets;
    # K = floor(11.9) + 1 = 12 packets = 18000 B (the 1 B burst does not raise it).
    assert document["stability_bound_packets"] == pytest.approx(10e9 * 100e-6 / (8 * 1500) / 7)
    assert document["threshold_packets"] == 12 and document["threshold_bytes"] == 18_000
    assert document["units"]["threshold_bytes"] == "B" and "provenance" in document and not outcome.axes


def test_an_omitted_input_takes_its_flags_default() -> None:
    """``--packet`` left out is 1500 B (the flag's default), so ``65pkt`` is 97.5 kB, as on the command line."""
    outcome = whatif(WhatIfRequest("dctcp", {"rate_bps": "10G", "rtt_s": "100us", "burst_bytes": "65pkt"}), StderrReporter())
    assert outcome.document()["burst_packets"] == 65 and outcome.document()["threshold_bytes"] == 65 * 1500


def test_a_sweep_is_one_evaluation_over_the_grid() -> None:
    request = WhatIfRequest("buffer", {"buffer_bytes": "12MB"}, sweeps=("congested-ports=1:4:4", "alpha=1:2:2"))
    outcome = whatif(request, StderrReporter())
    ports, alpha = outcome.grid["congested_ports"], outcome.grid["alpha"]
    # Dynamic threshold (Choudhury & Hahne): each of M congested ports gets alpha·B/(1+M·alpha).
    expected = alpha * 12e6 / (1 + ports * alpha)
    assert list(ports) == [1, 1, 2, 2, 3, 3, 4, 4] and list(alpha) == [1, 2] * 4
    assert np.allclose(outcome.result.per_port_share_bytes, expected)
    document = outcome.document()
    assert [axis["name"] for axis in document["sweep"]] == ["congested-ports", "alpha"] and document["sweep"][0]["points"] == 4
    assert document["congested_ports"] == [1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 4.0, 4.0]


@pytest.mark.parametrize(("request_", "message"), [
    (WhatIfRequest("dctcp", {"rate_bps": "10GB", "rtt_s": "100us"}), "--speed:"),
    (WhatIfRequest("dctcp", {"rtt_s": "100us"}), "--speed: is required (hint: e.g. --speed 10G; see --help)"),
    (WhatIfRequest("dctcp", {"rate_bps": "10G", "rtt_s": "1h"}), "--rtt:"),
    (WhatIfRequest("buffer", {"buffer_bytes": "12MB"}, sweeps=("alpha=1:2:2", "alpha=1:4:2")),
     "--sweep: the same input is swept twice (hint: sweep each input at most once)"),
    (WhatIfRequest("buffer", {"buffer_bytes": "12MB"}, sweeps=("mode=1:2:2",)), "--sweep: cannot sweep 'mode'"),
    (WhatIfRequest("buffer", {"buffer_bytes": "12MB"}, plot_path="p.png"), "--plot: --plot draws a sweep"),
    (WhatIfRequest("nosuch"), "whatif: 'nosuch' is not a what-if calculator"),
    # A model error raised at an argument is reported at the flag the user typed.
    (WhatIfRequest("tlt", {"buffer_bytes": "12MB", "threshold_bytes": "8MB"}), "--threshold: threshold 8.00 MB leaves -2.00 MB"),
])
def test_bad_input_names_the_flag(request_: WhatIfRequest, message: str) -> None:
    with pytest.raises(QosforgeError) as caught:
        whatif(request_, StderrReporter())
    assert caught.value.one_line().startswith(message)


@pytest.mark.parametrize("argv", [
    ["tlt", "--buffer", "12MB", "--congested-ports", "16", "--transport", "dctcp", "--speed", "40G", "--rtt", "80us"],
    ["pfc-headroom", "--mode", "sonic", "--asic", "mellanox-spectrum-2", "--speed", "100G", "--cable", "40m", "--sweep", "cable=5m:300m:7"],
])
def test_the_cli_prints_the_api_document(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["whatif", *argv, "--format", "json"])
    assert exited.value.code == 0
    printed = json.loads(capsys.readouterr().out)
    flags = dict(zip(argv[1::2], argv[2::2], strict=False))
    from qosforge.api.calculators import calculator

    spec = calculator(argv[0])
    values = {param.argument: flags[param.flag] for param in spec.params if param.flag in flags}
    outcome = whatif(WhatIfRequest(argv[0], values, sweeps=tuple(v for k, v in flags.items() if k == "--sweep")), StderrReporter())
    assert printed == json.loads(json.dumps(outcome.document()))
