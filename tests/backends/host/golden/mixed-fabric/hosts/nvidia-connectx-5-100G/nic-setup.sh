#!/bin/sh
# qosforge NIC settings for host kind nvidia-connectx-5-100G (nvidia-connectx-5, 100G).
# Usage: sh nic-setup.sh IFACE RDMA_DEVICE   (e.g. sh nic-setup.sh ens1f0np0 mlx5_0)
# Run as root; configfs must be mounted at /sys/kernel/config (Documentation/ABI/testing/configfs-rdma_cm).
set -eu
IFACE="${1:?usage: nic-setup.sh IFACE RDMA_DEVICE}"
RDMA_DEV="${2:-}"
# mlnx_qos.trust = dscp  (NVIDIA MLNX_OFED documentation, Quality of Service: mlnx_qos (--trust, --pfc, --dscp2prio))
mlnx_qos -i "$IFACE" --trust dscp
# mlnx_qos.pfc = 0,0,0,1,0,0,0,0 per priority 0..7
mlnx_qos -i "$IFACE" --pfc 0,0,0,1,0,0,0,0
# mlnx_qos.cable_len = 2 m  (NVIDIA MLNX_OFED documentation, Quality of Service: mlnx_qos (--trust, --pfc, --dscp2prio); Linux drivers/net/ethernet/mellanox/mlx5/core/en/port_buffer.c (xoff from cable_len, speed and MTU), en_dcbnl.c (cable length set through dcbnl, MLX5E_MAX_CABLE_LENGTH 1000 m); mlnx_qos --cable_len)
mlnx_qos -i "$IFACE" --cable_len=2
# mlnx_qos.dscp2prio.0 = 7 priority  (NVIDIA MLNX_OFED documentation, Quality of Service: mlnx_qos (--trust, --pfc, --dscp2prio); mlnx_qos default DSCP-to-priority mapping: priority = DSCP >> 3 (the eight DSCPs 8p..8p+7 on priority p))
mlnx_qos -i "$IFACE" --dscp2prio set,0,7
# mlnx_qos.dscp2prio.8 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,8,0
# mlnx_qos.dscp2prio.9 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,9,0
# mlnx_qos.dscp2prio.10 = 2 priority
mlnx_qos -i "$IFACE" --dscp2prio set,10,2
# mlnx_qos.dscp2prio.11 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,11,0
# mlnx_qos.dscp2prio.12 = 2 priority
mlnx_qos -i "$IFACE" --dscp2prio set,12,2
# mlnx_qos.dscp2prio.13 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,13,0
# mlnx_qos.dscp2prio.14 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,14,0
# mlnx_qos.dscp2prio.15 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,15,0
# mlnx_qos.dscp2prio.16 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,16,0
# mlnx_qos.dscp2prio.17 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,17,0
# mlnx_qos.dscp2prio.18 = 5 priority
mlnx_qos -i "$IFACE" --dscp2prio set,18,5
# mlnx_qos.dscp2prio.19 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,19,0
# mlnx_qos.dscp2prio.20 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,20,0
# mlnx_qos.dscp2prio.21 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,21,0
# mlnx_qos.dscp2prio.22 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,22,0
# mlnx_qos.dscp2prio.23 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,23,0
# mlnx_qos.dscp2prio.24 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,24,0
# mlnx_qos.dscp2prio.25 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,25,0
# mlnx_qos.dscp2prio.27 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,27,0
# mlnx_qos.dscp2prio.28 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,28,0
# mlnx_qos.dscp2prio.29 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,29,0
# mlnx_qos.dscp2prio.30 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,30,0
# mlnx_qos.dscp2prio.31 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,31,0
# mlnx_qos.dscp2prio.32 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,32,0
# mlnx_qos.dscp2prio.33 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,33,0
# mlnx_qos.dscp2prio.34 = 1 priority
mlnx_qos -i "$IFACE" --dscp2prio set,34,1
# mlnx_qos.dscp2prio.35 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,35,0
# mlnx_qos.dscp2prio.36 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,36,0
# mlnx_qos.dscp2prio.37 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,37,0
# mlnx_qos.dscp2prio.38 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,38,0
# mlnx_qos.dscp2prio.39 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,39,0
# mlnx_qos.dscp2prio.40 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,40,0
# mlnx_qos.dscp2prio.41 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,41,0
# mlnx_qos.dscp2prio.42 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,42,0
# mlnx_qos.dscp2prio.43 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,43,0
# mlnx_qos.dscp2prio.44 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,44,0
# mlnx_qos.dscp2prio.45 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,45,0
# mlnx_qos.dscp2prio.46 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,46,0
# mlnx_qos.dscp2prio.47 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,47,0
# mlnx_qos.dscp2prio.49 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,49,0
# mlnx_qos.dscp2prio.50 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,50,0
# mlnx_qos.dscp2prio.51 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,51,0
# mlnx_qos.dscp2prio.52 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,52,0
# mlnx_qos.dscp2prio.53 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,53,0
# mlnx_qos.dscp2prio.54 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,54,0
# mlnx_qos.dscp2prio.55 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,55,0
# mlnx_qos.dscp2prio.56 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,56,0
# mlnx_qos.dscp2prio.57 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,57,0
# mlnx_qos.dscp2prio.58 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,58,0
# mlnx_qos.dscp2prio.59 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,59,0
# mlnx_qos.dscp2prio.60 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,60,0
# mlnx_qos.dscp2prio.61 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,61,0
# mlnx_qos.dscp2prio.62 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,62,0
# mlnx_qos.dscp2prio.63 = 0 priority
mlnx_qos -i "$IFACE" --dscp2prio set,63,0
[ -n "$RDMA_DEV" ] || { echo "nic-setup.sh: RDMA_DEVICE is needed for the rdma_cm settings" >&2; exit 2; }
# rdma_cm.default_roce_mode = RoCE v2  (Linux Documentation/ABI/testing/configfs-rdma_cm (default_roce_mode, default_roce_tos: 'RoCE TOS values are 0-255'))
mkdir -p /sys/kernel/config/rdma_cm/"$RDMA_DEV" && echo "RoCE v2" > /sys/kernel/config/rdma_cm/"$RDMA_DEV"/ports/1/default_roce_mode
[ -n "$RDMA_DEV" ] || { echo "nic-setup.sh: RDMA_DEVICE is needed for the rdma_cm settings" >&2; exit 2; }
# rdma_cm.default_roce_tos = 106 TOS octet  (Linux Documentation/ABI/testing/configfs-rdma_cm (default_roce_mode, default_roce_tos: 'RoCE TOS values are 0-255'); RFC 2474 §3: the DSCP is the upper six bits of the IPv4 TOS / IPv6 Traffic Class octet (TOS = DSCP·4); the low two bits are ECN (RFC 3168 §5))
echo 106 > /sys/kernel/config/rdma_cm/"$RDMA_DEV"/ports/1/default_roce_tos
# ecn.roce_rp.enable.3 = 1  (NVIDIA MLNX_OFED documentation v24.10, Explicit Congestion Notification (ECN): /sys/class/net/<interface>/ecn/<roce_rp|roce_np>/enable/<priority>)
echo 1 > /sys/class/net/"$IFACE"/ecn/roce_rp/enable/3
# ecn.roce_np.enable.3 = 1
echo 1 > /sys/class/net/"$IFACE"/ecn/roce_np/enable/3
# ecn.roce_np.cnp_dscp = 48 DSCP  (mlx5 ECN sysfs attributes (Mellanox mlnx-ofa_kernel drivers/net/ethernet/mellanox/mlx5/core/en_sysfs.c: ecn/roce_np/{cnp_dscp,cnp_802p_prio,min_time_between_cnps}, ecn/roce_rp/{rpg_*,dce_tcp_rtt}))
echo 48 > /sys/class/net/"$IFACE"/ecn/roce_np/cnp_dscp
# ecn.roce_np.cnp_802p_prio = 6 priority
echo 6 > /sys/class/net/"$IFACE"/ecn/roce_np/cnp_802p_prio
# ecn.roce_rp.rpg_ai_rate = 100 Mbit/s  (NVIDIA DOCA documentation, DCQCN CC Parameters (ConnectX-4 and later; rpg_min_rate Mb/s, dce_tcp_rtt µs); units of the rpg_* reaction-point fields as Linux include/uapi/linux/dcbnl.h struct ieee_qcn documents them (rpg_time_reset µs, rpg_threshold stages, rpg_ai_rate and rpg_hai_rate Mbit/s))
echo 100 > /sys/class/net/"$IFACE"/ecn/roce_rp/rpg_ai_rate
# ecn.roce_rp.rpg_hai_rate = 500 Mbit/s
echo 500 > /sys/class/net/"$IFACE"/ecn/roce_rp/rpg_hai_rate
# ecn.roce_rp.rpg_time_reset = 55 us
echo 55 > /sys/class/net/"$IFACE"/ecn/roce_rp/rpg_time_reset
# ecn.roce_rp.dce_tcp_rtt = 55 us
echo 55 > /sys/class/net/"$IFACE"/ecn/roce_rp/dce_tcp_rtt
# ecn.roce_rp.rpg_threshold = 5 stages
echo 5 > /sys/class/net/"$IFACE"/ecn/roce_rp/rpg_threshold
# ecn.roce_rp.rpg_min_rate = 100 Mbit/s
echo 100 > /sys/class/net/"$IFACE"/ecn/roce_rp/rpg_min_rate
# ecn.roce_np.min_time_between_cnps = 50 us  (mlx5 ECN sysfs attributes (Mellanox mlnx-ofa_kernel drivers/net/ethernet/mellanox/mlx5/core/en_sysfs.c: ecn/roce_np/{cnp_dscp,cnp_802p_prio,min_time_between_cnps}, ecn/roce_rp/{rpg_*,dce_tcp_rtt}); mstflint register layout (min_time_between_cnps: 'Minimum time between sending cnps from the port, in microseconds'))
echo 50 > /sys/class/net/"$IFACE"/ecn/roce_np/min_time_between_cnps
# manual: ecn.roce_rp.dce_tcp_g = 0.00390625 1: ConnectX encodes g as a 10-bit fixed-point dce_tcp_g (default 1019); NVIDIA's public pages state the alpha update both as alpha = (1 - G/1024)·alpha + G/1024 and with G/1024 as the weight of the old alpha, so the encoding of g = 1/256 is left to the operator
# manual: ecn.roce_rp.rpg_byte_reset = 1e+07 B: rpg_byte_reset is given in bytes (include/uapi/linux/dcbnl.h), but ConnectX's accepted range is not public (firmware default 32767); set B = 10 MB or the largest value the firmware accepts
