/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_METRICS_H
#define KD_METRICS_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gap.h"
#include "http.h"
#include "kd_abi.h"
#include "losses.h"
#include "util.h"

/* The metrics of --metrics: what the watch of long poll intervals saw,
 * counted by thread class and cause, and the tool's own health, written
 * in Prometheus' text exposition format (version 0.0.4) or in
 * OpenMetrics 1.0.  Pure: it is given decoded intervals (struct kd_gap),
 * losses and the process's own figures, and touches nothing.
 *
 * Every label takes values from a fixed set, but "task", which takes the
 * names of the --metrics-tasks tasks that ran longest instead of the
 * target's threads (the rest is "other"): the number of series is fixed
 * by the options, whatever the target does. */

/* The classes of a target's threads, by their OVS name,
 * KD_METRICS_CLASS(ID, NAME). */
#define KD_METRICS_CLASSES(KD_METRICS_CLASS)                            \
    KD_METRICS_CLASS(MAIN, "main")                                      \
    KD_METRICS_CLASS(HANDLER, "handler")                                \
    KD_METRICS_CLASS(REVALIDATOR, "revalidator")                        \
    KD_METRICS_CLASS(URCU, "urcu")                                      \
    KD_METRICS_CLASS(PMD, "pmd")                                        \
    KD_METRICS_CLASS(OTHER, "other")

enum kd_metrics_class {
#define KD_METRICS_CLASS_ID(ID, NAME) KD_METRICS_CLASS_##ID,
    KD_METRICS_CLASSES(KD_METRICS_CLASS_ID)
#undef KD_METRICS_CLASS_ID
    KD_N_METRICS_CLASSES
};

const char *kd_metrics_class_name(enum kd_metrics_class);

/* The class of thread 'tid' of process 'pid', named 'name': "main" for
 * the process's main thread or a thread named "ovs-vswitchd"; "handler",
 * "revalidator", "urcu" and "pmd" for names that start so (OVS numbers
 * them: "handler12", "pmd-c03/id:7"); else "other". */
enum kd_metrics_class kd_metrics_class_of(const char *name, uint32_t tid,
                                          uint32_t pid);

/* The upper bounds of the histogram's buckets, in ns: 1 ms to 60 s. */
#define KD_METRICS_N_BUCKETS 15

/* --metrics-tasks: how many task names "task" shows, by default and at
 * most; how many names are followed to find them. */
#define KD_METRICS_TASKS_DEFAULT 5
#define KD_METRICS_TASKS_MAX 100
#define KD_METRICS_TRACKED 256

/* A task name as a label value: its comm, each byte that is not valid
 * UTF-8 read as Latin-1 (as in JSON), escaped as the format escapes label
 * values (each of its 15 bytes takes 2 bytes at most). */
#define KD_METRICS_LABEL_LEN (2 * KD_COMM_LEN + 1)

struct kd_metrics_task {
    char label[KD_METRICS_LABEL_LEN];
    uint64_t ns;                /* Its time, since it was followed. */
    bool shown;                 /* Once rendered: never forgotten. */
};

/* The long intervals of one class of threads. */
struct kd_metrics_class_stats {
    uint64_t buckets[KD_METRICS_N_BUCKETS];     /* Not cumulative. */
    uint64_t count;
    uint64_t sum_ns;
    uint64_t dominant[KD_N_GAP_PARTS];          /* Intervals, by cause. */
    uint64_t part_ns[KD_N_GAP_PARTS];           /* Time, by part. */
    uint64_t on_cpu_user_ns;
    uint64_t on_cpu_system_ns;
};

/* What the captures lost, as counted for the metrics. */
struct kd_metrics_losses {
    uint64_t map_full[KD_N_FULL_MAPS];
    uint64_t recursion_misses;
    uint64_t switches_missed;
    uint64_t events_dropped;
    uint64_t user_stacks[KD_UW_N_ENDS];
};

/* What does not change during a run. */
struct kd_metrics_config {
    const char *node;           /* --node-name, or NULL. */
    const char *version;
    uint64_t threshold_ns;      /* --long-poll-events's. */
    unsigned int n_tasks;       /* --metrics-tasks. */
    uint64_t start_wall_ns;     /* When the tool started (CLOCK_REALTIME). */
};

/* What the tool's process is and did, read at each scrape. */
struct kd_metrics_self {
    uint64_t cpu_ns;            /* User and system. */
    uint64_t rss_bytes;
    uint64_t vsize_bytes;
    uint64_t open_fds;
    uint64_t max_fds;
    struct kd_http_stats http;
};

struct kd_metrics {
    struct kd_metrics_config config;
    struct kd_metrics_class_stats classes[KD_N_METRICS_CLASSES];

    /* Who ran instead: the names followed, and all the time charged
     * (theirs, that of names no longer or never followed, that of the
     * tasks an interval did not name). */
    struct kd_metrics_task tasks[KD_METRICS_TRACKED];
    size_t n_tasks;
    uint64_t ran_ns;

    bool attached;              /* Watching a target now. */
    uint64_t attaches;
    struct kd_metrics_losses closed;    /* Of the captures closed. */
    struct kd_metrics_losses current;   /* Of the capture open. */
};

void kd_metrics_init(struct kd_metrics *, const struct kd_metrics_config *);

/* Counts interval 'gap', which ended (one in progress is not counted: it
 * is when it ends). */
void kd_metrics_add_gap(struct kd_metrics *, const struct kd_gap *gap);

/* What the open capture lost since it started, 'total'. */
void kd_metrics_set_losses(struct kd_metrics *,
                           const struct kd_losses *total);

/* A watch started (attached), or ended: then the open capture's losses
 * are those of a closed one. */
void kd_metrics_set_attached(struct kd_metrics *, bool attached);

/* Appends the metrics to 'ds', with 'self', in OpenMetrics if
 * 'openmetrics' else in the text format 0.0.4.  Marks the task names it
 * shows (they are followed from then on). */
void kd_metrics_render(struct kd_metrics *, const struct kd_metrics_self *,
                       bool openmetrics, struct kd_ds *ds);

/* Whether an "Accept" header asks for OpenMetrics rather than the text
 * format: it names application/openmetrics-text with a quality (q) above
 * 0 and at least that of text/plain. */
bool kd_metrics_wants_openmetrics(const char *accept);

/* The content type of each format. */
const char *kd_metrics_content_type(bool openmetrics);

#endif /* metrics.h */
