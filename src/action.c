/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* --on-long-poll: a command run when a long poll interval is reported. */

#include "action.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

extern char **environ;

void
kd_action_init(struct kd_action *a, const char *cmd, uint64_t period_ns,
               FILE *log)
{
    memset(a, 0, sizeof *a);
    a->cmd = kd_xstrdup(cmd);
    a->period_ns = period_ns;
    a->grace_ns = KD_ACTION_GRACE_NS;
    a->log = log;
}

/* Our environment with the 'n' strings of 'env' after it (a later one
 * wins, for getenv()), in a new array of pointers to them. */
static char **
kd_action_env(char *const *env, size_t n)
{
    size_t ours = 0, m = 0;
    char **v;

    while (environ && environ[ours]) {
        ours++;
    }
    v = kd_xcalloc(ours + n + 1, sizeof *v);
    for (size_t i = 0; i < ours; i++) {
        size_t len = strcspn(environ[i], "=");
        bool shadowed = false;

        for (size_t k = 0; k < n && !shadowed; k++) {
            shadowed = !strncmp(env[k], environ[i], len)
                       && env[k][len] == '=';
        }
        if (!shadowed) {
            v[m++] = environ[i];
        }
    }
    for (size_t i = 0; i < n; i++) {
        v[m++] = env[i];
    }
    return v;
}

/* Starts the command with 'env' into 'a->pid'.  Returns 0 or an errno. */
static int
kd_action_spawn(struct kd_action *a, char *const *env, size_t n)
{
    char *argv[] = { "sh", "-c", a->cmd, NULL };
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    sigset_t none, dfl;
    char **envp = kd_action_env(env, n);
    int err;

    sigemptyset(&none);
    sigemptyset(&dfl);
    sigaddset(&dfl, SIGINT);
    sigaddset(&dfl, SIGTERM);
    sigaddset(&dfl, SIGHUP);
    sigaddset(&dfl, SIGPIPE);
    sigaddset(&dfl, SIGCHLD);
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, 2, 1);
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 34)
    /* Nothing of ours but 0 to 2: a command that outlives us (a perf
     * record left running) must hold no map or trace file of ours. */
    posix_spawn_file_actions_addclosefrom_np(&fa, 3);
#endif
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP
                             | POSIX_SPAWN_SETSIGMASK
                             | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &dfl);
    err = posix_spawn(&a->pid, "/bin/sh", &fa, &attr, argv, envp);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
    free(envp);
    if (err) {
        a->pid = 0;
    }
    return err;
}

int
kd_action_run(struct kd_action *a, const char *what, char *const *env,
              size_t n, uint64_t now)
{
    int err;

    kd_action_poll(a, now);
    if (a->pid) {
        a->busy++;
        fprintf(a->log, "kernel_delay: on-long-poll: not run for %s: pid "
                "%ld, started %.3f s ago, still runs\n", what,
                (long) a->pid, (now - a->started_ns) / 1e9);
        return EBUSY;
    }
    if (a->ever && now - a->started_ns < a->period_ns) {
        a->early++;
        fprintf(a->log, "kernel_delay: on-long-poll: not run for %s: the "
                "last run started %.3f s ago, less than the period, %.3f "
                "s\n", what, (now - a->started_ns) / 1e9,
                a->period_ns / 1e9);
        return EAGAIN;
    }
    a->ever = true;
    a->started_ns = now;
    err = kd_action_spawn(a, env, n);
    if (err) {
        a->failed++;
        fprintf(a->log, "kernel_delay: on-long-poll: could not run /bin/sh "
                "for %s: %s\n", what, strerror(err));
        return err;
    }
    a->runs++;
    fprintf(a->log, "kernel_delay: on-long-poll: pid %ld started for %s\n",
            (long) a->pid, what);
    return 0;
}

/* Says how the command ended with 'status', at 'now'. */
static void
kd_action_ended(struct kd_action *a, int status, uint64_t now)
{
    double secs = (now - a->started_ns) / 1e9;

    if (WIFEXITED(status)) {
        fprintf(a->log, "kernel_delay: on-long-poll: pid %ld exited with "
                "status %d after %.3f s\n", (long) a->pid,
                WEXITSTATUS(status), secs);
    } else if (WIFSIGNALED(status)) {
        fprintf(a->log, "kernel_delay: on-long-poll: pid %ld killed by "
                "signal %d (%s) after %.3f s\n", (long) a->pid,
                WTERMSIG(status), strsignal(WTERMSIG(status)), secs);
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status)) {
        a->failed++;
    }
    a->pid = 0;
}

void
kd_action_poll(struct kd_action *a, uint64_t now)
{
    int status;

    if (a->pid && waitpid(a->pid, &status, WNOHANG) == a->pid) {
        kd_action_ended(a, status, now);
    }
}

void
kd_action_destroy(struct kd_action *a)
{
    struct timespec step = { .tv_sec = 0, .tv_nsec = 10000000 };
    uint64_t end = kd_now_ns() + a->grace_ns;

    /* The command of the last report may have just started. */
    while (a->pid && kd_now_ns() < end) {
        nanosleep(&step, NULL);
        kd_action_poll(a, kd_now_ns());
    }
    if (a->pid) {
        int status;

        fprintf(a->log, "kernel_delay: on-long-poll: pid %ld still runs at "
                "the end: ended\n", (long) a->pid);
        kill(-a->pid, SIGTERM);
        for (int i = 0; i < 100 && a->pid; i++) {
            nanosleep(&step, NULL);
            kd_action_poll(a, kd_now_ns());
        }
        if (a->pid) {
            kill(-a->pid, SIGKILL);
            if (waitpid(a->pid, &status, 0) == a->pid) {
                kd_action_ended(a, status, kd_now_ns());
            }
        }
    }
    if (a->runs || a->failed || a->busy || a->early) {
        fprintf(a->log, "kernel_delay: on-long-poll: %u started, %u failed, "
                "%u not run as one ran, %u not run within the period\n",
                a->runs, a->failed, a->busy, a->early);
    }
    free(a->cmd);
    a->cmd = NULL;
}
