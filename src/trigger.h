/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_TRIGGER_H
#define KD_TRIGGER_H 1

#include <stddef.h>

/* Start and stop triggers: "TYPE:ARGS", as the reference accepts them.
 *
 *   u|usdt:PROVIDER:PROBE           USDT probe of the target
 *   t|trace:SYSTEM:EVENT            kernel tracepoint
 *   k|kprobe:FUNCTION               kernel function entry
 *   kr|kretprobe:FUNCTION           kernel function return
 *   up|uprobe:[LIBRARY:]FUNCTION    user function entry
 *   ur|upr|uretprobe:[LIBRARY:]FUNCTION   user function return
 *
 * A trigger is untrusted text.  Each part is checked against the grammar of
 * its kind before anything else looks at it, and none of it is ever pasted
 * into the generated eBPF program: trigger functions have fixed names and
 * are attached by name through libbcc. */

#define KD_TRIGGER_TYPES                                                \
    KD_TRIGGER_TYPE(USDT, "usdt", "u", NULL, "PROVIDER:PROBE")          \
    KD_TRIGGER_TYPE(TRACE, "trace", "t", NULL, "SYSTEM:EVENT")          \
    KD_TRIGGER_TYPE(KPROBE, "kprobe", "k", NULL, "FUNCTION")            \
    KD_TRIGGER_TYPE(KRETPROBE, "kretprobe", "kr", NULL, "FUNCTION")     \
    KD_TRIGGER_TYPE(UPROBE, "uprobe", "up", NULL, "[LIBRARY:]FUNCTION") \
    KD_TRIGGER_TYPE(URETPROBE, "uretprobe", "ur", "upr",                \
                    "[LIBRARY:]FUNCTION")

enum kd_trigger_type {
#define KD_TRIGGER_TYPE(ID, NAME, ALIAS, ALIAS2, ARGS) KD_TRIGGER_##ID,
    KD_TRIGGER_TYPES
#undef KD_TRIGGER_TYPE
    KD_N_TRIGGER_TYPES
};

/* Longest part (provider, probe, system, event, function, library). */
#define KD_TRIGGER_PART_MAX 255

struct kd_trigger {
    enum kd_trigger_type type;
    char *text;         /* The trigger as given. */
    char *provider;     /* USDT. */
    char *probe;        /* USDT. */
    char *system;       /* TRACE. */
    char *event;        /* TRACE. */
    char *function;     /* KPROBE, KRETPROBE, UPROBE, URETPROBE. */
    char *library;      /* UPROBE, URETPROBE: NULL for the executable. */
};

/* Parses 'text' into 'trigger'.  Returns 0, or EINVAL with '*error' (to
 * be freed) saying which part is wrong and why, in the reference's form:
 * "[TEXT]; reason". */
int kd_trigger_parse(const char *text, struct kd_trigger *trigger,
                     char **error);

void kd_trigger_destroy(struct kd_trigger *);

/* The type's canonical name ("usdt", ...). */
const char *kd_trigger_type_name(enum kd_trigger_type);

/* Appends the kinds of trigger to 'ds', one per line, as
 * "  u:PROVIDER:PROBE (usdt)". */
struct kd_ds;
void kd_trigger_put_kinds(struct kd_ds *ds);

/* Writes 'text' into 'buf' with every byte outside printable ASCII
 * escaped as \xHH, and cut with "..." when too long, so that user text
 * can be quoted in a message safely. */
const char *kd_trigger_quote(const char *text, char *buf, size_t size);

#endif /* trigger.h */
