/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_OPTIONS_H
#define KD_OPTIONS_H 1

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Command line options; the names, defaults and meanings are those of the
 * reference kernel_delay.py.  kd_options_defaults holds the defaults. */
struct kd_options {
    unsigned int debug;             /* -D [FLAGS]: libbcc debug flags. */
    unsigned int pid;               /* -p: 0 means find ovs-vswitchd. */
    bool syscall_events;            /* -s [DURATION_NS] given. */
    uint64_t syscall_events_ns;     /* Its duration, 0 for all. */
    unsigned int buffer_page_count; /* Ring buffer pages, power of 2. */
    unsigned int sample_count;
    double sample_interval;         /* Seconds. */
    double sample_time;             /* Seconds. */
    bool skip_syscall_poll_events;
    bool skip_upcall_stats;
    unsigned int stack_trace_size;
    const char *start_trigger;
    const char *stop_trigger;
    uint64_t trigger_delta;         /* ns. */
    unsigned int max_threads;       /* Sizes the eBPF maps. */

    /* Beyond the reference. */
    const char *thread_regex;       /* --thread: report matching threads. */
    unsigned int *tids;             /* --tid: report these threads. */
    size_t n_tids;
    bool json;                      /* --json: JSON Lines, not text. */
    bool wall_clock;                /* --wall-clock: -s events' times. */
    bool quiet;                     /* -q: no status line. */
    bool histogram;                 /* --histogram: log2 histograms. */
    bool summary;                   /* --summary: a table per sample. */
    bool list_probes;               /* --list-probes: list USDT probes. */
    bool long_poll;                 /* --long-poll-events [DURATION_NS]. */
    uint64_t long_poll_ns;          /* Its threshold. */
    bool wait_target;               /* --wait-target: wait, re-attach. */
    const char *node_name;          /* --node-name, or $KD_NODE_NAME. */
    unsigned int profile_hz;        /* --profile-hz: 0 is off. */
    bool off_cpu;                   /* --off-cpu. */
    const char *folded;             /* --folded: the file, or NULL. */
    bool frame_pointers;            /* --frame-pointers. */
    unsigned int unwind_mib;        /* --unwind-memory. */
    const char *trace_dir;          /* --trace-dir: where, or NULL. */
    unsigned int trace_history;     /* --trace-history: records per
                                     * thread, a power of 2. */
    unsigned int trace_max_mib;     /* --trace-max-mib. */
    unsigned int trace_max_files;   /* --trace-max-files. */
    const char *on_long_poll;       /* --on-long-poll: the command. */
    uint64_t on_long_poll_period_ns;    /* --on-long-poll-period. */
    const char *metrics;            /* --metrics ADDR:PORT, or NULL. */
    unsigned int metrics_tasks;     /* --metrics-tasks. */
    bool sample_count_set;          /* --sample-count was given. */
    bool version;                   /* --version was shown. */
};

extern const struct kd_options kd_options_defaults;

/* Largest values accepted; beyond the reference, which takes any. */
#define KD_MAX_PID            4194304u  /* PID_MAX_LIMIT. */
#define KD_MAX_SECONDS        31536000  /* One year. */
#define KD_MAX_PAGE_COUNT     (1u << 20)
#define KD_MAX_SAMPLE_COUNT   100000000u
#define KD_MAX_STACK_TRACES   (1u << 20)
#define KD_MIN_MAX_THREADS    64u
#define KD_MAX_MAX_THREADS    (1u << 20)
#define KD_MAX_PROFILE_HZ     10000u
#define KD_MAX_UNWIND_MIB     4096u
#define KD_UNWIND_DEFAULT_MIB 64u
#define KD_MIN_TRACE_HISTORY  16u
#define KD_MAX_TRACE_HISTORY  4096u
#define KD_TRACE_HISTORY_DEFAULT 256u
#define KD_MAX_TRACE_MIB      (1u << 20)
#define KD_TRACE_MIB_DEFAULT  64u
#define KD_MAX_TRACE_FILES    1000000u
#define KD_TRACE_FILES_DEFAULT 256u
#define KD_ON_LONG_POLL_PERIOD_DEFAULT_NS 60000000000ull

/* --long-poll-events without a value: OVS's own threshold for its
 * "Unreasonably long poll interval" warning, 1 s. */
#define KD_LONG_POLL_DEFAULT_NS 1000000000ull

/* Parses 'argv' into 'options' (first set to kd_options_defaults); call
 * kd_options_destroy() when done with them.
 *
 * Returns -1 when the program should go on, otherwise the exit status the
 * program must exit with right away: 0 after --help or --version (printed
 * on 'out'), 2 after a usage error (printed on 'err' as the reference's
 * argparse does), and then 'options' holds nothing to free.  --version
 * prints only "kernel_delay VERSION" and sets 'options->version', for the
 * caller to add what it finds of the host (kd_host_info_probe()). */
int kd_options_parse(struct kd_options *options, int argc, char *argv[],
                     FILE *out, FILE *err);

/* What the options ask of the capture and of the reports: decided here,
 * once, and read everywhere else. */
struct kd_needs {
    bool start_trigger;
    bool stop_trigger;
    bool syscall_events;    /* --syscall-events. */
    uint64_t syscall_events_ns; /* Their threshold, 0 for all. */
    bool wall_clock;        /* Their text times on the wall clock. */
    bool stacks;            /* Their stacks (--stack-trace-size > 0). */
    bool ring_buffer;       /* Events of either kind reach user space. */
    bool histograms;        /* --histogram. */
    bool summary;           /* --summary. */
    bool stats;             /* The per-sample statistics (not with
                             * --long-poll-events). */
    bool acct;              /* Time accounts and who ran instead
                             * (--summary, --json, --long-poll-events). */
    bool gaps;              /* --long-poll-events. */
    bool ran;               /* Who ran instead, per sample (--summary,
                             * --json). */
    bool profile;           /* On-CPU stacks of long poll intervals,
                             * or of a sample's threads (--profile-hz). */
    unsigned int profile_hz;    /* Its rate, when 'profile'. */
    bool blocked;           /* Where their threads slept, and who woke
                             * them (--off-cpu). */
    bool trace;             /* Each thread's history, sent with its long
                             * poll intervals (--trace-dir). */
    unsigned int trace_history; /* Its records per thread, when 'trace'. */
    bool unwind;            /* The user stacks of these (-s, --profile-hz,
                             * --off-cpu) unwound from the CFI (not with
                             * --frame-pointers). */
    bool upcalls;           /* Upcall statistics (not with
                             * --skip-upcall-stats, nor
                             * --long-poll-events), if the kernel can
                             * trace ovs_dp_upcall(). */
};

struct kd_needs kd_options_needs(const struct kd_options *);

/* Smallest power of two >= n (n = 0 gives 1), as the reference rounds
 * --buffer-page-count. */
unsigned int kd_next_power_of_two(unsigned int n);

/* Frees what kd_options_parse() allocated in 'options'. */
void kd_options_destroy(struct kd_options *options);

/* Most TIDs --tid takes. */
#define KD_MAX_TIDS 4096

/* The table of the options (usage.h): the parsing, the usage and --help
 * come from it, and so does the check of the lists kept beside the code
 * (bash completion, the man page's OPTIONS, the fuzz dictionary). */
struct kd_option_table;
const struct kd_option_table *kd_options_table(void);

#endif /* options.h */
