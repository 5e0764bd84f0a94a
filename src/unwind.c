/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* The unwind tables of one target process, in the eBPF program's maps. */

#include "unwind.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cfi.h"
#include "util.h"
#include "uwtable.h"

/* Room for files mapped later: the tables get this much more than those
 * built at the start need, within the bound. */
#define KD_UW_ROOM_PERCENT  50
#define KD_UW_ROOM_PAGES    4096
/* Entries of uw_maps: prefixes of the executable mappings (an LPM trie
 * allocates the entries it holds only). */
#define KD_UW_MAP_KEYS      16384
/* How often the mappings are looked at when nothing asks. */
#define KD_UW_CHECK_NS      1000000000ull

enum kd_uw_file_state {
    KD_UW_FILE_TABLE,           /* Its table is in the maps. */
    KD_UW_FILE_NO_CFI,          /* None could be built: frame pointers. */
    KD_UW_FILE_FULL,            /* No room left for it: likewise. */
};

/* A file the target runs code of. */
struct kd_uw_file {
    uint64_t dev, ino;          /* Its identity: both 0 for the vDSO. */
    char *path;
    enum kd_uw_file_state state;
    struct kd_uwtable_span span;
    GElf_Phdr *loads;           /* Its PT_LOAD segments. */
    size_t n_loads;
    struct kd_cfi_table cfi;    /* Until it is in the tables. */
    uint64_t lo, hi;            /* Its executable addresses. */
};

/* An executable mapping of the target. */
struct kd_uw_mapping {
    uint64_t start, end, offset;
    uint64_t dev, ino;
    char *path;                 /* NULL: no file (code made at run time). */
    bool vdso;
    struct kd_uw_file *file;    /* Once known. */
};

struct kd_unwind {
    unsigned int pid;
    size_t max_bytes;
    struct kd_uw_file **files;
    size_t n_files;
    struct kd_uw_mapping *maps;
    size_t n_maps;
    struct kd_uw_map_key *keys; /* What uw_maps holds now. */
    size_t n_keys;
    struct kd_uwtable table;
    int maps_fd, maps_at_fd, pages_fd, rows_fd;
    uint64_t maps_at;           /* uw_maps' changes (uw_maps_at). */
    uint64_t maps_hash;         /* Of the executable lines of the maps. */
    uint64_t checked_ns;
    uint64_t build_ns;
    pthread_t builder;          /* Builds the first tables... */
    bool building;              /* ...until joined. */
};

static uint64_t
kd_uw_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void
kd_uw_mappings_free(struct kd_uw_mapping *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].path);
    }
    free(v);
}

/* Reads the executable mappings of 'pid' into a new array '*v' of '*n',
 * and a hash of them into '*hash'.  Returns 0 or a positive errno. */
static int
kd_uw_read_maps(unsigned int pid, struct kd_uw_mapping **v, size_t *n,
                uint64_t *hash)
{
    char path[64], line[4096 + 256];
    size_t allocated = 0;
    FILE *f;

    snprintf(path, sizeof path, "/proc/%u/maps", pid);
    f = fopen(path, "re");
    if (!f) {
        return errno;
    }
    *v = NULL;
    *n = 0;
    *hash = 14695981039346656037ull;
    while (fgets(line, sizeof line, f)) {
        unsigned long long start, end, offset, ino;
        unsigned int major, minor;
        char perms[8];
        int name = 0;
        struct kd_uw_mapping *m;
        char *nl;

        if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end,
                   perms, &offset, &major, &minor, &ino, &name) < 7
            || !strchr(perms, 'x')) {
            continue;
        }
        for (const char *p = line; *p; p++) {
            *hash = (*hash ^ (unsigned char) *p) * 1099511628211ull;
        }
        nl = strchr(line, '\n');
        if (nl) {
            *nl = '\0';
        }
        /* The vsyscall page is the kernel's, above user space. */
        if (!strcmp(line + name, "[vsyscall]")) {
            continue;
        }
        if (*n == allocated) {
            allocated = allocated ? 2 * allocated : 64;
            *v = kd_xreallocarray(*v, allocated, sizeof **v);
        }
        m = &(*v)[(*n)++];
        memset(m, 0, sizeof *m);
        m->start = start;
        m->end = end;
        m->offset = offset;
        m->dev = ((uint64_t) major << 32) | minor;
        m->ino = ino;
        m->vdso = !strcmp(line + name, "[vdso]");
        if (line[name] == '/' && ino) {
            m->path = kd_xstrdup(line + name);
        }
    }
    fclose(f);
    return 0;
}

/* Opens the ELF image of mapping 'm' of 'pid': its file (through
 * map_files/, which holds a deleted or replaced file too, else the
 * process's root), or the vDSO's bytes.  Returns it, with '*fd' and
 * '*image' to free after elf_end(), or NULL. */
static Elf *
kd_uw_open(unsigned int pid, const struct kd_uw_mapping *m, int *fd,
           void **image)
{
    char path[4096 + 64];

    *fd = -1;
    *image = NULL;
    if (m->vdso) {
        size_t size = m->end - m->start;
        ssize_t got;

        snprintf(path, sizeof path, "/proc/%u/mem", pid);
        *fd = open(path, O_RDONLY | O_CLOEXEC);
        if (*fd < 0) {
            return NULL;
        }
        *image = kd_xcalloc(1, size);
        got = pread(*fd, *image, size, m->start);
        close(*fd);
        *fd = -1;
        return got == (ssize_t) size ? elf_memory(*image, size) : NULL;
    }
    snprintf(path, sizeof path, "/proc/%u/map_files/%" PRIx64 "-%" PRIx64,
             pid, m->start, m->end);
    *fd = open(path, O_RDONLY | O_CLOEXEC);
    if (*fd < 0) {
        snprintf(path, sizeof path, "/proc/%u/root%s", pid, m->path);
        *fd = open(path, O_RDONLY | O_CLOEXEC);
    }
    return *fd >= 0 ? elf_begin(*fd, ELF_C_READ_MMAP, NULL) : NULL;
}

/* The separate debug file of 'elf', in the target's root, if installed:
 * for its .debug_frame. */
static Elf *
kd_uw_open_debug(unsigned int pid, Elf *elf, int *fd)
{
    char root[64];
    char *path;

    snprintf(root, sizeof root, "/proc/%u/root", pid);
    path = kd_cfi_debug_path(elf, root);
    *fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    free(path);
    return *fd >= 0 ? elf_begin(*fd, ELF_C_READ_MMAP, NULL) : NULL;
}

/* Reads the loadable segments of 'elf' into 'f', and its executable
 * addresses.  False if it has none. */
static bool
kd_uw_segments(Elf *elf, struct kd_uw_file *f)
{
    size_t n;

    if (elf_getphdrnum(elf, &n)) {
        return false;
    }
    f->loads = kd_xcalloc(n ? n : 1, sizeof *f->loads);
    f->lo = UINT64_MAX;
    f->hi = 0;
    for (size_t i = 0; i < n; i++) {
        GElf_Phdr ph;

        if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD) {
            continue;
        }
        f->loads[f->n_loads++] = ph;
        if (ph.p_flags & PF_X) {
            f->lo = ph.p_vaddr < f->lo ? ph.p_vaddr : f->lo;
            f->hi = ph.p_vaddr + ph.p_memsz > f->hi ? ph.p_vaddr + ph.p_memsz
                                                    : f->hi;
        }
    }
    return f->hi > f->lo;
}

/* The file of mapping 'm', read (its table built, not yet laid out). */
static struct kd_uw_file *
kd_uw_file_read(struct kd_unwind *u, const struct kd_uw_mapping *m)
{
    struct kd_uw_file *f = kd_xcalloc(1, sizeof *f);
    Elf *elf, *debug = NULL;
    int fd, debug_fd = -1;
    void *image;
    char *error = NULL;

    f->dev = m->vdso ? 0 : m->dev;
    f->ino = m->vdso ? 0 : m->ino;
    f->path = kd_xstrdup(m->vdso ? "[vdso]" : m->path);
    f->state = KD_UW_FILE_NO_CFI;
    elf = kd_uw_open(u->pid, m, &fd, &image);
    if (elf && kd_uw_segments(elf, f)) {
        if (!m->vdso) {
            debug = kd_uw_open_debug(u->pid, elf, &debug_fd);
        }
        if (!kd_cfi_build(elf, debug, &f->cfi, &error)) {
            f->state = KD_UW_FILE_TABLE;
        }
        free(error);
    }
    if (debug) {
        elf_end(debug);
    }
    if (debug_fd >= 0) {
        close(debug_fd);
    }
    if (elf) {
        elf_end(elf);
    }
    if (fd >= 0) {
        close(fd);
    }
    free(image);
    return f;
}

static void
kd_uw_file_free(struct kd_uw_file *f)
{
    if (f) {
        kd_cfi_destroy(&f->cfi);
        free(f->loads);
        free(f->path);
        free(f);
    }
}

/* The known file of mapping 'm', or NULL. */
static struct kd_uw_file *
kd_uw_file_find(const struct kd_unwind *u, const struct kd_uw_mapping *m)
{
    for (size_t i = 0; i < u->n_files; i++) {
        struct kd_uw_file *f = u->files[i];

        if (m->vdso ? !f->dev && !f->ino
                    : f->dev == m->dev && f->ino == m->ino) {
            return f;
        }
    }
    return NULL;
}

/* Gives each mapping of a file its file, reading the files not known
 * yet; returns how many were read. */
static size_t
kd_uw_files_read(struct kd_unwind *u)
{
    uint64_t start = kd_uw_now();
    size_t n = 0;

    for (size_t i = 0; i < u->n_maps; i++) {
        struct kd_uw_mapping *m = &u->maps[i];

        if (!m->path && !m->vdso) {
            continue;
        }
        m->file = kd_uw_file_find(u, m);
        if (!m->file) {
            m->file = kd_uw_file_read(u, m);
            u->files = kd_xreallocarray(u->files, u->n_files + 1,
                                        sizeof *u->files);
            u->files[u->n_files++] = m->file;
            n++;
        }
    }
    u->build_ns += kd_uw_now() - start;
    return n;
}

/* Lays out the tables of the files read and not laid out yet. */
static void
kd_uw_files_add(struct kd_unwind *u)
{
    for (size_t i = 0; i < u->n_files; i++) {
        struct kd_uw_file *f = u->files[i];

        if (f->state == KD_UW_FILE_TABLE && f->cfi.rows) {
            if (kd_uwtable_add(&u->table, &f->cfi, f->lo, f->hi,
                               &f->span)) {
                f->state = KD_UW_FILE_FULL;
            }
            kd_cfi_destroy(&f->cfi);
        }
    }
}

/* The value of uw_maps for mapping 'm': false if it has none. */
static bool
kd_uw_map_value(const struct kd_uw_mapping *m, struct kd_uw_map *v)
{
    const struct kd_uw_file *f = m->file;

    memset(v, 0, sizeof *v);
    v->start = m->start;
    v->end = m->end;
    if (!f) {
        /* Code made at run time: frame pointers. */
        return !m->path && !m->vdso;
    }
    if (f->state != KD_UW_FILE_TABLE) {
        return true;
    }
    for (size_t i = 0; i < f->n_loads; i++) {
        const GElf_Phdr *ph = &f->loads[i];
        uint64_t first = ph->p_offset & ~(uint64_t) 0xfff;

        if (m->vdso || (m->offset >= first
                        && m->offset < ph->p_offset + ph->p_filesz)) {
            uint64_t vaddr = m->vdso ? ph->p_vaddr - ph->p_offset
                                     : m->offset - ph->p_offset
                                       + ph->p_vaddr;

            v->bias = m->start - vaddr;
            v->page_base = f->span.page_base;
            v->page_lo = f->span.page_lo;
            v->n_pages = f->span.n_pages;
            return true;
        }
    }
    return true;
}

/* Writes what changed in the tables into the maps. */
static int
kd_uw_write_tables(struct kd_unwind *u, char **error)
{
    struct kd_uwtable *t = &u->table;

    for (size_t i = 0; i < t->n_shards; i++) {
        uint32_t key = i;

        if (t->dirty[i]
            && bpf_map_update_elem(u->rows_fd, &key,
                                   &t->rows[i * KD_UW_SHARD_ROWS], 0)) {
            *error = kd_xasprintf("Failed to write eBPF map 'uw_rows': %s",
                                  strerror(errno));
            return errno;
        }
    }
    for (size_t i = t->dirty_page; i < t->next_page; i++) {
        uint32_t key = i;

        if (bpf_map_update_elem(u->pages_fd, &key, &t->pages[i], 0)) {
            *error = kd_xasprintf("Failed to write eBPF map 'uw_pages': "
                                  "%s", strerror(errno));
            return errno;
        }
    }
    kd_uwtable_clean(t);
    return 0;
}

static int
kd_uw_key_cmp(const void *a_, const void *b_)
{
    return memcmp(a_, b_, sizeof(struct kd_uw_map_key));
}

/* Makes uw_maps hold the mappings' entries, and no other. */
static int
kd_uw_write_maps(struct kd_unwind *u, char **error)
{
    struct kd_uw_map_key *keys = NULL;
    struct kd_uw_map *values = NULL;
    size_t n = 0, allocated = 0;
    uint32_t zero = 0;
    int err = 0;

    for (size_t i = 0; i < u->n_maps; i++) {
        struct kd_uw_map_key k[128];
        struct kd_uw_map v;
        size_t nk;

        if (!kd_uw_map_value(&u->maps[i], &v)) {
            continue;
        }
        nk = kd_uwtable_prefixes(u->maps[i].start, u->maps[i].end, k,
                                 KD_ARRAY_SIZE(k));
        if (n + nk > allocated) {
            allocated = 2 * (n + nk);
            keys = kd_xreallocarray(keys, allocated, sizeof *keys);
            values = kd_xreallocarray(values, allocated, sizeof *values);
        }
        for (size_t j = 0; j < nk; j++) {
            keys[n] = k[j];
            values[n++] = v;
        }
    }
    /* The entries of mappings gone first, then the others. */
    qsort(u->keys, u->n_keys, sizeof *u->keys, kd_uw_key_cmp);
    for (size_t i = 0; i < u->n_keys; i++) {
        bool kept = false;

        for (size_t j = 0; j < n && !kept; j++) {
            kept = !kd_uw_key_cmp(&u->keys[i], &keys[j]);
        }
        if (!kept) {
            bpf_map_delete_elem(u->maps_fd, &u->keys[i]);
        }
    }
    for (size_t i = 0; i < n && !err; i++) {
        if (bpf_map_update_elem(u->maps_fd, &keys[i], &values[i], 0)) {
            err = errno;
            *error = kd_xasprintf("Failed to write eBPF map 'uw_maps': %s",
                                  strerror(err));
        }
    }
    free(values);
    free(u->keys);
    u->keys = keys;
    u->n_keys = n;
    /* Walks cached in other tables are no cache any more. */
    u->maps_at++;
    if (!err && bpf_map_update_elem(u->maps_at_fd, &zero, &u->maps_at, 0)) {
        err = errno;
        *error = kd_xasprintf("Failed to write eBPF map 'uw_maps_at': %s",
                              strerror(err));
    }
    return err;
}

/* How many rows and pages the table of mapping 'm''s file may take, read
 * quickly: its executable addresses, and its CFI's size (a row takes at
 * least 4 bytes of .eh_frame: 5 or more in the files measured). */
static void
kd_uw_estimate(unsigned int pid, const struct kd_uw_mapping *m, size_t *rows,
               size_t *pages)
{
    struct kd_uw_file f;
    Elf_Scn *scn = NULL;
    size_t shstrndx;
    void *image;
    int fd;
    Elf *elf = kd_uw_open(pid, m, &fd, &image);

    *rows = *pages = 0;
    memset(&f, 0, sizeof f);
    if (elf && kd_uw_segments(elf, &f) && !elf_getshdrstrndx(elf, &shstrndx)) {
        *pages = ((f.hi - 1) >> KD_UW_PAGE_SHIFT)
                 - (f.lo >> KD_UW_PAGE_SHIFT) + 1;
        while ((scn = elf_nextscn(elf, scn))) {
            GElf_Shdr shdr;
            const char *name;

            if (gelf_getshdr(scn, &shdr)
                && (name = elf_strptr(elf, shstrndx, shdr.sh_name))
                && (!strcmp(name, ".eh_frame")
                    || !strcmp(name, ".debug_frame"))) {
                *rows += shdr.sh_size / 4;
            }
        }
        /* A row more per page, at its start. */
        *rows += *pages;
    }
    free(f.loads);
    if (elf) {
        elf_end(elf);
    }
    if (fd >= 0) {
        close(fd);
    }
    free(image);
}

/* Builds the tables of the files the mappings hold (the thread that runs
 * while the program compiles). */
static void *
kd_uw_build(void *u_)
{
    struct kd_unwind *u = u_;

    kd_uw_files_read(u);
    kd_uw_files_add(u);
    return NULL;
}

int
kd_unwind_create(struct kd_unwind **up, unsigned int pid, size_t max_bytes,
                 char **error)
{
    struct kd_unwind *u = kd_xcalloc(1, sizeof *u);
    size_t rows = 0, pages = 0, shards, max_shards;
    int err;

    *up = NULL;
    *error = NULL;
    elf_version(EV_CURRENT);
    u->pid = pid;
    u->max_bytes = max_bytes;
    u->maps_fd = u->maps_at_fd = u->pages_fd = u->rows_fd = -1;
    err = kd_uw_read_maps(pid, &u->maps, &u->n_maps, &u->maps_hash);
    if (err) {
        *error = kd_xasprintf("Failed to read the mappings of process %u: "
                              "%s", pid, strerror(err));
        kd_unwind_destroy(u);
        return err;
    }
    u->checked_ns = kd_uw_now();

    /* Room for the tables of the files mapped now (their size read
     * quickly: the program is sized before they are built), and for more,
     * within the bound. */
    for (size_t i = 0; i < u->n_maps; i++) {
        const struct kd_uw_mapping *m = &u->maps[i];
        bool seen = false;
        size_t r, p;

        for (size_t j = 0; j < i && !seen; j++) {
            seen = u->maps[j].vdso ? m->vdso
                                   : !m->vdso && u->maps[j].path
                                     && m->path && m->dev == u->maps[j].dev
                                     && m->ino == u->maps[j].ino;
        }
        if (!seen && (m->path || m->vdso)) {
            kd_uw_estimate(pid, m, &r, &p);
            rows += r;
            pages += p;
        }
    }
    rows += rows * KD_UW_ROOM_PERCENT / 100;
    shards = rows / KD_UW_SHARD_ROWS + 2;
    max_shards = max_bytes / (KD_UW_SHARD_ROWS * sizeof(struct kd_uw_row));
    shards = shards < max_shards ? shards : max_shards;
    kd_uwtable_init(&u->table, shards ? shards : 1,
                    pages + pages * KD_UW_ROOM_PERCENT / 100
                    + KD_UW_ROOM_PAGES);
    if (!shards) {
        u->table.n_shards = 0;
    }

    /* The tables are built while the program compiles. */
    err = pthread_create(&u->builder, NULL, kd_uw_build, u);
    if (err) {
        kd_uw_build(u);
    } else {
        u->building = true;
    }
    *up = u;
    return 0;
}

/* Waits for the tables to be built. */
static void
kd_uw_built(struct kd_unwind *u)
{
    if (u->building) {
        pthread_join(u->builder, NULL);
        u->building = false;
    }
}

void
kd_unwind_sizes(const struct kd_unwind *u, struct kd_source_unwind *s)
{
    s->maps = KD_UW_MAP_KEYS;
    s->pages = u->table.n_pages;
    s->shards = u->table.n_shards ? u->table.n_shards : 1;
}

int
kd_unwind_load(struct kd_unwind *u, int maps_fd, int maps_at_fd,
               int pages_fd, int rows_fd, char **error)
{
    int err;

    *error = NULL;
    kd_uw_built(u);
    u->maps_fd = maps_fd;
    u->maps_at_fd = maps_at_fd;
    u->pages_fd = pages_fd;
    u->rows_fd = rows_fd;
    err = kd_uw_write_tables(u, error);
    return err ? err : kd_uw_write_maps(u, error);
}

int
kd_unwind_refresh(struct kd_unwind *u, bool force, char **error)
{
    struct kd_uw_mapping *maps;
    uint64_t now = kd_uw_now(), hash;
    size_t n;
    int err;

    *error = NULL;
    if (!force && now - u->checked_ns < KD_UW_CHECK_NS) {
        return 0;
    }
    u->checked_ns = now;
    err = kd_uw_read_maps(u->pid, &maps, &n, &hash);
    if (err) {
        /* The target is gone: its exit ends the run. */
        return 0;
    }
    if (hash == u->maps_hash) {
        kd_uw_mappings_free(maps, n);
        return 0;
    }
    kd_uw_mappings_free(u->maps, u->n_maps);
    u->maps = maps;
    u->n_maps = n;
    u->maps_hash = hash;
    if (kd_uw_files_read(u)) {
        kd_uw_files_add(u);
        err = kd_uw_write_tables(u, error);
        if (err) {
            return err;
        }
    }
    return kd_uw_write_maps(u, error);
}

/* The memory of map 'fd' as the kernel counts it (its fdinfo's memlock),
 * or 0. */
static uint64_t
kd_uw_map_bytes(int fd)
{
    char path[64], *text = NULL;
    uint64_t bytes = 0;
    const char *p;

    snprintf(path, sizeof path, "/proc/self/fdinfo/%d", fd);
    if (fd >= 0 && !kd_read_file_text(path, &text)
        && (p = strstr(text, "memlock:"))) {
        bytes = strtoull(p + strlen("memlock:"), NULL, 10);
    }
    free(text);
    return bytes;
}

void
kd_unwind_stats(struct kd_unwind *u, struct kd_unwind_stats *s)
{
    kd_uw_built(u);
    memset(s, 0, sizeof *s);
    s->mappings = u->n_maps;
    for (size_t i = 0; i < u->n_files; i++) {
        switch (u->files[i]->state) {
        case KD_UW_FILE_TABLE:
            s->files++;
            break;
        case KD_UW_FILE_NO_CFI:
            s->files_no_cfi++;
            break;
        case KD_UW_FILE_FULL:
            s->files_full++;
            break;
        }
    }
    s->rows = u->table.next_row;
    s->rows_max = u->table.n_shards * KD_UW_SHARD_ROWS;
    s->pages = u->table.next_page;
    s->build_ns = u->build_ns;
    s->kernel_bytes = kd_uw_map_bytes(u->maps_fd)
                      + kd_uw_map_bytes(u->maps_at_fd)
                      + kd_uw_map_bytes(u->pages_fd)
                      + kd_uw_map_bytes(u->rows_fd);
}

void
kd_unwind_destroy(struct kd_unwind *u)
{
    if (!u) {
        return;
    }
    kd_uw_built(u);
    for (size_t i = 0; i < u->n_files; i++) {
        kd_uw_file_free(u->files[i]);
    }
    free(u->files);
    kd_uw_mappings_free(u->maps, u->n_maps);
    free(u->keys);
    kd_uwtable_destroy(&u->table);
    free(u);
}
