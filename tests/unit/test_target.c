/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/target.c: process discovery, thread to process, and
 * thread names, against a fake /proc. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sample.h"
#include "target.h"
#include "util.h"
#include "check.h"
#include "fixtures.h"

static void
test_target_find_vswitchd(void)
{
    char *root = make_proc_root();
    unsigned int pid = 12345;

    /* Nothing at all. */
    CHECK_INT(kd_target_find_vswitchd(root, &pid), ENOENT);
    CHECK_UINT(pid, 0);

    /* Entries that are no processes are skipped. */
    WRITE_LIT(root, "self/comm", "ovs-vswitchd\n");
    WRITE_LIT(root, "sys/comm", "ovs-vswitchd\n");
    WRITE_LIT(root, "cpuinfo", "ovs-vswitchd\n");
    add_process(root, 1, "systemd", "/sbin/init\0", 11);
    add_process(root, 50, "ovsdb-server", "ovsdb-server\0", 13);
    CHECK_INT(kd_target_find_vswitchd(root, &pid), ENOENT);
    CHECK_UINT(pid, 0);

    /* 14 characters: comm is complete, so the command line is not read. */
    add_process(root, 60, "abcd-ovs-vswit",
                "/usr/sbin/abcd-ovs-vswitchd\0", 28);
    /* 15 characters, but the command line does not start with it. */
    add_process(root, 61, "xyzab-ovs-vswit", "/usr/bin/other\0", 15);
    CHECK_INT(kd_target_find_vswitchd(root, &pid), ENOENT);

    add_process(root, 200, "ovs-vswitchd",
                "ovs-vswitchd\0unix:/var/run/db.sock\0", 35);
    CHECK_INT(kd_target_find_vswitchd(root, &pid), 0);
    CHECK_UINT(pid, 200);

    /* One that exited and is not reaped yet (a zombie) does not run. */
    add_process(root, 250, "ovs-vswitchd", "", 0);
    WRITE_LIT(root, "250/stat", "250 (ovs-vswitchd) Z 1 250 250 0 -1\n");
    CHECK_INT(kd_target_find_vswitchd(root, &pid), 0);
    CHECK_UINT(pid, 200);
    WRITE_LIT(root, "200/stat", "200 (ovs-vswitchd) S 1 200 200 0 -1\n");
    CHECK_INT(kd_target_find_vswitchd(root, &pid), 0);
    CHECK_UINT(pid, 200);

    add_process(root, 300, "ovs-vswitchd", "ovs-vswitchd\0", 13);
    CHECK_INT(kd_target_find_vswitchd(root, &pid), EEXIST);
    CHECK_UINT(pid, 0);

    remove_tree(root);
    free(root);
}

static void
test_target_long_name(void)
{
    char *root = make_proc_root();
    unsigned int pid = 0;

    /* "xyzab-ovs-vswitchd" is cut to 15 characters in comm; psutil takes
     * the command line's base name instead, which starts with it. */
    add_process(root, 1, "systemd", "/sbin/init\0", 11);
    add_process(root, 4242, "xyzab-ovs-vswit",
                "/usr/local/sbin/xyzab-ovs-vswitchd\0--pidfile\0"
                "--detach\0", 54);
    CHECK_INT(kd_target_find_vswitchd(root, &pid), 0);
    CHECK_UINT(pid, 4242);

    /* A 15-character comm that has "ovs-vswitchd" itself. */
    remove_tree(root);
    free(root);
    root = make_proc_root();
    add_process(root, 77, "my-ovs-vswitchd", "my-ovs-vswitchd\0", 16);
    CHECK_INT(kd_target_find_vswitchd(root, &pid), 0);
    CHECK_UINT(pid, 77);

    remove_tree(root);
    free(root);
}

/* psutil splits a command line that a process rewrote with spaces (no
 * final NUL, or a final NUL but a single word with spaces) at the spaces,
 * and takes the base name of the first word. */
static void
test_target_long_name_spaces(void)
{
    static const char no_nul[] =
        "/usr/sbin/xyzab-ovs-vswitchd --pidfile=/var/run/ovs.pid";
    static const char one_word[] =
        "/usr/sbin/xyzab-ovs-vswitchd --pidfile=/var/run/ovs.pid\0";
    char *root = make_proc_root();
    unsigned int pid = 0;

    add_process(root, 4243, "xyzab-ovs-vswit", no_nul, sizeof no_nul - 1);
    CHECK_INT(kd_target_find_vswitchd(root, &pid), 0);
    CHECK_UINT(pid, 4243);
    remove_tree(root);
    free(root);

    root = make_proc_root();
    add_process(root, 4244, "xyzab-ovs-vswit", one_word,
                sizeof one_word - 1);
    CHECK_INT(kd_target_find_vswitchd(root, &pid), 0);
    CHECK_UINT(pid, 4244);
    remove_tree(root);
    free(root);
}

static void
test_target_resolve(void)
{
    char *root = make_proc_root();
    unsigned int tgid = 99;

    add_process(root, 100, "ovs-vswitchd", "ovs-vswitchd\0", 13);
    /* A thread: not listed by readdir() in the real /proc, but its status
     * is there. */
    WRITE_LIT(root, "101/status",
              "Name:\thandler1\nUmask:\t0022\nState:\tS (sleeping)\n"
              "Tgid:\t100\nNgid:\t0\nPid:\t101\nPPid:\t1\n");
    WRITE_LIT(root, "102/status", "Name:\tbroken\nPid:\t102\n");

    CHECK_INT(kd_target_resolve(root, 100, &tgid), 0);
    CHECK_UINT(tgid, 100);
    tgid = 99;
    CHECK_INT(kd_target_resolve(root, 101, &tgid), 0);
    CHECK_UINT(tgid, 100);
    tgid = 99;
    CHECK_INT(kd_target_resolve(root, 999, &tgid), ESRCH);
    CHECK_UINT(tgid, 0);
    CHECK_INT(kd_target_resolve(root, 102, &tgid), ESRCH);
    CHECK_INT(kd_target_resolve(root, 0, &tgid), ESRCH);

    remove_tree(root);
    free(root);
}

static void
test_target_thread_name(void)
{
    char *root = make_proc_root();
    char *name;
    struct kd_sample s;

    add_process(root, 100, "ovs-vswitchd", "ovs-vswitchd\0", 13);
    WRITE_LIT(root, "100/task/100/comm", "ovs-vswitchd\n");
    WRITE_LIT(root, "100/task/101/comm", "handler1\n");
    WRITE_LIT(root, "100/task/102/comm", "revalidator2");
    /* prctl(PR_SET_NAME) takes any byte but NUL: the kernel adds one
     * newline to a name that may hold others. */
    WRITE_LIT(root, "100/task/104/comm", "a\nb\x1b\n\n");

    name = kd_target_thread_name(100, 101, root);
    CHECK_STR(name, "handler1");
    free(name);
    name = kd_target_thread_name(100, 104, root);
    CHECK_STR(name, "a\nb\x1b\n");
    free(name);
    name = kd_target_thread_name(100, 102, root);
    CHECK_STR(name, "revalidator2");
    free(name);
    name = kd_target_thread_name(100, 103, root);
    CHECK(name == NULL);
    free(name);
    name = kd_target_thread_name(555, 101, root);
    CHECK(name == NULL);
    free(name);

    /* As kd_sample_group()'s name function. */
    {
        const struct kd_syscall_entry syscalls[] = {
            sc(103, 0, 1, 1, 1),
            sc(101, 0, 1, 1, 1),
            sc(100, 0, 1, 1, 1),
        };

        make_sample(&s, 100, &(struct sample_entries) {
            SAMPLE_ENTRIES(syscalls, syscalls),
        });
        kd_sample_group(&s, kd_target_thread_name, root);
        if (CHECK_UINT(s.n_threads, 3)) {
            CHECK_STR(s.threads[0].name, "<unknown:100/103>");
            CHECK_STR(s.threads[1].name, "handler1");
            CHECK_STR(s.threads[2].name, "ovs-vswitchd");
        }
        kd_sample_clear(&s);
    }

    remove_tree(root);
    free(root);
}

/* The names of the target events, as the JSON records have them. */
static void
test_target_event_names(void)
{
    CHECK_STR(kd_target_event_name(KD_TARGET_WAITING), "waiting");
    CHECK_STR(kd_target_event_name(KD_TARGET_ATTACHED), "attached");
    CHECK_STR(kd_target_event_name(KD_TARGET_LOST), "lost");
    CHECK_STR(kd_target_event_name(KD_N_TARGET_EVENTS), "?");
}

static const struct test tests[] = {
    TEST(test_target_event_names),
    TEST(test_target_find_vswitchd),
    TEST(test_target_long_name),
    TEST(test_target_long_name_spaces),
    TEST(test_target_resolve),
    TEST(test_target_thread_name),
};

CHECK_SUITE(target, tests)
