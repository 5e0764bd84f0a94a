/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* The metrics of --metrics, and their text exposition. */

#include "metrics.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The histogram's bucket bounds, in ns and as the "le" label says them. */
static const uint64_t kd_metrics_bounds_ns[KD_METRICS_N_BUCKETS] = {
    1000000, 2500000, 5000000, 10000000, 25000000, 50000000, 100000000,
    250000000, 500000000, 1000000000, 2500000000, 5000000000, 10000000000,
    30000000000, 60000000000,
};

static const char *const kd_metrics_bounds[KD_METRICS_N_BUCKETS] = {
    "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25",
    "0.5", "1", "2.5", "5", "10", "30", "60",
};

const char *
kd_metrics_class_name(enum kd_metrics_class class)
{
    static const char *const names[] = {
#define KD_METRICS_CLASS_NAME(ID, NAME) NAME,
        KD_METRICS_CLASSES(KD_METRICS_CLASS_NAME)
#undef KD_METRICS_CLASS_NAME
    };

    return class < KD_N_METRICS_CLASSES ? names[class] : "other";
}

static bool
kd_starts_with(const char *s, const char *prefix)
{
    return !strncmp(s, prefix, strlen(prefix));
}

enum kd_metrics_class
kd_metrics_class_of(const char *name, uint32_t tid, uint32_t pid)
{
    if (tid == pid || !strcmp(name, "ovs-vswitchd")) {
        return KD_METRICS_CLASS_MAIN;
    } else if (kd_starts_with(name, "handler")) {
        return KD_METRICS_CLASS_HANDLER;
    } else if (kd_starts_with(name, "revalidator")) {
        return KD_METRICS_CLASS_REVALIDATOR;
    } else if (kd_starts_with(name, "urcu")) {
        return KD_METRICS_CLASS_URCU;
    } else if (kd_starts_with(name, "pmd")) {
        return KD_METRICS_CLASS_PMD;
    }
    return KD_METRICS_CLASS_OTHER;
}

void
kd_metrics_init(struct kd_metrics *m, const struct kd_metrics_config *config)
{
    memset(m, 0, sizeof *m);
    m->config = *config;
    if (m->config.n_tasks > KD_METRICS_TASKS_MAX) {
        m->config.n_tasks = KD_METRICS_TASKS_MAX;
    }
}

/* Appends 's' as a label value: each byte that is not valid UTF-8 as the
 * character of its Latin-1 reading, a backslash, a double quote and a
 * newline escaped, the other control characters as '?'. */
static void
kd_metrics_put_label_value(struct kd_ds *ds, const char *s_)
{
    const unsigned char *s = (const unsigned char *) s_;
    const unsigned char *end = s + strlen(s_);

    while (*s) {
        size_t len = kd_utf8_len((const char *) s, end - s);

        if (*s == '\\' || *s == '"') {
            kd_ds_put_char(ds, '\\');
            kd_ds_put_char(ds, *s++);
        } else if (*s == '\n') {
            kd_ds_put_cstr(ds, "\\n");
            s++;
        } else if (*s < 0x20 || *s == 0x7f) {
            kd_ds_put_char(ds, '?');
            s++;
        } else if (!len) {
            kd_ds_put_char(ds, 0xc0 | (*s >> 6));
            kd_ds_put_char(ds, 0x80 | (*s & 0x3f));
            s++;
        } else {
            kd_ds_put_buffer(ds, (const char *) s, len);
            s += len;
        }
    }
}

/* The entry of the task whose label is 'label', created if there is room
 * (forgetting, if need be, the name never shown that ran least), or
 * NULL. */
static struct kd_metrics_task *
kd_metrics_task(struct kd_metrics *m, const char *label)
{
    struct kd_metrics_task *least = NULL;

    for (size_t i = 0; i < m->n_tasks; i++) {
        struct kd_metrics_task *t = &m->tasks[i];

        if (!strcmp(t->label, label)) {
            return t;
        }
        if (!t->shown && (!least || t->ns < least->ns)) {
            least = t;
        }
    }
    if (m->n_tasks < KD_METRICS_TRACKED) {
        least = &m->tasks[m->n_tasks++];
    }
    if (least) {
        /* Its time stays in 'ran_ns', as the rest's. */
        memset(least, 0, sizeof *least);
        snprintf(least->label, sizeof least->label, "%s", label);
    }
    return least;
}

/* Charges 'ns' to task 'comm' (a comm field of KD_COMM_LEN bytes). */
static void
kd_metrics_charge(struct kd_metrics *m, const char *comm, uint64_t ns)
{
    struct kd_ds label = KD_DS_EMPTY_INITIALIZER;
    char name[KD_COMM_LEN + 1];
    struct kd_metrics_task *t;

    m->ran_ns += ns;
    kd_fixed_cstr(name, comm, KD_COMM_LEN);
    kd_metrics_put_label_value(&label, name);

    /* "other" is the rest: a task of that name is counted there. */
    if (strcmp(kd_ds_cstr(&label), "other")) {
        t = kd_metrics_task(m, kd_ds_cstr(&label));
        if (t) {
            t->ns += ns;
        }
    }
    kd_ds_destroy(&label);
}

void
kd_metrics_add_gap(struct kd_metrics *m, const struct kd_gap *gap)
{
    struct kd_metrics_class_stats *c;
    uint64_t ns = kd_gap_ns(gap);
    size_t b = 0;

    if (gap->in_progress || gap->of_sample) {
        return;
    }
    c = &m->classes[kd_metrics_class_of(gap->name, gap->tid, gap->pid)];
    while (b < KD_METRICS_N_BUCKETS && ns > kd_metrics_bounds_ns[b]) {
        b++;
    }
    if (b < KD_METRICS_N_BUCKETS) {
        c->buckets[b]++;
    }
    c->count++;
    c->sum_ns += ns;
    if (gap->dominant < KD_N_GAP_PARTS) {
        c->dominant[gap->dominant]++;
    }
    for (size_t i = 0; i < KD_N_GAP_PARTS; i++) {
        c->part_ns[i] += gap->parts[i];
    }
    c->on_cpu_user_ns += gap->on_cpu_user_ns;
    c->on_cpu_system_ns += gap->on_cpu_kernel_ns;

    for (size_t i = 0; i < gap->n_ran; i++) {
        kd_metrics_charge(m, gap->ran[i].comm, gap->ran[i].ns);
    }
    m->ran_ns += gap->ran_others_ns;
}

void
kd_metrics_set_losses(struct kd_metrics *m, const struct kd_losses *total)
{
    struct kd_metrics_losses *l = &m->current;

    for (size_t i = 0; i < KD_N_FULL_MAPS; i++) {
        l->map_full[i] = total->map_full[i];
    }
    l->recursion_misses = kd_losses_misses(total);
    l->switches_missed = total->switches_missed;
    l->events_dropped = total->events_dropped;
    for (size_t i = 0; i < KD_UW_N_ENDS; i++) {
        l->user_stacks[i] = total->user_stacks[i];
    }
}

void
kd_metrics_set_attached(struct kd_metrics *m, bool attached)
{
    struct kd_metrics_losses *c = &m->closed, *o = &m->current;

    if (attached && !m->attached) {
        m->attaches++;
    } else if (!attached && m->attached) {
        for (size_t i = 0; i < KD_N_FULL_MAPS; i++) {
            c->map_full[i] += o->map_full[i];
        }
        c->recursion_misses += o->recursion_misses;
        c->switches_missed += o->switches_missed;
        c->events_dropped += o->events_dropped;
        for (size_t i = 0; i < KD_UW_N_ENDS; i++) {
            c->user_stacks[i] += o->user_stacks[i];
        }
        memset(o, 0, sizeof *o);
    }
    m->attached = attached;
}

/* Exposition. */

enum kd_metrics_type {
    KD_METRICS_COUNTER,
    KD_METRICS_GAUGE,
    KD_METRICS_HISTOGRAM,
    KD_METRICS_INFO,
};

/* One family being written: its name (without "_total" for a counter,
 * without "_info" for an info), type and format. */
struct kd_metrics_family {
    struct kd_ds *ds;
    const char *name;
    enum kd_metrics_type type;
    bool om;
};

/* Starts family 'name' of 'type': its HELP, TYPE and, in OpenMetrics, its
 * UNIT (from its name's suffix: seconds, bytes). */
static struct kd_metrics_family
kd_metrics_family(struct kd_ds *ds, bool om, const char *name,
                  enum kd_metrics_type type, const char *help)
{
    static const char *const types[] = { "counter", "gauge", "histogram",
                                         "info" };
    static const char *const units[] = { "seconds", "bytes" };
    struct kd_metrics_family f = { ds, name, type, om };
    const char *suffix = "";
    const char *type_name = types[type];

    if (!om && type == KD_METRICS_COUNTER) {
        suffix = "_total";
    } else if (!om && type == KD_METRICS_INFO) {
        suffix = "_info";
        type_name = "gauge";
    }
    kd_ds_put_format(ds, "# HELP %s%s %s\n", name, suffix, help);
    kd_ds_put_format(ds, "# TYPE %s%s %s\n", name, suffix, type_name);
    for (size_t i = 0; om && i < KD_ARRAY_SIZE(units); i++) {
        size_t n = strlen(name), u = strlen(units[i]);

        if (n > u && name[n - u - 1] == '_' && !strcmp(name + n - u,
                                                       units[i])) {
            kd_ds_put_format(ds, "# UNIT %s %s\n", name, units[i]);
        }
    }
    return f;
}

/* Starts a sample of family 'f', with 'suffix' after its name ("_bucket")
 * or, when NULL, its type's ("_total", "_info"); the labels follow. */
static void
kd_metrics_sample_name(const struct kd_metrics_family *f, const char *suffix)
{
    if (!suffix) {
        suffix = f->type == KD_METRICS_COUNTER ? "_total"
                 : f->type == KD_METRICS_INFO ? "_info" : "";
    }
    kd_ds_put_format(f->ds, "%s%s", f->name, suffix);
}

/* Seconds 'ns' as an exact decimal. */
static void
kd_metrics_put_seconds(struct kd_ds *ds, uint64_t ns)
{
    char frac[16];
    size_t n;

    kd_ds_put_format(ds, "%" PRIu64, ns / 1000000000);
    if (ns % 1000000000) {
        n = snprintf(frac, sizeof frac, "%09" PRIu64, ns % 1000000000);
        while (n && frac[n - 1] == '0') {
            frac[--n] = '\0';
        }
        kd_ds_put_format(ds, ".%s", frac);
    }
}

/* A sample with no label or one, 'key'="value" (NULL: none; 'value'
 * already written as a label value), of value 'v': a count, or ns as
 * seconds when 'seconds'. */
static void
kd_metrics_put1(const struct kd_metrics_family *f, const char *key,
                const char *value, uint64_t v, bool seconds)
{
    kd_metrics_sample_name(f, NULL);
    if (key) {
        kd_ds_put_format(f->ds, "{%s=\"%s\"}", key, value);
    }
    kd_ds_put_char(f->ds, ' ');
    if (seconds) {
        kd_metrics_put_seconds(f->ds, v);
    } else {
        kd_ds_put_format(f->ds, "%" PRIu64, v);
    }
    kd_ds_put_char(f->ds, '\n');
}

/* A sample with labels class="C" and 'key'="value". */
static void
kd_metrics_put2(const struct kd_metrics_family *f, enum kd_metrics_class c,
                const char *key, const char *value, uint64_t v,
                bool seconds)
{
    kd_metrics_sample_name(f, NULL);
    kd_ds_put_format(f->ds, "{class=\"%s\",%s=\"%s\"} ",
                     kd_metrics_class_name(c), key, value);
    if (seconds) {
        kd_metrics_put_seconds(f->ds, v);
    } else {
        kd_ds_put_format(f->ds, "%" PRIu64, v);
    }
    kd_ds_put_char(f->ds, '\n');
}

static void
kd_metrics_render_info(const struct kd_metrics *m, struct kd_ds *ds,
                       bool om)
{
    struct kd_metrics_family f;

    f = kd_metrics_family(ds, om, "kernel_delay", KD_METRICS_INFO,
                          "The tool's version and node (--node-name, "
                          "KD_NODE_NAME), as in its JSON records.");
    kd_metrics_sample_name(&f, NULL);
    kd_ds_put_cstr(ds, "{");
    if (m->config.node && *m->config.node) {
        kd_ds_put_cstr(ds, "node=\"");
        kd_metrics_put_label_value(ds, m->config.node);
        kd_ds_put_cstr(ds, "\",");
    }
    kd_ds_put_cstr(ds, "version=\"");
    kd_metrics_put_label_value(ds, m->config.version);
    kd_ds_put_cstr(ds, "\"} 1\n");

    f = kd_metrics_family(ds, om, "kernel_delay_long_poll_threshold_seconds",
                          KD_METRICS_GAUGE, "Poll intervals longer than "
                          "this are long (--long-poll-events).");
    kd_metrics_put1(&f, NULL, NULL, m->config.threshold_ns, true);
}

static void
kd_metrics_render_histogram(const struct kd_metrics *m, struct kd_ds *ds,
                            bool om)
{
    struct kd_metrics_family f;

    f = kd_metrics_family(ds, om, "kernel_delay_long_poll_interval_seconds",
                          KD_METRICS_HISTOGRAM, "Long poll intervals that "
                          "ended, by length and thread class.");
    for (int c = 0; c < KD_N_METRICS_CLASSES; c++) {
        const struct kd_metrics_class_stats *s = &m->classes[c];
        const char *class = kd_metrics_class_name(c);
        uint64_t cumulative = 0;

        for (int b = 0; b < KD_METRICS_N_BUCKETS; b++) {
            cumulative += s->buckets[b];
            kd_metrics_sample_name(&f, "_bucket");
            kd_ds_put_format(ds, "{class=\"%s\",le=\"%s\"} %" PRIu64 "\n",
                             class, kd_metrics_bounds[b], cumulative);
        }
        kd_metrics_sample_name(&f, "_bucket");
        kd_ds_put_format(ds, "{class=\"%s\",le=\"+Inf\"} %" PRIu64 "\n",
                         class, s->count);
        kd_metrics_sample_name(&f, "_sum");
        kd_ds_put_format(ds, "{class=\"%s\"} ", class);
        kd_metrics_put_seconds(ds, s->sum_ns);
        kd_ds_put_char(ds, '\n');
        kd_metrics_sample_name(&f, "_count");
        kd_ds_put_format(ds, "{class=\"%s\"} %" PRIu64 "\n", class,
                         s->count);
    }
}

static void
kd_metrics_render_causes(const struct kd_metrics *m, struct kd_ds *ds,
                         bool om)
{
    struct kd_metrics_family f;

    f = kd_metrics_family(ds, om, "kernel_delay_long_poll_intervals",
                          KD_METRICS_COUNTER, "Long poll intervals that "
                          "ended, by thread class and dominant part.");
    for (int c = 0; c < KD_N_METRICS_CLASSES; c++) {
        for (int p = 0; p < KD_N_GAP_PARTS; p++) {
            kd_metrics_put2(&f, c, "dominant", kd_gap_part_key(p),
                            m->classes[c].dominant[p], false);
        }
    }
    f = kd_metrics_family(ds, om, "kernel_delay_long_poll_part_seconds",
                          KD_METRICS_COUNTER, "Time of the long poll "
                          "intervals that ended, by thread class and "
                          "part.");
    for (int c = 0; c < KD_N_METRICS_CLASSES; c++) {
        for (int p = 0; p < KD_N_GAP_PARTS; p++) {
            kd_metrics_put2(&f, c, "part", kd_gap_part_key(p),
                            m->classes[c].part_ns[p], true);
        }
    }
    f = kd_metrics_family(ds, om, "kernel_delay_long_poll_on_cpu_seconds",
                          KD_METRICS_COUNTER, "Time on CPU of the long "
                          "poll intervals that ended, by thread class, "
                          "in user space and in syscalls.");
    for (int c = 0; c < KD_N_METRICS_CLASSES; c++) {
        kd_metrics_put2(&f, c, "mode", "user", m->classes[c].on_cpu_user_ns,
                        true);
        kd_metrics_put2(&f, c, "mode", "system",
                        m->classes[c].on_cpu_system_ns, true);
    }
}

/* The order of the tasks shown: most time first, then by label. */
static int
kd_metrics_task_cmp(const void *a_, const void *b_)
{
    const struct kd_metrics_task *const *a = a_, *const *b = b_;

    if ((*a)->ns != (*b)->ns) {
        return (*a)->ns < (*b)->ns ? 1 : -1;
    }
    return strcmp((*a)->label, (*b)->label);
}

/* Who ran instead: the --metrics-tasks names that took most time, then
 * "other".  The sum of a given number of the largest counts grows by at
 * most what is added to them, so "other" (the total less that sum) never
 * decreases; a name that leaves the first ones and comes back resumes
 * from its count, which never decreases either. */
static void
kd_metrics_render_tasks(struct kd_metrics *m, struct kd_ds *ds, bool om)
{
    struct kd_metrics_task *order[KD_METRICS_TRACKED];
    struct kd_metrics_family f;
    size_t n = 0;
    uint64_t shown_ns = 0;

    for (size_t i = 0; i < m->n_tasks; i++) {
        if (m->tasks[i].ns) {
            order[n++] = &m->tasks[i];
        }
    }
    qsort(order, n, sizeof *order, kd_metrics_task_cmp);
    n = KD_MIN(n, m->config.n_tasks);

    f = kd_metrics_family(ds, om, "kernel_delay_ran_instead_seconds",
                          KD_METRICS_COUNTER, "Time other tasks held the "
                          "CPU while a thread of the target waited for "
                          "it in a long poll interval, by task name: the "
                          "names that took most, then \"other\".");
    for (size_t i = 0; i < n; i++) {
        order[i]->shown = true;
        shown_ns += order[i]->ns;
        kd_metrics_put1(&f, "task", order[i]->label, order[i]->ns, true);
    }
    kd_metrics_put1(&f, "task", "other", m->ran_ns - shown_ns, true);
}

static void
kd_metrics_render_health(const struct kd_metrics *m,
                         const struct kd_metrics_self *self,
                         struct kd_ds *ds, bool om)
{
    struct kd_metrics_losses l = m->closed;
    const struct kd_metrics_losses *o = &m->current;
    struct kd_metrics_family f;

    for (size_t i = 0; i < KD_N_FULL_MAPS; i++) {
        l.map_full[i] += o->map_full[i];
    }
    l.recursion_misses += o->recursion_misses;
    l.switches_missed += o->switches_missed;
    l.events_dropped += o->events_dropped;
    for (size_t i = 0; i < KD_UW_N_ENDS; i++) {
        l.user_stacks[i] += o->user_stacks[i];
    }

    f = kd_metrics_family(ds, om, "kernel_delay_target_attached",
                          KD_METRICS_GAUGE, "1 while the tool watches "
                          "the target, 0 while it waits for it.");
    kd_metrics_put1(&f, NULL, NULL, m->attached, false);
    f = kd_metrics_family(ds, om, "kernel_delay_target_reattaches",
                          KD_METRICS_COUNTER, "Times the tool attached "
                          "again to a restarted target (--wait-target).");
    kd_metrics_put1(&f, NULL, NULL, m->attaches ? m->attaches - 1 : 0,
                    false);
    f = kd_metrics_family(ds, om, "kernel_delay_map_full",
                          KD_METRICS_COUNTER, "Entries an eBPF map could "
                          "not create, as it was full, by map.");
    for (size_t i = 0; i < KD_N_FULL_MAPS; i++) {
        kd_metrics_put1(&f, "map", kd_losses_map_name(i), l.map_full[i],
                        false);
    }
    f = kd_metrics_family(ds, om, "kernel_delay_recursion_misses",
                          KD_METRICS_COUNTER, "Runs of the tool's eBPF "
                          "programs the kernel skipped.");
    kd_metrics_put1(&f, NULL, NULL, l.recursion_misses, false);
    f = kd_metrics_family(ds, om, "kernel_delay_switches_missed",
                          KD_METRICS_COUNTER, "Context switches of the "
                          "target the kernel made without the "
                          "sched_switch tracepoint.");
    kd_metrics_put1(&f, NULL, NULL, l.switches_missed, false);
    f = kd_metrics_family(ds, om, "kernel_delay_events_dropped",
                          KD_METRICS_COUNTER, "Events the ring buffer "
                          "had no room for.");
    kd_metrics_put1(&f, NULL, NULL, l.events_dropped, false);
    f = kd_metrics_family(ds, om, "kernel_delay_user_stacks",
                          KD_METRICS_COUNTER, "User stacks unwound, by "
                          "how their walk ended: whole, or cut short.");
    for (unsigned int i = 0; i < KD_UW_N_ENDS; i++) {
        kd_metrics_put1(&f, "end", kd_losses_uw_end_key(i),
                        l.user_stacks[i], false);
    }

    f = kd_metrics_family(ds, om, "kernel_delay_http_responses",
                          KD_METRICS_COUNTER, "Answers of the metrics "
                          "endpoint, by status code.");
    for (int i = 0; i < KD_HTTP_N_STATUSES; i++) {
        char code[8];

        snprintf(code, sizeof code, "%d", kd_http_status_code(i));
        kd_metrics_put1(&f, "code", code, self->http.responses[i], false);
    }
    f = kd_metrics_family(ds, om, "kernel_delay_http_connections_closed",
                          KD_METRICS_COUNTER, "Connections to the metrics "
                          "endpoint closed by the tool, at their deadline "
                          "or to make room for another one.");
    kd_metrics_put1(&f, "reason", "timeout", self->http.timed_out, false);
    kd_metrics_put1(&f, "reason", "evicted", self->http.evicted, false);
}

static void
kd_metrics_render_process(const struct kd_metrics *m,
                          const struct kd_metrics_self *self,
                          struct kd_ds *ds, bool om)
{
    struct kd_metrics_family f;

    f = kd_metrics_family(ds, om, "process_cpu_seconds", KD_METRICS_COUNTER,
                          "Total user and system CPU time spent in "
                          "seconds.");
    kd_metrics_put1(&f, NULL, NULL, self->cpu_ns, true);
    f = kd_metrics_family(ds, om, "process_resident_memory_bytes",
                          KD_METRICS_GAUGE, "Resident memory size in "
                          "bytes.");
    kd_metrics_put1(&f, NULL, NULL, self->rss_bytes, false);
    f = kd_metrics_family(ds, om, "process_virtual_memory_bytes",
                          KD_METRICS_GAUGE, "Virtual memory size in "
                          "bytes.");
    kd_metrics_put1(&f, NULL, NULL, self->vsize_bytes, false);
    f = kd_metrics_family(ds, om, "process_open_fds", KD_METRICS_GAUGE,
                          "Number of open file descriptors.");
    kd_metrics_put1(&f, NULL, NULL, self->open_fds, false);
    f = kd_metrics_family(ds, om, "process_max_fds", KD_METRICS_GAUGE,
                          "Maximum number of open file descriptors.");
    kd_metrics_put1(&f, NULL, NULL, self->max_fds, false);
    f = kd_metrics_family(ds, om, "process_start_time_seconds",
                          KD_METRICS_GAUGE, "Start time of the process "
                          "since unix epoch in seconds.");
    kd_metrics_put1(&f, NULL, NULL, m->config.start_wall_ns, true);
}

void
kd_metrics_render(struct kd_metrics *m, const struct kd_metrics_self *self,
                  bool om, struct kd_ds *ds)
{
    kd_metrics_render_info(m, ds, om);
    kd_metrics_render_histogram(m, ds, om);
    kd_metrics_render_causes(m, ds, om);
    kd_metrics_render_tasks(m, ds, om);
    kd_metrics_render_health(m, self, ds, om);
    kd_metrics_render_process(m, self, ds, om);
    if (om) {
        kd_ds_put_cstr(ds, "# EOF\n");
    }
}

/* The quality of media range 'range' (up to 'end'): its "q" parameter,
 * 1 by default, in thousandths. */
static int
kd_metrics_quality(const char *range, const char *end)
{
    const char *p = range;

    while ((p = memchr(p, ';', end - p)) != NULL) {
        p++;
        p += strspn(p, " \t");
        if (end - p >= 2 && (p[0] == 'q' || p[0] == 'Q') && p[1] == '=') {
            double q = strtod(p + 2, NULL);

            return q <= 0 ? 0 : q >= 1 ? 1000 : (int) (q * 1000 + 0.5);
        }
    }
    return 1000;
}

bool
kd_metrics_wants_openmetrics(const char *accept)
{
    static const char om_type[] = "application/openmetrics-text";
    static const char text_type[] = "text/plain";
    int om = -1, text = -1;
    const char *p = accept;

    while (*p) {
        const char *end = p + strcspn(p, ",");
        const char *type = p + strspn(p, " \t");
        size_t len = strcspn(type, ";, \t");

        if (len == strlen(om_type) && !strncasecmp(type, om_type, len)) {
            om = KD_MAX(om, kd_metrics_quality(p, end));
        } else if (len == strlen(text_type)
                   && !strncasecmp(type, text_type, len)) {
            text = KD_MAX(text, kd_metrics_quality(p, end));
        }
        p = *end ? end + 1 : end;
    }
    return om > 0 && om >= text;
}

const char *
kd_metrics_content_type(bool openmetrics)
{
    return openmetrics
           ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
           : "text/plain; version=0.0.4; charset=utf-8";
}
