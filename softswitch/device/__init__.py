"""The software switch as a network device: its counters read live from a running simulation
and served over gNMI (``qosforge simulate --serve-gnmi``, docs/telemetry.md)."""
