#!/bin/sh
# qosforge TCP route attributes for host kind nvidia-connectx-5-100G (nvidia-connectx-5, 100G).
# Usage: sh tcp-routes.sh CLASS DESTINATION ROUTE...   (e.g. sh tcp-routes.sh rpc 10.1.0.0/16 via 10.0.0.1 dev eth0)
# Replaces the route to DESTINATION, the prefix of the class's peers, with
# ROUTE... and the class's attributes:
# ip route replace DESTINATION ROUTE... ATTRIBUTES. Run as root.
set -eu
CLASS="${1:?usage: tcp-routes.sh CLASS DESTINATION ROUTE...}"
DESTINATION="${2:?usage: tcp-routes.sh CLASS DESTINATION ROUTE...}"
shift 2
case "$CLASS" in
  # rpc: rto_min = 4 ms, features = ecn (ip-route(8); host_settings.json has the sources)
  rpc) ip route replace "$DESTINATION" "$@" rto_min 4ms features ecn ;;
  # bulk: rto_min = 4 ms (ip-route(8); host_settings.json has the sources)
  bulk) ip route replace "$DESTINATION" "$@" rto_min 4ms congctl dctcp ;;
  # search: rto_min = 4 ms, features = ecn (ip-route(8); host_settings.json has the sources)
  search) ip route replace "$DESTINATION" "$@" rto_min 4ms features ecn ;;
  # legacy: rto_min = 4 ms (ip-route(8); host_settings.json has the sources)
  legacy) ip route replace "$DESTINATION" "$@" rto_min 4ms ;;
  *) echo "tcp-routes.sh: no route attributes for class $CLASS (classes: rpc, bulk, search, legacy)" >&2; exit 2 ;;
esac
