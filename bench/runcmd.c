/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * runcmd: runs one command for the benchmarks (bench/run.sh) and says when
 * it started, when it ended, how it ended and its peak memory.
 *
 * Usage:
 *   runcmd [-t TIMEOUT_S] [-o OUT] [-e ERR] -- COMMAND [ARG...]
 *
 * COMMAND's standard output goes to file OUT and its standard error to file
 * ERR (default: runcmd's own).  Its standard input is /dev/null.  When it
 * still runs after TIMEOUT_S seconds (default: no limit), it gets SIGINT,
 * then SIGTERM 5 s later, then SIGKILL 5 s after that.  When runcmd gets
 * SIGINT, SIGTERM or SIGHUP, it does the same at once, so that killing
 * runcmd never leaves COMMAND behind; COMMAND also gets SIGKILL if runcmd
 * dies (PR_SET_PDEATHSIG).
 *
 * When COMMAND has ended, runcmd prints one line on standard output:
 *
 *   launch=S.NNNNNNNNN exit=S.NNNNNNNNN status=N maxrss_kb=N timeout=0|1
 *   cpu_ns=N
 *
 * 'launch' is CLOCK_REALTIME just before fork(), 'exit' the same clock as
 * soon as the exit is seen (pidfd, so within microseconds), 'status' the
 * exit status (128 + signal number when killed by a signal), 'maxrss_kb'
 * the peak resident set of COMMAND (wait4()'s ru_maxrss), 'cpu_ns' its
 * user and system time (wait4()'s ru_utime and ru_stime), and 'timeout' 1
 * when the time limit expired.  runcmd exits 0 when it could run COMMAND,
 * 1 otherwise.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The signal runcmd got, if any; set by the handler only. */
static volatile sig_atomic_t signalled;

static void
on_signal(int signo)
{
    signalled = signo;
}

static double
now_real(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double
now_mono(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
usage(void)
{
    fprintf(stderr, "usage: runcmd [-t TIMEOUT_S] [-o OUT] [-e ERR] -- "
            "COMMAND [ARG...]\n");
    exit(1);
}

/* Opens 'path' for writing onto file descriptor 'target', in the child. */
static void
redirect(const char *path, int target)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

    if (fd < 0 || dup2(fd, target) < 0) {
        fprintf(stderr, "runcmd: %s: %s\n", path, strerror(errno));
        _exit(127);
    }
}

int
main(int argc, char *argv[])
{
    const char *out = NULL, *err = NULL;
    double timeout = 0, launch, exit_ts, deadline = 0;
    bool timed_out = false;
    struct sigaction sa;
    struct rusage ru;
    int escalation = 0;
    int pidfd, status;
    pid_t pid;
    int opt;

    while ((opt = getopt(argc, argv, "+t:o:e:")) != -1) {
        switch (opt) {
        case 't':
            timeout = strtod(optarg, NULL);
            break;
        case 'o':
            out = optarg;
            break;
        case 'e':
            err = optarg;
            break;
        default:
            usage();
        }
    }
    if (optind >= argc) {
        usage();
    }

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);

    fflush(NULL);
    launch = now_real();
    pid = fork();
    if (pid < 0) {
        fprintf(stderr, "runcmd: fork: %s\n", strerror(errno));
        return 1;
    }
    if (!pid) {
        int null = open("/dev/null", O_RDONLY);

        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (null >= 0) {
            dup2(null, STDIN_FILENO);
            close(null);
        }
        if (out) {
            redirect(out, STDOUT_FILENO);
        }
        if (err) {
            redirect(err, STDERR_FILENO);
        }
        execvp(argv[optind], &argv[optind]);
        fprintf(stderr, "runcmd: %s: %s\n", argv[optind], strerror(errno));
        _exit(127);
    }

    pidfd = syscall(SYS_pidfd_open, pid, 0);
    if (pidfd < 0) {
        fprintf(stderr, "runcmd: pidfd_open: %s\n", strerror(errno));
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        return 1;
    }
    if (timeout > 0) {
        deadline = now_mono() + timeout;
    }

    for (;;) {
        struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
        int ms = 100;

        if (deadline) {
            double left = deadline - now_mono();

            ms = left <= 0 ? 0 : left < 0.1 ? (int) (left * 1000) + 1 : 100;
        }
        if (poll(&pfd, 1, ms) > 0) {
            break;
        }
        if (signalled || (deadline && now_mono() >= deadline)) {
            static const int ladder[] = { SIGINT, SIGTERM, SIGKILL };

            if (!signalled && !escalation) {
                timed_out = true;
            }
            if (escalation < 3) {
                kill(pid, ladder[escalation++]);
            }
            deadline = now_mono() + 5;
            signalled = 0;
        }
    }
    exit_ts = now_real();
    if (wait4(pid, &status, 0, &ru) < 0) {
        fprintf(stderr, "runcmd: wait4: %s\n", strerror(errno));
        return 1;
    }
    printf("launch=%.9f exit=%.9f status=%d maxrss_kb=%ld timeout=%d "
           "cpu_ns=%lld\n", launch, exit_ts,
           WIFEXITED(status) ? WEXITSTATUS(status)
                             : 128 + WTERMSIG(status),
           ru.ru_maxrss, timed_out ? 1 : 0,
           (long long) (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec)
           * 1000000000LL
           + (long long) (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000);
    return 0;
}
