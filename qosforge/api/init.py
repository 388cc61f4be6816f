"""``init``: a starter intent file that compiles as written.

The document is built as a ruamel.yaml tree whose comments are the intent model's own field
descriptions (:mod:`qosforge.compiler.intent`), then compiled before it is written, so a file
``init`` writes is one ``compile`` accepts. The answers are the request's (the CLI takes them
from flags, prompts or defaults).
"""

from __future__ import annotations

import io
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qosforge.errors import QosforgeError

if TYPE_CHECKING:  # pydantic and ruamel.yaml load when init runs, not for `qosforge --help`
    from pydantic import BaseModel
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    from qosforge.compiler.intent import ClassSpec

_CLASS_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,23}$")  # compiler/intent.py ClassSpec.name
_FABRIC_NAME = re.compile(r"[^A-Za-z0-9_.-]+")

DEFAULT_PROFILE = "broadcom-trident2"
DEFAULT_LEAVES = 4
DEFAULT_SPINES = 2
DEFAULT_HOSTS_PER_LEAF = 16
#: A lossless RoCE class and a lossy DCTCP class, as in examples/roce-pod.yaml.
DEFAULT_CLASSES = ("rdma:dcqcn:26:lossless", "tcp:dctcp:0,10")
#: Cable defaults: the intent model's 3 m host cable (LinkSpec.cable) and SONiC's 40 m
#: leaf-to-ToR length (sonic-buildimage files/build_templates/buffers_config.j2, ports2cable).
HOST_CABLE, FABRIC_CABLE = "3m", "40m"
#: One-way link latency written into the starter (examples/roce-pod.yaml); replace it with the
#: fabric's measured value -- the RTT every threshold derives from starts here.
LINK_LATENCY = "1us"


def _transports() -> tuple[str, ...]:
    from qosforge.transports import transport_names

    return transport_names()


def _compilable_transports() -> tuple[str, ...]:
    """What the starter's comments offer: the schema's transports less those the compiler refuses
    (a refused one given with --class still reaches the compiler, which says why)."""
    from qosforge.compiler.intent import accepted_transports

    return accepted_transports()


def _dscps(text: str, place: str) -> tuple[int, ...]:
    values: list[int] = []
    for part in text.split(","):
        low, _, high = part.strip().partition("-")
        if not low.isdigit() or (high and not high.isdigit()):
            raise QosforgeError(
                f"DSCP list {text!r} is not numbers like 26 or 0,10 or 8-15",
                place=place,
                hint="write DSCPs as 26, 0,10 or 8-15",
            )
        values += range(int(low), int(high or low) + 1)
    if not values or any(value > 63 for value in values):
        raise QosforgeError(
            f"DSCP list {text!r} has values outside 0..63",
            place=place,
            hint="DSCP is a 6-bit field: 0..63",
        )
    return tuple(values)


def parse_class(text: str) -> ClassSpec:
    """``NAME:TRANSPORT:DSCPS[:lossless]``: ``rdma:dcqcn:26:lossless``, ``web:dctcp:0,10``."""
    place = f"--class {text}"
    parts = text.split(":")
    if len(parts) not in (3, 4) or (len(parts) == 4 and parts[3] != "lossless"):
        raise QosforgeError(
            "expected NAME:TRANSPORT:DSCPS[:lossless]",
            place=place,
            hint="e.g. --class rdma:dcqcn:26:lossless --class web:dctcp:0,10",
        )
    name, transport, dscps = parts[:3]
    if not _CLASS_NAME.match(name):
        raise QosforgeError(
            f"class name {name!r} must start with a letter and use letters, digits, '_' or '-' "
            "(at most 24)",
            place=place,
            hint="e.g. rdma",
        )
    if transport not in _transports():
        from qosforge.compiler.intent import transport_hint

        raise QosforgeError(f"unknown transport {transport!r}", place=place, hint=transport_hint())
    from qosforge.compiler.intent import ClassSpec

    return ClassSpec.model_validate(
        {
            "name": name,
            "transport": transport,
            "dscp": list(_dscps(dscps, place)),
            "lossless": len(parts) == 4,
        }
    )


def _rate_text(bps: float) -> str:
    for unit, scale in (("G", 1e9), ("M", 1e6)):
        if bps >= scale and bps % scale == 0:
            return f"{bps / scale:g}{unit}"
    return f"{bps:g}bps"


def profile_speed(profile: str) -> str:
    """The profile's (first) port speed, so the starter's links are ones its ports run at."""
    from qosforge.vendor_profiles import load_vendor_profile

    ports = load_vendor_profile(profile).ports
    if not ports.value:
        raise QosforgeError(
            f"vendor profile {profile!r} does not state its port speed",
            place="--profile",
            hint="pass --speed, e.g. --speed 100G",
        )
    return _rate_text(ports.value[0].speed_bps)


def _described(model: type[BaseModel], field: str, fallback: str) -> str:
    description = model.model_fields[field].description
    return description or fallback


_COMMENT_COLUMN = 44


def _commented(pairs: list[tuple[str, Any, str]]) -> CommentedMap:
    from ruamel.yaml.comments import CommentedMap

    node = CommentedMap()
    for key, value, comment in pairs:
        node[key] = value
        if comment:
            node.yaml_add_eol_comment(comment, key, column=_COMMENT_COLUMN)
    return node


def _flow(items: list[Any]) -> CommentedSeq:
    from ruamel.yaml.comments import CommentedSeq

    seq = CommentedSeq(items)
    seq.fa.set_flow_style()
    return seq


def build_intent_document(
    name: str,
    profile: str,
    leaves: int,
    spines: int,
    hosts_per_leaf: int,
    speed: str,
    classes: list[ClassSpec],
) -> CommentedMap:
    """The starter intent as a commented YAML tree (comments: the intent model's descriptions)."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    from qosforge.compiler.intent import ClassSpec, Design, Intent, LeafSpine, LinkSpec

    def link(cable: str) -> CommentedMap:
        node = CommentedMap([("speed", speed), ("cable", cable)])
        node.fa.set_flow_style()
        return node

    link_fields = (
        f"{_described(LinkSpec, 'speed', 'speed')} {_described(LinkSpec, 'cable', 'cable')}"
    )

    leaf_spine = _commented(
        [
            ("spines", spines, "spine switches"),
            ("leaves", leaves, "leaf switches, each linked to every spine"),
            ("hosts_per_leaf", hosts_per_leaf, "host ports per leaf"),
            ("host_link", link(HOST_CABLE), f"leaf-to-host links. {link_fields}"),
            (
                "fabric_link",
                link(FABRIC_CABLE),
                "leaf-to-spine links (40m: SONiC's leaf-router cable default)",
            ),
            (
                "link_latency",
                LINK_LATENCY,
                _described(LeafSpine, "link_latency", "") + " Measure yours.",
            ),
            ("leaf_profile", profile, _described(LeafSpine, "leaf_profile", "")),
        ]
    )
    class_nodes = CommentedSeq()
    for answer in classes:
        pairs: list[tuple[str, Any, str]] = [
            ("name", answer.name, "class name"),
            ("transport", answer.transport, f"one of {', '.join(_compilable_transports())}"),
            ("dscp", _flow(list(answer.dscp)), "DSCPs of this class (0..63)"),
        ]
        if answer.lossless:
            pairs.append(
                (
                    "lossless",
                    True,
                    "PFC-protected: gets a lossless priority, headroom and the watchdog",
                )
            )
        pairs.append(("weight", answer.weight, _described(ClassSpec, "weight", "")))
        class_nodes.append(_commented(pairs))
    design = _commented(
        [
            (
                "congested_ports",
                Design.model_fields["congested_ports"].default,
                _described(Design, "congested_ports", ""),
            ),
            (
                "pfc_watchdog",
                Design.model_fields["pfc_watchdog"].default,
                "SONiC PFC watchdog on lossless queues",
            ),
        ]
    )
    document = _commented(
        [
            ("apiVersion", "qosforge/v1", "intent format version"),
            ("kind", "Fabric", "one fabric per file"),
            (
                "metadata",
                _commented([("name", name, "fabric name (report, file headers)")]),
                "about this fabric",
            ),
            (
                "topology",
                _commented(
                    [
                        (
                            "leaf_spine",
                            leaf_spine,
                            "a generated leaf-spine fabric; or list 'switches' explicitly",
                        )
                    ]
                ),
                "switches, ports, links",
            ),
            ("classes", class_nodes, "traffic classes: transport, DSCPs, lossless"),
            ("design", design, "the models' design point"),
            (
                "targets",
                _flow(list(Intent.model_fields["targets"].default_factory())),  # type: ignore[call-arg,misc]
                "backends to render: sonic, sai, openconfig",
            ),
        ]
    )
    document.yaml_set_start_comment(
        "qosforge intent written by 'qosforge init'. "
        "Compile it with: qosforge compile FILE -o out\n"
        "Every field: 'qosforge schema'; examples: examples/*.yaml in the qosforge repository."
    )
    return document


def intent_text(document: CommentedMap) -> str:
    from ruamel.yaml import YAML

    yaml = YAML()
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.width = 120
    stream = io.StringIO()
    yaml.dump(document, stream)
    return stream.getvalue()


def check_compiles(text: str, class_flags: Sequence[str] = ()) -> None:
    """Compile ``text`` as ``qosforge compile`` would (loader, topology and port checks, class
    planning, buffers): a starter intent that does not compile is never written. An error at
    ``classes[i]`` is named by the ``--class`` that made the class (``class_flags[i]``): the
    starter's lines are in a file the user never sees."""
    from qosforge.compiler.compile import compile_intent
    from qosforge.compiler.loader import load_intent

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "intent.yaml"
        path.write_text(text, encoding="utf-8")
        try:
            intent, source_map = load_intent(path)
            compile_intent(intent, source_map)
        except QosforgeError as error:
            where = (error.place or "").replace(str(path), "the starter intent")
            place = "qosforge init"
            own = re.search(r"classes\[(\d+)\](\.\S+)?$", where)
            if own is not None and int(own.group(1)) < len(class_flags):
                place = f"--class {class_flags[int(own.group(1))]}"
                where = f"classes[{own.group(1)}]{own.group(2) or ''}"
            raise QosforgeError(
                f"the starter intent would not compile: {where}: {error.message}",
                place=place,
                hint=error.hint or "change the flags named above",
            ) from None


def check_speed(text: str) -> str:
    """``text`` when it is a rate (``100G``); else the error names ``--speed``."""
    from qosforge.units import parse_rate_bps

    try:
        parse_rate_bps(text)
    except QosforgeError as error:
        raise error.with_place("--speed") from None
    return text


def check_profile(name: str) -> None:
    """An unknown vendor profile is a one-line error with suggestions."""
    from qosforge.vendor_profiles import load_vendor_profile

    load_vendor_profile(name)


def metadata_name(output: Path) -> str:
    """The fabric's name from the file's: letters, digits, ``_.-``, at most 64."""
    name = _FABRIC_NAME.sub("-", output.stem).strip("-._")
    return name[:64] if name and name[0].isalnum() else "fabric"


@dataclass(frozen=True)
class InitRequest:
    """The starter fabric: a leaf-spine of one vendor profile, its link speed and classes."""

    output: Path
    profile: str = DEFAULT_PROFILE
    leaves: int = DEFAULT_LEAVES
    spines: int = DEFAULT_SPINES
    hosts_per_leaf: int = DEFAULT_HOSTS_PER_LEAF
    speed: str | None = None
    """Every link's rate (``100G``); None: the profile's first port speed."""
    classes: tuple[str, ...] = DEFAULT_CLASSES
    """``NAME:TRANSPORT:DSCPS[:lossless]`` each."""
    force: bool = False
    """Overwrite an existing file."""


@dataclass(frozen=True)
class InitResult:
    output: Path
    text: str


def starter_intent_text(request: InitRequest) -> str:
    """The starter intent's YAML, compiled once so that a file that would not compile is refused."""
    check_profile(request.profile)
    document = build_intent_document(
        name=metadata_name(request.output),
        profile=request.profile,
        leaves=request.leaves,
        spines=request.spines,
        hosts_per_leaf=request.hosts_per_leaf,
        speed=check_speed(request.speed or profile_speed(request.profile)),
        classes=[parse_class(text) for text in request.classes],
    )
    text = intent_text(document)
    # The default classes are no flag the user gave: an error there keeps the starter's place.
    check_compiles(text, request.classes if request.classes != DEFAULT_CLASSES else ())
    return text


def write_starter_intent(request: InitRequest) -> InitResult:
    """Write the starter intent to ``request.output`` (refused when it exists, unless ``force``)."""
    from qosforge.files import check_output_file, write_text_atomically

    if request.output.exists() and not request.force:
        raise QosforgeError(
            "the file exists and is kept",
            place=str(request.output),
            hint="pass --force to overwrite it, or choose another -o",
        )
    check_output_file(request.output, flag="-o/--output")
    text = starter_intent_text(request)
    write_text_atomically(request.output, text)
    return InitResult(request.output, text)


__all__ = [
    "DEFAULT_CLASSES",
    "DEFAULT_HOSTS_PER_LEAF",
    "DEFAULT_LEAVES",
    "DEFAULT_PROFILE",
    "DEFAULT_SPINES",
    "InitRequest",
    "InitResult",
    "build_intent_document",
    "check_profile",
    "check_speed",
    "parse_class",
    "profile_speed",
    "starter_intent_text",
    "write_starter_intent",
]
