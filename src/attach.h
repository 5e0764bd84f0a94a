/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_ATTACH_H
#define KD_ATTACH_H 1

#include "hook.h"
#include "trigger.h"

struct kd_capture;
struct kd_http;
struct kd_options;
struct kd_output;

/* A run, once the target is known: checks the triggers against the target
 * and the kernel and prepares their hooks, prepares the host (tracefs,
 * stale probes, kernel headers), then opens the capture of process 'tgid'
 * and runs the sampler on it (sampler.h).  Under --wait-target, 'tgid'
 * may be 0 (not running yet): waits for ovs-vswitchd, looking once a
 * second, whenever it is not running, and attaches again when it
 * restarts, until a signal or --sample-count intervals.
 *
 * Every wait of the run serves 'http' (--metrics; NULL: none).
 *
 * What it opens is left in '*capture', 'triggers' and 'hooks' (both of
 * two: start, stop), for the caller to close after the report is
 * flushed.  Returns the exit status, after printing any error through
 * 'output'. */
int kd_attach_run(const struct kd_options *, const struct kd_output *,
                  unsigned int tgid, struct kd_http *http,
                  struct kd_capture **capture,
                  struct kd_trigger triggers[2], struct kd_hook hooks[2]);

#endif /* attach.h */
