/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#include "capture.h"

#include <bcc/bcc_common.h>
#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bcc_shim.h"
#include "maps.h"
#include "options.h"
#include "syscalls.h"
#include "template.h"
#include "util.h"

/* The maps a sample is read from, KD_SAMPLE_MAP(NAME, KEY, ENTRY, VALUE,
 * NEED): map NAME has keys of type KEY and values of ENTRY's member VALUE;
 * it is read, and emptied, into the sample's array NAME of ENTRY and its
 * count n_NAME; the program has it when member NEED of struct kd_needs is
 * true. */
#define KD_SAMPLE_MAPS(KD_SAMPLE_MAP)                                   \
    KD_SAMPLE_MAP(syscalls, struct kd_syscall_key,                      \
                  struct kd_syscall_entry, stat, stats)                 \
    KD_SAMPLE_MAP(tstats, uint32_t, struct kd_tstats_entry, stats, stats) \
    KD_SAMPLE_MAP(hardirqs, struct kd_hardirq_key,                      \
                  struct kd_hardirq_entry, stat, stats)                 \
    KD_SAMPLE_MAP(softirqs, struct kd_softirq_key,                      \
                  struct kd_softirq_entry, stat, stats)                 \
    KD_SAMPLE_MAP(names, uint32_t, struct kd_name_entry, name, stats)   \
    KD_SAMPLE_MAP(hists, struct kd_hist_key, struct kd_hist_entry,     \
                  count, histograms)                                    \
    KD_SAMPLE_MAP(ran, struct kd_ran_key, struct kd_ran_entry, ran,     \
                  ran)

struct kd_sample_map {
    const char *name;
    struct kd_map_layout layout;
    size_t array;               /* Offset of the array in the sample. */
    size_t count;               /* Offset of its count. */
    size_t need;                /* Offset of the bool in struct kd_needs. */
};

static const struct kd_sample_map kd_sample_maps[] = {
#define KD_SAMPLE_MAP(NAME, KEY, ENTRY, VALUE, NEED)                    \
    {                                                                   \
        .name = #NAME,                                                  \
        .layout = {                                                     \
            .key_size = sizeof(KEY),                                    \
            .value_size = sizeof(((ENTRY *) 0)->VALUE),                 \
            .value_offset = offsetof(ENTRY, VALUE),                     \
            .entry_size = sizeof(ENTRY),                                \
        },                                                              \
        .array = offsetof(struct kd_sample, NAME),                      \
        .count = offsetof(struct kd_sample, n_##NAME),                  \
        .need = offsetof(struct kd_needs, NEED),                        \
    },
    KD_SAMPLE_MAPS(KD_SAMPLE_MAP)
#undef KD_SAMPLE_MAP
};

/* Whether the capture's program has sample map 'm'. */
static bool
kd_capture_has(const struct kd_capture *c, const struct kd_sample_map *m)
{
    return *(const bool *) ((const char *) &c->needs + m->need);
}

/* The other maps user space reads or writes, arrays or hashes of u32
 * keys: of a size that may depend on the needs. */
static size_t
kd_tstate_size(const struct kd_needs *needs)
{
    return needs->gaps ? sizeof(struct kd_tstate_gap)
                       : sizeof(struct kd_tstate);
}

static const struct {
    const char *name;
    size_t value_size;          /* 0: kd_tstate_size(). */
    bool acct_only;
} kd_other_maps[] = {
    { "capture_on", sizeof(uint64_t), false },
    { "map_full", sizeof(uint64_t), false },
    { "counters", sizeof(uint64_t), false },
    { "tstate", 0, false },
    { "tstate_zero", 0, false },
    { "cpu_wait", sizeof(struct kd_cpu_wait), true },
};

size_t
kd_capture_wakeup_events(unsigned int pages)
{
    /* A ring buffer record: an 8-byte header and the event, rounded up to
     * 8 bytes. */
    size_t record = 8 + ((sizeof(struct kd_event) + 7) & ~(size_t) 7);
    int n_cpus = kd_possible_cpus();
    long page = sysconf(_SC_PAGESIZE);
    size_t n = (size_t) pages * (page > 0 ? page : 4096) / 4 / record
               / (n_cpus > 0 ? n_cpus : 1);

    return n ? n : 1;
}

int
kd_capture_source(const struct kd_options *options, unsigned int tgid,
                  const struct kd_layout *layout, const char *prefix,
                  bool upcalls, char **text, char **error)
{
    char s_tgid[16], s_poll[16], s_threads[16], s_syscalls[16], s_irqs[16];
    char s_pages[16], s_stacks[16], s_min_ns[32], s_hists[16], s_wakeup[24];
    char s_cpus[16], s_ran[16], s_long_poll[32];
    struct kd_needs needs = kd_options_needs(options);
    int poll = kd_syscall_nr("poll");
    char *body;
    int err;

    snprintf(s_pages, sizeof s_pages, "%u", options->buffer_page_count);
    snprintf(s_wakeup, sizeof s_wakeup, "%zu",
             kd_capture_wakeup_events(options->buffer_page_count));
    snprintf(s_tgid, sizeof s_tgid, "%u", tgid);
    /* Without a poll syscall (e.g. arm64), -1 matches no number. */
    snprintf(s_poll, sizeof s_poll, "%d", poll >= 0 ? poll : -1);
    snprintf(s_threads, sizeof s_threads, "%u", options->max_threads);
    snprintf(s_syscalls, sizeof s_syscalls, "%u",
             options->max_threads * KD_SYSCALLS_PER_THREAD);
    snprintf(s_irqs, sizeof s_irqs, "%u",
             options->max_threads * KD_IRQS_PER_THREAD);
    snprintf(s_stacks, sizeof s_stacks, "%u", options->stack_trace_size);
    snprintf(s_hists, sizeof s_hists, "%u",
             options->max_threads * KD_HISTS_PER_THREAD);
    snprintf(s_min_ns, sizeof s_min_ns, "%lluULL",
             (unsigned long long) options->syscall_events_ns);
    snprintf(s_long_poll, sizeof s_long_poll, "%lluULL",
             (unsigned long long) options->long_poll_ns);
    snprintf(s_cpus, sizeof s_cpus, "%d",
             kd_possible_cpus() > 0 ? kd_possible_cpus() : KD_MAX_CPUS);
    snprintf(s_ran, sizeof s_ran, "%u",
             options->max_threads * KD_RAN_PER_THREAD);

    const struct kd_subst substs[] = {
        { "INCLUDES", layout->includes },
        { "ABI", kd_bpf_abi },
        { "TGID", s_tgid },
        { "OFF_TASK_PID", layout->task_pid },
        { "OFF_TASK_TGID", layout->task_tgid },
        { "OFF_TASK_STATE", layout->task_state },
        { "SIZE_TASK_STATE", layout->task_state_size },
        { "OFF_TASK_CPU", layout->task_cpu },
        { "OFF_TASK_COMM", layout->task_comm },
        { "OFF_TASK_SUM_EXEC", layout->task_sum_exec },
        { "OFF_TASK_PCOUNT", layout->task_pcount },
        { "OFF_IRQACTION_NAME", layout->irqaction_name },
        { "OFF_PT_REGS_SYSCALL_NR", layout->syscall_nr },
        { "OFF_PT_REGS_RC", layout->regs_rc },
        { "SYSCALL_POLL", s_poll },
        { "MAX_THREADS", s_threads },
        { "MAX_SYSCALL_ENTRIES", s_syscalls },
        { "MAX_IRQ_ENTRIES", s_irqs },
        { "WITH_EVENTS", needs.ring_buffer ? "1" : "0" },
        { "WITH_SYSCALL_EVENTS", needs.syscall_events ? "1" : "0" },
        { "WITH_STACKS", needs.stacks ? "1" : "0" },
        { "STACK_TRACE_SIZE", s_stacks },
        { "SYSCALL_EVENTS_MIN_NS", s_min_ns },
        { "SKIP_POLL_EVENTS",
          options->skip_syscall_poll_events ? "1" : "0" },
        { "WITH_UPCALL_STATS", upcalls ? "1" : "0" },
        { "WITH_HISTOGRAMS", needs.histograms ? "1" : "0" },
        { "MAX_HIST_ENTRIES", s_hists },
        { "WITH_START_TRIGGER", needs.start_trigger ? "1" : "0" },
        { "WITH_STOP_TRIGGER", needs.stop_trigger ? "1" : "0" },
        { "BUFFER_PAGE_COUNT", s_pages },
        { "RB_WAKEUP_EVENTS", s_wakeup },
        { "WITH_STATS", needs.stats ? "1" : "0" },
        { "WITH_ACCT", needs.acct ? "1" : "0" },
        { "WITH_GAPS", needs.gaps ? "1" : "0" },
        { "MAX_CPUS", s_cpus },
        { "MAX_RAN_ENTRIES", s_ran },
        { "LONG_POLL_MIN_NS", s_long_poll },
    };
    err = kd_template_expand(kd_bpf_template, substs, KD_ARRAY_SIZE(substs),
                             &body, error);
    if (err) {
        return err;
    }
    *text = kd_xasprintf("%s%s", prefix ? prefix : "", body);
    free(body);
    return 0;
}

static double
kd_elapsed(const struct timespec *start)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - start->tv_sec)
           + (now.tv_nsec - start->tv_nsec) / 1e9;
}

/* Checks that map 'name' has the key and value sizes user space expects,
 * so that the template and sample.h cannot drift apart unnoticed. */
static int
kd_capture_check_map(struct kd_capture *c, const char *name,
                     size_t key_size, size_t value_size, char **error)
{
    void *module = c->prog.module;
    size_t k = bpf_table_key_size(module, name);
    size_t v = bpf_table_leaf_size(module, name);

    if (k != key_size || v != value_size) {
        *error = kd_xasprintf("Internal error: map '%s' has key/value sizes "
                              "%zu/%zu, expected %zu/%zu", name, k, v,
                              key_size, value_size);
        return EPROTO;
    }
    return 0;
}

/* Checks every map user space reads against kd_abi.h's sizes. */
static int
kd_capture_check_maps(struct kd_capture *c, char **error)
{
    int err = 0;

    for (size_t i = 0; !err && i < KD_ARRAY_SIZE(kd_sample_maps); i++) {
        const struct kd_sample_map *m = &kd_sample_maps[i];

        if (kd_capture_has(c, m)) {
            err = kd_capture_check_map(c, m->name, m->layout.key_size,
                                       m->layout.value_size, error);
        }
    }
    for (size_t i = 0; !err && i < KD_ARRAY_SIZE(kd_other_maps); i++) {
        size_t size = kd_other_maps[i].value_size;

        if (!kd_other_maps[i].acct_only || c->needs.acct) {
            err = kd_capture_check_map(c, kd_other_maps[i].name,
                                       sizeof(uint32_t),
                                       size ? size
                                            : kd_tstate_size(&c->needs),
                                       error);
        }
    }
    return err;
}

/* Compiles 'text'.  libbcc writes what -D asks for (the LLVM IR, ...) to
 * standard output: in JSON mode, where standard output carries only JSON
 * Lines, it goes to standard error instead. */
static int
kd_capture_compile(struct kd_capture *c, const char *text,
                   const struct kd_options *options, char **error)
{
    int saved = -1;
    int err;

    if (options->json && options->debug) {
        fflush(stdout);
        saved = dup(STDOUT_FILENO);
        if (saved >= 0) {
            dup2(STDERR_FILENO, STDOUT_FILENO);
        }
    }
    err = kd_program_compile(&c->prog, text, options->debug, error);
    if (saved >= 0) {
        fflush(stdout);
        dup2(saved, STDOUT_FILENO);
        close(saved);
    }
    return err;
}

/* Decides whether to count upcalls: they need a kretprobe on the
 * openvswitch module's ovs_dp_upcall(); without it, says so once. */
static void
kd_capture_want_upcalls(struct kd_capture *c,
                        const struct kd_options *options)
{
    char *why = NULL;

    if (options->skip_upcall_stats || options->long_poll) {
        return;
    }
    c->with_upcalls = kd_hook_kernel_function_ok("ovs_dp_upcall",
                                                 &c->upcall_module, &why);
    if (!c->with_upcalls) {
        fprintf(stderr, "kernel_delay: note: no upcall statistics: %s "
                "(--skip-upcall-stats hides this note)\n", why);
        free(why);
    }
}

/* Builds the program's text for this kernel, the options and the hooks'
 * code into '*text'.  Returns 0 or a positive errno with '*error'. */
static int
kd_capture_build(struct kd_capture *c, const struct kd_options *options,
                 struct kd_hook *hooks[2], char **text, char **error)
{
    struct kd_ds prefix = KD_DS_EMPTY_INITIALIZER;
    struct kd_layout layout;
    int err;

    err = kd_layout_init(&layout, getenv("KERNEL_DELAY_NO_BTF") != NULL,
                         error);
    if (err) {
        return err;
    }
    if (options->debug) {
        fprintf(stderr, "kernel_delay: kernel layout from %s: "
                "task_struct.pid @%s, .tgid @%s, .%s @%s (%s bytes), "
                "CPU @%s, irqaction.name @%s, pt_regs syscall nr @%s, "
                "return value @%s\n",
                layout.from_btf ? "BTF" : "kernel headers (no BTF)",
                layout.task_pid, layout.task_tgid, layout.state_field,
                layout.task_state, layout.task_state_size, layout.task_cpu,
                layout.irqaction_name, layout.syscall_nr, layout.regs_rc);
    }
    for (size_t i = 0; i < 2; i++) {
        char *code = hooks[i] ? kd_hook_code(hooks[i]) : NULL;

        if (code) {
            kd_ds_put_format(&prefix, "%s\n", code);
            free(code);
        }
    }
    kd_capture_want_upcalls(c, options);
    err = kd_capture_source(options, c->tgid, &layout,
                            prefix.length ? kd_ds_cstr(&prefix) : NULL,
                            c->with_upcalls, text, error);
    kd_ds_destroy(&prefix);
    /* An error here means the template and this program disagree: a bug
     * of ours. */
    return err ? EPROTO : 0;
}

/* Attaches the program's functions: the raw tracepoints, the triggers'
 * 'hooks' and the upcall kretprobe.  Returns 0 or a positive errno. */
static int
kd_capture_attach(struct kd_capture *c, const struct kd_options *options,
                  struct kd_hook *hooks[2], char **error)
{
    struct timespec start;
    int err;

    clock_gettime(CLOCK_MONOTONIC, &start);
    err = kd_program_attach_raw_tracepoints(&c->prog, options->debug,
                                            error);
    for (size_t i = 0; !err && i < 2; i++) {
        if (hooks[i]) {
            err = kd_hook_attach(hooks[i], &c->prog, options->debug, error);
        }
    }
    if (!err && c->with_upcalls) {
        err = kd_program_attach_kprobe(&c->prog, "kd_upcall_return", true,
                                       "ovs_dp_upcall", options->debug,
                                       error);
    }
    if (!err && options->debug) {
        fprintf(stderr, "kernel_delay: loaded and attached %zu functions "
                "in %.3f s\n", c->prog.n_links, kd_elapsed(&start));
    }
    return err;
}

int
kd_capture_open(struct kd_capture *c, const struct kd_options *options,
                unsigned int tgid, struct kd_hook *start_hook,
                struct kd_hook *stop_hook, char **error)
{
    struct kd_hook *hooks[2] = { start_hook, stop_hook };
    struct timespec start;
    char *text = NULL;
    int err;

    memset(c, 0, sizeof *c);
    c->prog = (struct kd_program) KD_PROGRAM_INITIALIZER;
    c->tgid = tgid;
    c->capture_fd = c->map_full_fd = c->counters_fd = -1;
    c->needs = kd_options_needs(options);
    *error = NULL;

    err = kd_capture_build(c, options, hooks, &text, error);
    if (err) {
        goto cleanup;
    }
    clock_gettime(CLOCK_MONOTONIC, &start);
    err = kd_capture_compile(c, text, options, error);
    if (err) {
        goto cleanup;
    }
    if (options->debug) {
        fprintf(stderr, "kernel_delay: compiled in %.3f s (kernel symbol "
                "check: %s)\n", kd_elapsed(&start),
                kd_bcc_shim_answered() ? "eBPF helper probe"
                                       : "libbcc, /proc/kallsyms");
    }
    err = kd_capture_check_maps(c, error);
    if (err) {
        goto cleanup;
    }
    c->capture_fd = kd_program_map_fd(&c->prog, "capture_on");
    c->map_full_fd = kd_program_map_fd(&c->prog, "map_full");
    c->counters_fd = kd_program_map_fd(&c->prog, "counters");

    err = kd_capture_attach(c, options, hooks, error);
    if (err) {
        goto cleanup;
    }
    if (c->needs.ring_buffer) {
        err = kd_events_open(&c->events,
                             kd_program_map_fd(&c->prog, "events"));
        if (err) {
            *error = kd_xasprintf("Failed to open the eBPF ring buffer: %s",
                                  strerror(err));
            goto cleanup;
        }
        c->with_events = true;
    }

cleanup:
    free(text);
    return err;
}

int
kd_capture_set(struct kd_capture *c, uint64_t state)
{
    return kd_map_set_u64(c->capture_fd, 0, state);
}

int
kd_capture_get(struct kd_capture *c, uint64_t *state)
{
    return kd_map_get_u64(c->capture_fd, 0, state);
}

int
kd_capture_counters(struct kd_capture *c, uint64_t counters[KD_N_COUNTERS])
{
    return kd_map_percpu_sums(c->counters_fd, counters, KD_N_COUNTERS,
                              false);
}

/* Reads and empties map 'name' into a new array of entries. */
static int
kd_capture_read_map(struct kd_capture *c, const char *name,
                    const struct kd_map_layout *layout, void **entries,
                    size_t *n, char **error)
{
    int fd = kd_program_map_fd(&c->prog, name);
    size_t max = bpf_table_max_entries(c->prog.module, name);
    int err = kd_map_read(fd, layout, max, true, entries, n);

    if (err) {
        *error = kd_xasprintf("Failed to read eBPF map '%s': %s", name,
                              strerror(err));
    }
    return err;
}

/* Reads and empties the per-CPU upcall counts into 's'. */
static int
kd_capture_read_upcalls(struct kd_capture *c, struct kd_sample *s,
                        char **error)
{
    int n_cpus = kd_possible_cpus();
    struct kd_map_layout l;
    uint64_t *entries;
    size_t n, stride;
    int err;

    if (n_cpus <= 0 || n_cpus > KD_MAX_CPUS) {
        *error = kd_xasprintf("Cannot tell the number of CPUs");
        return ENODEV;
    }
    stride = 1 + n_cpus;
    l = (struct kd_map_layout) {
        .key_size = sizeof(uint64_t),
        .value_size = n_cpus * sizeof(uint64_t),
        .value_offset = sizeof(uint64_t),
        .entry_size = stride * sizeof(uint64_t),
    };
    err = kd_capture_read_map(c, "upcall_count", &l, (void **) &entries, &n,
                              error);
    if (err) {
        return err;
    }
    s->n_cpus = n_cpus;
    s->upcalls = kd_xcalloc(n, sizeof *s->upcalls);
    s->n_upcalls = n;
    for (size_t i = 0; i < n; i++) {
        s->upcalls[i].key = entries[i * stride];
        s->upcalls[i].per_cpu = kd_xcalloc(n_cpus, sizeof(uint64_t));
        memcpy(s->upcalls[i].per_cpu, &entries[i * stride + 1],
               n_cpus * sizeof(uint64_t));
    }
    free(entries);
    return 0;
}

size_t
kd_capture_stack(struct kd_capture *c, int32_t id, uint64_t *ips)
{
    int fd = kd_program_map_fd(&c->prog, "stack_traces");
    uint32_t key = id;
    size_t n = 0;

    if (id < 0 || fd < 0) {
        return 0;
    }
    memset(ips, 0, KD_STACK_DEPTH * sizeof *ips);
    if (kd_map_lookup(fd, &key, ips)) {
        return 0;
    }
    while (n < KD_STACK_DEPTH && ips[n]) {
        n++;
    }
    return n;
}

/* Empties the stack map, once its stacks are reported. */
int
kd_capture_clear_stacks(struct kd_capture *c)
{
    struct kd_map_layout l = {
        .key_size = sizeof(uint32_t),
        .value_size = KD_STACK_DEPTH * sizeof(uint64_t),
        .value_offset = sizeof(uint32_t),
        .entry_size = sizeof(uint32_t) + KD_STACK_DEPTH * sizeof(uint64_t),
    };

    if (!c->needs.stacks) {
        return 0;
    }
    return kd_map_clear(kd_program_map_fd(&c->prog, "stack_traces"), &l,
                        bpf_table_max_entries(c->prog.module,
                                              "stack_traces"));
}

/* Updates c->misses with the recursion misses of each loaded function
 * since the last call.  A function whose counter cannot be read (a kernel
 * before 5.12 has none) counts none. */
static void
kd_capture_read_misses(struct kd_capture *c)
{
    size_t n = c->prog.n_funcs;

    if (n != c->n_misses) {
        c->misses_seen = kd_xreallocarray(c->misses_seen, n,
                                          sizeof *c->misses_seen);
        c->misses = kd_xreallocarray(c->misses, n, sizeof *c->misses);
        for (size_t i = c->n_misses; i < n; i++) {
            c->misses_seen[i] = 0;
        }
        c->n_misses = n;
    }
    for (size_t i = 0; i < n; i++) {
        struct bpf_prog_info info;
        uint32_t len = sizeof info;

        memset(&info, 0, sizeof info);
        c->misses[i] = 0;
        if (!bpf_obj_get_info_by_fd(c->prog.funcs[i].fd, &info, &len)
            && len >= offsetof(struct bpf_prog_info, recursion_misses)
                      + sizeof info.recursion_misses
            && info.recursion_misses > c->misses_seen[i]) {
            c->misses[i] = info.recursion_misses - c->misses_seen[i];
            c->misses_seen[i] = info.recursion_misses;
        }
    }
}

const char *
kd_capture_func_hook(const struct kd_capture *c, size_t i)
{
    const char *name = c->prog.funcs[i].name;
    size_t len = strlen(KD_RAW_TP_PREFIX);

    return strncmp(name, KD_RAW_TP_PREFIX, len) ? name : name + len;
}

int
kd_capture_collect(struct kd_capture *c, struct kd_sample *s,
                   uint64_t lost[KD_N_FULL_MAPS], char **error)
{
    struct kd_map_layout tstate = {
        .key_size = sizeof(uint32_t),
        .value_size = kd_tstate_size(&c->needs),
        .value_offset = sizeof(uint32_t),
        .entry_size = sizeof(uint32_t) + kd_tstate_size(&c->needs),
    };
    int err;

    *error = NULL;
    s->pid = c->tgid;
    s->with_ran = c->needs.ran;

    for (size_t i = 0; i < KD_ARRAY_SIZE(kd_sample_maps); i++) {
        const struct kd_sample_map *m = &kd_sample_maps[i];
        void *entries;

        if (!kd_capture_has(c, m)) {
            continue;
        }
        err = kd_capture_read_map(c, m->name, &m->layout, &entries,
                                  (size_t *) ((char *) s + m->count), error);
        if (err) {
            return err;
        }
        *(void **) ((char *) s + m->array) = entries;
    }

    if (c->with_upcalls) {
        err = kd_capture_read_upcalls(c, s, error);
        if (err) {
            return err;
        }
        /* The kernel disarms a kprobe in a module that is unloaded, and
         * does not arm it again if the module comes back. */
        if (c->upcall_module && !c->upcall_module_gone) {
            char *path = kd_xasprintf("/sys/module/%s/initstate",
                                      c->upcall_module);

            c->upcall_module_gone = !kd_path_exists(path);
            free(path);
        }
    }

    /* The intervals in progress must not carry over to the next sample. */
    err = kd_map_clear(kd_program_map_fd(&c->prog, "tstate"), &tstate,
                       bpf_table_max_entries(c->prog.module, "tstate"));
    if (err) {
        *error = kd_xasprintf("Failed to clear eBPF map 'tstate': %s",
                              strerror(err));
        return err;
    }
    if (c->needs.acct) {
        /* The waiters they registered, likewise. */
        err = kd_map_zero_array(kd_program_map_fd(&c->prog, "cpu_wait"),
                                sizeof(struct kd_cpu_wait),
                                bpf_table_max_entries(c->prog.module,
                                                      "cpu_wait"));
        if (err) {
            *error = kd_xasprintf("Failed to clear eBPF map 'cpu_wait': "
                                  "%s", strerror(err));
            return err;
        }
    }

    return kd_capture_read_warnings(c, lost, error);
}

int
kd_capture_read_warnings(struct kd_capture *c,
                         uint64_t lost[KD_N_FULL_MAPS], char **error)
{
    int err = kd_map_percpu_sums(c->map_full_fd, lost, KD_N_FULL_MAPS,
                                 true);

    *error = NULL;
    if (err) {
        *error = kd_xasprintf("Failed to read eBPF map 'map_full': %s",
                              strerror(err));
        return err;
    }
    kd_capture_read_misses(c);
    return 0;
}

void
kd_capture_close(struct kd_capture *c)
{
    if (c->with_events) {
        kd_events_close(&c->events);
        c->with_events = false;
    }
    kd_program_close(&c->prog);
    free(c->upcall_module);
    c->upcall_module = NULL;
    free(c->misses_seen);
    free(c->misses);
    c->misses_seen = c->misses = NULL;
    c->n_misses = 0;
}
