/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_HINTS_H
#define KD_HINTS_H 1

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* The next step after an error: lines for standard error, printed after
 * the error's own line (the reference's, which runbooks may match, kept
 * as it is).  Each function appends its lines to a kd_ds, and
 * kd_hint_print() writes them, each as "kernel_delay: hint: LINE". */

struct kd_ds;

/* No ovs-vswitchd runs, and no -p was given. */
void kd_hint_no_vswitchd(struct kd_ds *);

/* Several ovs-vswitchd run, and no -p was given. */
void kd_hint_many_vswitchd(struct kd_ds *);

/* -p 'pid' names no process. */
void kd_hint_no_process(struct kd_ds *, unsigned int pid);

/* No thread of process 'tgid' has a TID that --tid lists. */
void kd_hint_no_thread(struct kd_ds *, unsigned int tgid);

/* Not root. */
void kd_hint_not_root(struct kd_ds *);

/* Whether effective capabilities 'caps' (a bit per CAP_* number) lack
 * what eBPF tracing needs: CAP_SYS_ADMIN, or both CAP_BPF and
 * CAP_PERFMON. */
bool kd_hint_caps_lacking(uint64_t caps);

/* Root, but without the capabilities eBPF needs ('caps' are the effective
 * ones): which are missing, and how to get them. */
void kd_hint_no_capability(struct kd_ds *, uint64_t caps);

/* A trigger that does not parse: the kinds and an example. */
void kd_hint_trigger_syntax(struct kd_ds *);

/* A uprobe trigger's function not found in process 'pid''s executable
 * (when 'library' is NULL) or in 'library': the debug symbols, and how to
 * see what is there. */
void kd_hint_missing_function(struct kd_ds *, unsigned int pid,
                              const char *library);

/* A uprobe trigger's library that process 'pid' does not map. */
void kd_hint_missing_library(struct kd_ds *, unsigned int pid);

/* The USDT probes of process 'pid' could not be read; 'cause' is the
 * errno of opening its /proc/PID/maps (0 if that worked). */
void kd_hint_usdt_unreadable(struct kd_ds *, unsigned int pid, int cause);

/* Writes each line of 'ds' to 'stream' as "kernel_delay: hint: LINE", and
 * empties 'ds'. */
void kd_hint_print(struct kd_ds *, FILE *stream);

#endif /* hints.h */
