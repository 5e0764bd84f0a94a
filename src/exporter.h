/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_EXPORTER_H
#define KD_EXPORTER_H 1

struct kd_http;
struct kd_metrics;
struct kd_options;

/* --metrics: the metrics of the run (metrics.h), served over HTTP
 * (http.h) at "/metrics", with the tool's own CPU time, memory and file
 * descriptors read from /proc at each scrape.  The server is served by
 * the run's waits (waiter.h); the metrics are fed by the output's
 * operations (output.h) and the watch loop (sampler.h). */
struct kd_exporter;

/* Listens on the address of --metrics.  Returns 0 and the exporter in
 * '*exporter', or a positive errno and a message in '*error' (to
 * free). */
int kd_exporter_open(struct kd_exporter **exporter,
                     const struct kd_options *, char **error);

struct kd_metrics *kd_exporter_metrics(struct kd_exporter *);
struct kd_http *kd_exporter_http(struct kd_exporter *);

void kd_exporter_close(struct kd_exporter *);

#endif /* exporter.h */
