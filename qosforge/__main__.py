from qosforge.cli import main

main()
