"""Traffic for the software switch: open-loop sources and closed-loop transports."""
