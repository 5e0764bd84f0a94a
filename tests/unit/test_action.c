/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/action.c: --on-long-poll's command, run by
 * /bin/sh. */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "action.h"
#include "util.h"
#include "check.h"

/* Polls 'a' until its command ended, 5 s at most. */
static void
wait_ended(struct kd_action *a)
{
    struct timespec step = { .tv_sec = 0, .tv_nsec = 5000000 };

    for (int i = 0; i < 1000 && a->pid; i++) {
        nanosleep(&step, NULL);
        kd_action_poll(a, kd_now_ns());
    }
}

/* A command that records its environment, one that fails; one that hangs
 * makes the next one wait (not run), and is ended at the end, after its
 * grace time; one that ends within it is not; the period. */
static void
test_action_runs(void)
{
    char dir[] = "/tmp/kd-test-action.XXXXXX";
    char *env[] = { "KD_TID=42", "KD_THREAD=handler1", "HOME=/kd" };
    struct kd_action a;
    char *log = NULL, *cmd, *text = NULL, *path;
    size_t log_size;
    FILE *stream = open_memstream(&log, &log_size);

    if (!CHECK(mkdtemp(dir) != NULL)) {
        return;
    }
    path = kd_xasprintf("%s/env", dir);
    cmd = kd_xasprintf("echo \"$KD_TID $KD_THREAD $HOME\" > %s", path);
    kd_action_init(&a, cmd, 0, stream);
    CHECK_INT(kd_action_run(&a, "TID 42", env, 3, kd_now_ns()), 0);
    wait_ended(&a);
    CHECK(!kd_read_file_line(path, &text));
    CHECK_STR(text, "42 handler1 /kd");
    CHECK_INT(a.runs, 1);
    CHECK_INT(a.failed, 0);
    kd_action_destroy(&a);

    kd_action_init(&a, "exit 3", 0, stream);
    CHECK_INT(kd_action_run(&a, "TID 1", env, 0, kd_now_ns()), 0);
    wait_ended(&a);
    CHECK_INT(a.failed, 1);
    kd_action_destroy(&a);

    kd_action_init(&a, "sleep 30", 0, stream);
    a.grace_ns = 100000000;
    CHECK_INT(kd_action_run(&a, "TID 1", env, 0, kd_now_ns()), 0);
    CHECK_INT(kd_action_run(&a, "TID 2", env, 0, kd_now_ns()), EBUSY);
    CHECK_INT(a.busy, 1);
    CHECK(a.pid > 0);
    kd_action_destroy(&a);

    /* Running at the end, and done within the grace time: not ended. */
    kd_action_init(&a, "sleep 0.2; exit 4", 0, stream);
    CHECK_INT(kd_action_run(&a, "TID 5", env, 0, kd_now_ns()), 0);
    kd_action_destroy(&a);

    kd_action_init(&a, "true", 10000000000ull, stream);
    CHECK_INT(kd_action_run(&a, "TID 1", env, 0, 1000), 0);
    wait_ended(&a);
    CHECK_INT(kd_action_run(&a, "TID 2", env, 0, 2000), EAGAIN);
    CHECK_INT(kd_action_run(&a, "TID 3", env, 0, 10000001000ull), 0);
    wait_ended(&a);
    CHECK_INT(a.early, 1);
    CHECK_INT(a.runs, 2);
    kd_action_destroy(&a);

    fclose(stream);
    CHECK(strstr(log, "exited with status 0 after") != NULL);
    CHECK(strstr(log, "exited with status 3 after") != NULL);
    CHECK(strstr(log, "kernel_delay: on-long-poll: not run for TID 2: pid ")
          != NULL);
    CHECK(strstr(log, "still runs at the end: ended\n") != NULL);
    CHECK(strstr(log, "killed by signal 15 (Terminated) after") != NULL);
    CHECK(strstr(log, "1 started, 1 failed, 1 not run as one ran, 0 not "
                 "run within the period\n") != NULL);
    CHECK(strstr(log, "exited with status 4 after 0.") != NULL);
    CHECK(strstr(log, "1 started, 1 failed, 0 not run as one ran, 0 not "
                 "run within the period\n") != NULL);
    /* Only "sleep 30" was ended. */
    CHECK(strstr(strstr(log, "still runs at the end") + 1,
                 "still runs at the end") == NULL);
    CHECK(strstr(log, "2 started, 0 failed, 0 not run as one ran, 1 not "
                 "run within the period\n") != NULL);
    free(log);
    free(text);
    free(cmd);
    unlink(path);
    free(path);
    rmdir(dir);
}

/* The command holds only its standard input, output and error: none of
 * our descriptors (a map, a trace being written), close-on-exec or not;
 * its standard input is /dev/null. */
static void
test_action_fds(void)
{
    char dir[] = "/tmp/kd-test-action.XXXXXX";
    struct kd_action a;
    char *log = NULL, *cmd, *text = NULL, *path;
    size_t log_size;
    FILE *stream = open_memstream(&log, &log_size);
    int fd;

    if (!CHECK(mkdtemp(dir) != NULL)) {
        return;
    }
    path = kd_xasprintf("%s/fds", dir);
    fd = open("/dev/null", O_RDONLY);
    CHECK(fd > 2);
    cmd = kd_xasprintf("cd /proc/self/fd && echo * $(wc -c < /proc/$$/fd/0)"
                       " > %s", path);
    kd_action_init(&a, cmd, 0, stream);
    CHECK_INT(kd_action_run(&a, "TID 1", NULL, 0, kd_now_ns()), 0);
    wait_ended(&a);
    CHECK(!kd_read_file_line(path, &text));
    /* 3: the directory that the glob itself reads. */
    CHECK_STR(text, "0 1 2 3 0");
    kd_action_destroy(&a);
    close(fd);
    fclose(stream);
    free(log);
    free(text);
    free(cmd);
    unlink(path);
    free(path);
    rmdir(dir);
}

static const struct test tests[] = {
    TEST(test_action_runs),
    TEST(test_action_fds),
};

CHECK_SUITE(action, tests)
