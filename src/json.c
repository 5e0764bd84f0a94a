/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#include "json.h"

#include <inttypes.h>
#include <stddef.h>

/* Length of the valid UTF-8 sequence at 's' (overlong forms, surrogates
 * and code points above U+10FFFF are not valid), or 0. */
static size_t
kd_utf8_len(const unsigned char *s)
{
    unsigned int cp;
    size_t len;

    if (s[0] < 0x80) {
        return 1;
    } else if ((s[0] & 0xe0) == 0xc0) {
        len = 2;
        cp = s[0] & 0x1f;
    } else if ((s[0] & 0xf0) == 0xe0) {
        len = 3;
        cp = s[0] & 0x0f;
    } else if ((s[0] & 0xf8) == 0xf0) {
        len = 4;
        cp = s[0] & 0x07;
    } else {
        return 0;
    }
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) {
            return 0;
        }
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800)
        || (len == 4 && cp < 0x10000) || cp > 0x10ffff
        || (cp >= 0xd800 && cp <= 0xdfff)) {
        return 0;
    }
    return len;
}

void
kd_json_string(struct kd_ds *ds, const char *s_)
{
    const unsigned char *s = (const unsigned char *) s_;

    kd_ds_put_char(ds, '"');
    while (*s) {
        size_t len = kd_utf8_len(s);

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
