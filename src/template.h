/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_TEMPLATE_H
#define KD_TEMPLATE_H 1

#include <stddef.h>

/* The eBPF program template, and the header it shares with user space
 * (bpf_templates/kd_abi.h, the value of its ABI placeholder), embedded at
 * build time (template_data.S). */
extern const char kd_bpf_template[];
extern const char kd_bpf_abi[];

/* One placeholder and its value.  A placeholder is written @NAME@ in the
 * template, NAME being upper-case letters, digits and underscores. */
struct kd_subst {
    const char *name;
    const char *value;
};

/* Replaces every placeholder of 'template' by its value in one pass (a
 * value is never scanned for placeholders itself).  Returns 0 and the new
 * text in '*out', or EINVAL and a message in '*error' (both to be freed by
 * the caller) when a placeholder has no value. */
int kd_template_expand(const char *template, const struct kd_subst *,
                       size_t n_substs, char **out, char **error);

#endif /* template.h */
