#!/bin/sh
# qosforge NIC settings for host kind linux-kernel-1G (linux-kernel, 1G).
# Usage: sh nic-setup.sh IFACE RDMA_DEVICE   (e.g. sh nic-setup.sh ens1f0np0 mlx5_0)
# Run as root; configfs must be mounted at /sys/kernel/config (Documentation/ABI/testing/configfs-rdma_cm).
set -eu
IFACE="${1:?usage: nic-setup.sh IFACE RDMA_DEVICE}"
RDMA_DEV="${2:-}"
# linux-kernel: no NIC command is rendered (see host_settings.json 'manual').
