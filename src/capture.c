/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* The eBPF side of a run: the program built, attached, its maps read. */

#include "capture.h"
#include "capture_priv.h"

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
#include "gap.h"
#include "maps.h"
#include "options.h"
#include "program.h"
#include "source.h"
#include "symbols.h"
#include "syscalls.h"
#include "template.h"
#include "util.h"
#include "waiter.h"


struct kd_sample_map {
    const char *name;
    struct kd_map_layout layout;
    size_t array;               /* Offset of the array in the sample. */
    size_t count;               /* Offset of its count. */
    size_t need;                /* Offset of the bool in struct kd_needs. */
};

/* The maps a sample is read from: KD_SAMPLE_MAPS (sample.h). */
static const struct kd_sample_map kd_sample_maps[] = {
#define KD_SAMPLE_MAP(NAME, KEY, ENTRY, VALUE, NEED, CMP, REPORTED)     \
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
    /* The sleep going on of --off-cpu is in the larger entry. */
    return needs->gaps || needs->blocked ? sizeof(struct kd_tstate_gap)
                                         : sizeof(struct kd_tstate);
}

/* How the tstate map's entries are laid out (see struct kd_map_layout). */
static struct kd_map_layout
kd_tstate_layout(const struct kd_needs *needs)
{
    struct kd_map_layout l = {
        .key_size = sizeof(uint32_t),
        .value_size = kd_tstate_size(needs),
        .value_offset = sizeof(uint32_t),
        .entry_size = sizeof(uint32_t) + kd_tstate_size(needs),
    };

    return l;
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

/* Upcall statistics, when the options want them, need a kretprobe on
 * the openvswitch module's ovs_dp_upcall(): without it, they are off,
 * and a note says so once. */
static void
kd_capture_check_upcalls(struct kd_capture *c)
{
    char *why = NULL;

    if (c->needs.upcalls
        && !kd_hook_kernel_function_ok("ovs_dp_upcall", &c->upcall_module,
                                       &why)) {
        c->needs.upcalls = false;
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
    struct kd_source_unwind unwind;
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
                "CPU @%s, irqaction.name @%s, pt_regs syscall nr @%s "
                "(%s bytes), return value @%s\n",
                layout.from_btf ? "BTF" : "kernel headers (no BTF)",
                layout.task_pid, layout.task_tgid, layout.state_field,
                layout.task_state, layout.task_state_size, layout.task_cpu,
                layout.irqaction_name, layout.syscall_nr,
                layout.syscall_nr_size, layout.regs_rc);
    }
    for (size_t i = 0; i < 2; i++) {
        char *code = hooks[i] ? kd_hook_code(hooks[i]) : NULL;

        if (code) {
            kd_ds_put_format(&prefix, "%s\n", code);
            free(code);
        }
    }
    kd_capture_check_upcalls(c);
    kd_capture_unwind_build(c, options, layout.from_btf);
    if (c->unwind) {
        kd_unwind_sizes(c->unwind, &unwind);
    }
    err = kd_source_build(options, &c->needs, c->tgid, &layout,
                          c->unwind ? &unwind : NULL,
                          prefix.length ? kd_ds_cstr(&prefix) : NULL,
                          text, error);
    kd_ds_destroy(&prefix);
    /* An error here means the template and this program disagree: a bug
     * of ours. */
    return err ? EPROTO : 0;
}

/* Attaches kd_profile() to a CPU clock perf event of each online CPU.
 * Returns 0 or a positive errno with '*error'. */
static int
kd_capture_attach_profile(struct kd_capture *c,
                          const struct kd_options *options, char **error)
{
    int n = kd_possible_cpus();
    char *list = NULL;
    bool *online;
    int err = 0;

    if (n <= 0 || kd_read_file_line("/sys/devices/system/cpu/online",
                                    &list)) {
        *error = kd_xstrdup("Failed to read the online CPUs "
                            "(/sys/devices/system/cpu/online)");
        free(list);
        return ENODEV;
    }
    online = kd_xcalloc(n, sizeof *online);
    if (kd_parse_cpu_list(list, online, n) < 0) {
        *error = kd_xasprintf("Failed to parse the online CPUs: %s", list);
        err = EINVAL;
    }
    for (int cpu = 0; !err && cpu < n; cpu++) {
        if (online[cpu]) {
            err = kd_program_attach_cpu_clock(&c->prog, "kd_profile",
                                              options->profile_hz, cpu,
                                              options->debug, error);
        }
    }
    free(online);
    free(list);
    return err;
}

/* Tells the symbols where the kernel put the program's functions, so that
 * frames in them are named after them.  A function the kernel says
 * nothing of is left out. */
static void
kd_capture_name_bpf(struct kd_capture *c)
{
    struct kd_symbols_bpf *v = kd_xcalloc(c->prog.n_funcs + 1, sizeof *v);
    size_t n = 0;

    for (size_t i = 0; i < c->prog.n_funcs; i++) {
        struct bpf_prog_info info;
        uint64_t addr = 0;
        uint32_t len = 0, info_len = sizeof info;

        memset(&info, 0, sizeof info);
        info.nr_jited_ksyms = 1;
        info.jited_ksyms = (uintptr_t) &addr;
        info.nr_jited_func_lens = 1;
        info.jited_func_lens = (uintptr_t) &len;
        if (!bpf_obj_get_info_by_fd(c->prog.funcs[i].fd, &info, &info_len)
            && addr && len) {
            v[n].start = addr;
            v[n].size = len;
            v[n++].name = c->prog.funcs[i].name;
        }
    }
    kd_symbols_set_bpf(v, n);
    free(v);
}

/* Attaches the program's functions: the raw tracepoints, the triggers'
 * 'hooks', the upcall kretprobe and the profile's perf events.  Returns 0
 * or a positive errno. */
static int
kd_capture_attach(struct kd_capture *c, const struct kd_options *options,
                  struct kd_hook *hooks[2], char **error)
{
    struct timespec start;
    int err;

    clock_gettime(CLOCK_MONOTONIC, &start);
    err = kd_capture_unwind_load(c, options, error);
    if (!err) {
        err = kd_program_attach_raw_tracepoints(&c->prog, options->debug,
                                                error);
    }
    for (size_t i = 0; !err && i < 2; i++) {
        if (hooks[i]) {
            err = kd_hook_attach(hooks[i], &c->prog, options->debug, error);
        }
    }
    if (!err && c->needs.upcalls) {
        err = kd_program_attach_kprobe(&c->prog, "kd_upcall_return", true,
                                       "ovs_dp_upcall", options->debug,
                                       error);
    }
    if (!err && c->needs.profile) {
        err = kd_capture_attach_profile(c, options, error);
    }
    if (!err) {
        kd_capture_name_bpf(c);
    }
    if (!err && options->debug) {
        fprintf(stderr, "kernel_delay: loaded and attached %zu functions "
                "in %.3f s\n", c->prog.n_links, kd_elapsed(&start));
    }
    return err;
}

int
kd_capture_open(struct kd_capture **capture, const struct kd_options *options,
                unsigned int tgid, struct kd_hook *start_hook,
                struct kd_hook *stop_hook, char **error)
{
    struct kd_hook *hooks[2] = { start_hook, stop_hook };
    struct kd_capture *c = kd_xcalloc(1, sizeof *c);
    struct timespec start;
    char *text = NULL;
    int err;

    *capture = c;
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

unsigned int
kd_capture_tgid(const struct kd_capture *c)
{
    return c->tgid;
}

const struct kd_needs *
kd_capture_needs(const struct kd_capture *c)
{
    return &c->needs;
}

struct kd_events *
kd_capture_events(struct kd_capture *c)
{
    return c->with_events ? &c->events : NULL;
}

const struct kd_event_state *
kd_capture_event_state(const struct kd_capture *c)
{
    return &c->events.state;
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


/* Reads the threads' tstate entries (--long-poll-events) into a new array
 * '*v' of '*n'.  Returns 0 or a positive errno with '*error'. */
int
kd_capture_read_tstate(struct kd_capture *c, struct kd_tstate_entry **v,
                       size_t *n, char **error)
{
    struct kd_map_layout l = kd_tstate_layout(&c->needs);
    unsigned char *entries = NULL;
    int err;

    *v = NULL;
    *n = 0;
    err = kd_map_read(kd_program_map_fd(&c->prog, "tstate"), &l,
                      bpf_table_max_entries(c->prog.module, "tstate"),
                      false, (void **) &entries, n);
    if (err) {
        *error = kd_xasprintf("Failed to read eBPF map 'tstate': %s",
                              strerror(err));
        return err;
    }
    *v = kd_xcalloc(*n ? *n : 1, sizeof **v);
    for (size_t i = 0; i < *n; i++) {
        const unsigned char *e = entries + i * l.entry_size;

        memcpy(&(*v)[i].tid, e, sizeof (*v)[i].tid);
        memcpy(&(*v)[i].g, e + l.value_offset, sizeof (*v)[i].g);
    }
    free(entries);
    return 0;
}

int
kd_capture_open_gaps(struct kd_capture *c, uint64_t now, uint64_t min_ns,
                     struct kd_gap_event **events, size_t *n, char **error)
{
    struct kd_tstate_entry *v;
    size_t n_entries;
    int err;

    *events = NULL;
    *n = 0;
    *error = NULL;
    if (!c->needs.gaps) {
        return 0;
    }
    err = kd_capture_read_tstate(c, &v, &n_entries, error);
    if (err) {
        return err;
    }
    *events = kd_xreallocarray(NULL, n_entries ? n_entries : 1,
                               sizeof **events);
    for (size_t i = 0; i < n_entries; i++) {
        const struct kd_tstate_gap *g = &v[i].g;

        if (g->start_ns && now > g->start_ns && now - g->start_ns > min_ns
            && kd_gap_event_in_progress(g, v[i].tid, c->tgid, now,
                                        &(*events)[*n])) {
            ++*n;
        }
    }
    free(v);
    return 0;
}

/* The name of loaded function 'i', as messages give it: "sched_switch"
 * for raw tracepoint sched_switch, else the function's name. */
static const char *
kd_capture_func_hook(const struct kd_capture *c, size_t i)
{
    const char *name = c->prog.funcs[i].name;
    size_t len = strlen(KD_RAW_TP_PREFIX);

    return strncmp(name, KD_RAW_TP_PREFIX, len) ? name : name + len;
}

/* The recursion misses of each loaded function since the last call, into
 * 'l'.  A function whose count cannot be read (a kernel before 5.12 has
 * none) counts none. */
static void
kd_capture_take_misses(struct kd_capture *c, struct kd_losses *l)
{
    size_t n = c->prog.n_funcs;

    if (n != c->n_misses_seen) {
        c->misses_seen = kd_xreallocarray(c->misses_seen, n,
                                          sizeof *c->misses_seen);
        for (size_t i = c->n_misses_seen; i < n; i++) {
            c->misses_seen[i] = 0;
        }
        c->n_misses_seen = n;
    }
    for (size_t i = 0; i < n; i++) {
        struct bpf_prog_info info;
        uint32_t len = sizeof info;

        memset(&info, 0, sizeof info);
        if (!bpf_obj_get_info_by_fd(c->prog.funcs[i].fd, &info, &len)
            && len >= offsetof(struct bpf_prog_info, recursion_misses)
                      + sizeof info.recursion_misses
            && info.recursion_misses > c->misses_seen[i]) {
            kd_losses_add_miss(l, kd_capture_func_hook(c, i),
                               info.recursion_misses - c->misses_seen[i]);
            c->misses_seen[i] = info.recursion_misses;
        }
    }
}

/* The program's counters since the last call, into 'l'; none if they
 * cannot be read. */
static void
kd_capture_take_counters(struct kd_capture *c, struct kd_losses *l)
{
    uint64_t now[KD_N_COUNTERS];
    const uint64_t *seen = c->counters_seen;

    if (kd_map_percpu_sums(c->counters_fd, now, KD_N_COUNTERS, false)) {
        return;
    }
    l->events_dropped = now[KD_COUNTER_EVENTS_DROPPED]
                        - seen[KD_COUNTER_EVENTS_DROPPED];
    l->triggers_missed = now[KD_COUNTER_TRIGGERS_MISSED]
                         - seen[KD_COUNTER_TRIGGERS_MISSED];
    l->switches_missed = now[KD_COUNTER_SWITCHES_MISSED]
                         - seen[KD_COUNTER_SWITCHES_MISSED];
    l->lost_samples = now[KD_COUNTER_PROFILE_LOST]
                      - seen[KD_COUNTER_PROFILE_LOST];
    l->lost_sleeps = now[KD_COUNTER_SLEEPS_LOST]
                     - seen[KD_COUNTER_SLEEPS_LOST];
    memcpy(c->counters_seen, now, sizeof now);
}

int
kd_capture_take_losses(struct kd_capture *c, struct kd_losses *l,
                       char **error)
{
    int err;

    *l = (struct kd_losses) KD_LOSSES_INITIALIZER;
    *error = NULL;
    /* The map_full counts are reset as they are read. */
    err = kd_map_percpu_sums(c->map_full_fd, l->map_full, KD_N_FULL_MAPS,
                             true);
    if (err) {
        *error = kd_xasprintf("Failed to read eBPF map 'map_full': %s",
                              strerror(err));
        return err;
    }
    kd_capture_take_misses(c, l);
    kd_capture_take_counters(c, l);
    kd_capture_unwind_losses(c, l);
    l->upcall_module_gone = c->upcall_module_gone ? c->upcall_module : NULL;
    kd_losses_add(&c->total, l);
    return 0;
}

const struct kd_losses *
kd_capture_total_losses(const struct kd_capture *c)
{
    return &c->total;
}

int
kd_capture_collect(struct kd_capture *c, struct kd_sample *s,
                   struct kd_losses *losses, char **error)
{
    struct kd_map_layout tstate = kd_tstate_layout(&c->needs);
    int err;

    *losses = (struct kd_losses) KD_LOSSES_INITIALIZER;
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

    if (c->needs.upcalls) {
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

    return kd_capture_take_losses(c, losses, error);
}

void
kd_capture_close(struct kd_capture *c)
{
    if (!c) {
        return;
    }
    if (c->with_events) {
        kd_events_close(&c->events);
    }
    kd_program_close(&c->prog);
    kd_unwind_destroy(c->unwind);
    free(c->upcall_module);
    free(c->misses_seen);
    free(c->profile_unheld);
    kd_losses_destroy(&c->total);
    free(c);
}
