/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_SAMPLE_H
#define KD_SAMPLE_H 1

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kd_abi.h"

/* The data of one sample, as read from the eBPF maps, then grouped per
 * thread.  The maps' keys and values are those of kd_abi.h, which the
 * eBPF program shares. */

/* Log2 histograms: slots of bpf_log2l(). */
#define KD_HIST_SLOTS       65

/* Map entries, with their keys. */
struct kd_syscall_entry {
    struct kd_syscall_key key;
    struct kd_stat stat;
};

struct kd_tstats_entry {
    uint32_t tid;
    struct kd_tstats stats;
};

struct kd_hardirq_entry {
    struct kd_hardirq_key key;
    struct kd_stat stat;
};

struct kd_softirq_entry {
    struct kd_softirq_key key;
    struct kd_stat stat;
};

struct kd_name_entry {
    uint32_t tid;
    struct kd_name name;
};

struct kd_hist_entry {
    struct kd_hist_key key;
    uint64_t count;
};

struct kd_ran_entry {
    struct kd_ran_key key;
    struct kd_ran ran;
};

/* kd_ran_key.other when the task that held the CPU is not known. */
#define KD_RAN_UNKNOWN 0xffffffffu

/* Upcall counts per CPU for one key: 0 for successful upcalls, else the
 * errno of failed ones. */
#define KD_MAX_CPUS 1024
struct kd_upcall_entry {
    uint64_t key;
    uint64_t *per_cpu;          /* 'n_cpus' counts. */
};

/* The maps a sample is read from, one line each:
 *
 *     KD_SAMPLE_MAP(NAME, KEY, ENTRY, VALUE, NEED, CMP, REPORTED)
 *
 * Map NAME has keys of type KEY and values of ENTRY's member VALUE; the
 * program has it when member NEED of struct kd_needs is true.  capture.c
 * sizes, checks, reads and empties it into the sample's array NAME of
 * ENTRY (and its count n_NAME).  sample.c sorts that array by CMP (by tid
 * first: every ENTRY starts with its tid) and gives each thread its
 * entries (struct kd_thread's NAME and n_NAME), in that order.  A thread
 * with entries only in maps whose REPORTED is false (those of a thread
 * that has others) has nothing to report.  The maps:
 *
 *   syscalls   by decreasing total;
 *   tstats     poll, run, ready and stop times (struct kd_thread's poll,
 *              run, ready and stop; an entry without counts is none);
 *   hardirqs   by decreasing total;
 *   softirqs   by decreasing total;
 *   names      the name of a thread that exited;
 *   hists      histogram slots, by what, then slot;
 *   ran        who ran instead (--summary, --json), by decreasing time. */
#define KD_SAMPLE_MAPS(KD_SAMPLE_MAP)                                   \
    KD_SAMPLE_MAP(syscalls, struct kd_syscall_key,                      \
                  struct kd_syscall_entry, stat, stats, kd_syscall_cmp, \
                  true)                                                 \
    KD_SAMPLE_MAP(tstats, uint32_t, struct kd_tstats_entry, stats,      \
                  stats, kd_tstats_cmp, true)                           \
    KD_SAMPLE_MAP(hardirqs, struct kd_hardirq_key,                      \
                  struct kd_hardirq_entry, stat, stats, kd_hardirq_cmp, \
                  true)                                                 \
    KD_SAMPLE_MAP(softirqs, struct kd_softirq_key,                      \
                  struct kd_softirq_entry, stat, stats, kd_softirq_cmp, \
                  true)                                                 \
    KD_SAMPLE_MAP(names, uint32_t, struct kd_name_entry, name, stats,   \
                  kd_name_cmp, false)                                   \
    KD_SAMPLE_MAP(hists, struct kd_hist_key, struct kd_hist_entry,     \
                  count, histograms, kd_hist_cmp, false)                \
    KD_SAMPLE_MAP(ran, struct kd_ran_key, struct kd_ran_entry, ran,     \
                  ran, kd_ran_cmp, false)

/* One thread's view of the sample; points into the sample's arrays. */
struct kd_thread {
    uint32_t tid;
    char *name;

#define KD_SAMPLE_MAP(NAME, KEY, ENTRY, VALUE, NEED, CMP, REPORTED)     \
    const ENTRY *NAME;          /* NULL when n_NAME is 0. */            \
    size_t n_##NAME;
    KD_SAMPLE_MAPS(KD_SAMPLE_MAP)
#undef KD_SAMPLE_MAP

    const struct kd_stat *poll;     /* Each NULL when there is no data. */
    const struct kd_stat *run;
    const struct kd_stat *ready;
    const struct kd_stat *stop;
};

struct kd_sample {
    uint32_t pid;

#define KD_SAMPLE_MAP(NAME, KEY, ENTRY, VALUE, NEED, CMP, REPORTED)     \
    ENTRY *NAME;                                                        \
    size_t n_##NAME;
    KD_SAMPLE_MAPS(KD_SAMPLE_MAP)
#undef KD_SAMPLE_MAP
    bool with_ran;                  /* The sample has 'ran'. */
    struct kd_upcall_entry *upcalls;
    size_t n_upcalls;
    int n_cpus;                     /* Of 'upcalls'. */

    struct kd_thread *threads;      /* By name, then tid. */
    size_t n_threads;
};

/* Gives the name of thread 'tid' of process 'pid' as a new string, or
 * NULL when it is not known. */
typedef char *kd_thread_name_fn(uint32_t pid, uint32_t tid, void *aux);

/* Groups the entries of 'sample' per thread, in one pass over each sorted
 * array, and names each thread: by 'name_fn', else by the name the eBPF
 * program recorded when the thread exited, else "<unknown:PID/TID>". */
void kd_sample_group(struct kd_sample *sample, kd_thread_name_fn *name_fn,
                     void *aux);

/* Which threads to report: those whose name matches 'regex' or whose tid
 * is listed; all when there is neither. */
struct kd_thread_filter {
    bool has_regex;
    regex_t regex;
    const unsigned int *tids;
    size_t n_tids;
};

/* Compiles 'regex' (POSIX extended, may be NULL).  Returns 0 or EINVAL. */
int kd_thread_filter_init(struct kd_thread_filter *, const char *regex,
                          const unsigned int *tids, size_t n_tids);
void kd_thread_filter_destroy(struct kd_thread_filter *);
bool kd_thread_filter_match(const struct kd_thread_filter *, uint32_t tid,
                            const char *name);

/* Drops the threads of the grouped 'sample' that 'filter' does not keep;
 * the numbers of the others do not change. */
void kd_sample_filter(struct kd_sample *, const struct kd_thread_filter *);

/* The name of thread 'tid' in the grouped 'sample', or NULL. */
const char *kd_sample_thread_name(const struct kd_sample *, uint32_t tid);

/* The upcalls of 'n' upcall 'entries' counted on each of 'n_cpus' CPUs
 * into 'per_cpu', and their total, over the entries whose key is 'key'
 * ("successful": 0), or whose key is not 'key' when 'other' ("failed":
 * not 0; "all": not a key no entry has, UINT64_MAX). */
uint64_t kd_sample_upcall_sums(const struct kd_upcall_entry *entries,
                               size_t n, int n_cpus, uint64_t key,
                               bool other, uint64_t per_cpu[]);

/* Frees everything 'sample' holds and empties it. */
void kd_sample_clear(struct kd_sample *sample);

#endif /* sample.h */
