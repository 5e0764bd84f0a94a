/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* JSON writing: escaped strings, keys, numbers, booleans, separators. */

#include "json.h"

#include <inttypes.h>
#include <stddef.h>
#include <string.h>

void
kd_json_string(struct kd_ds *ds, const char *s_)
{
    const unsigned char *s = (const unsigned char *) s_;
    const unsigned char *end = s + strlen(s_);

    kd_ds_put_char(ds, '"');
    while (*s) {
        size_t len = kd_utf8_len((const char *) s, end - s);

        if (*s == '"' || *s == '\\') {
            kd_ds_put_char(ds, '\\');
            kd_ds_put_char(ds, *s++);
        } else if (*s == '\n') {
            kd_ds_put_cstr(ds, "\\n");
            s++;
        } else if (*s == '\t') {
            kd_ds_put_cstr(ds, "\\t");
            s++;
        } else if (*s < 0x20 || *s == 0x7f || !len) {
            kd_ds_put_format(ds, "\\u%04x", *s++);
        } else {
            kd_ds_put_buffer(ds, (const char *) s, len);
            s += len;
        }
    }
    kd_ds_put_char(ds, '"');
}

void
kd_json_key(struct kd_ds *ds, const char *key)
{
    kd_json_string(ds, key);
    kd_ds_put_char(ds, ':');
}

void
kd_json_u64(struct kd_ds *ds, uint64_t value)
{
    kd_ds_put_format(ds, "%" PRIu64, value);
}

void
kd_json_bool(struct kd_ds *ds, bool value)
{
    kd_ds_put_cstr(ds, value ? "true" : "false");
}

void
kd_json_null(struct kd_ds *ds)
{
    kd_ds_put_cstr(ds, "null");
}

void
kd_json_next(struct kd_ds *ds, bool *first)
{
    if (!*first) {
        kd_ds_put_char(ds, ',');
    }
    *first = false;
}

void
kd_json_time(struct kd_ds *ds, const struct timespec *ts)
{
    char buf[32];

    kd_json_string(ds, kd_utc_time(ts, buf));
}
