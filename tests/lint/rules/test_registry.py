"""The registry: stable ids, every checks.py rule exposed, documentation complete."""

from __future__ import annotations

import re

from qosforge.backends.sonic.checks import RULES as SONIC_RULES
from qosforge.lint.findings import Severity
from qosforge.lint.rules import REGISTRY, rules_needing

#: Ids are part of the CLI contract (CI configs filter on them): changing one is a breaking change.
STABLE_IDS = {
    "watch-lossless-pg-drop", "watch-lossless-queue-drop", "watch-headroom-exceeded", "watch-pfc-pause", "watch-pfc-storm",
    "watch-pfcwd-triggered", "watch-ecn-off", "watch-tlt-threshold", "watch-unplanned-queue", "watch-counter-unavailable",
    "duplicate-key", "redis-key-format", "oversized-text", "index-range-too-wide", "oversized-map", "wred-unbound", "wred-inactive", "ecn-color-disabled", "dscp-conflict",
    "lossless-queue-without-pfc", "lossless-pg-zero-headroom", "shared-headroom-missing", "port-admin-status",
    "pfcwd-missing", "buffer-capacity", "pfc-headroom", "ecn-above-queue-limit", "dynamic-th-range",
    "lossless-priority-limit", "queue-index-limit", "model-input-missing", "intent-port-speed", "class-dscp-split", "class-queue-shared",
    "class-lossless-mismatch", "ecn-missing", "dctcp-k", "dcqcn-marking", "tbtcp-red-fit", "tlt-threshold",
    "tlt-flows", "tlt-not-expressed", "internal-error",
    # lint on real configs: unbound maps, merged files, legacy DB versions
    "map-unbound", "merge-override", "legacy-db-version",
    # Mellanox dynamic_th 7 = alpha infinity
    "dynamic-th-unlimited",
    # lossy class on SONiC's lossless pair
    "lossy-tc-in-lossless-pair", "lossless-pg-size-below-xoff",
    # hosts and switches agree (lint --hosts)
    "host-pfc-not-lossless", "host-pfc-missing", "host-dscp-priority", "host-cnp-dscp", "host-cc-ignores-ecn",
    "host-attachment-port", "host-trust-pcp", "host-cnp-lossless", "host-kernel-cc",
    # a config linted against another ASIC's profile
    "asic-mismatch",
}
#: The rule ids of the former single checks.py module, since split: they must all still exist.
CHECKS_IDS_BEFORE_SPLIT = {
    "structure", "value-not-string", "unknown-table", "unknown-field", "missing-field", "bad-key", "multi-port-key",
    "bracket-reference", "dangling-reference", "bad-integer", "out-of-range", "bad-enum", "bad-boolean",
    "bad-pattern", "wred-threshold-overflow", "wred-min-gt-max", "wred-color-consistency", "threshold-mode",
    "threshold-mode-pool", "scheduler-priority", "scheduler-rates", "pfcwd-placement", "pfcwd-poll-interval",
    "pfcwd-priorities", "lossless-pool-name", "profile-direction", "overlapping-keys", "dscp-map-incomplete",
    "port-qos-global", "lossless-chain", "pool-size", "null-profile", "pool-overcommit",
    "traditional-pg-overwrite", "single-entry",
}


def test_no_rule_id_disappeared() -> None:
    assert CHECKS_IDS_BEFORE_SPLIT | STABLE_IDS <= set(REGISTRY)


def test_every_checks_rule_is_a_lint_rule_under_its_own_id() -> None:
    for rule_id in SONIC_RULES:
        rule = REGISTRY[rule_id]
        assert rule.origin == "backends/sonic/checks"
        assert SONIC_RULES[rule_id] in rule.rationale


def test_ids_are_stable() -> None:
    assert set(REGISTRY) == set(SONIC_RULES) | STABLE_IDS


def test_every_rule_is_documented_with_a_reference() -> None:
    for rule in REGISTRY.values():
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.id), rule.id
        assert rule.title and rule.fix and len(rule.rationale) > 40, rule.id
        cites = ("§", "docs/architecture.md", "qosforge", "SONiC", "Python", "sonic-buildimage", "sonic-swss", "SAI inc/", "sonic-")
        assert any(mark in rule.rationale for mark in cites), rule.id


def test_needs_and_severities() -> None:
    assert "pool-overcommit" in rules_needing("profile") and "pfc-headroom" in rules_needing("profile")
    assert set(rules_needing("intent")) >= {"dctcp-k", "dcqcn-marking", "tbtcp-red-fit", "tlt-threshold"}
    assert REGISTRY["model-input-missing"].severity is Severity.INFO
    assert REGISTRY["dscp-map-incomplete"].severity is Severity.WARNING
    assert REGISTRY["lossless-chain"].severity is Severity.ERROR
