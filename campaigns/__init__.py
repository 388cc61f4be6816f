"""Campaigns: ``qosforge sweep`` runs simulate, whatif or compile over a parameter grid on Dask.

grid (lists and START:STOP:N), flags (forwarded from the target command's click parameters),
intents (--set on an intent, validated by the compiler's loader), build (the points), point
(identity), execute (one point, on a worker, through the application layer), store (JSONL rows and
resume), runner (Dask), table (Parquet), plot, session (one run). Nothing here is imported by the
other commands; Dask and pyarrow are imported only when a campaign runs.
"""
