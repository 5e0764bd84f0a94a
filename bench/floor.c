/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * floor: the least any eBPF syscall tracer can cost, for the benchmarks
 * (bench/run.sh).
 *
 * Usage:
 *   floor raw        raw tracepoints sys_enter and sys_exit (as
 *                    kernel_delay attaches its syscall programs)
 *   floor classic    classic tracepoints raw_syscalls:sys_enter and
 *                    raw_syscalls:sys_exit (as kernel_delay.py does)
 *
 * Compiles two eBPF programs that return 0 at once with libbcc's C API,
 * loads them and attaches them to the two hooks, prints "ready" on
 * standard output and holds them until SIGINT, SIGTERM or SIGHUP; then
 * detaches them and exits 0.  It dies with its parent (PR_SET_PDEATHSIG),
 * and the kernel detaches the programs when it does.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <bcc/bcc_common.h>
#include <bcc/libbpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static const char program[] =
    "int floor_sys_enter(void *ctx)\n"
    "{\n"
    "    return 0;\n"
    "}\n"
    "\n"
    "int floor_sys_exit(void *ctx)\n"
    "{\n"
    "    return 0;\n"
    "}\n";

static volatile sig_atomic_t signalled;

static void
on_signal(int signo)
{
    signalled = signo;
}

/* Loads function 'func' of 'module' as a program of 'type' and attaches it
 * to hook 'event' (raw tracepoint, or raw_syscalls:'event').  Returns the
 * attachment's file descriptor, or -1 after printing why. */
static int
load_and_attach(void *module, const char *func, bool raw, const char *event)
{
    int type = raw ? BPF_PROG_TYPE_RAW_TRACEPOINT : BPF_PROG_TYPE_TRACEPOINT;
    char log[4096] = "";
    void *start;
    int fd, link;

    start = bpf_function_start(module, func);
    if (!start) {
        fprintf(stderr, "floor: no function %s\n", func);
        return -1;
    }
    fd = bcc_func_load(module, type, func, start,
                       bpf_function_size(module, func),
                       bpf_module_license(module),
                       bpf_module_kern_version(module), 0, log, sizeof log,
                       NULL, -1);
    if (fd < 0) {
        fprintf(stderr, "floor: loading %s: %s\n%s", func, strerror(-fd),
                log);
        return -1;
    }
    link = raw ? bpf_attach_raw_tracepoint(fd, event)
               : bpf_attach_tracepoint(fd, "raw_syscalls", event);
    if (link < 0) {
        fprintf(stderr, "floor: attaching %s to %s: %s\n", func, event,
                strerror(errno));
        return -1;
    }
    return link;
}

int
main(int argc, char *argv[])
{
    static const int signals[] = { SIGINT, SIGTERM, SIGHUP };
    struct sigaction sa;
    sigset_t block, old;
    void *module;
    bool raw;

    if (argc != 2 || (strcmp(argv[1], "raw") && strcmp(argv[1], "classic"))) {
        fprintf(stderr, "usage: floor raw|classic\n");
        return 2;
    }
    raw = !strcmp(argv[1], "raw");
    prctl(PR_SET_PDEATHSIG, SIGKILL);

    /* Block the signals until pause time, so that none is missed. */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigemptyset(&block);
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        sigaction(signals[i], &sa, NULL);
        sigaddset(&block, signals[i]);
    }
    sigprocmask(SIG_BLOCK, &block, &old);

    module = bpf_module_create_c_from_string(program, 0, NULL, 0, true,
                                             NULL);
    if (!module) {
        fprintf(stderr, "floor: compiling the eBPF program failed\n");
        return 1;
    }
    if (load_and_attach(module, "floor_sys_enter", raw, "sys_enter") < 0
        || load_and_attach(module, "floor_sys_exit", raw, "sys_exit") < 0) {
        bpf_module_destroy(module);
        return 1;
    }
    printf("ready\n");
    fflush(stdout);

    while (!signalled) {
        sigsuspend(&old);
    }
    if (!raw) {
        bpf_detach_tracepoint("raw_syscalls", "sys_enter");
        bpf_detach_tracepoint("raw_syscalls", "sys_exit");
    }
    bpf_module_destroy(module);
    return 0;
}
