/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/host.c that make no system call: the lines --version
 * adds, from a given host description. */

#include "host.h"
#include "util.h"
#include "check.h"

/* The lines --version adds after its first: every field, then a host that
 * has no versioned libbcc.so, no BTF, no kprobes and no headers. */
static void
test_host_info_format(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct kd_host_info info = {
        .libbcc = "0.26.0",
        .libbcc_path = "/usr/lib/x86_64-linux-gnu/libbcc.so.0.26.0",
        .libbcc_built = "0.26.0",
        .libbpf = "1.1.2",
        .libbpf_path = "/usr/lib/x86_64-linux-gnu/libbpf.so.1.1.2",
        .libbpf_built = "1.1",
        .kernel = "6.18.0 x86_64",
        .features = {
            [KD_HOST_BTF] = { "BTF", "yes", "/sys/kernel/btf/vmlinux" },
            [KD_HOST_KPROBES] = { "kprobes", "yes", NULL },
            [KD_HOST_RINGBUF] = { "ring buffer", "unknown",
                                  "probing it needs root" },
            [KD_HOST_HEADERS] = { "kernel headers", "yes",
                                  "/lib/modules/6.18.0/build" },
        },
    };

    kd_host_info_format(&info, &ds);
    CHECK_STR(kd_ds_cstr(&ds),
              "libbcc: 0.26.0 (/usr/lib/x86_64-linux-gnu/libbcc.so.0.26.0), "
              "built with 0.26.0\n"
              "libbpf: 1.1.2 (/usr/lib/x86_64-linux-gnu/libbpf.so.1.1.2), "
              "built with 1.1\n"
              "kernel: 6.18.0 x86_64\n"
              "BTF: yes (/sys/kernel/btf/vmlinux)\n"
              "kprobes: yes\n"
              "ring buffer: unknown (probing it needs root)\n"
              "kernel headers: yes (/lib/modules/6.18.0/build)\n");
    kd_ds_destroy(&ds);

    info.libbcc = NULL;
    info.libbcc_path = NULL;
    info.libbpf_path = NULL;
    info.kernel = NULL;
    info.features[KD_HOST_BTF].state = "no";
    info.features[KD_HOST_BTF].detail = NULL;
    info.features[KD_HOST_KPROBES].state = "no";
    info.features[KD_HOST_RINGBUF].name = NULL;
    info.features[KD_HOST_HEADERS].state = "no";
    kd_host_info_format(&info, &ds);
    CHECK_STR(kd_ds_cstr(&ds),
              "libbcc: unknown, built with 0.26.0\n"
              "libbpf: 1.1.2, built with 1.1\n"
              "kernel: unknown\n"
              "BTF: no\n"
              "kprobes: no\n"
              "kernel headers: no (/lib/modules/6.18.0/build)\n");
    kd_ds_destroy(&ds);
}

static const struct test tests[] = {
    TEST(test_host_info_format),
};

CHECK_SUITE(host, tests)
