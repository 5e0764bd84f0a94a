/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * abcost: the cost eBPF programs on the syscall hooks add to every
 * syscall, for the benchmarks (bench/run.sh, figure 4).
 *
 * Usage: abcost [-c CPU] [-n CALLS] [-p PAGES] [-r ROUNDS] -i TGID
 *
 * Reads commands on standard input, one a line:
 *   hold NAME raw|classic ENTER_ID EXIT_ID
 *       takes a reference (a file descriptor) to the two loaded eBPF
 *       programs with these ids, for hooks sys_enter and sys_exit: raw
 *       tracepoints, or the classic tracepoints raw_syscalls:sys_enter and
 *       raw_syscalls:sys_exit.  Taken from a running tracer, they outlive
 *       it, with their maps, exactly as the tracer left them.  Answers
 *       "held NAME".
 *   run
 *       measures, and answers one line per measurement, then "done".
 *
 * Besides the programs held, abcost measures nothing attached ("none") and
 * three pairs of programs of its own, hand-assembled: "floor_raw" and
 * "floor_classic", which return 0 at once, on the raw and on the classic
 * tracepoints, and "check_raw", on the raw tracepoints, which compares
 * the current process with TGID (-i) and returns: the least a program can
 * do to tell a traced process from another.
 *
 * "run" makes ROUNDS rounds (default 150); in each, every variant in a
 * new random order is attached (as the tools attach them: a raw
 * tracepoint link, or a perf event on CPU 0 as libbcc opens it), measured
 * and detached again.  A measurement is CALLS getppid() calls (default
 * 10,000) after one poll(NULL, 0, 0) (so that the calls of a target
 * traced with --long-poll-events are inside a poll interval) and CALLS /
 * 10 untimed calls, then PAGES page faults (default
 * 500: first writes to the pages of an anonymous mapping, emptied again
 * afterwards), both timed in this thread's CPU time; it is printed as
 * "m ROUND NAME NS_PER_CALL NS_PER_FAULT".  A page fault enters the kernel
 * without a syscall, so no syscall hook runs in it: it says how quick
 * the machine was at that moment.  So every variant meets the machine's
 * quick and slow spells alike, a few milliseconds apart.
 *
 * abcost is the process that makes the syscalls: a tracer of "the target
 * itself" must trace abcost's own process id.  -c pins it to CPU.  It dies
 * with its parent (PR_SET_PDEATHSIG), and the kernel then detaches and
 * frees everything.  Exit status: 0 at the end of its input, 1 on error,
 * 2 on bad usage.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <bpf/bpf.h>
#include <errno.h>
#include <limits.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "helper.h"

#define ABCOST_MAX_VARIANTS 16

struct abcost_variant {
    char name[32];
    bool attached;              /* False for "none". */
    bool classic;               /* Classic tracepoints, else raw ones. */
    int enter_fd;               /* Programs, or -1. */
    int exit_fd;
};

static struct abcost_variant variants[ABCOST_MAX_VARIANTS];
static int n_variants;

static void
usage(void)
{
    fprintf(stderr, "usage: abcost [-c CPU] [-n CALLS] [-p PAGES] "
            "[-r ROUNDS] -i TGID\n");
}

/* Parses 'arg' as an integer in [min, max] into '*value'.  Returns 0, or
 * EINVAL after printing why. */
static int
get_long(const char *arg, const char *what, long min, long max, long *value)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(arg, &end, 10);
    if (errno || end == arg || *end || v < min || v > max) {
        fprintf(stderr, "abcost: %s must be an integer from %ld to %ld: "
                "%s\n", what, min, max, arg);
        return EINVAL;
    }
    *value = v;
    return 0;
}

static double
cpu_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Loads a program of 'type' made of 'insns'.  Returns its file descriptor,
 * or -1 after printing why. */
static int
load(enum bpf_prog_type type, const char *name, const struct bpf_insn *insns,
     size_t n_insns)
{
    char log[4096] = "";
    LIBBPF_OPTS(bpf_prog_load_opts, opts, .log_buf = log,
                .log_size = sizeof log, .log_level = 1);
    int fd = bpf_prog_load(type, name, "GPL", insns, n_insns, &opts);

    if (fd < 0) {
        fprintf(stderr, "abcost: loading %s: %s\n%s", name, strerror(errno),
                log);
    }
    return fd;
}

/* Adds a variant.  Returns 0, or ENOSPC. */
static int
add_variant(const char *name, bool attached, bool classic, int enter_fd,
            int exit_fd)
{
    struct abcost_variant *v;

    if (n_variants >= ABCOST_MAX_VARIANTS) {
        fprintf(stderr, "abcost: too many variants\n");
        return ENOSPC;
    }
    v = &variants[n_variants++];
    snprintf(v->name, sizeof v->name, "%s", name);
    v->attached = attached;
    v->classic = classic;
    v->enter_fd = enter_fd;
    v->exit_fd = exit_fd;
    return 0;
}

/* Loads abcost's own programs.  Returns 0, or an errno value. */
static int
load_own(long tgid)
{
    /* return 0; */
    static const struct bpf_insn empty[] = {
        { .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
        { .code = BPF_JMP | BPF_EXIT },
    };
    /* return (bpf_get_current_pid_tgid() >> 32) == tgid; */
    const struct bpf_insn check[] = {
        { .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_get_current_pid_tgid },
        { .code = BPF_ALU64 | BPF_RSH | BPF_K, .dst_reg = BPF_REG_0,
          .imm = 32 },
        { .code = BPF_JMP | BPF_JEQ | BPF_K, .dst_reg = BPF_REG_0, .off = 2,
          .imm = (int) tgid },
        { .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
        { .code = BPF_JMP | BPF_EXIT },
        { .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0,
          .imm = 1 },
        { .code = BPF_JMP | BPF_EXIT },
    };
    static const size_t n_empty = sizeof empty / sizeof empty[0];
    const size_t n_check = sizeof check / sizeof check[0];
    int fds[6];

    fds[0] = load(BPF_PROG_TYPE_RAW_TRACEPOINT, "floor_enter", empty,
                  n_empty);
    fds[1] = load(BPF_PROG_TYPE_RAW_TRACEPOINT, "floor_exit", empty,
                  n_empty);
    fds[2] = load(BPF_PROG_TYPE_TRACEPOINT, "floor_enter", empty, n_empty);
    fds[3] = load(BPF_PROG_TYPE_TRACEPOINT, "floor_exit", empty, n_empty);
    fds[4] = load(BPF_PROG_TYPE_RAW_TRACEPOINT, "check_enter", check,
                  n_check);
    fds[5] = load(BPF_PROG_TYPE_RAW_TRACEPOINT, "check_exit", check,
                  n_check);
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++) {
        if (fds[i] < 0) {
            return EINVAL;
        }
    }
    return (add_variant("none", false, false, -1, -1)
            || add_variant("floor_raw", true, false, fds[0], fds[1])
            || add_variant("floor_classic", true, true, fds[2], fds[3])
            || add_variant("check_raw", true, false, fds[4], fds[5])
            ? ENOSPC : 0);
}

/* Handles "hold NAME KIND ENTER_ID EXIT_ID".  Returns 0, or an errno
 * value after printing why. */
static int
hold(const char *line)
{
    char name[32], kind[16];
    unsigned int enter_id, exit_id;
    int enter_fd, exit_fd;

    if (sscanf(line, "hold %31s %15s %u %u", name, kind, &enter_id,
               &exit_id) != 4
        || (strcmp(kind, "raw") && strcmp(kind, "classic"))) {
        fprintf(stderr, "abcost: bad command: %s", line);
        return EINVAL;
    }
    enter_fd = bpf_prog_get_fd_by_id(enter_id);
    exit_fd = bpf_prog_get_fd_by_id(exit_id);
    if (enter_fd < 0 || exit_fd < 0) {
        fprintf(stderr, "abcost: %s: no program %u or %u: %s\n", name,
                enter_id, exit_id, strerror(errno));
        return ENOENT;
    }
    return add_variant(name, true, !strcmp(kind, "classic"), enter_fd,
                       exit_fd);
}

/* The id of classic tracepoint raw_syscalls:'event', or -1. */
static long
tracepoint_id(const char *event)
{
    static const char *const roots[] = {
        "/sys/kernel/tracing/events", "/sys/kernel/debug/tracing/events",
    };

    for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++) {
        char path[128];
        long id;
        FILE *f;

        snprintf(path, sizeof path, "%s/raw_syscalls/%s/id", roots[i],
                 event);
        f = fopen(path, "r");
        if (f) {
            int ok = fscanf(f, "%ld", &id) == 1;

            fclose(f);
            if (ok) {
                return id;
            }
        }
    }
    return -1;
}

/* Attaches program 'prog_fd' to hook 'event'.  Returns the attachment's
 * file descriptor (closing it detaches), or -1 after printing why. */
static int
attach(int prog_fd, bool classic, const char *event)
{
    struct perf_event_attr attr;
    int fd;

    if (!classic) {
        fd = bpf_raw_tracepoint_open(event, prog_fd);
        if (fd < 0) {
            fprintf(stderr, "abcost: attaching to raw tracepoint %s: %s\n",
                    event, strerror(errno));
        }
        return fd;
    }
    memset(&attr, 0, sizeof attr);
    attr.type = PERF_TYPE_TRACEPOINT;
    attr.size = sizeof attr;
    attr.config = tracepoint_id(event);
    attr.sample_period = 1;
    attr.wakeup_events = 1;
    fd = syscall(SYS_perf_event_open, &attr, -1, 0, -1,
                 PERF_FLAG_FD_CLOEXEC);
    if (fd < 0 || ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog_fd)
        || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
        fprintf(stderr, "abcost: attaching to raw_syscalls:%s: %s\n",
                event, strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        return -1;
    }
    return fd;
}

static void
calls(long n)
{
    for (long i = 0; i < n; i++) {
        syscall(SYS_getppid);
    }
}

/* Mean CPU time, in nanoseconds, of a first write to each of the 'pages'
 * pages at 'map', which are then emptied again. */
static double
faults(char *map, long pages)
{
    long page = sysconf(_SC_PAGESIZE);
    double t = cpu_ns();

    for (long i = 0; i < pages; i++) {
        ((volatile char *) map)[i * page] = 1;
    }
    t = cpu_ns() - t;
    madvise(map, pages * page, MADV_DONTNEED);
    return t / pages;
}

/* Handles "run".  Returns 0, or an errno value after printing why. */
static int
run(long rounds, long n_calls, char *map, long pages)
{
    int order[ABCOST_MAX_VARIANTS];

    for (long r = 1; r <= rounds; r++) {
        for (int i = 0; i < n_variants; i++) {
            order[i] = i;
        }
        for (int i = n_variants - 1; i > 0; i--) {
            int j = rand() % (i + 1), t = order[i];

            order[i] = order[j];
            order[j] = t;
        }
        for (int i = 0; i < n_variants; i++) {
            const struct abcost_variant *v = &variants[order[i]];
            int enter = -1, exit = -1;
            double t, f;

            if (v->attached) {
                enter = attach(v->enter_fd, v->classic, "sys_enter");
                exit = enter < 0 ? -1
                       : attach(v->exit_fd, v->classic, "sys_exit");
                if (exit < 0) {
                    if (enter >= 0) {
                        close(enter);
                    }
                    return EBUSY;
                }
            }
            /* A poll interval starts: a --long-poll-events tracer of
             * abcost then measures the calls made inside one. */
            syscall(SYS_poll, NULL, 0, 0);
            calls(n_calls / 10);
            t = cpu_ns();
            calls(n_calls);
            t = (cpu_ns() - t) / n_calls;
            f = faults(map, pages);
            if (v->attached) {
                close(enter);
                close(exit);
            }
            printf("m %ld %s %.2f %.2f\n", r, v->name, t, f);
        }
    }
    printf("done\n");
    fflush(stdout);
    return 0;
}

int
main(int argc, char *argv[])
{
    long cpu = -1, n_calls = 10000, pages = 500, rounds = 150, tgid = 0;
    char line[256];
    char *map;
    int opt;

    while ((opt = getopt(argc, argv, "c:n:p:r:i:")) != -1) {
        int err;

        switch (opt) {
        case 'c':
            err = get_long(optarg, "CPU", 0, CPU_SETSIZE - 1, &cpu);
            break;
        case 'n':
            err = get_long(optarg, "CALLS", 10, 100000000, &n_calls);
            break;
        case 'p':
            err = get_long(optarg, "PAGES", 1, 1000000, &pages);
            break;
        case 'r':
            err = get_long(optarg, "ROUNDS", 1, 1000000, &rounds);
            break;
        case 'i':
            err = get_long(optarg, "TGID", 1, INT_MAX, &tgid);
            break;
        default:
            usage();
            return 2;
        }
        if (err) {
            return 2;
        }
    }
    if (optind != argc || !tgid) {
        usage();
        return 2;
    }
    if (bench_helper_start("abcost", cpu)) {
        return 1;
    }
    map = mmap(NULL, pages * sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) {
        fprintf(stderr, "abcost: mmap: %s\n", strerror(errno));
        return 1;
    }
    if (load_own(tgid)) {
        return 1;
    }
    srand(getpid());

    while (fgets(line, sizeof line, stdin)) {
        if (!strncmp(line, "hold ", 5)) {
            if (hold(line)) {
                return 1;
            }
            printf("held %s\n", variants[n_variants - 1].name);
        } else if (!strcmp(line, "run\n")) {
            if (run(rounds, n_calls, map, pages)) {
                return 1;
            }
        } else {
            fprintf(stderr, "abcost: bad command: %s", line);
            return 1;
        }
        fflush(stdout);
    }
    return 0;
}
