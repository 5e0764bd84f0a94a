/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/metrics.c: the metrics of --metrics, from decoded
 * long poll intervals, in the text exposition format and OpenMetrics, to
 * the character. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "util.h"
#include "check.h"

#define MS 1000000ull

/* An interval that ended, of thread 'tid' of process 100 named 'name',
 * 'ns' long, all of it in part 'dominant' but 'cpu_ns' on CPU. */
static struct kd_gap
gap_of(const char *name, uint32_t tid, uint64_t ns, enum kd_gap_part dominant,
       uint64_t cpu_ns)
{
    struct kd_gap gap;

    memset(&gap, 0, sizeof gap);
    gap.index = 1;
    gap.pid = 100;
    gap.tid = tid;
    snprintf(gap.name, sizeof gap.name, "%s", name);
    gap.start_ns = 1000 * MS;
    gap.end_ns = gap.start_ns + ns;
    gap.parts[KD_GAP_ON_CPU] = cpu_ns;
    gap.parts[dominant] += ns - cpu_ns;
    gap.dominant = dominant;
    gap.on_cpu_user_ns = cpu_ns * 3 / 4;
    gap.on_cpu_kernel_ns = cpu_ns - gap.on_cpu_user_ns;
    return gap;
}

/* Task 'name' ran 'ns' instead of the thread of 'gap'. */
static void
ran(struct kd_gap *gap, const char *name, uint64_t ns)
{
    struct kd_gap_ran *r = &gap->ran[gap->n_ran++];

    memset(r, 0, sizeof *r);
    r->ns = ns;
    memcpy(r->comm, name, KD_MIN(strlen(name), sizeof r->comm));
}

/* The lines of 'text' of family 'name': from its "# HELP" line to the
 * next one. */
static char *
family(const char *text, const char *name)
{
    char *help = kd_xasprintf("# HELP %s ", name);
    const char *start = strstr(text, help), *end;

    free(help);
    if (!start) {
        return kd_xstrdup("");
    }
    end = strstr(start + 1, "# HELP ");
    if (!end) {
        end = start + strlen(start);
    }
    return strndup(start, end - start);
}

#define CHECK_FAMILY(TEXT, NAME, EXPECTED)              \
    do {                                                \
        char *f_ = family((TEXT), (NAME));              \
        CHECK_STR(f_, (EXPECTED));                      \
        free(f_);                                       \
    } while (0)

static const struct kd_metrics_config config = {
    .node = "node-1",
    .version = "0.1.0",
    .threshold_ns = 250 * MS,
    .n_tasks = 2,
    .start_wall_ns = 1764400000500000000ull,
};

/* Three intervals: the main thread's, mostly in the run queue behind a
 * hog; a handler's, stopped; a PMD thread's, on CPU.  The classes, the
 * dominant parts, the parts' times, who ran instead. */
static void
feed(struct kd_metrics *m)
{
    struct kd_gap a = gap_of("ovs-vswitchd", 100, 1500 * MS,
                             KD_GAP_RUN_QUEUE, 200 * MS);
    struct kd_gap b = gap_of("handler3", 101, 300 * MS, KD_GAP_STOPPED,
                             50 * MS);
    struct kd_gap c = gap_of("pmd-c03/id:7", 102, 1000 * MS, KD_GAP_ON_CPU,
                             1000 * MS);
    struct kd_gap going = gap_of("handler3", 101, 5000 * MS,
                                 KD_GAP_STOPPED, 0);

    ran(&a, "stress-ng-cpu", 1000 * MS);
    ran(&a, "kworker/0:1", 150 * MS);
    a.ran_others_ns = 50 * MS;
    ran(&c, "stress-ng-cpu", 500 * MS);
    ran(&c, "other", 100 * MS);
    ran(&c, "na\xefve\n", 200 * MS);
    going.in_progress = true;
    going.index = 0;

    kd_metrics_add_gap(m, &a);
    kd_metrics_add_gap(m, &b);
    kd_metrics_add_gap(m, &c);
    kd_metrics_add_gap(m, &going);
}

static char *
render(struct kd_metrics *m, bool om)
{
    struct kd_metrics_self self = {
        .cpu_ns = 1234500000,
        .rss_bytes = 52428800,
        .vsize_bytes = 104857600,
        .open_fds = 9,
        .max_fds = 1024,
    };
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    self.http.responses[KD_HTTP_200] = 7;
    self.http.responses[KD_HTTP_404] = 1;
    self.http.timed_out = 2;
    kd_metrics_render(m, &self, om, &ds);
    return kd_ds_steal_cstr(&ds);
}

static void
test_metrics_classes(void)
{
    CHECK_STR(kd_metrics_class_name(kd_metrics_class_of("ovs-vswitchd", 7,
                                                        9)), "main");
    CHECK_STR(kd_metrics_class_name(kd_metrics_class_of("renamed", 9, 9)),
              "main");
    CHECK_STR(kd_metrics_class_name(kd_metrics_class_of("handler12", 10,
                                                        9)), "handler");
    CHECK_STR(kd_metrics_class_name(kd_metrics_class_of("revalidator3", 11,
                                                        9)), "revalidator");
    CHECK_STR(kd_metrics_class_name(kd_metrics_class_of("urcu2", 12, 9)),
              "urcu");
    CHECK_STR(kd_metrics_class_name(kd_metrics_class_of("pmd-c03/id:7", 13,
                                                        9)), "pmd");
    CHECK_STR(kd_metrics_class_name(kd_metrics_class_of("pmd4", 14, 9)),
              "pmd");
    CHECK_STR(kd_metrics_class_name(kd_metrics_class_of("ct_clean5", 15,
                                                        9)), "other");
    CHECK_STR(kd_metrics_class_name(kd_metrics_class_of("", 16, 9)),
              "other");
}

/* The text format: each family, exact. */
static void
test_metrics_text(void)
{
    struct kd_metrics m;
    char *text;

    kd_metrics_init(&m, &config);
    feed(&m);
    text = render(&m, false);

    CHECK_FAMILY(text, "kernel_delay_info",
        "# HELP kernel_delay_info The tool's version and node "
        "(--node-name, KD_NODE_NAME), as in its JSON records.\n"
        "# TYPE kernel_delay_info gauge\n"
        "kernel_delay_info{node=\"node-1\",version=\"0.1.0\"} 1\n");
    CHECK_FAMILY(text, "kernel_delay_long_poll_threshold_seconds",
        "# HELP kernel_delay_long_poll_threshold_seconds Poll intervals "
        "longer than this are long (--long-poll-events).\n"
        "# TYPE kernel_delay_long_poll_threshold_seconds gauge\n"
        "kernel_delay_long_poll_threshold_seconds 0.25\n");

    /* The histogram: 1.5 s of the main thread over the bucket of 1 s,
     * 1 s of the PMD thread in it (bounds are inclusive). */
    CHECK_CONTAINS(text,
        "# HELP kernel_delay_long_poll_interval_seconds Long poll "
        "intervals that ended, by length and thread class.\n"
        "# TYPE kernel_delay_long_poll_interval_seconds histogram\n"
        "kernel_delay_long_poll_interval_seconds_bucket{class=\"main\","
        "le=\"0.001\"} 0\n");
    CHECK_CONTAINS(text,
        "kernel_delay_long_poll_interval_seconds_bucket{class=\"main\","
        "le=\"1\"} 0\n"
        "kernel_delay_long_poll_interval_seconds_bucket{class=\"main\","
        "le=\"2.5\"} 1\n"
        "kernel_delay_long_poll_interval_seconds_bucket{class=\"main\","
        "le=\"5\"} 1\n"
        "kernel_delay_long_poll_interval_seconds_bucket{class=\"main\","
        "le=\"10\"} 1\n"
        "kernel_delay_long_poll_interval_seconds_bucket{class=\"main\","
        "le=\"30\"} 1\n"
        "kernel_delay_long_poll_interval_seconds_bucket{class=\"main\","
        "le=\"60\"} 1\n"
        "kernel_delay_long_poll_interval_seconds_bucket{class=\"main\","
        "le=\"+Inf\"} 1\n"
        "kernel_delay_long_poll_interval_seconds_sum{class=\"main\"} 1.5\n"
        "kernel_delay_long_poll_interval_seconds_count{class=\"main\"} 1\n"
        "kernel_delay_long_poll_interval_seconds_bucket{class=\"handler\","
        "le=\"0.001\"} 0\n");
    CHECK_CONTAINS(text,
        "kernel_delay_long_poll_interval_seconds_bucket{class=\"handler\","
        "le=\"0.25\"} 0\n"
        "kernel_delay_long_poll_interval_seconds_bucket{class=\"handler\","
        "le=\"0.5\"} 1\n");
    CHECK_CONTAINS(text,
        "kernel_delay_long_poll_interval_seconds_bucket{class=\"pmd\","
        "le=\"0.5\"} 0\n"
        "kernel_delay_long_poll_interval_seconds_bucket{class=\"pmd\","
        "le=\"1\"} 1\n");
    CHECK_CONTAINS(text,
        "kernel_delay_long_poll_interval_seconds_bucket{class=\"other\","
        "le=\"+Inf\"} 0\n"
        "kernel_delay_long_poll_interval_seconds_sum{class=\"other\"} 0\n"
        "kernel_delay_long_poll_interval_seconds_count{class=\"other\"} 0\n"
        "# HELP kernel_delay_long_poll_intervals_total ");

    /* Intervals by class and dominant part; the one in progress is not
     * counted. */
    CHECK_CONTAINS(text,
        "# TYPE kernel_delay_long_poll_intervals_total counter\n"
        "kernel_delay_long_poll_intervals_total{class=\"main\","
        "dominant=\"on_cpu\"} 0\n"
        "kernel_delay_long_poll_intervals_total{class=\"main\","
        "dominant=\"run_queue\"} 1\n"
        "kernel_delay_long_poll_intervals_total{class=\"main\","
        "dominant=\"stopped\"} 0\n");
    CHECK_CONTAINS(text,
        "kernel_delay_long_poll_intervals_total{class=\"handler\","
        "dominant=\"stopped\"} 1\n");
    CHECK_CONTAINS(text,
        "kernel_delay_long_poll_intervals_total{class=\"pmd\","
        "dominant=\"on_cpu\"} 1\n");
    CHECK_CONTAINS(text,
        "kernel_delay_long_poll_intervals_total{class=\"other\","
        "dominant=\"unaccounted\"} 0\n"
        "# HELP kernel_delay_long_poll_part_seconds_total Time of the long "
        "poll intervals that ended, by thread class and part.\n"
        "# TYPE kernel_delay_long_poll_part_seconds_total counter\n"
        "kernel_delay_long_poll_part_seconds_total{class=\"main\","
        "part=\"on_cpu\"} 0.2\n"
        "kernel_delay_long_poll_part_seconds_total{class=\"main\","
        "part=\"run_queue\"} 1.3\n"
        "kernel_delay_long_poll_part_seconds_total{class=\"main\","
        "part=\"stopped\"} 0\n"
        "kernel_delay_long_poll_part_seconds_total{class=\"main\","
        "part=\"hardirq\"} 0\n"
        "kernel_delay_long_poll_part_seconds_total{class=\"main\","
        "part=\"softirq\"} 0\n"
        "kernel_delay_long_poll_part_seconds_total{class=\"main\","
        "part=\"blocked_in_syscalls\"} 0\n"
        "kernel_delay_long_poll_part_seconds_total{class=\"main\","
        "part=\"blocked_outside_syscalls\"} 0\n"
        "kernel_delay_long_poll_part_seconds_total{class=\"main\","
        "part=\"unaccounted\"} 0\n"
        "kernel_delay_long_poll_part_seconds_total{class=\"handler\","
        "part=\"on_cpu\"} 0.05\n"
        "kernel_delay_long_poll_part_seconds_total{class=\"handler\","
        "part=\"run_queue\"} 0\n"
        "kernel_delay_long_poll_part_seconds_total{class=\"handler\","
        "part=\"stopped\"} 0.25\n");
    CHECK_CONTAINS(text,
        "# TYPE kernel_delay_long_poll_on_cpu_seconds_total counter\n"
        "kernel_delay_long_poll_on_cpu_seconds_total{class=\"main\","
        "mode=\"user\"} 0.15\n"
        "kernel_delay_long_poll_on_cpu_seconds_total{class=\"main\","
        "mode=\"system\"} 0.05\n"
        "kernel_delay_long_poll_on_cpu_seconds_total{class=\"handler\","
        "mode=\"user\"} 0.0375\n"
        "kernel_delay_long_poll_on_cpu_seconds_total{class=\"handler\","
        "mode=\"system\"} 0.0125\n");

    /* Who ran instead: the two that took most (a name not UTF-8, read as
     * Latin-1, its newline escaped); a task named "other" is in
     * "other". */
    CHECK_FAMILY(text, "kernel_delay_ran_instead_seconds_total",
        "# HELP kernel_delay_ran_instead_seconds_total Time other tasks "
        "held the CPU while a thread of the target waited for it in a "
        "long poll interval, by task name: the names that took most, then "
        "\"other\".\n"
        "# TYPE kernel_delay_ran_instead_seconds_total counter\n"
        "kernel_delay_ran_instead_seconds_total{task=\"stress-ng-cpu\"} "
        "1.5\n"
        "kernel_delay_ran_instead_seconds_total{task=\"na\xc3\xafve\\n\"} "
        "0.2\n"
        "kernel_delay_ran_instead_seconds_total{task=\"other\"} 0.3\n");

    CHECK_FAMILY(text, "kernel_delay_target_attached",
        "# HELP kernel_delay_target_attached 1 while the tool watches the "
        "target, 0 while it waits for it.\n"
        "# TYPE kernel_delay_target_attached gauge\n"
        "kernel_delay_target_attached 0\n");
    CHECK_FAMILY(text, "kernel_delay_http_responses_total",
        "# HELP kernel_delay_http_responses_total Answers of the metrics "
        "endpoint, by status code.\n"
        "# TYPE kernel_delay_http_responses_total counter\n"
        "kernel_delay_http_responses_total{code=\"200\"} 7\n"
        "kernel_delay_http_responses_total{code=\"400\"} 0\n"
        "kernel_delay_http_responses_total{code=\"404\"} 1\n"
        "kernel_delay_http_responses_total{code=\"405\"} 0\n"
        "kernel_delay_http_responses_total{code=\"408\"} 0\n"
        "kernel_delay_http_responses_total{code=\"431\"} 0\n");
    CHECK_FAMILY(text, "kernel_delay_http_connections_closed_total",
        "# HELP kernel_delay_http_connections_closed_total Connections to "
        "the metrics endpoint closed by the tool, at their deadline or to "
        "make room for another one.\n"
        "# TYPE kernel_delay_http_connections_closed_total counter\n"
        "kernel_delay_http_connections_closed_total{reason=\"timeout\"} 2\n"
        "kernel_delay_http_connections_closed_total{reason=\"evicted\"} "
        "0\n");
    CHECK_FAMILY(text, "process_cpu_seconds_total",
        "# HELP process_cpu_seconds_total Total user and system CPU time "
        "spent in seconds.\n"
        "# TYPE process_cpu_seconds_total counter\n"
        "process_cpu_seconds_total 1.2345\n");
    CHECK_FAMILY(text, "process_resident_memory_bytes",
        "# HELP process_resident_memory_bytes Resident memory size in "
        "bytes.\n"
        "# TYPE process_resident_memory_bytes gauge\n"
        "process_resident_memory_bytes 52428800\n");
    CHECK_FAMILY(text, "process_start_time_seconds",
        "# HELP process_start_time_seconds Start time of the process "
        "since unix epoch in seconds.\n"
        "# TYPE process_start_time_seconds gauge\n"
        "process_start_time_seconds 1764400000.5\n");
    CHECK_NOT_CONTAINS(text, "# EOF");
    CHECK_NOT_CONTAINS(text, "# UNIT");
    free(text);
}

/* What the captures lost, over a re-attach: the closed capture's and the
 * open one's; the re-attaches. */
static void
test_metrics_health(void)
{
    struct kd_losses l = KD_LOSSES_INITIALIZER;
    struct kd_metrics m;
    char *text;

    kd_metrics_init(&m, &config);
    kd_metrics_set_attached(&m, true);
    l.map_full[KD_MAP_RAN] = 3;
    l.events_dropped = 2;
    l.switches_missed = 4;
    l.user_stacks[KD_UW_END_WHOLE] = 10;
    kd_losses_add_miss(&l, "sched_switch", 5);
    kd_metrics_set_losses(&m, &l);
    kd_metrics_set_losses(&m, &l);
    kd_metrics_set_attached(&m, false);
    kd_losses_destroy(&l);

    text = render(&m, false);
    CHECK_CONTAINS(text, "kernel_delay_target_attached 0\n");
    CHECK_CONTAINS(text, "kernel_delay_target_reattaches_total 0\n");
    free(text);

    memset(&l, 0, sizeof l);
    kd_metrics_set_attached(&m, true);
    l.events_dropped = 1;
    kd_metrics_set_losses(&m, &l);
    text = render(&m, false);
    CHECK_CONTAINS(text, "kernel_delay_target_attached 1\n");
    CHECK_CONTAINS(text, "kernel_delay_target_reattaches_total 1\n");
    CHECK_FAMILY(text, "kernel_delay_map_full_total",
        "# HELP kernel_delay_map_full_total Entries an eBPF map could not "
        "create, as it was full, by map.\n"
        "# TYPE kernel_delay_map_full_total counter\n"
        "kernel_delay_map_full_total{map=\"tstate\"} 0\n"
        "kernel_delay_map_full_total{map=\"tstats\"} 0\n"
        "kernel_delay_map_full_total{map=\"syscalls\"} 0\n"
        "kernel_delay_map_full_total{map=\"hardirqs\"} 0\n"
        "kernel_delay_map_full_total{map=\"softirqs\"} 0\n"
        "kernel_delay_map_full_total{map=\"names\"} 0\n"
        "kernel_delay_map_full_total{map=\"hists\"} 0\n"
        "kernel_delay_map_full_total{map=\"ran\"} 3\n");
    CHECK_CONTAINS(text, "\nkernel_delay_recursion_misses_total 5\n");
    CHECK_CONTAINS(text, "\nkernel_delay_switches_missed_total 4\n");
    CHECK_CONTAINS(text, "\nkernel_delay_events_dropped_total 3\n");
    CHECK_CONTAINS(text,
        "kernel_delay_user_stacks_total{end=\"whole\"} 10\n"
        "kernel_delay_user_stacks_total{end=\"depth\"} 0\n");
    free(text);
}

/* OpenMetrics: counters' families without "_total", units, the info
 * type, "# EOF" at the end. */
static void
test_metrics_openmetrics(void)
{
    struct kd_metrics m;
    char *text;

    kd_metrics_init(&m, &config);
    feed(&m);
    text = render(&m, true);
    CHECK_FAMILY(text, "kernel_delay",
        "# HELP kernel_delay The tool's version and node (--node-name, "
        "KD_NODE_NAME), as in its JSON records.\n"
        "# TYPE kernel_delay info\n"
        "kernel_delay_info{node=\"node-1\",version=\"0.1.0\"} 1\n");
    CHECK_CONTAINS(text,
        "# HELP kernel_delay_long_poll_interval_seconds Long poll "
        "intervals that ended, by length and thread class.\n"
        "# TYPE kernel_delay_long_poll_interval_seconds histogram\n"
        "# UNIT kernel_delay_long_poll_interval_seconds seconds\n"
        "kernel_delay_long_poll_interval_seconds_bucket{class=\"main\","
        "le=\"0.001\"} 0\n");
    CHECK_CONTAINS(text,
        "# TYPE kernel_delay_long_poll_intervals counter\n"
        "kernel_delay_long_poll_intervals_total{class=\"main\","
        "dominant=\"on_cpu\"} 0\n");
    CHECK_CONTAINS(text,
        "# TYPE kernel_delay_ran_instead_seconds counter\n"
        "# UNIT kernel_delay_ran_instead_seconds seconds\n");
    CHECK_CONTAINS(text,
        "# TYPE process_resident_memory_bytes gauge\n"
        "# UNIT process_resident_memory_bytes bytes\n");
    CHECK(strlen(text) > 6
          && !strcmp(text + strlen(text) - 6, "# EOF\n"));
    free(text);
}

/* The value of the sample that starts with 'line' in 'text', or -1. */
static double
sample_value(const char *text, const char *line)
{
    const char *p = strstr(text, line);

    return p ? strtod(p + strlen(line), NULL) : -1;
}

/* A task that overtakes those shown, names beyond those followed: no
 * count ever goes down, "other" included, and the counts add up to all
 * the time charged. */
static void
test_metrics_tasks_monotonic(void)
{
    struct kd_metrics_config c = config;
    double other = 0, hog = 0;
    uint64_t total = 0;
    struct kd_metrics m;

    c.n_tasks = 1;
    kd_metrics_init(&m, &c);
    for (int round = 0; round < 400; round++) {
        struct kd_gap g = gap_of("handler1", 101, 300 * MS, KD_GAP_RUN_QUEUE,
                                 0);
        char name[32];
        char *text;
        double v;

        /* A new name each round (more than are followed), and from round
         * 100 a hog that takes more each time. */
        snprintf(name, sizeof name, "task%d", round);
        ran(&g, name, 1 * MS + round % 7);
        ran(&g, "early", round < 50 ? 5 * MS : 0);
        if (round >= 100) {
            ran(&g, "hog", 20 * MS);
        }
        for (size_t i = 0; i < g.n_ran; i++) {
            total += g.ran[i].ns;
        }
        kd_metrics_add_gap(&m, &g);
        text = render(&m, false);
        v = sample_value(text, "{task=\"other\"} ");
        CHECK(v >= other);
        other = v;
        v = sample_value(text, "{task=\"hog\"} ");
        if (v >= 0) {
            CHECK(v >= hog);
            hog = v;
        }
        if (round == 399) {
            double early = sample_value(text, "{task=\"early\"} ");

            CHECK(early < 0);
            CHECK(hog > 0);
            CHECK_UINT((uint64_t) ((other + hog) * 1e9 + 0.5), total);
        }
        free(text);
    }
    CHECK_UINT(m.n_tasks, KD_METRICS_TRACKED);
}

static void
test_metrics_accept(void)
{
    /* What Prometheus 2.42 sends. */
    CHECK(kd_metrics_wants_openmetrics(
              "application/openmetrics-text;version=1.0.0,"
              "application/openmetrics-text;version=0.0.1;q=0.75,"
              "text/plain;version=0.0.4;q=0.5,*/*;q=0.1"));
    CHECK(kd_metrics_wants_openmetrics("Application/OpenMetrics-Text"));
    CHECK(!kd_metrics_wants_openmetrics(""));
    CHECK(!kd_metrics_wants_openmetrics("*/*"));
    CHECK(!kd_metrics_wants_openmetrics("text/plain"));
    CHECK(!kd_metrics_wants_openmetrics("application/openmetrics-text;q=0"));
    CHECK(!kd_metrics_wants_openmetrics(
              "text/plain, application/openmetrics-text; q=0.5"));
    CHECK(kd_metrics_wants_openmetrics(
              "text/plain;q=0.5, application/openmetrics-text"));
    CHECK_STR(kd_metrics_content_type(false),
              "text/plain; version=0.0.4; charset=utf-8");
    CHECK_STR(kd_metrics_content_type(true),
              "application/openmetrics-text; version=1.0.0; charset=utf-8");
}

#ifndef KD_SRCDIR
#define KD_SRCDIR "."
#endif

/* The METRICS section of the man page, or NULL after a failed check. */
static char *
man_metrics(void)
{
    const char *path = KD_SRCDIR "/man/kernel_delay.8";
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    const char *start, *end;
    char buf[4096], *section;
    FILE *f = fopen(path, "r");
    size_t n;

    if (!f) {
        check_fail(__FILE__, __LINE__, "%s: %s", path, strerror(errno));
        return NULL;
    }
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        kd_ds_put_buffer(&ds, buf, n);
    }
    fclose(f);
    start = strstr(kd_ds_cstr(&ds), "\n.SH METRICS\n");
    if (!start) {
        check_fail(__FILE__, __LINE__, "%s: no section METRICS", path);
        kd_ds_destroy(&ds);
        return NULL;
    }
    end = strstr(start + 1, "\n.SH ");
    section = strndup(start, end ? (size_t) (end - start) : strlen(start));
    kd_ds_destroy(&ds);
    return section;
}

/* Whether the man page's METRICS section 'man' names family 'name' of
 * 'type' as the text format types it: each tagged paragraph (.TP) there
 * is "NAME (TYPE...)" or a list "NAME, NAME, ..." of families whose type
 * the text says. */
static bool
man_lists(const char *man, const char *name, const char *type)
{
    const char *p = man;

    while ((p = strstr(p, "\n.TP\n")) != NULL) {
        const char *line = p + 5;
        size_t len = strcspn(line, "\n");
        char *tag = strndup(line, len);
        char *paren = strstr(tag, " (");
        char *save = NULL;
        bool found = false;

        if (paren) {
            *paren = '\0';
        }
        for (char *n = strtok_r(tag, ", ", &save); n;
             n = strtok_r(NULL, ", ", &save)) {
            if (!strcmp(n, name)) {
                found = !paren || !strncmp(paren + 2, type, strlen(type));
                if (!found) {
                    check_fail(__FILE__, __LINE__, "%s: served as %s, "
                               "the man page says (%s", name, type,
                               paren + 2);
                }
                free(tag);
                return found;
            }
        }
        free(tag);
        p = line;
    }
    return false;
}

/* Every family served is in the man page's METRICS with its type (as the
 * text format types it), and every family there is served: the list of
 * the man page is the list of the code. */
static void
test_metrics_man_page(void)
{
    char *man = man_metrics();
    struct kd_metrics m;
    const char *p;
    char *text;
    size_t n = 0;

    if (!man) {
        return;
    }
    kd_metrics_init(&m, &config);
    feed(&m);
    text = render(&m, false);
    for (p = text; (p = strstr(p, "# TYPE ")) != NULL; p++) {
        char name[128], type[32];

        if (sscanf(p, "# TYPE %127s %31s", name, type) != 2) {
            check_fail(__FILE__, __LINE__, "a TYPE line: %.60s", p);
            continue;
        }
        n++;
        if (!man_lists(man, name, type)) {
            check_fail(__FILE__, __LINE__, "%s (%s): served, not in the "
                       "man page's METRICS", name, type);
        }
    }
    CHECK(n >= 20);

    /* And the other way. */
    for (p = man; (p = strstr(p, "\n.TP\n")) != NULL; ) {
        const char *line = p + 5;
        char *tag = strndup(line, strcspn(line, "\n"));
        char *save = NULL;

        tag[strcspn(tag, "(")] = '\0';
        for (char *name = strtok_r(tag, ", ", &save); name;
             name = strtok_r(NULL, ", ", &save)) {
            char *needle = kd_xasprintf("# TYPE %s ", name);

            if (!strstr(text, needle)) {
                check_fail(__FILE__, __LINE__, "%s: in the man page's "
                           "METRICS, not served", name);
            }
            free(needle);
        }
        free(tag);
        p = line;
    }
    free(text);
    free(man);
}

static const struct test tests[] = {
    TEST(test_metrics_classes),
    TEST(test_metrics_text),
    TEST(test_metrics_health),
    TEST(test_metrics_openmetrics),
    TEST(test_metrics_tasks_monotonic),
    TEST(test_metrics_accept),
    TEST(test_metrics_man_page),
};

CHECK_SUITE(metrics, tests)
