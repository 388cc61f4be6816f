#!/bin/sh
# qosforge NIC settings for host kind nvidia-connectx-5-100G (nvidia-connectx-5, 100G).
# Usage: sh nic-setup.sh IFACE RDMA_DEVICE   (e.g. sh nic-setup.sh ens1f0np0 mlx5_0)
# Run as root; configfs must be mounted at /sys/kernel/config (Documentation/ABI/testing/configfs-rdma_cm).
set -eu
IFACE="${1:?usage: nic-setup.sh IFACE RDMA_DEVICE}"
RDMA_DEV="${2:-}"
# mlnx_qos.trust = dscp  (NVIDIA MLNX_OFED documentation, Quality of Service: mlnx_qos (--trust, --pfc, --dscp2prio))
mlnx_qos -i "$IFACE" --trust dscp
# mlnx_qos.pfc = 0,0,0,1,0,0,0,0 per priority 0..7  (NVIDIA MLNX_OFED documentation, Quality of Service: mlnx_qos (--trust, --pfc, --dscp2prio))
mlnx_qos -i "$IFACE" --pfc 0,0,0,1,0,0,0,0
# mlnx_qos.dscp2prio.0 = 7 priority  (NVIDIA MLNX_OFED documentation, Quality of Service: mlnx_qos (--trust, --pfc, --dscp2prio); mlnx_qos default DSCP-to-priority mapping: priority = DSCP >> 3 (the eight DSCPs 8p..8p+7 on priority p))
mlnx_qos -i "$IFACE" --dscp2prio set,0,7
# mlnx_qos.dscp2prio.10 = 2 priority  (NVIDIA MLNX_OFED documentation, Quality of Service: mlnx_qos (--trust, --pfc, --dscp2prio); mlnx_qos default DSCP-to-priority mapping: priority = DSCP >> 3 (the eight DSCPs 8p..8p+7 on priority p))
mlnx_qos -i "$IFACE" --dscp2prio set,10,2
# mlnx_qos.dscp2prio.12 = 2 priority  (NVIDIA MLNX_OFED documentation, Quality of Service: mlnx_qos (--trust, --pfc, --dscp2prio); mlnx_qos default DSCP-to-priority mapping: priority = DSCP >> 3 (the eight DSCPs 8p..8p+7 on priority p))
mlnx_qos -i "$IFACE" --dscp2prio set,12,2
# mlnx_qos.dscp2prio.18 = 5 priority  (NVIDIA MLNX_OFED documentation, Quality of Service: mlnx_qos (--trust, --pfc, --dscp2prio); mlnx_qos default DSCP-to-priority mapping: priority = DSCP >> 3 (the eight DSCPs 8p..8p+7 on priority p))
mlnx_qos -i "$IFACE" --dscp2prio set,18,5
# mlnx_qos.dscp2prio.34 = 1 priority  (NVIDIA MLNX_OFED documentation, Quality of Service: mlnx_qos (--trust, --pfc, --dscp2prio); mlnx_qos default DSCP-to-priority mapping: priority = DSCP >> 3 (the eight DSCPs 8p..8p+7 on priority p))
mlnx_qos -i "$IFACE" --dscp2prio set,34,1
[ -n "$RDMA_DEV" ] || { echo "nic-setup.sh: RDMA_DEVICE is needed for the rdma_cm settings" >&2; exit 2; }
# rdma_cm.default_roce_mode = RoCE v2  (Linux Documentation/ABI/testing/configfs-rdma_cm (default_roce_mode, default_roce_tos: 'RoCE TOS values are 0-255'))
mkdir -p /sys/kernel/config/rdma_cm/"$RDMA_DEV" && echo "RoCE v2" > /sys/kernel/config/rdma_cm/"$RDMA_DEV"/ports/1/default_roce_mode
[ -n "$RDMA_DEV" ] || { echo "nic-setup.sh: RDMA_DEVICE is needed for the rdma_cm settings" >&2; exit 2; }
# rdma_cm.default_roce_tos = 104 TOS octet  (Linux Documentation/ABI/testing/configfs-rdma_cm (default_roce_mode, default_roce_tos: 'RoCE TOS values are 0-255'); RFC 2474 §3: the DSCP is the upper six bits of the IPv4 TOS / IPv6 Traffic Class octet (TOS = DSCP·4); the low two bits are ECN (RFC 3168 §5))
echo 104 > /sys/kernel/config/rdma_cm/"$RDMA_DEV"/ports/1/default_roce_tos
# ecn.roce_rp.enable.3 = 1  (NVIDIA MLNX_OFED documentation v24.10, Explicit Congestion Notification (ECN): /sys/class/net/<interface>/ecn/<roce_rp|roce_np>/enable/<priority>)
echo 1 > /sys/class/net/"$IFACE"/ecn/roce_rp/enable/3
# ecn.roce_np.enable.3 = 1  (NVIDIA MLNX_OFED documentation v24.10, Explicit Congestion Notification (ECN): /sys/class/net/<interface>/ecn/<roce_rp|roce_np>/enable/<priority>)
echo 1 > /sys/class/net/"$IFACE"/ecn/roce_np/enable/3
# ecn.roce_np.cnp_dscp = 48 DSCP  (mlx5 ECN sysfs attributes (Mellanox mlnx-ofa_kernel drivers/net/ethernet/mellanox/mlx5/core/en_sysfs.c: ecn/roce_np/{cnp_dscp,cnp_802p_prio,min_time_between_cnps}, ecn/roce_rp/{rpg_*,dce_tcp_rtt}))
echo 48 > /sys/class/net/"$IFACE"/ecn/roce_np/cnp_dscp
# ecn.roce_np.cnp_802p_prio = 6 priority  (mlx5 ECN sysfs attributes (Mellanox mlnx-ofa_kernel drivers/net/ethernet/mellanox/mlx5/core/en_sysfs.c: ecn/roce_np/{cnp_dscp,cnp_802p_prio,min_time_between_cnps}, ecn/roce_rp/{rpg_*,dce_tcp_rtt}))
echo 6 > /sys/class/net/"$IFACE"/ecn/roce_np/cnp_802p_prio
# ecn.roce_rp.rpg_ai_rate = 100 Mbit/s  (NVIDIA DOCA documentation, DCQCN CC Parameters (ConnectX-4 and later; rpg_min_rate Mb/s, dce_tcp_rtt µs); units of the rpg_* reaction-point fields as Linux include/uapi/linux/dcbnl.h struct ieee_qcn documents them (rpg_time_reset µs, rpg_threshold stages, rpg_ai_rate and rpg_hai_rate Mbit/s))
echo 100 > /sys/class/net/"$IFACE"/ecn/roce_rp/rpg_ai_rate
# ecn.roce_rp.rpg_hai_rate = 500 Mbit/s  (NVIDIA DOCA documentation, DCQCN CC Parameters (ConnectX-4 and later; rpg_min_rate Mb/s, dce_tcp_rtt µs); units of the rpg_* reaction-point fields as Linux include/uapi/linux/dcbnl.h struct ieee_qcn documents them (rpg_time_reset µs, rpg_threshold stages, rpg_ai_rate and rpg_hai_rate Mbit/s))
echo 500 > /sys/class/net/"$IFACE"/ecn/roce_rp/rpg_hai_rate
# ecn.roce_rp.rpg_time_reset = 55 us  (NVIDIA DOCA documentation, DCQCN CC Parameters (ConnectX-4 and later; rpg_min_rate Mb/s, dce_tcp_rtt µs); units of the rpg_* reaction-point fields as Linux include/uapi/linux/dcbnl.h struct ieee_qcn documents them (rpg_time_reset µs, rpg_threshold stages, rpg_ai_rate and rpg_hai_rate Mbit/s))
echo 55 > /sys/class/net/"$IFACE"/ecn/roce_rp/rpg_time_reset
# ecn.roce_rp.dce_tcp_rtt = 55 us  (NVIDIA DOCA documentation, DCQCN CC Parameters (ConnectX-4 and later; rpg_min_rate Mb/s, dce_tcp_rtt µs); units of the rpg_* reaction-point fields as Linux include/uapi/linux/dcbnl.h struct ieee_qcn documents them (rpg_time_reset µs, rpg_threshold stages, rpg_ai_rate and rpg_hai_rate Mbit/s))
echo 55 > /sys/class/net/"$IFACE"/ecn/roce_rp/dce_tcp_rtt
# ecn.roce_rp.rpg_threshold = 5 stages  (NVIDIA DOCA documentation, DCQCN CC Parameters (ConnectX-4 and later; rpg_min_rate Mb/s, dce_tcp_rtt µs); units of the rpg_* reaction-point fields as Linux include/uapi/linux/dcbnl.h struct ieee_qcn documents them (rpg_time_reset µs, rpg_threshold stages, rpg_ai_rate and rpg_hai_rate Mbit/s))
echo 5 > /sys/class/net/"$IFACE"/ecn/roce_rp/rpg_threshold
# ecn.roce_rp.rpg_min_rate = 100 Mbit/s  (NVIDIA DOCA documentation, DCQCN CC Parameters (ConnectX-4 and later; rpg_min_rate Mb/s, dce_tcp_rtt µs); units of the rpg_* reaction-point fields as Linux include/uapi/linux/dcbnl.h struct ieee_qcn documents them (rpg_time_reset µs, rpg_threshold stages, rpg_ai_rate and rpg_hai_rate Mbit/s))
echo 100 > /sys/class/net/"$IFACE"/ecn/roce_rp/rpg_min_rate
# ecn.roce_np.min_time_between_cnps = 50 us  (mlx5 ECN sysfs attributes (Mellanox mlnx-ofa_kernel drivers/net/ethernet/mellanox/mlx5/core/en_sysfs.c: ecn/roce_np/{cnp_dscp,cnp_802p_prio,min_time_between_cnps}, ecn/roce_rp/{rpg_*,dce_tcp_rtt}); mstflint register layout (min_time_between_cnps: 'Minimum time between sending cnps from the port, in microseconds'))
echo 50 > /sys/class/net/"$IFACE"/ecn/roce_np/min_time_between_cnps
# manual: ecn.roce_rp.dce_tcp_g = 0.00390625 1: ConnectX encodes g as a 10-bit fixed-point dce_tcp_g (default 1019); NVIDIA's public pages state the alpha update both as alpha = (1 - G/1024)·alpha + G/1024 and with G/1024 as the weight of the old alpha, so the encoding of g = 1/256 is left to the operator
# manual: ecn.roce_rp.rpg_byte_reset = 1e+07 B: rpg_byte_reset is given in bytes (include/uapi/linux/dcbnl.h), but ConnectX's accepted range is not public (firmware default 32767); set B = 10 MB or the largest value the firmware accepts
