/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* The single-pass filler of the eBPF template's placeholders. */

#include "template.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "util.h"

static bool
kd_is_placeholder_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* If 's' starts a placeholder "@NAME@", returns the length of NAME,
 * otherwise 0. */
static size_t
kd_placeholder_len(const char *s)
{
    size_t n = 0;

    if (s[0] != '@') {
        return 0;
    }
    while (kd_is_placeholder_char(s[n + 1])) {
        n++;
    }
    return n && s[n + 1] == '@' ? n : 0;
}

static const struct kd_subst *
kd_subst_find(const struct kd_subst *substs, size_t n_substs,
              const char *name, size_t len)
{
    for (size_t i = 0; i < n_substs; i++) {
        if (strlen(substs[i].name) == len
            && !memcmp(substs[i].name, name, len)) {
            return &substs[i];
        }
    }
    return NULL;
}

int
kd_template_expand(const char *template, const struct kd_subst *substs,
                   size_t n_substs, char **out, char **error)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    const char *p = template;
    unsigned int line = 1;

    *out = NULL;
    *error = NULL;
    while (*p) {
        size_t span = strcspn(p, "@\n");
        size_t len;

        kd_ds_put_buffer(&ds, p, span);
        p += span;
        if (*p == '\n') {
            kd_ds_put_char(&ds, '\n');
            line++;
            p++;
            continue;
        } else if (!*p) {
            break;
        }

        len = kd_placeholder_len(p);
        if (!len) {
            kd_ds_put_char(&ds, *p++);
            continue;
        }

        const struct kd_subst *subst = kd_subst_find(substs, n_substs,
                                                     p + 1, len);
        if (!subst || !subst->value) {
            *error = kd_xasprintf("template line %u: placeholder @%.*s@ "
                                  "has no value", line, (int) len, p + 1);
            kd_ds_destroy(&ds);
            return EINVAL;
        }
        kd_ds_put_cstr(&ds, subst->value);
        p += len + 2;
    }
    *out = kd_ds_steal_cstr(&ds);
    return 0;
}
