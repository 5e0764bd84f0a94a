/* Embeds the eBPF program template in the binary as a NUL-terminated
 * string, kd_bpf_template (see template.h). */
        .section .rodata
        .global kd_bpf_template
        .type kd_bpf_template, @object
kd_bpf_template:
        .incbin "bpf_templates/kernel_delay.bpf.c"
        .byte 0
        .size kd_bpf_template, . - kd_bpf_template
        .section .note.GNU-stack, "", @progbits
