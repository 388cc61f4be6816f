"""The parts of ``qosforge tune``: objectives and their score, the knobs, one candidate's
check and simulation, and the search (docs/tune.md)."""
