/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_HOST_H
#define KD_HOST_H 1

#include <stdint.h>

#include "util.h"

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

/* The effective capabilities of this process (CapEff of
 * /proc/self/status) into '*caps', one bit per CAP_* number.  Returns 0
 * or a positive errno. */
int kd_host_effective_caps(uint64_t *caps);

/* What kernel_delay --version reports after its version: the libraries it
 * runs with and what the kernel offers it, the first thing a bug report
 * needs. */
enum kd_host_feature_id {
    KD_HOST_BTF,            /* Struct offsets from BTF, or else headers. */
    KD_HOST_KPROBES,        /* For k:/kr: triggers and upcall statistics. */
    KD_HOST_RINGBUF,        /* BPF_MAP_TYPE_RINGBUF, which it needs. */
    KD_HOST_HEADERS,        /* A kernel header tree for libbcc. */
    KD_HOST_N_FEATURES
};

struct kd_host_feature {
    const char *name;       /* "BTF", ... */
    const char *state;      /* "yes", "no" or "unknown". */
    char *detail;           /* Why, or where; or NULL. */
};

struct kd_host_info {
    char *libbcc;           /* Version of the libbcc.so loaded, or NULL. */
    char *libbcc_path;      /* That file, or NULL. */
    const char *libbcc_built;   /* LIBBCC_VERSION at build time. */
    char *libbpf;           /* Version of the libbpf loaded. */
    char *libbpf_path;      /* That file, or NULL. */
    char *libbpf_built;     /* "MAJOR.MINOR" at build time. */
    char *kernel;           /* "RELEASE MACHINE", or NULL. */
    struct kd_host_feature features[KD_HOST_N_FEATURES];
};

/* Fills 'info' from the libraries loaded and the running kernel, mounting
 * and changing nothing.  Probing the ring buffer needs CAP_BPF: without
 * it, its state is "unknown".  Free with kd_host_info_destroy(). */
void kd_host_info_probe(struct kd_host_info *info);

/* Appends 'info' to 'ds' as "NAME: VALUE (DETAIL)" lines. */
void kd_host_info_format(const struct kd_host_info *info, struct kd_ds *ds);

void kd_host_info_destroy(struct kd_host_info *info);

#endif /* host.h */
