/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_HOST_H
#define KD_HOST_H 1

/* Mounts tracefs and debugfs where they are not mounted (saying so on
 * stderr), as libbcc expects them.  Failures are warnings only: the
 * statistics themselves need neither. */
void kd_host_mount_tracefs(void);

/* Checks that libbcc will find a kernel header tree.  Returns 0, or ENOENT
 * with a message in '*error' that names what is missing and how to get
 * it. */
int kd_host_check_headers(char **error);

#endif /* host.h */
