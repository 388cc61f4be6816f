"""Delivery of rendered configurations to devices (docs/openconfig.md, "gNMI").

``qosforge push`` and ``qosforge diff`` speak gNMI to a device: Capabilities, Get of ``/qos``,
one Set that replaces ``/qos``, Get and compare (:mod:`qosforge.deliver.session`). They read the
OpenConfig backend's rendered documents; nothing here derives a number.
"""
