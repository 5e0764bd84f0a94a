/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Triggers checked against the target and the kernel, then attached. */

#include "hook.h"

#include <bcc/bcc_syms.h>
#include <bcc/bcc_usdt.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util.h"

const char *
kd_hook_tracefs(void)
{
    return kd_path_exists(KD_TRACEFS_DIR "/events")
           ? KD_TRACEFS_DIR : KD_DEBUGFS_DIR "/tracing";
}

/* bcc_usdt_foreach() takes a callback with no argument of ours: it
 * reports through this. */
struct kd_usdt_walk {
    struct kd_ds lines;     /* "provider:name (binary, N locations)\n". */
    struct kd_ds names;     /* "provider:name, provider:name". */
    int count;
    const char *want_provider;
    const char *want_probe;
    bool found;
};

static struct kd_usdt_walk *kd_usdt_walk;

/* "provider:name", as the process has them: rendered safely, as all its
 * names are, for they are its own to choose. */
static void
kd_put_probe_name(struct kd_ds *ds, const struct bcc_usdt *probe)
{
    kd_ds_put_safe_cstr(ds, probe->provider);
    kd_ds_put_char(ds, ':');
    kd_ds_put_safe_cstr(ds, probe->name);
}

static void
kd_usdt_probe_cb(struct bcc_usdt *probe)
{
    struct kd_usdt_walk *w = kd_usdt_walk;

    kd_put_probe_name(&w->lines, probe);
    kd_ds_put_cstr(&w->lines, " (");
    kd_ds_put_safe_cstr(&w->lines, probe->bin_path);
    kd_ds_put_format(&w->lines, ", %d location%s)\n", probe->num_locations,
                     probe->num_locations == 1 ? "" : "s");
    kd_ds_put_cstr(&w->names, w->count ? ", " : "");
    kd_put_probe_name(&w->names, probe);
    if (w->want_probe && !strcmp(probe->provider, w->want_provider)
        && !strcmp(probe->name, w->want_probe)) {
        w->found = true;
    }
    w->count++;
}

static void
kd_usdt_walk_run(void *usdt, struct kd_usdt_walk *w)
{
    kd_usdt_walk = w;
    bcc_usdt_foreach(usdt, kd_usdt_probe_cb);
    kd_usdt_walk = NULL;
}

int
kd_hook_list_usdt(unsigned int pid, char **list)
{
    struct kd_usdt_walk w = { .count = 0 };
    void *usdt = bcc_usdt_new_frompid(pid, NULL);

    *list = NULL;
    if (!usdt) {
        return -1;
    }
    kd_usdt_walk_run(usdt, &w);
    bcc_usdt_close(usdt);
    *list = kd_ds_steal_cstr(&w.lines);
    kd_ds_destroy(&w.names);
    return w.count;
}

static int
kd_hook_prepare_usdt(struct kd_hook *h, char **error)
{
    const struct kd_trigger *t = h->trigger;
    struct kd_usdt_walk w = {
        .want_provider = t->provider,
        .want_probe = t->probe,
    };

    h->usdt = bcc_usdt_new_frompid(h->pid, NULL);
    if (!h->usdt) {
        *error = kd_xasprintf("Can't read the USDT probes of process %u",
                              h->pid);
        return EINVAL;
    }
    kd_usdt_walk_run(h->usdt, &w);
    if (!w.found) {
        *error = kd_xasprintf("Can't find USDT probe '%s:%s' in process "
                              "%u; %s%s", t->provider, t->probe, h->pid,
                              w.count ? "it has: "
                              : "it has no USDT probes (OVS needs to be "
                                "built with --enable-usdt-probes)",
                              kd_ds_cstr(&w.names));
    }
    kd_ds_destroy(&w.lines);
    kd_ds_destroy(&w.names);
    if (!w.found) {
        return EINVAL;
    }

    if (bcc_usdt_enable_fully_specified_probe(h->usdt, t->provider,
                                              t->probe, h->func)) {
        *error = kd_xasprintf("Failed to enable USDT probe '%s:%s' in "
                              "process %u", t->provider, t->probe, h->pid);
        return EIO;
    }
    return 0;
}

/* Finds library 'name' among the files process 'pid' maps: by path when
 * it holds a '/', else by base name, exact ("libc.so.6"), as a prefix
 * before a '.' ("libc.so", "libc"), or in libbcc's short form ("c" for
 * libc.so...).  Returns the path as seen from our mount namespace, or
 * NULL. */
static char *
kd_find_library(unsigned int pid, const char *name)
{
    size_t len = strlen(name);
    char path[64], line[4096];
    char *found = NULL;
    FILE *f;

    snprintf(path, sizeof path, "/proc/%u/maps", pid);
    f = fopen(path, "re");
    if (!f) {
        return NULL;
    }
    while (!found && fgets(line, sizeof line, f)) {
        char *file = strchr(line, '/');
        const char *base;

        if (!file) {
            continue;
        }
        file[strcspn(file, "\n")] = '\0';
        base = strrchr(file, '/') + 1;
        if (strchr(name, '/') ? !strcmp(file, name)
            : (!strcmp(base, name)
               || (!strncmp(base, name, len) && base[len] == '.')
               || (!strncmp(base, "lib", 3) && !strncmp(base + 3, name, len)
                   && !strncmp(base + 3 + len, ".so", 3)))) {
            found = kd_xasprintf("/proc/%u/root%s", pid, file);
        }
    }
    fclose(f);
    return found;
}

static int
kd_hook_prepare_uprobe(struct kd_hook *h, char **error)
{
    const struct kd_trigger *t = h->trigger;
    struct bcc_symbol sym = { 0 };
    char *library = NULL;
    char exe[64];
    const char *module;

    if (t->library) {
        library = kd_find_library(h->pid, t->library);
        if (!library) {
            *error = kd_xasprintf("Failed attaching uprobe %s trigger "
                                  "'%s';\n         process %u has no "
                                  "library '%s' mapped", h->role,
                                  t->function, h->pid, t->library);
            return ENXIO;
        }
        module = library;
    } else {
        snprintf(exe, sizeof exe, "/proc/%u/exe", h->pid);
        module = exe;
    }
    if (bcc_resolve_symname(module, t->function, 0, h->pid, NULL, &sym)
        || !sym.module || !sym.module[0]) {
        *error = kd_xasprintf("Failed attaching uprobe %s trigger '%s';\n"
                              "         can't find function '%s' in %s",
                              h->role, t->function, t->function,
                              t->library ? t->library : module);
        free((void *) sym.module);
        free(library);
        return ENOENT;
    }
    h->binary = kd_xstrdup(sym.module);
    h->offset = sym.offset;
    free((void *) sym.module);
    free(library);
    return 0;
}

static int
kd_hook_prepare_trace(struct kd_hook *h, char **error)
{
    const struct kd_trigger *t = h->trigger;
    char path[512];

    snprintf(path, sizeof path, "%s/events/%s/%s/id", kd_hook_tracefs(),
             t->system, t->event);
    if (!kd_path_exists(path)) {
        *error = kd_xasprintf("No tracepoint '%s:%s' in this kernel (no "
                              "%s)", t->system, t->event, path);
        return EINVAL;
    }
    return 0;
}

/* Whether 'func' is listed in tracefs's available_filter_functions (where
 * the kernel can say; true when it cannot). */
static bool
kd_kernel_function_traceable(const char *func, char **module)
{
    char path[512], line[512];
    size_t len = strlen(func);
    bool found = false;
    FILE *f;

    if (module) {
        *module = NULL;
    }
    snprintf(path, sizeof path, "%s/available_filter_functions",
             kd_hook_tracefs());
    f = fopen(path, "re");
    if (!f) {
        return true;
    }
    while (!found && fgets(line, sizeof line, f)) {
        found = !strncmp(line, func, len)
                && (line[len] == '\n' || line[len] == ' ');
    }
    fclose(f);

    /* "FUNCTION [MODULE]" for a function of a module. */
    if (found && module && line[len] == ' ' && line[len + 1] == '[') {
        size_t n = strcspn(line + len + 2, "]\n");

        *module = kd_xasprintf("%.*s", (int) n, line + len + 2);
    }
    return found;
}

bool
kd_hook_kprobes_available(void)
{
    char path[512];

    snprintf(path, sizeof path, "%s/kprobe_events", kd_hook_tracefs());
    return kd_path_exists("/sys/bus/event_source/devices/kprobe")
           || kd_path_exists(path);
}

bool
kd_hook_kernel_function_ok(const char *func, char **module, char **why)
{
    if (!kd_hook_kprobes_available()) {
        *why = kd_xstrdup("this kernel has no kprobe support "
                          "(CONFIG_KPROBES is not set)");
        return false;
    }
    if (!kd_kernel_function_traceable(func, module)) {
        *why = kd_xasprintf("kernel function '%s' does not exist or cannot "
                            "be traced (not in available_filter_functions; "
                            "is its module loaded?)", func);
        return false;
    }
    return true;
}

static int
kd_hook_prepare_kprobe(struct kd_hook *h, char **error)
{
    const struct kd_trigger *t = h->trigger;
    char *why;

    if (!kd_hook_kernel_function_ok(t->function, NULL, &why)) {
        /* Capitalized, as it starts the reason of an ERROR line. */
        why[0] = why[0] >= 'a' && why[0] <= 'z' ? why[0] - 'a' + 'A'
                                                 : why[0];
        *error = kd_xasprintf("%s: %s triggers cannot work here", why,
                              kd_trigger_type_name(t->type));
        free(why);
        return EINVAL;
    }
    return 0;
}

int
kd_hook_prepare(struct kd_hook *h, const struct kd_trigger *trigger,
                bool start, unsigned int pid, char **error)
{
    memset(h, 0, sizeof *h);
    h->trigger = trigger;
    h->role = start ? "start" : "stop";
    h->func = start ? KD_START_TRIGGER_FUNC : KD_STOP_TRIGGER_FUNC;
    h->pid = pid;
    *error = NULL;

    switch (trigger->type) {
    case KD_TRIGGER_USDT:
        return kd_hook_prepare_usdt(h, error);
    case KD_TRIGGER_UPROBE:
    case KD_TRIGGER_URETPROBE:
        return kd_hook_prepare_uprobe(h, error);
    case KD_TRIGGER_TRACE:
        return kd_hook_prepare_trace(h, error);
    case KD_TRIGGER_KPROBE:
    case KD_TRIGGER_KRETPROBE:
        return kd_hook_prepare_kprobe(h, error);
    case KD_N_TRIGGER_TYPES:
    default:
        *error = kd_xstrdup("Unknown trigger type");
        return EINVAL;
    }
}

char *
kd_hook_code(struct kd_hook *h)
{
    const char *code;

    if (!h->usdt) {
        return NULL;
    }
    code = bcc_usdt_genargs(&h->usdt, 1);
    return code ? kd_xstrdup(code) : NULL;
}

/* The locations of an enabled USDT probe, from bcc_usdt_foreach_uprobe(). */
struct kd_usdt_location {
    char *binary;
    uint64_t address;
};

static struct kd_usdt_location *kd_usdt_locations;
static size_t kd_usdt_n_locations;
static const char *kd_usdt_func;

static void
kd_usdt_uprobe_cb(const char *binary, const char *func, uint64_t address,
                  int pid)
{
    (void) pid;
    if (kd_usdt_func && !strcmp(func, kd_usdt_func)) {
        kd_usdt_locations = kd_xreallocarray(kd_usdt_locations,
                                             kd_usdt_n_locations + 1,
                                             sizeof *kd_usdt_locations);
        kd_usdt_locations[kd_usdt_n_locations++] =
            (struct kd_usdt_location) { kd_xstrdup(binary), address };
    }
}

static int
kd_hook_attach_usdt(struct kd_hook *h, struct kd_program *prog,
                    unsigned int debug, char **error)
{
    int err = 0;

    kd_usdt_func = h->func;
    bcc_usdt_foreach_uprobe(h->usdt, kd_usdt_uprobe_cb);
    kd_usdt_func = NULL;

    if (!kd_usdt_n_locations) {
        *error = kd_xasprintf("USDT probe '%s:%s' has no location to "
                              "attach to", h->trigger->provider,
                              h->trigger->probe);
        err = ENOENT;
    }
    for (size_t i = 0; i < kd_usdt_n_locations; i++) {
        if (!err) {
            err = kd_program_attach_uprobe(prog, h->func, false,
                                           kd_usdt_locations[i].binary,
                                           kd_usdt_locations[i].address,
                                           h->pid, debug, error);
        }
        free(kd_usdt_locations[i].binary);
    }
    free(kd_usdt_locations);
    kd_usdt_locations = NULL;
    kd_usdt_n_locations = 0;
    return err;
}

int
kd_hook_attach(struct kd_hook *h, struct kd_program *prog,
               unsigned int debug, char **error)
{
    const struct kd_trigger *t = h->trigger;

    *error = NULL;
    switch (t->type) {
    case KD_TRIGGER_USDT:
        return kd_hook_attach_usdt(h, prog, debug, error);
    case KD_TRIGGER_UPROBE:
    case KD_TRIGGER_URETPROBE:
        return kd_program_attach_uprobe(prog, h->func,
                                        t->type == KD_TRIGGER_URETPROBE,
                                        h->binary, h->offset, h->pid, debug,
                                        error);
    case KD_TRIGGER_TRACE:
        return kd_program_attach_tracepoint(prog, h->func, t->system,
                                            t->event, debug, error);
    case KD_TRIGGER_KPROBE:
    case KD_TRIGGER_KRETPROBE:
        return kd_program_attach_kprobe(prog, h->func,
                                        t->type == KD_TRIGGER_KRETPROBE,
                                        t->function, debug, error);
    case KD_N_TRIGGER_TYPES:
    default:
        return EINVAL;
    }
}

void
kd_hook_close(struct kd_hook *h)
{
    if (h->usdt) {
        bcc_usdt_close(h->usdt);
    }
    free(h->binary);
    memset(h, 0, sizeof *h);
}
