"""Design defaults shared by the intent schema, ``whatif`` and ``simulate`` (no imports, so the
CLI reads them without loading pydantic): one value each, so whatif, compile and simulate agree."""

#: The host NIC LSO/TSO burst when the intent does not say: DCTCP's K floor (DCTCP §3.5 burst
#: allowance) and TBTCP's marking start l. ``whatif dctcp --burst`` defaults to it.
DEFAULT_LSO_BURST = "64kB"
#: TBTCP's QCD window reduction r when not given (TBTCP §6.2 testbed: r = 4); the intent's
#: ``tbtcp.r``, ``whatif tbtcp --r`` and ``simulate --r`` default to it.
DEFAULT_TBTCP_R = 4
