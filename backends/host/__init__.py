"""The ``host`` target: the hosts' side of the intent (kernel sysctls, NIC QoS and DCQCN settings),
derived from the same compiled plan as the switches (docs/hosts.md)."""
