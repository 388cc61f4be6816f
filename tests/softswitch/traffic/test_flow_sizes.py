"""Flow-size distributions: the built-in tables against their sources, sampling, CDF files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qosforge.errors import QosforgeError
from qosforge.softswitch.traffic.flow_sizes import (
    DATA_MINING,
    DISTRIBUTIONS,
    PFABRIC_PACKET_BYTES,
    WEB_SEARCH,
    FlowSizeDistribution,
    flow_size_distribution,
    parse_flow_size_cdf,
)


def _second_moment(distribution: FlowSizeDistribution) -> float:
    """E[X^2] of the piecewise-linear CDF: a uniform segment [a, b] of mass p adds
    p (a^2 + ab + b^2) / 3; the first point's mass adds p x^2."""
    x = np.asarray(distribution.sizes_bytes)
    p = np.asarray(distribution.cumulative)
    a, b = x[:-1], x[1:]
    return float(p[0] * x[0] ** 2 + (np.diff(p) * (a * a + a * b + b * b) / 3.0).sum())


def _std(distribution: FlowSizeDistribution) -> float:
    return float(np.sqrt(_second_moment(distribution) - distribution.mean_bytes**2))


def test_web_search_mean_is_the_tables_trapezoid_sum_and_close_to_pfabrics_stated_mean() -> None:
    # HPCC's traffic_gen/custom_rand.py getAvg over WebSearch_distribution.txt: 1 711 250 B.
    assert WEB_SEARCH.mean_bytes == pytest.approx(1_711_250.0, rel=1e-12)
    # TLT (EuroSys 2021) §7.1 uses this workload: "with an average flow size of 1.72 MB".
    assert WEB_SEARCH.mean_bytes == pytest.approx(1.72e6, rel=0.01)
    # pFabric's ns-2 runs state the web-search mean as 1138 packets of 1460 B; their packet table
    # rounds the sizes down to whole packets, hence ~3 % less than the byte table.
    assert WEB_SEARCH.mean_bytes == pytest.approx(1138 * PFABRIC_PACKET_BYTES, rel=0.031)
    assert WEB_SEARCH.mean_bytes != pytest.approx(1138 * PFABRIC_PACKET_BYTES, rel=0.02)


def test_data_mining_mean_matches_pfabrics_stated_mean() -> None:
    # pFabric / PIAS run scripts: meanFlowSize = 5117 * 1460 for CDF_vl2.tcl.
    assert DATA_MINING.mean_bytes == pytest.approx(5117 * PFABRIC_PACKET_BYTES, rel=1e-3)
    assert DATA_MINING.mean_bytes / 1e6 == pytest.approx(7.47, abs=0.01)


@pytest.mark.parametrize("distribution", [WEB_SEARCH, DATA_MINING], ids=lambda d: d.name)
def test_builtin_tables_are_valid_cdfs_with_a_source(distribution: FlowSizeDistribution) -> None:
    assert DISTRIBUTIONS[distribution.name] is distribution
    assert flow_size_distribution(distribution.name) is distribution
    assert np.all(np.diff(distribution.sizes_bytes) >= 0)
    assert np.all(np.diff(distribution.cumulative) >= 0)
    assert distribution.cumulative[-1] == 1.0
    assert "SIGCOMM" in distribution.source


@pytest.mark.parametrize("distribution", [WEB_SEARCH, DATA_MINING], ids=lambda d: d.name)
def test_samples_follow_the_cdf_at_every_table_point(distribution: FlowSizeDistribution) -> None:
    n = 400_000
    sizes = distribution.sample(np.random.default_rng(7), n)
    assert sizes.dtype == np.int64
    assert sizes.min() >= 1
    assert sizes.max() <= max(distribution.sizes_bytes)
    # P(size <= x) at a repeated size (a point mass) is that size's last probability.
    cdf_at = dict(zip(distribution.sizes_bytes, distribution.cumulative, strict=True))
    for size, probability in cdf_at.items():
        observed = float(np.mean(sizes <= size))
        # Binomial standard deviation; 5 sigma plus 1e-4 for the rounding up to whole bytes.
        assert abs(observed - probability) <= 5 * np.sqrt(probability * (1 - probability) / n) + 1e-4
    assert abs(sizes.mean() - distribution.mean_bytes) <= 5 * _std(distribution) / np.sqrt(n) + 1.0


def test_data_mining_has_its_one_packet_point_mass() -> None:
    sizes = DATA_MINING.sample(np.random.default_rng(3), 100_000)
    assert np.mean(sizes == PFABRIC_PACKET_BYTES) == pytest.approx(0.5, abs=0.01)


def test_sampling_is_deterministic_for_a_generator_seed() -> None:
    first = WEB_SEARCH.sample(np.random.default_rng(11), 1000)
    again = WEB_SEARCH.sample(np.random.default_rng(11), 1000)
    other = WEB_SEARCH.sample(np.random.default_rng(12), 1000)
    assert np.array_equal(first, again)
    assert not np.array_equal(first, other)


@st.composite
def cdf_tables(draw: st.DrawFn) -> FlowSizeDistribution:
    """Random valid tables: sizes 0..1e7 B non-decreasing, probabilities non-decreasing to 1,
    with point masses (repeated sizes) and empty ranges (repeated probabilities) allowed."""
    points = draw(st.integers(1, 12))
    steps = draw(st.lists(st.integers(0, 10**6), min_size=points, max_size=points))
    sizes = np.cumsum(steps).astype(float)
    weights = draw(st.lists(st.integers(0, 100), min_size=points, max_size=points))
    if sum(weights) == 0:
        weights[-1] = 1
    cumulative = np.cumsum(weights) / sum(weights)
    cumulative[-1] = 1.0
    return FlowSizeDistribution("drawn", tuple(sizes.tolist()), tuple(cumulative.tolist()), "test")


@settings(max_examples=60, deadline=None)
@given(distribution=cdf_tables(), seed=st.integers(0, 2**32 - 1))
def test_sampled_sizes_stay_in_range_and_average_to_the_mean(distribution: FlowSizeDistribution, seed: int) -> None:
    n = 20_000
    sizes = distribution.sample(np.random.default_rng(seed), n)
    assert sizes.shape == (n,)
    assert sizes.min() >= max(1, int(np.ceil(distribution.sizes_bytes[0])))
    assert sizes.max() <= max(1, int(np.ceil(distribution.sizes_bytes[-1])))
    tolerance = 6 * _std(distribution) / np.sqrt(n) + 1.0  # + rounding up to whole bytes
    assert abs(sizes.mean() - distribution.mean_bytes) <= tolerance


@settings(max_examples=40, deadline=None)
@given(distribution=cdf_tables())
def test_a_written_table_parses_back_to_the_same_points(distribution: FlowSizeDistribution) -> None:
    text = "# size cdf\n\n" + "".join(
        f"{size!r} {probability!r}  # point\n"
        for size, probability in zip(distribution.sizes_bytes, distribution.cumulative, strict=True)
    )
    if distribution.mean_bytes == 0.0:  # every size 0 B: no arrival rate, refused
        with pytest.raises(QosforgeError):
            parse_flow_size_cdf(text, "drawn.cdf")
        return
    parsed = parse_flow_size_cdf(text, "drawn.cdf")
    assert parsed.sizes_bytes == distribution.sizes_bytes
    assert parsed.cumulative == distribution.cumulative
    assert parsed.mean_bytes == pytest.approx(distribution.mean_bytes)


def test_a_user_file_is_read_by_path(tmp_path: Path) -> None:
    path = tmp_path / "rpc.cdf"
    path.write_text("100 0\n1000 0.5\n10000 1.0\n")
    distribution = flow_size_distribution(str(path))
    assert distribution.name == "rpc.cdf"
    assert distribution.source == str(path)
    assert distribution.mean_bytes == pytest.approx(0.5 * 550 + 0.5 * 5500)


@pytest.mark.parametrize(
    ("text", "line", "message", "hint"),
    [
        ("100 0\n50 0.5\n200 1\n", 2, "below the previous point's 100 B", "increasing size"),
        ("100 0\n200 0.6\n300 0.5\n400 1\n", 3, "probability 0.5 is below", "never decreases"),
        ("100 0\n200 15\n300 100\n", 2, "outside [0, 1]", "divide percentages by 100"),
        ("100 -0.1\n200 1\n", 1, "outside [0, 1]", "fractions"),
        ("100 0\n200 nan\n", 2, "outside [0, 1]", "fractions"),
        ("100 0\n\n200 0.9\n# end\n", 3, "the last cumulative probability is 0.9, not 1", "probability 1"),
        ("100 1 0\n200 1 1\n", 1, "expected 2 fields", "bytes cumulative_probability"),
        ("100 0\nabc 1\n", 2, "is not two numbers", "bytes cumulative_probability"),
        ("-5 0\n100 1\n", 1, "not a non-negative number of bytes", "bytes >= 0"),
        ("inf 1\n", 1, "not a non-negative number of bytes", "bytes >= 0"),
        ("# nothing\n\n", 1, "has no points", "one point per line"),
    ],
)
def test_bad_cdf_files_name_the_line_and_the_fix(tmp_path: Path, text: str, line: int, message: str, hint: str) -> None:
    path = tmp_path / "bad.cdf"
    path.write_text(text)
    with pytest.raises(QosforgeError) as caught:
        flow_size_distribution(str(path))
    assert caught.value.place == f"{path}:{line}"
    assert message in caught.value.message
    assert caught.value.hint is not None and hint in caught.value.hint


def test_an_unknown_name_lists_the_built_ins(tmp_path: Path) -> None:
    missing = str(tmp_path / "websearch")
    with pytest.raises(QosforgeError) as caught:
        flow_size_distribution(missing)
    assert caught.value.place == missing
    assert caught.value.hint is not None
    assert "web-search" in caught.value.hint and "data-mining" in caught.value.hint


@pytest.mark.parametrize(
    ("sizes", "cumulative"),
    [((), ()), ((1.0, 2.0), (0.0,)), ((2.0, 1.0), (0.0, 1.0)), ((1.0, 2.0), (0.6, 0.5)), ((1.0, 2.0), (0.0, 0.9)), ((-1.0,), (1.0,))],
)
def test_a_table_built_in_code_must_be_a_cdf(sizes: tuple[float, ...], cumulative: tuple[float, ...]) -> None:
    with pytest.raises(ValueError, match="not a flow-size CDF"):
        FlowSizeDistribution("broken", sizes, cumulative, "test")


def test_a_cdf_of_zero_byte_flows_is_refused_at_its_last_line() -> None:
    with pytest.raises(QosforgeError) as error:
        parse_flow_size_cdf("0 0\n0 1\n", "zero.cdf")
    assert error.value.place == "zero.cdf:2"
    assert "mean" in str(error.value)


def test_a_binary_cdf_file_is_refused_as_not_text(tmp_path: Path) -> None:
    binary = tmp_path / "g9.cdf"
    binary.write_bytes(b"\x00\xff\xfe garbage")
    with pytest.raises(QosforgeError) as caught:
        flow_size_distribution(str(binary))
    assert caught.value.place == str(binary) and "not a UTF-8 text file" in caught.value.message
