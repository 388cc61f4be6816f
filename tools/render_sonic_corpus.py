#!/usr/bin/env python3
"""Render every SONiC SKU's ``buffers.json.j2`` and ``qos.json.j2`` with SONiC's own ``sonic-cfggen``
(docs/lint.md "Every SKU SONiC ships"): the corpus ``qosforge lint --merge`` is measured on.

Input is a sonic-buildimage checkout or bare git directory (``--git-dir``, e.g. what the ``fetch``
tool returns); nothing fetched or rendered belongs in this repository. The script

1. extracts ``device/``, ``files/build_templates/``, ``src/sonic-config-engine/`` and
   ``src/sonic-py-common/`` (text files only, symlinks kept: many SKUs link their templates to a
   shared folder) into ``--work``;
2. stubs what needs a running switch: ``swsscommon`` (its ConfigDB connector refuses to connect, so
   ``portconfig.get_port_config`` and ``device_info.get_localhost_info`` fall back to the files, as on
   a switch booting from minigraph), and ``sonic_yang`` (libyang; sonic-cfggen imports it at start-up
   but uses it only with ``-Y``);
3. points ``device_info`` / ``portconfig`` at the extracted ``device/`` tree (a flat folder of links,
   ``<platform> -> device/<vendor>/<platform>``, as ``/usr/share/sonic/device`` is laid out on a switch);
4. per SKU and role synthesises a minimal switch layout from the SKU's own ports (port_config.ini, or
   hwsku.json + platform.json through sonic-cfggen's ``get_port_config``): DEVICE_METADATA (type
   ToRRouter for t0, LeafRouter for t1), DEVICE_NEIGHBOR / DEVICE_NEIGHBOR_METADATA and VLAN_MEMBER, so
   that ``buffers_config.j2`` picks ``buffers_defaults_<role>.j2`` and its cable-length table
   (``torrouter_server`` 5m, ``leafrouter_torrouter`` 40m, ``spinerouter_leafrouter`` 300m) as on a real
   switch;
5. runs ``sonic-cfggen -k HWSKU -j layout.json -t TEMPLATE`` in this process (sonic-cfggen's ``main``,
   loaded from the extracted file; no start-up per render) and writes
   ``OUT/<vendor>/<platform>/<hwsku>/<role>/{buffers.json,qos.json}`` plus ``layout.json`` (the
   synthesised DEVICE_METADATA and neighbours, a third file an operator's config_db would hold) and
   ``render.log`` (failures, with sonic-cfggen's own message).

Run it with a Python that has sonic-config-engine's dependencies (jinja2, netaddr, pyyaml, natsort,
lxml, bitarray, six)::

    python tools/render_sonic_corpus.py --git-dir PATH/sonic-buildimage.git --work /tmp/sonic --out /tmp/corpus
    QOSFORGE_LINT_CORPUS=/tmp/corpus pytest tests/lint/test_real_world.py -k corpus
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.machinery
import importlib.util
import io
import json
import os
import subprocess
import sys
import time
import types
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

#: The parts of sonic-buildimage rendering needs.
TREES = ("device", "files/build_templates", "src/sonic-config-engine", "src/sonic-py-common")
#: Files under device/ rendering can read (templates, port layouts, lookup tables); binaries
#: (firmware, SAI blobs) are left out, and a bare mirror may not even hold them.
DEVICE_SUFFIXES = (".j2", ".ini", ".json", ".conf", ".yml", ".yaml")
DEVICE_NAMES = ("default_sku", "platform_asic")
TEMPLATES = ("buffers", "qos")
#: role -> DEVICE_METADATA.type sonic-cfggen's minigraph parser writes for it (buffers_config.j2
#: matches 'torrouter' / 'leafrouter' in it to choose buffers_defaults_t0/t1.j2).
ROLES = {"t0": "ToRRouter", "t1": "LeafRouter", "t2": "SpineRouter"}
#: A role ending in this renders the SKU's buffers_dynamic.json.j2 with buffer_model dynamic (what
#: sonic-cfggen's caller, config qos reload, picks for Mellanox and Barefoot without
#: --no-dynamic-buffer) instead of buffers.json.j2; it is written as buffers.json all the same.
DYNAMIC = "-dynamic"
#: A role ending in this leaves every fourth front-panel port without a neighbour: an unused port,
#: which buffers_config.j2 treats as inactive (zero profiles on Mellanox, no lossless PGs).
SPARSE = "-sparse"
MAX_BLOB_BYTES = 4 << 20


# --------------------------------------------------------------------------- extraction

def _git(git_dir: Path, *args: str, data: bytes | None = None) -> bytes:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], input=data, capture_output=True,
                          check=True).stdout


def _wanted(path: str, mode: str) -> bool:
    # Symlinks are kept whatever their name: SKUs link whole folders (BALANCED -> a shared profile).
    if not path.startswith("device/") or mode == "120000":
        return True
    name = path.rsplit("/", 1)[-1]
    return name.endswith(DEVICE_SUFFIXES) or name in DEVICE_NAMES


def extract(git_dir: Path, work: Path, revision: str = "HEAD") -> int:
    """Write the wanted files of ``revision`` under ``work``; returns how many. Blobs the mirror
    lacks (large binaries) are skipped, not fatal."""
    listing = _git(git_dir, "ls-tree", "-r", "-z", "--long", revision, "--", *TREES).split(b"\0")
    entries: list[tuple[str, str, str]] = []
    for line in listing:
        if not line:
            continue
        meta, path = line.decode("utf-8", "surrogateescape").split("\t", 1)
        mode, kind, sha, size = meta.split()
        if kind != "blob" or not _wanted(path, mode) or (size != "-" and int(size) > MAX_BLOB_BYTES):
            continue
        entries.append((mode, sha, path))
    present = _git(git_dir, "cat-file", "--batch-check=%(objectname) %(objecttype)",
                   data="".join(f"{sha}\n" for _, sha, _ in entries).encode()).decode().splitlines()
    have = {row.split()[0] for row in present if row.endswith(" blob")}
    entries = [entry for entry in entries if entry[1] in have]
    blobs = _git(git_dir, "cat-file", "--batch", data="".join(f"{sha}\n" for _, sha, _ in entries).encode())
    offset = 0
    for mode, _sha, path in entries:
        header_end = blobs.index(b"\n", offset)
        size = int(blobs[offset:header_end].split()[2])
        body = blobs[header_end + 1:header_end + 1 + size]
        offset = header_end + 1 + size + 1
        target = work / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.is_symlink() or target.exists():
            target.unlink()
        if mode == "120000":
            target.symlink_to(body.decode())
        else:
            target.write_bytes(body)
    return len(entries)


# --------------------------------------------------------------------------- stubs

SWSSCOMMON_STUB = '''"""Stand-in for swsscommon (rendering the SKU corpus): no Redis, no switch.

ConfigDB connections fail, so sonic-cfggen's helpers fall back to the files they were given, as
they do on a switch before its database is up."""


class ConfigDBConnector:
    KEY_SEPARATOR = "|"

    def __init__(self, *args, **kwargs):
        pass

    def connect(self, *args, **kwargs):
        raise RuntimeError("no Redis when rendering the corpus")

    db_connect = connect

    def get_table(self, table):
        return {}

    @staticmethod
    def serialize_key(key, separator="|"):
        return separator.join(key) if isinstance(key, tuple) else str(key)

    @staticmethod
    def deserialize_key(key, separator="|"):
        tokens = key.split(separator)
        return tuple(tokens) if len(tokens) > 1 else key


class ConfigDBPipeConnector(ConfigDBConnector):
    pass


class SonicV2Connector(ConfigDBConnector):
    pass


class SonicDBConfig:
    @staticmethod
    def isInit():
        return True

    @staticmethod
    def isGlobalInit():
        return True

    @staticmethod
    def load_sonic_global_db_config(*args, **kwargs):
        pass

    @staticmethod
    def initialize(*args, **kwargs):
        pass

    @staticmethod
    def initializeGlobalConfig(*args, **kwargs):
        pass

    @staticmethod
    def getNamespaces():
        return [""]


class SonicDBKey:
    def __init__(self, *args, **kwargs):
        pass
'''


def install_stubs(work: Path) -> None:
    stub = work / "stubs" / "swsscommon"
    stub.mkdir(parents=True, exist_ok=True)
    (stub / "__init__.py").write_text("from . import swsscommon\n")
    (stub / "swsscommon.py").write_text(SWSSCOMMON_STUB)
    # sonic-cfggen imports its YANG-to-config_db generator at start-up (libyang); only -Y uses it.
    (work / "stubs" / "sonic_yang.py").write_text(
        '"""Stand-in for sonic-yang-mgmt (needs libyang); sonic-cfggen only uses it with -Y."""\n\n\n'
        "class SonicYang:\n    def __init__(self, *args, **kwargs):\n"
        "        raise RuntimeError('sonic_yang is not available when rendering the corpus')\n")
    for folder in (work / "stubs", work / "src" / "sonic-py-common", work / "src" / "sonic-config-engine"):
        if str(folder) not in sys.path:
            sys.path.insert(0, str(folder))


def platform_root(work: Path) -> Path:
    """``/usr/share/sonic/device`` as on a switch: one entry per platform."""
    root = work / "platforms"
    root.mkdir(exist_ok=True)
    for platform in sorted((work / "device").glob("*/*")):
        link = root / platform.name
        if platform.is_dir() and not platform.name.startswith(".") and not link.exists():
            link.symlink_to(platform.resolve())
    return root


@dataclass
class Engine:
    """sonic-cfggen loaded once; ``render`` runs its ``main`` like the command would."""

    module: types.ModuleType
    portconfig: types.ModuleType
    device_info: types.ModuleType
    root: Path

    @classmethod
    def load(cls, work: Path) -> Engine:
        install_stubs(work)
        root = platform_root(work)
        import jinja2
        import portconfig  # type: ignore[import-not-found]
        from sonic_py_common import device_info  # type: ignore[import-not-found]

        device_info.HOST_DEVICE_PATH = str(root)
        portconfig.PLATFORM_ROOT_PATH = str(root)
        script = work / "src" / "sonic-config-engine" / "sonic-cfggen"
        loader = importlib.machinery.SourceFileLoader("sonic_cfggen", str(script))
        spec = importlib.util.spec_from_loader("sonic_cfggen", loader)
        assert spec is not None
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
        # sonic-cfggen builds a new jinja2 Environment per run; compiling the shared templates
        # (buffers_config.j2, qos_config.j2) dominates a render, so compiled code is cached by
        # template name and source checksum (jinja2's own bytecode cache: output is unchanged).
        cache = jinja2.FileSystemBytecodeCache(str(work / "jinja-cache"))
        (work / "jinja-cache").mkdir(exist_ok=True)
        build_env = module._get_jinja2_env

        def cached_env(paths: list[str]) -> object:
            env = build_env(paths)
            env.bytecode_cache = cache
            return env

        module._get_jinja2_env = cached_env
        return cls(module, portconfig, device_info, root)

    def ports(self, platform: str, hwsku: str) -> dict[str, dict[str, str]]:
        os.environ["PLATFORM"] = platform
        ports, _, _ = self.portconfig.get_port_config(hwsku, platform)
        return dict(ports or {})

    def render(self, platform: str, hwsku: str, layout: Path, template: Path) -> str:
        os.environ["PLATFORM"] = platform
        argv = ["sonic-cfggen", "-k", hwsku, "-j", str(layout), "-t", str(template)]
        out, err = io.StringIO(), io.StringIO()
        saved = sys.argv
        sys.argv = argv
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                self.module.main()
        except SystemExit as stop:
            if stop.code not in (None, 0):
                raise RenderError(err.getvalue().strip() or f"sonic-cfggen exited {stop.code}") from None
        finally:
            sys.argv = saved
        return out.getvalue()


class RenderError(Exception):
    pass


# --------------------------------------------------------------------------- layouts

def _port_order(name: str) -> tuple[str, int]:
    digits = "".join(ch for ch in name if ch.isdigit())
    return name.rstrip("0123456789"), int(digits) if digits else 0


def layout(role: str, hwsku: str, platform: str, ports: dict[str, dict[str, str]]) -> dict[str, object]:
    """A minimal switch of ``role``: what ``buffers_config.j2`` reads to choose defaults, active ports and
    cable lengths. Every front-panel port (PORT role absent or Ext; DPU, inband and recirculation ports
    are the template's own business) has a neighbour, as minigraph's links give one: t0 sends the last
    quarter (1 to 8 ports) up to T1 routers and the rest to servers (also untagged Vlan1000 members);
    t1 sends the first half down to ToR routers and the rest up to spine routers; t2 the first half
    down to leaf routers and the rest up to upper spine routers. ``<role>-dynamic`` adds
    buffer_model dynamic, ``<role>-sparse`` (after -dynamic) leaves every fourth port unconnected."""
    sparse = role.endswith(SPARSE)
    role = role.removesuffix(SPARSE)
    dynamic = role.endswith(DYNAMIC)
    role = role.removesuffix(DYNAMIC)
    names = sorted((p for p, entry in ports.items() if entry.get("role", "Ext") == "Ext"
                    and not p.startswith(("Ethernet-BP", "Ethernet-IB", "Ethernet-Rec", "Cpu"))), key=_port_order)
    if sparse:
        names = [name for index, name in enumerate(names) if index % 4 != 3]
    metadata = {"hostname": f"{role}-{hwsku}"[:60], "hwsku": hwsku, "platform": platform, "type": ROLES[role],
                "default_pfcwd_status": "enable", **({"buffer_model": "dynamic"} if dynamic else {})}
    neighbors: dict[str, dict[str, str]] = {}
    neighbor_meta: dict[str, dict[str, str]] = {}
    vlan_members: dict[str, dict[str, str]] = {}

    def link(port: str, peer: str, peer_type: str) -> None:
        neighbors[port] = {"name": peer, "port": "Ethernet1" if peer_type != "Server" else "eth0"}
        neighbor_meta[peer] = {"type": peer_type, "hwsku": "Arista-VM" if peer_type != "Server" else "Server"}

    if role == "t0":
        uplinks = max(1, min(8, len(names) // 4))
        for index, name in enumerate(names[len(names) - uplinks:]):
            link(name, f"ARISTA{index + 1:02d}T1", "LeafRouter")
        for index, name in enumerate(names[:len(names) - uplinks]):
            link(name, f"Servers{index}", "Server")
            vlan_members[f"Vlan1000|{name}"] = {"tagging_mode": "untagged"}
    else:
        half = max(1, len(names) // 2)
        below, above = ("ToRRouter", "SpineRouter") if role == "t1" else ("LeafRouter", "UpperSpineRouter")
        for index, name in enumerate(names):
            down = index < half
            link(name, f"ARISTA{index + 1:02d}{'D' if down else 'U'}", below if down else above)
    data: dict[str, object] = {"DEVICE_METADATA": {"localhost": metadata}, "DEVICE_NEIGHBOR": neighbors,
                               "DEVICE_NEIGHBOR_METADATA": neighbor_meta}
    if vlan_members:
        data["VLAN"] = {"Vlan1000": {"vlanid": "1000"}}
        data["VLAN_MEMBER"] = vlan_members
    return data


# --------------------------------------------------------------------------- driver

@dataclass(frozen=True)
class Sku:
    vendor: str
    platform: str
    hwsku: str
    folder: Path


def skus(work: Path) -> Iterator[Sku]:
    """Every ``device/<vendor>/<platform>/<hwsku>/`` with a buffers or qos template (multi-ASIC SKUs
    keep theirs per ASIC, in ``<hwsku>/<n>/``, and need a namespace: not rendered here)."""
    for folder in sorted((work / "device").glob("*/*/*")):
        if folder.is_dir() and any((folder / f"{t}.json.j2").exists() for t in TEMPLATES):
            vendor, platform, hwsku = folder.relative_to(work / "device").parts
            yield Sku(vendor, platform, hwsku, folder)


def render_all(engine: Engine, work: Path, out: Path, roles: list[str]) -> dict[str, int]:
    counts = {"skus": 0, "pairs": 0, "files": 0, "failed": 0}
    log: list[str] = []
    for sku in skus(work):
        counts["skus"] += 1
        try:
            ports = engine.ports(sku.platform, sku.hwsku)
        except Exception as error:
            log.append(f"{sku.folder.relative_to(work)}: ports: {type(error).__name__}: {error}")
            counts["failed"] += 1
            continue
        if not ports:
            log.append(f"{sku.folder.relative_to(work)}: ports: no port_config.ini / hwsku.json layout")
            counts["failed"] += 1
            continue
        for role in roles:
            if role.removesuffix(SPARSE).endswith(DYNAMIC) and not (sku.folder / "buffers_dynamic.json.j2").exists():
                continue
            target = out / sku.vendor / sku.platform / sku.hwsku / role
            target.mkdir(parents=True, exist_ok=True)
            layout_file = target / "layout.json"
            layout_file.write_text(json.dumps(layout(role, sku.hwsku, sku.platform, ports), indent=4) + "\n")
            rendered = 0
            for name in TEMPLATES:
                dynamic = name == "buffers" and role.removesuffix(SPARSE).endswith(DYNAMIC)
                template = sku.folder / f"{name}{'_dynamic' if dynamic else ''}.json.j2"
                if not template.exists():
                    continue
                try:
                    text = engine.render(sku.platform, sku.hwsku, layout_file, template)
                    json.loads(text)
                except Exception as error:  # RenderError, invalid JSON, or the template's own failure
                    log.append(f"{target.relative_to(out)}/{name}.json: {type(error).__name__}: "
                               f"{' '.join(str(error).split())[:300]}")
                    counts["failed"] += 1
                    continue
                (target / f"{name}.json").write_text(text)
                rendered += 1
                counts["files"] += 1
            if rendered == len(TEMPLATES):
                counts["pairs"] += 1
    (out / "render.log").write_text("\n".join(log) + "\n")
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--git-dir", type=Path, help="sonic-buildimage git directory (bare is fine)")
    parser.add_argument("--revision", default="HEAD")
    parser.add_argument("--work", type=Path, required=True, help="where the extracted tree goes")
    parser.add_argument("--out", type=Path, required=True, help="where the rendered corpus goes")
    parser.add_argument("--roles", default="t0,t1", help="comma-separated: t0, t1, t2, each optionally "
                        "with -dynamic (buffers_dynamic.json.j2, where the SKU has one) and then -sparse (every fourth "
                        "port unconnected)")
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    if args.git_dir is not None:
        print(f"extracted {extract(args.git_dir, args.work, args.revision)} files", file=sys.stderr)
    engine = Engine.load(args.work)
    started = time.monotonic()
    counts = render_all(engine, args.work, args.out, [r for r in args.roles.split(",") if r])
    print(f"{counts['skus']} SKUs, {counts['pairs']} SKU/role pairs with both files, {counts['files']} files, "
          f"{counts['failed']} failures (see {args.out / 'render.log'}), {time.monotonic() - started:.0f} s",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
