"""``qosforge`` with the toy transports registered first (tests/transports/toy_transport.py):
run by test_registry.py as ``python toy_cli.py ARGS...`` in a fresh interpreter."""

import sys

import toy_transport  # noqa: F401  (registers toy and toyx before qosforge.compiler is imported)

from qosforge.cli import main

if __name__ == "__main__":
    sys.argv[0] = "qosforge"
    main()
