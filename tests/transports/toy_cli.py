"""``qosforge`` with the toy transports registered first (tests/transports/toy_transport.py).

Run by test_registry.py in a fresh interpreter as ``python toy_cli.py '[[ARGS...], ...]'``: runs
each command line in turn in this one process (one start-up for all) and prints, as JSON, each
one's exit code, stdout and stderr.
"""

import io
import json
import sys
from contextlib import redirect_stderr, redirect_stdout

import toy_transport  # noqa: F401  (registers toy and toyx before qosforge.compiler is imported)

from qosforge.cli import main

if __name__ == "__main__":
    results = []
    for argv in json.loads(sys.argv[1]):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            try:
                main(argv)
                code = 0
            except SystemExit as stop:
                code = stop.code if isinstance(stop.code, int) else int(stop.code is not None)
        results.append({"code": code, "stdout": out.getvalue(), "stderr": err.getvalue()})
    print(json.dumps(results))
