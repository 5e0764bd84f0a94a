/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* The next step after an error, for standard error. */

#include "hints.h"

#include <errno.h>
#include <string.h>

#include "trigger.h"
#include "util.h"

void
kd_hint_no_vswitchd(struct kd_ds *ds)
{
    kd_ds_put_cstr(ds, "no running ovs-vswitchd was found; 'pidof "
                   "ovs-vswitchd' shows whether Open vSwitch runs\n"
                   "to trace another process, give its PID: kernel_delay "
                   "-p PID\n");
}

void
kd_hint_many_vswitchd(struct kd_ds *ds)
{
    kd_ds_put_cstr(ds, "'pidof ovs-vswitchd' lists them; choose one: "
                   "kernel_delay -p PID\n");
}

void
kd_hint_no_process(struct kd_ds *ds, unsigned int pid)
{
    kd_ds_put_format(ds, "no process or thread %u runs (it may have "
                     "exited); 'pidof ovs-vswitchd' gives Open vSwitch's "
                     "PID\n", pid);
}

void
kd_hint_no_thread(struct kd_ds *ds, unsigned int tgid)
{
    kd_ds_put_format(ds, "its threads: ls /proc/%u/task, or ps -T -p %u\n",
                     tgid, tgid);
}

void
kd_hint_not_root(struct kd_ds *ds)
{
    kd_ds_put_cstr(ds, "run it as root, e.g. with sudo: it loads eBPF "
                   "programs and attaches probes (CAP_BPF, CAP_PERFMON, "
                   "CAP_SYS_ADMIN)\n"
                   "as a plain user, --list-probes works on processes of "
                   "that user\n");
}

/* The capabilities eBPF tracing needs, by their numbers
 * (linux/capability.h). */
#define KD_CAPS                                 \
    KD_CAP(SYS_ADMIN, 21)                       \
    KD_CAP(PERFMON, 38)                         \
    KD_CAP(BPF, 39)

enum {
#define KD_CAP(NAME, BIT) KD_CAP_##NAME = BIT,
    KD_CAPS
#undef KD_CAP
};

static bool
kd_has_cap(uint64_t caps, int bit)
{
    return (caps >> bit) & 1;
}

bool
kd_hint_caps_lacking(uint64_t caps)
{
    return !kd_has_cap(caps, KD_CAP_SYS_ADMIN)
           && !(kd_has_cap(caps, KD_CAP_BPF)
                && kd_has_cap(caps, KD_CAP_PERFMON));
}

void
kd_hint_no_capability(struct kd_ds *ds, uint64_t caps)
{
    static const struct {
        const char *name;
        int bit;
    } names[] = {
#define KD_CAP(NAME, BIT) { "CAP_" #NAME, BIT },
        KD_CAPS
#undef KD_CAP
    };
    const char *sep = "";

    kd_ds_put_cstr(ds, "root lacks ");
    for (size_t i = 0; i < KD_ARRAY_SIZE(names); i++) {
        if (!kd_has_cap(caps, names[i].bit)) {
            kd_ds_put_format(ds, "%s%s", sep, names[i].name);
            sep = ", ";
        }
    }
    kd_ds_put_cstr(ds, " here (a container? a security policy?): eBPF "
                   "tracing needs CAP_SYS_ADMIN, or CAP_BPF and "
                   "CAP_PERFMON\n"
                   "in a container: --privileged, or --cap-add for each "
                   "of them\n");
}

void
kd_hint_trigger_syntax(struct kd_ds *ds)
{
    kd_ds_put_cstr(ds, "a trigger is TYPE:ARGUMENTS, one of:\n");
    kd_trigger_put_kinds(ds);
    kd_ds_put_cstr(ds, "e.g. --start-trigger up:bridge_run --stop-trigger "
                   "ur:bridge_run; see TRIGGERS in kernel_delay(8)\n");
}

void
kd_hint_missing_function(struct kd_ds *ds, unsigned int pid,
                         const char *library)
{
    if (library) {
        kd_ds_put_format(ds, "'nm -D --defined-only FILE' lists the "
                         "functions a library exports (FILE from 'grep "
                         "%s /proc/%u/maps')\n", library, pid);
        return;
    }
    kd_ds_put_format(ds, "is the executable stripped? 'nm /proc/%u/exe' "
                     "then says \"no symbols\"; 'nm -D /proc/%u/exe' lists "
                     "the functions it exports\n", pid, pid);
    kd_ds_put_cstr(ds, "install its debug symbols, which libbcc finds in "
                   "/usr/lib/debug: Debian and Ubuntu openvswitch-switch-"
                   "dbgsym, Fedora and RHEL 'dnf debuginfo-install "
                   "openvswitch'\n");
    kd_ds_put_format(ds, "or trigger on a USDT probe (u:PROVIDER:PROBE) "
                     "instead: 'kernel_delay -p %u --list-probes' lists "
                     "them\n", pid);
}

void
kd_hint_missing_library(struct kd_ds *ds, unsigned int pid)
{
    kd_ds_put_format(ds, "'grep -o \"/.*\\.so.*\" /proc/%u/maps | sort -u' "
                     "lists the libraries it maps\n", pid);
}

void
kd_hint_usdt_unreadable(struct kd_ds *ds, unsigned int pid, int cause)
{
    if (cause == EACCES || cause == EPERM) {
        kd_ds_put_format(ds, "reading process %u's memory maps needs root "
                         "(or CAP_SYS_PTRACE): %s; run it with sudo\n",
                         pid, strerror(cause));
    } else if (cause == ENOENT || cause == ESRCH) {
        kd_ds_put_format(ds, "process %u has exited\n", pid);
    } else {
        kd_ds_put_format(ds, "its executable (/proc/%u/exe) or a library it "
                         "maps could not be read as ELF\n", pid);
    }
}

void
kd_hint_print(struct kd_ds *ds, FILE *stream)
{
    const char *p = kd_ds_cstr(ds);

    while (*p) {
        size_t len = strcspn(p, "\n");

        fprintf(stream, "kernel_delay: hint: %.*s\n", (int) len, p);
        p += len + (p[len] == '\n');
    }
    fflush(stream);
    kd_ds_destroy(ds);
}
