"""Flow-size distributions for fabric workloads: empirical CDFs, sampled by inverse transform.

A distribution is a table of (size in bytes, cumulative probability) points; between points the
CDF is linear, as the HPCC and pFabric simulators interpolate it
(alibaba-edu/High-Precision-Congestion-Control ``traffic_gen/custom_rand.py``,
``getValueFromPercentile``: linear between the two neighbouring CDF points). Their mean is the
same trapezoid sum (``custom_rand.py`` ``getAvg``; pFabric's ns-2 run scripts' mean flow size).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from qosforge.errors import QosforgeError


@dataclass(frozen=True)
class FlowSizeDistribution:
    """An empirical flow-size CDF: ``cumulative[i]`` = P(size <= ``sizes_bytes[i]``).

    Linear between points. The first point's probability is a mass at the smallest size (0 when
    the table starts at probability 0); the last probability is 1. Sizes and probabilities do
    not decrease (equal sizes with rising probability are a point mass, equal probabilities with
    rising sizes an empty range).
    """

    name: str
    sizes_bytes: tuple[float, ...]
    cumulative: tuple[float, ...]
    source: str
    """Where the table comes from (paper + repository path, or the user's file)."""

    def __post_init__(self) -> None:
        # User files are checked line by line in parse_flow_size_cdf; this guards code-built tables.
        sizes, cumulative = np.asarray(self.sizes_bytes), np.asarray(self.cumulative)
        if not (
            sizes.size == cumulative.size >= 1
            and np.all(np.isfinite(sizes)) and sizes[0] >= 0 and np.all(np.diff(sizes) >= 0)
            and cumulative[0] >= 0 and np.all(np.diff(cumulative) >= 0) and cumulative[-1] == 1.0
        ):
            raise ValueError(f"{self.name}: not a flow-size CDF table ({self.sizes_bytes}, {self.cumulative})")

    @property
    def mean_bytes(self) -> float:
        """The mean of the piecewise-linear CDF, bytes: the point mass at the first size plus,
        per segment, its midpoint times its probability."""
        sizes = np.asarray(self.sizes_bytes, dtype=float)
        cumulative = np.asarray(self.cumulative, dtype=float)
        segments = (sizes[1:] + sizes[:-1]) / 2.0 * np.diff(cumulative)
        return float(sizes[0] * cumulative[0] + segments.sum())

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` flow sizes (int64 bytes, each >= 1) by inverse-transform sampling.

        A uniform draw u in [0, 1) falls in the first segment whose upper probability reaches
        it (searchsorted, so zero-probability segments are never chosen); u at or below the
        first probability is the point mass at the first size. Sizes are rounded up to whole
        bytes so no flow is empty (HPCC's traffic_gen.py truncates and raises 0 to 1 byte).
        """
        sizes = np.asarray(self.sizes_bytes, dtype=float)
        cumulative = np.asarray(self.cumulative, dtype=float)
        u = rng.random(n)
        upper = np.searchsorted(cumulative, u, side="left")
        lower = np.maximum(upper - 1, 0)
        span = cumulative[upper] - cumulative[lower]
        fraction = np.divide(u - cumulative[lower], span, out=np.zeros(n), where=span > 0)
        values = sizes[lower] + (sizes[upper] - sizes[lower]) * fraction
        whole_bytes: np.ndarray = np.maximum(np.ceil(values), 1.0).astype(np.int64)
        return whole_bytes


#: Payload bytes per packet of pFabric's ns-2 tables, which count flow sizes in packets (the
#: runs set ``packet_size 1460`` and a mean flow size of ``packets * 1460``).
PFABRIC_PACKET_BYTES = 1460

#: The web-search workload of DCTCP (Alizadeh et al., SIGCOMM 2010, §2.2 and Fig. 4, the
#: background-flow sizes of a production search cluster), as tabulated by pFabric (Alizadeh et
#: al., SIGCOMM 2013, §5 "web search workload") and, in bytes, by HPCC's ns-3 repository
#: (alibaba-edu/High-Precision-Congestion-Control ``traffic_gen/WebSearch_distribution.txt``,
#: probabilities in percent there). Mean 1 711 250 B by that table's trapezoid sum (TLT, Lim et
#: al., EuroSys 2021, §7.1, uses this background workload and quotes 1.72 MB); pFabric's
#: packet table of the same CDF (sizes rounded to 1460 B packets) gives 1141 packets, which its
#: run scripts state as 1138 x 1460 B = 1.66 MB.
WEB_SEARCH = FlowSizeDistribution(
    name="web-search",
    sizes_bytes=(0.0, 10e3, 20e3, 30e3, 50e3, 80e3, 200e3, 1e6, 2e6, 5e6, 10e6, 30e6),
    cumulative=(0.0, 0.15, 0.20, 0.30, 0.40, 0.53, 0.60, 0.70, 0.80, 0.90, 0.97, 1.0),
    source=(
        "DCTCP (Alizadeh et al., SIGCOMM 2010) Fig. 4 web search, as tabulated by pFabric "
        "(SIGCOMM 2013) §5; alibaba-edu/High-Precision-Congestion-Control "
        "traffic_gen/WebSearch_distribution.txt"
    ),
)

#: The data-mining workload of VL2 (Greenberg et al., SIGCOMM 2009, §3.1 and Fig. 2, flow sizes
#: in a data-mining cluster), as tabulated by pFabric (Alizadeh et al., SIGCOMM 2013, §5 "data
#: mining workload") in 1460 B packets: ``CDF_vl2.tcl`` of pFabric's ns-2 scripts, published with
#: them in HKUST-SING/PIAS-NS2 and HKUST-SING/MQ-ECN-NS2 ``scripts/CDF_vl2.tcl``. Half the flows
#: are one packet; the largest is 666 667 packets (~1 GB). The run scripts state its mean as
#: 5117 x 1460 B = 7.47 MB (the trapezoid sum here: 5116.6 packets).
DATA_MINING = FlowSizeDistribution(
    name="data-mining",
    sizes_bytes=tuple(
        float(packets * PFABRIC_PACKET_BYTES)
        for packets in (1, 1, 2, 3, 7, 267, 2107, 66667, 666667)
    ),
    cumulative=(0.0, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0),
    source=(
        "VL2 (Greenberg et al., SIGCOMM 2009) Fig. 2 data mining, as tabulated by pFabric "
        "(SIGCOMM 2013) §5; HKUST-SING/MQ-ECN-NS2 scripts/CDF_vl2.tcl (packets of 1460 B)"
    ),
)

#: The built-in distributions by the name ``--flow-size-dist`` takes.
DISTRIBUTIONS: dict[str, FlowSizeDistribution] = {
    WEB_SEARCH.name: WEB_SEARCH,
    DATA_MINING.name: DATA_MINING,
}

#: A probability this close to 1 counts as 1 (tables written with a few decimals).
_LAST_PROBABILITY_TOLERANCE = 1e-9
_FORMAT_HINT = "write one point per line: 'bytes cumulative_probability', e.g. '10000 0.15'"


def flow_size_distribution(name_or_path: str) -> FlowSizeDistribution:
    """A built-in distribution by name (``web-search``, ``data-mining``) or a user CDF file.

    The file has one point per line, ``bytes cumulative_probability`` (blank lines and ``#``
    comments ignored); sizes and probabilities must not decrease, probabilities lie in [0, 1]
    and the last is 1. Bad input raises :class:`qosforge.errors.QosforgeError` naming
    ``file:line`` and the fix; an unreadable file raises the ``OSError`` the CLI reports.
    """
    if name_or_path in DISTRIBUTIONS:
        return DISTRIBUTIONS[name_or_path]
    path = Path(name_or_path)
    if not path.is_file():
        raise QosforgeError(
            "neither a built-in flow-size distribution nor a file",
            place=name_or_path,
            hint=f"use one of {', '.join(DISTRIBUTIONS)} or the path of a CDF file "
            "('bytes cumulative_probability' per line)",
        )
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise QosforgeError("not a UTF-8 text file", place=name_or_path, hint=f"{_FORMAT_HINT}, or use one of {', '.join(DISTRIBUTIONS)}") from None
    return parse_flow_size_cdf(text, name_or_path)


def parse_flow_size_cdf(text: str, file: str) -> FlowSizeDistribution:
    """The distribution in ``text`` (the contents of ``file``, named in errors and ``source``)."""
    sizes: list[float] = []
    cumulative: list[float] = []
    last_line = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        place = f"{file}:{number}"
        size, probability = _parse_point(line, place)
        if sizes and size < sizes[-1]:
            raise QosforgeError(
                f"size {_number(size)} B is below the previous point's {_number(sizes[-1])} B",
                place=place, hint="list the points in increasing size order",
            )
        if cumulative and probability < cumulative[-1]:
            raise QosforgeError(
                f"cumulative probability {probability:g} is below the previous point's "
                f"{cumulative[-1]:g}",
                place=place, hint="a CDF never decreases: fix or reorder the points",
            )
        sizes.append(size)
        cumulative.append(probability)
        last_line = number
    if not sizes:
        raise QosforgeError("the flow-size CDF file has no points", place=f"{file}:1", hint=_FORMAT_HINT)
    if abs(cumulative[-1] - 1.0) > _LAST_PROBABILITY_TOLERANCE:
        raise QosforgeError(
            f"the last cumulative probability is {cumulative[-1]:g}, not 1",
            place=f"{file}:{last_line}",
            hint="end the table with the largest flow size at probability 1",
        )
    cumulative[-1] = 1.0
    distribution = FlowSizeDistribution(
        name=Path(file).name, sizes_bytes=tuple(sizes), cumulative=tuple(cumulative), source=file
    )
    if distribution.mean_bytes <= 0.0:
        # The arrival rate is load / mean size: a zero mean has no flow rate.
        raise QosforgeError(
            "every flow size is 0 B, so the mean flow size is 0",
            place=f"{file}:{last_line}", hint="give flow sizes of at least 1 byte, e.g. '100 0' then '100 1'",
        )
    return distribution


def _parse_point(line: str, place: str) -> tuple[float, float]:
    fields = line.split()
    if len(fields) != 2:
        raise QosforgeError(
            f"expected 2 fields (bytes cumulative_probability), found {len(fields)}",
            place=place, hint=_FORMAT_HINT,
        )
    try:
        size, probability = float(fields[0]), float(fields[1])
    except ValueError:
        raise QosforgeError(
            f"{line!r} is not two numbers", place=place, hint=_FORMAT_HINT
        ) from None
    if not math.isfinite(size) or size < 0:
        raise QosforgeError(
            f"flow size {fields[0]} is not a non-negative number of bytes",
            place=place, hint="sizes are bytes >= 0",
        )
    if not 0.0 <= probability <= 1.0:  # also rejects nan
        raise QosforgeError(
            f"cumulative probability {fields[1]} is outside [0, 1]",
            place=place, hint="probabilities are fractions: divide percentages by 100",
        )
    return size, probability


def _number(value: float) -> str:
    return f"{value:.0f}" if value.is_integer() else f"{value:g}"


__all__ = [
    "DATA_MINING",
    "DISTRIBUTIONS",
    "PFABRIC_PACKET_BYTES",
    "WEB_SEARCH",
    "FlowSizeDistribution",
    "flow_size_distribution",
    "parse_flow_size_cdf",
]
