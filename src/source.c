/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* The eBPF program's source: the template, filled for one run. */

#include "source.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "kd_abi.h"
#include "maps.h"
#include "sample.h"
#include "syscalls.h"
#include "template.h"
#include "util.h"

size_t
kd_source_wakeup_events(unsigned int pages)
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

/* The numbers of the program's source, as text. */
struct kd_source_numbers {
    char tgid[16], poll[16], threads[16], syscalls[16], irqs[16];
    char pages[16], stacks[16], min_ns[32], hists[16], wakeup[24];
    char cpus[16], ran[16], long_poll[32], profile_stacks[16];
    char stack_ids[16], profile_stack_ids[16];
    char uw_maps[16], uw_pages[16], uw_shards[16], trace[16];
};

static void
kd_source_numbers_init(struct kd_source_numbers *n,
                       const struct kd_options *options, unsigned int tgid,
                       const struct kd_source_unwind *unwind)
{
    unsigned int threads = options->max_threads;
    int poll = kd_syscall_poll_nr();
    int cpus = kd_possible_cpus();

    snprintf(n->pages, sizeof n->pages, "%u", options->buffer_page_count);
    snprintf(n->wakeup, sizeof n->wakeup, "%zu",
             kd_source_wakeup_events(options->buffer_page_count));
    snprintf(n->tgid, sizeof n->tgid, "%u", tgid);
    /* Poll, or ppoll where there is no poll (arm64): what glibc's poll()
     * calls.  Without either, -1 matches no number. */
    snprintf(n->poll, sizeof n->poll, "%d", poll >= 0 ? poll : -1);
    snprintf(n->threads, sizeof n->threads, "%u", threads);
    snprintf(n->syscalls, sizeof n->syscalls, "%u",
             threads * KD_SYSCALLS_PER_THREAD);
    snprintf(n->irqs, sizeof n->irqs, "%u", threads * KD_IRQS_PER_THREAD);
    snprintf(n->stacks, sizeof n->stacks, "%u", options->stack_trace_size);
    snprintf(n->hists, sizeof n->hists, "%u",
             threads * KD_HISTS_PER_THREAD);
    snprintf(n->min_ns, sizeof n->min_ns, "%lluULL",
             (unsigned long long) options->syscall_events_ns);
    snprintf(n->long_poll, sizeof n->long_poll, "%lluULL",
             (unsigned long long) options->long_poll_ns);
    snprintf(n->cpus, sizeof n->cpus, "%d", cpus > 0 ? cpus : KD_MAX_CPUS);
    snprintf(n->ran, sizeof n->ran, "%u", threads * KD_RAN_PER_THREAD);
    snprintf(n->profile_stacks, sizeof n->profile_stacks, "%u",
             options->stack_trace_size ? options->stack_trace_size : 1);
    snprintf(n->stack_ids, sizeof n->stack_ids, "%u",
             kd_next_power_of_two(options->stack_trace_size));
    snprintf(n->profile_stack_ids, sizeof n->profile_stack_ids, "%u",
             kd_next_power_of_two(options->stack_trace_size));
    snprintf(n->uw_maps, sizeof n->uw_maps, "%u", unwind ? unwind->maps : 1);
    snprintf(n->uw_pages, sizeof n->uw_pages, "%u",
             unwind ? unwind->pages : 1);
    snprintf(n->uw_shards, sizeof n->uw_shards, "%u",
             unwind ? unwind->shards : 1);
    snprintf(n->trace, sizeof n->trace, "%u",
             kd_next_power_of_two(options->trace_history));
}

int
kd_source_build(const struct kd_options *options,
                const struct kd_needs *needs, unsigned int tgid,
                const struct kd_layout *layout,
                const struct kd_source_unwind *unwind, const char *prefix,
                char **text, char **error)
{
    struct kd_source_numbers n;
    char *body;
    int err;

    kd_source_numbers_init(&n, options, tgid, unwind);
    const struct kd_subst substs[] = {
        { "INCLUDES", layout->includes },
        { "ABI", kd_bpf_abi },
        { "TGID", n.tgid },
        { "OFF_TASK_PID", layout->task_pid },
        { "OFF_TASK_TGID", layout->task_tgid },
        { "OFF_TASK_STATE", layout->task_state },
        { "SIZE_TASK_STATE", layout->task_state_size },
        { "OFF_TASK_CPU", layout->task_cpu },
        { "OFF_TASK_COMM", layout->task_comm },
        { "OFF_TASK_SUM_EXEC", layout->task_sum_exec },
        { "OFF_TASK_PCOUNT", layout->task_pcount },
        { "OFF_TASK_RUN_DELAY", layout->task_run_delay },
        { "OFF_IRQACTION_NAME", layout->irqaction_name },
        { "OFF_PT_REGS_SYSCALL_NR", layout->syscall_nr },
        { "SIZE_PT_REGS_SYSCALL_NR", layout->syscall_nr_size },
        { "OFF_PT_REGS_RC", layout->regs_rc },
        { "SYSCALL_POLL", n.poll },
        { "MAX_THREADS", n.threads },
        { "MAX_SYSCALL_ENTRIES", n.syscalls },
        { "MAX_IRQ_ENTRIES", n.irqs },
        { "WITH_EVENTS", needs->ring_buffer ? "1" : "0" },
        { "WITH_SYSCALL_EVENTS", needs->syscall_events ? "1" : "0" },
        { "WITH_STACKS", needs->stacks ? "1" : "0" },
        { "STACK_TRACE_SIZE", n.stacks },
        { "SYSCALL_EVENTS_MIN_NS", n.min_ns },
        { "SKIP_POLL_EVENTS",
          options->skip_syscall_poll_events ? "1" : "0" },
        { "WITH_UPCALL_STATS", needs->upcalls ? "1" : "0" },
        { "WITH_HISTOGRAMS", needs->histograms ? "1" : "0" },
        { "MAX_HIST_ENTRIES", n.hists },
        { "WITH_START_TRIGGER", needs->start_trigger ? "1" : "0" },
        { "WITH_STOP_TRIGGER", needs->stop_trigger ? "1" : "0" },
        { "BUFFER_PAGE_COUNT", n.pages },
        { "RB_WAKEUP_EVENTS", n.wakeup },
        { "WITH_STATS", needs->stats ? "1" : "0" },
        { "WITH_ACCT", needs->acct ? "1" : "0" },
        { "WITH_GAPS", needs->gaps ? "1" : "0" },
        { "MAX_CPUS", n.cpus },
        { "MAX_RAN_ENTRIES", n.ran },
        { "LONG_POLL_MIN_NS", n.long_poll },
        { "WITH_PROFILE", needs->profile ? "1" : "0" },
        { "WITH_BLOCKED", needs->blocked ? "1" : "0" },
        { "PROFILE_STACKS", n.profile_stacks },
        { "STACK_TRACE_IDS", n.stack_ids },
        { "PROFILE_STACK_IDS", n.profile_stack_ids },
        { "WITH_UNWIND", needs->unwind && unwind ? "1" : "0" },
        { "UW_MAPS", n.uw_maps },
        { "UW_PAGES", n.uw_pages },
        { "UW_SHARDS", n.uw_shards },
#if defined(__aarch64__)
        { "UW_ARM64", "1" },
#else
        { "UW_ARM64", "0" },
#endif
        { "OFF_PT_REGS_PC", layout->regs_pc },
        { "OFF_PT_REGS_SP", layout->regs_sp },
        { "OFF_PT_REGS_FP", layout->regs_fp },
        { "OFF_PT_REGS_LR", layout->regs_lr },
        { "WITH_TRACE", needs->trace ? "1" : "0" },
        { "TRACE_HISTORY", n.trace },
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
