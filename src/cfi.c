/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* The unwind table of one ELF file, from its call frame information. */

#include "cfi.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* The DWARF register numbers the rows are about. */
struct kd_cfi_regs {
    int sp, fp;
    bool x86_64;
};

static int
kd_cfi_regs(Elf *elf, struct kd_cfi_regs *regs, char **error)
{
    GElf_Ehdr ehdr;

    if (!gelf_getehdr(elf, &ehdr)) {
        *error = kd_xasprintf("not an ELF file: %s", elf_errmsg(-1));
        return EINVAL;
    }
    if (ehdr.e_machine == EM_X86_64) {
        *regs = (struct kd_cfi_regs) { .sp = 7, .fp = 6, .x86_64 = true };
    } else if (ehdr.e_machine == EM_AARCH64) {
        *regs = (struct kd_cfi_regs) { .sp = 31, .fp = 29 };
    } else {
        *error = kd_xasprintf("machine %u is neither x86_64 nor arm64",
                              (unsigned int) ehdr.e_machine);
        return ENOTSUP;
    }
    return 0;
}

/* A function's range, from one of the CFI sections. */
struct kd_cfi_fde {
    uint64_t lo, hi;
    bool debug;                 /* From .debug_frame. */
};

struct kd_cfi_fdes {
    struct kd_cfi_fde *v;
    size_t n, allocated;
};

/* What an FDE needs of its CIE: how its addresses are encoded. */
struct kd_cfi_cie {
    Dwarf_Off offset;
    uint8_t encoding;           /* DW_EH_PE_*. */
};

struct kd_cfi_section {
    Elf_Data *data;
    uint64_t addr;              /* Its address (sh_addr). */
    bool eh_frame;
    bool is64;
    const unsigned char *ident;
    struct kd_cfi_cie *cies;
    size_t n_cies;
};

/* Reads an unsigned LEB128 number at '*p' (before 'end'). */
static bool
kd_cfi_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    unsigned int shift = 0;

    *v = 0;
    while (*p < end && shift < 64) {
        uint8_t b = *(*p)++;

        *v |= (uint64_t) (b & 0x7f) << shift;
        if (!(b & 0x80)) {
            return true;
        }
        shift += 7;
    }
    return false;
}

/* Reads the value at '*p' (before 'end') encoded as 'enc' (DW_EH_PE_*),
 * at address 'addr' (for pc-relative values); 'apply' false for a
 * length, which is never relative. */
static bool
kd_cfi_encoded(const uint8_t **p, const uint8_t *end, uint8_t enc,
               bool is64, uint64_t addr, bool apply, uint64_t *v)
{
    const uint8_t *start = *p;
    size_t size;
    int64_t s = 0;

    if (enc == DW_EH_PE_omit) {
        return false;
    }
    switch (enc & 0x0f) {
    case DW_EH_PE_absptr:
        size = is64 ? 8 : 4;
        break;
    case DW_EH_PE_udata2: case DW_EH_PE_sdata2:
        size = 2;
        break;
    case DW_EH_PE_udata4: case DW_EH_PE_sdata4:
        size = 4;
        break;
    case DW_EH_PE_udata8: case DW_EH_PE_sdata8:
        size = 8;
        break;
    case DW_EH_PE_uleb128:
        return kd_cfi_uleb(p, end, v) && (!apply || !(enc & 0x70));
    default:
        return false;
    }
    if ((size_t) (end - *p) < size) {
        return false;
    }
    *v = 0;
    memcpy(v, *p, size);        /* Little endian: x86_64 and arm64. */
    *p += size;
    if ((enc & 0x0f) == DW_EH_PE_sdata2) {
        s = (int16_t) *v;
        *v = s;
    } else if ((enc & 0x0f) == DW_EH_PE_sdata4) {
        s = (int32_t) *v;
        *v = s;
    } else if ((enc & 0x0f) == DW_EH_PE_absptr && !is64) {
        *v = (uint32_t) *v;
    }
    if (!apply) {
        return true;
    }
    switch (enc & 0x70) {
    case DW_EH_PE_absptr:
        return true;
    case DW_EH_PE_pcrel:
        *v += addr;
        (void) start;
        return true;
    default:
        /* textrel, datarel, funcrel, aligned: not used for FDEs on
         * x86_64 and arm64. */
        return false;
    }
}

/* The encoding of the addresses of the FDEs of 'cie' (DW_EH_PE_absptr
 * without an 'R' in its augmentation). */
static bool
kd_cfi_fde_encoding(const struct kd_cfi_section *sec, const Dwarf_CIE *cie,
                    uint8_t *enc)
{
    const char *aug = cie->augmentation;
    const uint8_t *p = cie->augmentation_data;
    const uint8_t *end = p ? p + cie->augmentation_data_size : NULL;

    *enc = DW_EH_PE_absptr;
    if (!sec->eh_frame || !aug || aug[0] != 'z') {
        return !aug || !aug[0] || !sec->eh_frame || aug[0] == 'z';
    }
    for (aug++; *aug; aug++) {
        uint64_t skip;
        uint8_t penc;

        switch (*aug) {
        case 'R':
            if (!p || p >= end) {
                return false;
            }
            *enc = *p++;
            break;
        case 'L':
            if (!p || p >= end) {
                return false;
            }
            p++;
            break;
        case 'P':
            if (!p || p >= end) {
                return false;
            }
            penc = *p++;
            if (!kd_cfi_encoded(&p, end, penc & 0x7f, sec->is64, 0, false,
                                &skip)) {
                return false;
            }
            break;
        case 'S': case 'B': case 'G':
            break;
        default:
            /* Unknown, but 'z' told its size: the 'R' before it (if
             * any) was read. */
            return true;
        }
    }
    return true;
}

/* The CIE at 'offset' of 'sec', read once. */
static const struct kd_cfi_cie *
kd_cfi_cie(struct kd_cfi_section *sec, Dwarf_Off offset)
{
    Dwarf_CFI_Entry entry;
    Dwarf_Off next;
    uint8_t enc;

    for (size_t i = 0; i < sec->n_cies; i++) {
        if (sec->cies[i].offset == offset) {
            return &sec->cies[i];
        }
    }
    if (dwarf_next_cfi(sec->ident, sec->data, sec->eh_frame, offset, &next,
                       &entry)
        || !dwarf_cfi_cie_p(&entry)
        || !kd_cfi_fde_encoding(sec, &entry.cie, &enc)) {
        return NULL;
    }
    sec->cies = kd_xreallocarray(sec->cies, sec->n_cies + 1,
                                 sizeof *sec->cies);
    sec->cies[sec->n_cies] = (struct kd_cfi_cie) { offset, enc };
    return &sec->cies[sec->n_cies++];
}

static void
kd_cfi_fdes_add(struct kd_cfi_fdes *fdes, uint64_t lo, uint64_t hi,
                bool debug)
{
    if (fdes->n == fdes->allocated) {
        fdes->allocated = fdes->allocated ? 2 * fdes->allocated : 1024;
        fdes->v = kd_xreallocarray(fdes->v, fdes->allocated,
                                   sizeof *fdes->v);
    }
    fdes->v[fdes->n++] = (struct kd_cfi_fde) { lo, hi, debug };
}

/* Section 'name' of 'elf', with contents, or NULL. */
static Elf_Scn *
kd_cfi_section(Elf *elf, const char *name)
{
    Elf_Scn *scn = NULL;
    size_t shstrndx;

    if (elf_getshdrstrndx(elf, &shstrndx)) {
        return NULL;
    }
    while ((scn = elf_nextscn(elf, scn))) {
        GElf_Shdr shdr;
        const char *n;

        if (gelf_getshdr(scn, &shdr) && shdr.sh_type == SHT_PROGBITS
            && (n = elf_strptr(elf, shstrndx, shdr.sh_name))
            && !strcmp(n, name)) {
            return scn;
        }
    }
    return NULL;
}

/* Adds the functions of CFI section 'name' of 'elf' to 'fdes'. */
static void
kd_cfi_list(Elf *elf, const char *name, bool debug,
            struct kd_cfi_fdes *fdes)
{
    struct kd_cfi_section sec = { .eh_frame = !debug };
    Elf_Scn *scn = kd_cfi_section(elf, name);
    GElf_Shdr shdr;
    Dwarf_Off off = 0;

    if (!scn || !gelf_getshdr(scn, &shdr)
        || !(sec.data = elf_getdata(scn, NULL)) || !sec.data->d_buf) {
        return;
    }
    sec.addr = shdr.sh_addr;
    sec.ident = (const unsigned char *) elf_getident(elf, NULL);
    sec.is64 = sec.ident && sec.ident[EI_CLASS] == ELFCLASS64;
    for (;;) {
        Dwarf_CFI_Entry entry;
        const struct kd_cfi_cie *cie;
        const uint8_t *p, *end;
        uint64_t lo, len;
        Dwarf_Off next;

        if (dwarf_next_cfi(sec.ident, sec.data, sec.eh_frame, off, &next,
                           &entry)) {
            break;
        }
        off = next;
        if (dwarf_cfi_cie_p(&entry)
            || !(cie = kd_cfi_cie(&sec, entry.fde.CIE_pointer))) {
            continue;
        }
        p = entry.fde.start;
        end = entry.fde.end;
        if (kd_cfi_encoded(&p, end, cie->encoding, sec.is64,
                           sec.addr + (p - (const uint8_t *) sec.data->d_buf),
                           true, &lo)
            && kd_cfi_encoded(&p, end, cie->encoding & 0x0f, sec.is64, 0,
                              false, &len)
            && len && lo + len > lo) {
            kd_cfi_fdes_add(fdes, lo, lo + len, debug);
        }
    }
    free(sec.cies);
}

static int
kd_cfi_fde_cmp(const void *a_, const void *b_)
{
    const struct kd_cfi_fde *a = a_, *b = b_;

    if (a->lo != b->lo) {
        return a->lo < b->lo ? -1 : 1;
    }
    /* .eh_frame first. */
    return (int) a->debug - (int) b->debug;
}

/* Whether 'ops' say "at CFA + off" ('*off'). */
static bool
kd_cfi_at_cfa(const Dwarf_Op *ops, size_t nops, int64_t *off)
{
    if (nops == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
        *off = 0;
        return true;
    }
    if (nops == 2 && ops[0].atom == DW_OP_call_frame_cfa
        && ops[1].atom == DW_OP_plus_uconst) {
        *off = (int64_t) ops[1].number;
        return true;
    }
    return false;
}

/* Whether CFA expression 'ops' is that of an x86_64 PLT entry: rsp + 8,
 * plus 8 when (rip & 15) >= N, N into '*threshold'. */
static bool
kd_cfi_plt(const Dwarf_Op *ops, size_t nops, int32_t *threshold)
{
    static const uint8_t pattern[] = {
        DW_OP_breg7, DW_OP_breg16, DW_OP_lit15, DW_OP_and, 0, DW_OP_ge,
        DW_OP_lit3, DW_OP_shl, DW_OP_plus,
    };

    if (nops != sizeof pattern || ops[0].number != 8 || ops[1].number) {
        return false;
    }
    for (size_t i = 0; i < nops; i++) {
        if (i == 4 ? ops[i].atom < DW_OP_lit0 || ops[i].atom > DW_OP_lit15
                   : ops[i].atom != pattern[i]) {
            return false;
        }
    }
    *threshold = ops[4].atom - DW_OP_lit0;
    return true;
}

static bool
kd_cfi_fits16(int64_t v)
{
    return v >= INT16_MIN && v <= INT16_MAX;
}

/* Where the caller's FP is, by 'frame', into 'r'. */
static void
kd_cfi_fp_rule(const struct kd_cfi_regs *regs, Dwarf_Frame *frame,
               struct kd_uw_row *r)
{
    Dwarf_Op mem[3], *ops;
    size_t nops;
    int64_t off;

    if (dwarf_frame_register(frame, regs->fp, mem, &ops, &nops)) {
        r->regs |= KD_UW_FP_LOST;
    } else if (!nops && !ops) {
        r->regs |= KD_UW_FP_SAME;
    } else if (kd_cfi_at_cfa(ops, nops, &off) && kd_cfi_fits16(off)) {
        r->regs |= KD_UW_FP_AT;
        r->fp_off = off;
    } else {
        r->regs |= KD_UW_FP_LOST;
    }
}

/* Where the RA is, by 'frame' (RA column 'ra'), into 'r'; false if the
 * unwinder cannot follow it. */
static bool
kd_cfi_ra_rule(const struct kd_cfi_regs *regs, Dwarf_Frame *frame, int ra,
               struct kd_uw_row *r)
{
    Dwarf_Op mem[3], *ops;
    size_t nops;
    int64_t off;

    if (dwarf_frame_register(frame, ra, mem, &ops, &nops)) {
        return false;
    }
    if (!nops && ops) {
        /* Undefined: the outermost frame. */
        r->cfa = KD_UW_CFA_END;
        return true;
    }
    if (!nops) {
        /* Same value: still in the link register (arm64). */
        if (regs->x86_64) {
            return false;
        }
        r->regs |= KD_UW_RA_LR << 4;
        return true;
    }
    if (kd_cfi_at_cfa(ops, nops, &off) && kd_cfi_fits16(off)) {
        r->ra_off = off;
        return true;
    }
    return false;
}

/* The row of 'frame' into 'r'; false if the unwinder cannot follow it
 * ('r' is then KD_UW_CFA_NONE). */
static bool
kd_cfi_rule(const struct kd_cfi_regs *regs, Dwarf_Frame *frame, int ra,
            bool signal, struct kd_uw_row *r)
{
    Dwarf_Op *ops;
    size_t nops;
    int32_t threshold;

    memset(r, 0, sizeof *r);
    if (signal) {
        r->cfa = KD_UW_CFA_SIGNAL;
        return true;
    }
    if (dwarf_frame_cfa(frame, &ops, &nops) || !nops) {
        return false;
    }
    if (regs->x86_64 && kd_cfi_plt(ops, nops, &threshold)) {
        r->cfa = KD_UW_CFA_PLT;
        r->cfa_off = threshold;
        r->ra_off = -8;
        return true;
    }
    if (nops != 1 || ops[0].atom != DW_OP_bregx
        || (int64_t) ops[0].number2 < INT32_MIN
        || (int64_t) ops[0].number2 > INT32_MAX) {
        return false;
    }
    if (ops[0].number == (Dwarf_Word) regs->sp) {
        r->cfa = KD_UW_CFA_SP;
    } else if (ops[0].number == (Dwarf_Word) regs->fp) {
        r->cfa = KD_UW_CFA_FP;
    } else {
        return false;
    }
    r->cfa_off = (int64_t) ops[0].number2;
    kd_cfi_fp_rule(regs, frame, r);
    if (!kd_cfi_ra_rule(regs, frame, ra, r)) {
        memset(r, 0, sizeof *r);
        return false;
    }
    if (r->cfa == KD_UW_CFA_END) {
        r->cfa_off = 0;
        r->regs = 0;
        r->fp_off = r->ra_off = 0;
    }
    return true;
}

static bool
kd_cfi_same_rule(const struct kd_uw_row *a, const struct kd_uw_row *b)
{
    return a->cfa == b->cfa && a->regs == b->regs && a->cfa_off == b->cfa_off
           && a->fp_off == b->fp_off && a->ra_off == b->ra_off;
}

/* Appends a row at 'addr', unless the last one has the same rule. */
static void
kd_cfi_add(struct kd_cfi_table *t, uint64_t addr, const struct kd_uw_row *r)
{
    if (t->n && kd_cfi_same_rule(&t->rows[t->n - 1].rule, r)) {
        return;
    }
    if (t->n && t->rows[t->n - 1].addr == addr) {
        t->rows[t->n - 1].rule = *r;
        if (t->n > 1 && kd_cfi_same_rule(&t->rows[t->n - 2].rule, r)) {
            t->n--;
        }
        return;
    }
    if (t->n == t->allocated) {
        t->allocated = t->allocated ? 2 * t->allocated : 4096;
        t->rows = kd_xreallocarray(t->rows, t->allocated, sizeof *t->rows);
    }
    t->rows[t->n].addr = addr;
    t->rows[t->n].rule = *r;
    t->n++;
}

/* The rows of function 'fde', from 'cfi'. */
static void
kd_cfi_rows(struct kd_cfi_table *t, const struct kd_cfi_regs *regs,
            Dwarf_CFI *cfi, const struct kd_cfi_fde *fde)
{
    static const struct kd_uw_row none = { .cfa = KD_UW_CFA_NONE };
    uint64_t addr = fde->lo;

    while (addr < fde->hi) {
        Dwarf_Addr start, end;
        Dwarf_Frame *frame;
        struct kd_uw_row r;
        bool signal = false;
        int ra;

        if (dwarf_cfi_addrframe(cfi, addr, &frame)) {
            kd_cfi_add(t, addr, &none);
            return;
        }
        ra = dwarf_frame_info(frame, &start, &end, &signal);
        if (ra < 0 || end <= addr) {
            free(frame);
            kd_cfi_add(t, addr, &none);
            return;
        }
        if (!kd_cfi_rule(regs, frame, ra, signal, &r)) {
            t->n_unsupported++;
        }
        kd_cfi_add(t, addr, &r);
        free(frame);
        addr = end < fde->hi ? end : fde->hi;
    }
}

/* The .debug_frame CFI of 'debug', or NULL; '*dw' to end.  Looked for
 * first: libdw uncompresses every debug section of a file it opens (a
 * libc debug file's, tens of MB), and most debug files have none. */
static Dwarf_CFI *
kd_cfi_debug_frame(Elf *debug, Dwarf **dw)
{
    *dw = debug && kd_cfi_section(debug, ".debug_frame")
          ? dwarf_begin_elf(debug, DWARF_C_READ, NULL) : NULL;
    return *dw ? dwarf_getcfi(*dw) : NULL;
}

int
kd_cfi_build(Elf *elf, Elf *debug, struct kd_cfi_table *t, char **error)
{
    static const struct kd_uw_row none = { .cfa = KD_UW_CFA_NONE };
    struct kd_cfi_fdes fdes = { NULL, 0, 0 };
    struct kd_cfi_regs regs;
    Dwarf_CFI *eh, *df;
    Dwarf *dw = NULL;
    uint64_t hi = 0;
    int err;

    *t = (struct kd_cfi_table) KD_CFI_TABLE_INITIALIZER;
    *error = NULL;
    err = kd_cfi_regs(elf, &regs, error);
    if (err) {
        return err;
    }
    eh = dwarf_getcfi_elf(elf);
    df = kd_cfi_debug_frame(debug, &dw);
    if (eh) {
        kd_cfi_list(elf, ".eh_frame", false, &fdes);
    }
    if (df) {
        kd_cfi_list(debug, ".debug_frame", true, &fdes);
    }
    if (!fdes.n) {
        *error = kd_xstrdup("no call frame information (neither .eh_frame "
                            "nor a debug file's .debug_frame)");
        err = ENOENT;
        goto cleanup;
    }
    qsort(fdes.v, fdes.n, sizeof *fdes.v, kd_cfi_fde_cmp);
    for (size_t i = 0; i < fdes.n; i++) {
        const struct kd_cfi_fde *f = &fdes.v[i];

        if (f->lo < hi) {
            /* Covered already (by .eh_frame, or an overlapping FDE). */
            continue;
        }
        if (t->n && f->lo > hi) {
            kd_cfi_add(t, hi, &none);
        }
        kd_cfi_rows(t, &regs, f->debug ? df : eh, f);
        hi = f->hi;
        t->n_fdes++;
        t->eh_frame |= !f->debug;
        t->debug_frame |= f->debug;
    }
    kd_cfi_add(t, hi, &none);

cleanup:
    free(fdes.v);
    if (eh) {
        dwarf_cfi_end(eh);
    }
    if (dw) {
        dwarf_end(dw);
    }
    return err;
}

void
kd_cfi_destroy(struct kd_cfi_table *t)
{
    free(t->rows);
    *t = (struct kd_cfi_table) KD_CFI_TABLE_INITIALIZER;
}

const struct kd_cfi_row *
kd_cfi_find(const struct kd_cfi_table *t, uint64_t addr)
{
    size_t lo = 0, hi = t->n;

    if (!t->n || addr < t->rows[0].addr) {
        return NULL;
    }
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;

        if (t->rows[mid].addr <= addr) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return &t->rows[lo];
}

size_t
kd_cfi_build_id(Elf *elf, uint8_t *id, size_t size)
{
    Elf_Scn *scn = NULL;

    while ((scn = elf_nextscn(elf, scn))) {
        GElf_Shdr shdr;
        Elf_Data *data;
        GElf_Nhdr nhdr;
        size_t off = 0, name_off, desc_off;

        if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE
            || !(data = elf_getdata(scn, NULL))) {
            continue;
        }
        while ((off = gelf_getnote(data, off, &nhdr, &name_off,
                                   &desc_off)) > 0) {
            if (nhdr.n_type == NT_GNU_BUILD_ID && nhdr.n_namesz == 4
                && !memcmp((char *) data->d_buf + name_off, "GNU", 4)
                && nhdr.n_descsz && nhdr.n_descsz <= size) {
                memcpy(id, (char *) data->d_buf + desc_off, nhdr.n_descsz);
                return nhdr.n_descsz;
            }
        }
    }
    return 0;
}

char *
kd_cfi_debug_path(Elf *elf, const char *root)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    uint8_t id[64];
    size_t n = kd_cfi_build_id(elf, id, sizeof id);

    if (n < 2) {
        return NULL;
    }
    kd_ds_put_format(&ds, "%s/usr/lib/debug/.build-id/%02x/",
                     strcmp(root, "/") ? root : "", id[0]);
    for (size_t i = 1; i < n; i++) {
        kd_ds_put_format(&ds, "%02x", id[i]);
    }
    kd_ds_put_format(&ds, ".debug");
    return kd_ds_steal_cstr(&ds);
}
