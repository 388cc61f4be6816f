"""Benchmark fabrics: three-tier Clos fabrics of a given switch count that pass the vendor-profile
port check (compiler/ports.py), shared by bench_compile.py, bench_sai.py and bench_lint.py.

A two-tier leaf-spine of N switches needs spines with about N ports, which no ASIC has; the
benchmarks use the ``clos`` generator instead: ``pods`` of leaves and spines and a super-spine tier
(e.g. 1,000 switches = 32 pods of 20 leaves + 10 spines, and 40 super-spines; at most 32 ports on
a spine or super-spine). Spectrum-2 runs 64 ports of 100G (2x100G breakout, SONiC
``device/mellanox/x86_64-mlnx_msn3700-r0/platform.json``), so leaves have 64 ports.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Spectrum-2 front panel at 100G: 32 ports x 2 (breakout 2x100G).
MAX_PORTS = 64


@dataclass(frozen=True)
class ClosShape:
    pods: int
    leaves_per_pod: int
    spines_per_pod: int
    super_spines: int

    @property
    def switches(self) -> int:
        return self.pods * (self.leaves_per_pod + self.spines_per_pod) + self.super_spines

    @property
    def spine_ports(self) -> int:
        return self.leaves_per_pod + self.super_spines // self.spines_per_pod

    def yaml(self, hosts_per_leaf: int, indent: str = "  ") -> str:
        """The ``clos:`` block of an intent's topology (Spectrum-2, 100G links)."""
        lines = [
            "clos:",
            f"  pods: {self.pods}",
            f"  leaves_per_pod: {self.leaves_per_pod}",
            f"  spines_per_pod: {self.spines_per_pod}",
            f"  super_spines: {self.super_spines}",
            f"  hosts_per_leaf: {hosts_per_leaf}",
            "  host_link: {speed: 100G, cable: 3m}",
            "  fabric_link: {speed: 100G, cable: 40m}",
            "  link_latency: 1us",
            "  leaf_profile: mellanox-spectrum-2",
        ]
        return "".join(f"{indent}{line}\n" for line in lines)


#: Hand-picked shapes (issue 14: 1,000 switches as 32 pods of 20 + 10 and 40 super-spines).
KNOWN = {
    100: ClosShape(4, 16, 4, 20),
    1000: ClosShape(32, 20, 10, 40),
    5000: ClosShape(64, 53, 24, 72),
}


def clos_shape(switches: int, max_ports: int = MAX_PORTS) -> ClosShape:
    """A Clos of exactly ``switches`` switches whose spines and super-spines have at most
    ``max_ports`` ports (the fewest spine ports among the shapes that exist)."""
    if switches in KNOWN:
        return KNOWN[switches]
    best: ClosShape | None = None
    for pods in range(2, max_ports + 1):
        for spines in range(1, 33):
            for leaves in range(1, max_ports):
                rest = switches - pods * (leaves + spines)
                if rest <= 0 or rest % spines:
                    continue
                shape = ClosShape(pods, leaves, spines, rest)
                if shape.spine_ports <= max_ports and (best is None or shape.spine_ports < best.spine_ports):
                    best = shape
    if best is None:
        raise SystemExit(f"no three-tier Clos of exactly {switches} switches fits {max_ports}-port switches; pick another size")
    return best
