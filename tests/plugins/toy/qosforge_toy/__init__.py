"""A toy qosforge plugin, found only through its entry points (../qosforge_toy-0.1.dist-info):
a transport, a lint rule and a simulator scenario that nothing in qosforge names."""
