#!/bin/sh
# qosforge TCP route attributes for host kind nvidia-connectx-6dx-100G (nvidia-connectx-6dx, 100G).
# Usage: sh tcp-routes.sh CLASS DESTINATION ROUTE...   (e.g. sh tcp-routes.sh tcp 10.1.0.0/16 via 10.0.0.1 dev eth0)
# Replaces the route to DESTINATION, the prefix of the class's peers, with
# ROUTE... and the class's attributes:
# ip route replace DESTINATION ROUTE... ATTRIBUTES. Run as root.
set -eu
CLASS="${1:?usage: tcp-routes.sh CLASS DESTINATION ROUTE...}"
DESTINATION="${2:?usage: tcp-routes.sh CLASS DESTINATION ROUTE...}"
shift 2
case "$CLASS" in
  # tcp: rto_min = 4 ms (ip-route(8); host_settings.json has the sources)
  tcp) ip route replace "$DESTINATION" "$@" rto_min 4ms congctl dctcp ;;
  *) echo "tcp-routes.sh: no route attributes for class $CLASS (classes: tcp)" >&2; exit 2 ;;
esac
