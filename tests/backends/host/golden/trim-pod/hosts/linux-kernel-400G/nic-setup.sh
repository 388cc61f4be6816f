#!/bin/sh
# qosforge NIC settings for host kind linux-kernel-400G (linux-kernel, 400G).
# Usage: sh nic-setup.sh IFACE RDMA_DEVICE   (e.g. sh nic-setup.sh ens1f0np0 mlx5_0)
# Run as root; configfs must be mounted at /sys/kernel/config (Documentation/ABI/testing/configfs-rdma_cm).
set -eu
IFACE="${1:?usage: nic-setup.sh IFACE RDMA_DEVICE}"
RDMA_DEV="${2:-}"
# linux-kernel: no NIC command is rendered (see host_settings.json 'manual').
# manual: mlnx_qos.trust = dscp : host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.pfc = 0,0,0,0,0,0,0,0 per priority 0..7: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.0 = 2 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.8 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.9 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.10 = 2 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.11 = 7 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.12 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.13 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.14 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.15 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.16 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.17 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.18 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.19 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.20 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.21 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.22 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.23 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.24 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.25 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.26 = 1 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.27 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.28 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.29 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.30 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.31 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.32 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.33 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.34 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.35 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.36 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.37 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.38 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.39 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.40 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.41 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.42 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.43 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.44 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.45 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.46 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.47 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.49 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.50 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.51 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.52 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.53 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.54 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.55 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.56 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.57 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.58 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.59 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.60 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.61 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.62 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: mlnx_qos.dscp2prio.63 = 0 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: rdma_cm.default_roce_mode = RoCE v2 : host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: rdma_cm.default_roce_tos = 106 TOS octet: applies to rdma_cm connections that do not set their TOS (rdma_set_option overrides it); its ECN bits are ECT(0), so the switches mark CE instead of dropping whichever way the NIC's firmware treats them
# manual: ecn.roce_rp.enable.1 = 1 : host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: ecn.roce_np.enable.1 = 1 : host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: ecn.roce_np.cnp_dscp = 48 DSCP: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: ecn.roce_np.cnp_802p_prio = 6 priority: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: ecn.roce_rp.rpg_ai_rate = 400 Mbit/s: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: ecn.roce_rp.rpg_hai_rate = 2000 Mbit/s: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: ecn.roce_rp.rpg_time_reset = 55 us: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: ecn.roce_rp.dce_tcp_rtt = 55 us: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: ecn.roce_rp.rpg_threshold = 5 stages: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: ecn.roce_rp.rpg_min_rate = 100 Mbit/s: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: ecn.roce_np.min_time_between_cnps = 50 us: host NIC linux-kernel has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it
# manual: ecn.roce_rp.dce_tcp_g = 0.00390625 1: ConnectX encodes g as a 10-bit fixed-point dce_tcp_g (default 1019); NVIDIA's public pages state the alpha update both as alpha = (1 - G/1024)·alpha + G/1024 and with G/1024 as the weight of the old alpha, so the encoding of g = 1/256 is left to the operator
# manual: ecn.roce_rp.rpg_byte_reset = 1e+07 B: rpg_byte_reset is given in bytes (include/uapi/linux/dcbnl.h), but ConnectX's accepted range is not public (firmware default 32767); set B = 10 MB or the largest value the firmware accepts
