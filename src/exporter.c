/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* The --metrics endpoint: the metrics, their server, the tool's own
 * figures. */

#include "exporter.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "http.h"
#include "metrics.h"
#include "options.h"
#include "util.h"

#ifndef KD_VERSION
#define KD_VERSION "unknown"
#endif

struct kd_exporter {
    struct kd_metrics metrics;
    struct kd_http *http;
};

/* The open file descriptors of this process. */
static uint64_t
kd_exporter_open_fds(void)
{
    DIR *dir = opendir("/proc/self/fd");
    uint64_t n = 0;
    struct dirent *de;

    if (!dir) {
        return 0;
    }
    while ((de = readdir(dir)) != NULL) {
        n += de->d_name[0] != '.';
    }
    closedir(dir);
    /* Less the one of the listing itself. */
    return n ? n - 1 : 0;
}

/* What this process is and did: CPU time, memory, file descriptors. */
static void
kd_exporter_self(const struct kd_exporter *e, struct kd_metrics_self *self)
{
    uint64_t page = sysconf(_SC_PAGESIZE);
    uint64_t vsize = 0, rss = 0;
    struct rlimit rl;
    char buf[128];
    size_t len;

    self->cpu_ns = kd_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    if (!kd_read_file_buf("/proc/self/statm", true, buf, sizeof buf, &len)
        && sscanf(buf, "%" SCNu64 " %" SCNu64, &vsize, &rss) == 2) {
        self->vsize_bytes = vsize * page;
        self->rss_bytes = rss * page;
    }
    self->open_fds = kd_exporter_open_fds();
    self->max_fds = !getrlimit(RLIMIT_NOFILE, &rl)
                    && rl.rlim_cur != RLIM_INFINITY ? rl.rlim_cur : 0;
    self->http = *kd_http_stats(e->http);
}

/* GET /metrics. */
static const char *
kd_exporter_handle(void *e_, const struct kd_http_request *request,
                   struct kd_ds *body)
{
    struct kd_exporter *e = e_;
    bool om = kd_metrics_wants_openmetrics(request->accept);
    struct kd_metrics_self self = { .cpu_ns = 0 };

    kd_exporter_self(e, &self);
    kd_metrics_render(&e->metrics, &self, om, body);
    return kd_metrics_content_type(om);
}

int
kd_exporter_open(struct kd_exporter **ep, const struct kd_options *o,
                 char **error)
{
    struct kd_exporter *e = kd_xcalloc(1, sizeof *e);
    struct kd_metrics_config config = {
        .node = o->node_name,
        .version = KD_VERSION,
        .threshold_ns = o->long_poll_ns,
        .n_tasks = o->metrics_tasks,
        .start_wall_ns = kd_clock_ns(CLOCK_REALTIME),
    };
    int err;

    kd_metrics_init(&e->metrics, &config);
    err = kd_http_open(&e->http, o->metrics, "/metrics", kd_exporter_handle,
                       e, error);
    if (err) {
        free(e);
        e = NULL;
    }
    *ep = e;
    return err;
}

struct kd_metrics *
kd_exporter_metrics(struct kd_exporter *e)
{
    return e ? &e->metrics : NULL;
}

struct kd_http *
kd_exporter_http(struct kd_exporter *e)
{
    return e ? e->http : NULL;
}

void
kd_exporter_close(struct kd_exporter *e)
{
    if (e) {
        kd_http_close(e->http);
        free(e);
    }
}
