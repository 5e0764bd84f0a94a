/* Embeds the eBPF program template and the header it shares with user
 * space in the binary as NUL-terminated strings, kd_bpf_template and
 * kd_bpf_abi (see template.h). */
        .section .rodata
        .global kd_bpf_template
        .type kd_bpf_template, @object
kd_bpf_template:
        .incbin "bpf_templates/kernel_delay.bpf.c"
        .byte 0
        .size kd_bpf_template, . - kd_bpf_template
        .global kd_bpf_abi
        .type kd_bpf_abi, @object
kd_bpf_abi:
        .incbin "bpf_templates/kd_abi.h"
        .byte 0
        .size kd_bpf_abi, . - kd_bpf_abi
        .section .note.GNU-stack, "", @progbits
