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

/* Removes the k/uprobe events that earlier runs of kernel_delay left in
 * tracefs (only a run killed with SIGKILL on a kernel without perf k/uprobe
 * PMUs can leave any): those named after a kernel_delay process that is no
 * longer there.  Says on stderr what it removed.  Returns the number. */
int kd_host_cleanup_stale_probes(void);

/* Checks that libbcc will find a kernel header tree.  Returns 0, or ENOENT
 * with a message in '*error' that names what is missing and how to get
 * it. */
int kd_host_check_headers(char **error);

#endif /* host.h */
