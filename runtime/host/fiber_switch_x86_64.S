// Fiber context switch for x86-64 System V (see runtime/host/fiber.h,
// Note [Fiber switch]).
//
//   void kiln_fiber_switch(void** save_sp /* rdi */, void* load_sp /* rsi */);
//   void kiln_fiber_start(void);   // first "return address" of a new fiber:
//                                  // calls r12(r13) and must not come back
//
// Saved frame, from the saved stack pointer up: mxcsr (4 bytes), x87 control
// word (2 bytes, padded to 8), r15, r14, r13, r12, rbx, rbp, return address.
#if defined(__x86_64__)
        .text
        .globl  kiln_fiber_switch
        .hidden kiln_fiber_switch
        .type   kiln_fiber_switch, @function
        .p2align 4
kiln_fiber_switch:
        .cfi_startproc
        pushq   %rbp
        pushq   %rbx
        pushq   %r12
        pushq   %r13
        pushq   %r14
        pushq   %r15
        subq    $8, %rsp
        stmxcsr (%rsp)
        fnstcw  4(%rsp)
        movq    %rsp, (%rdi)
        movq    %rsi, %rsp
        ldmxcsr (%rsp)
        fldcw   4(%rsp)
        addq    $8, %rsp
        popq    %r15
        popq    %r14
        popq    %r13
        popq    %r12
        popq    %rbx
        popq    %rbp
        ret
        .cfi_endproc
        .size   kiln_fiber_switch, .-kiln_fiber_switch

        .globl  kiln_fiber_start
        .hidden kiln_fiber_start
        .type   kiln_fiber_start, @function
        .p2align 4
kiln_fiber_start:
        .cfi_startproc
        .cfi_undefined rip
        movq    %r13, %rdi
        callq   *%r12
        ud2
        .cfi_endproc
        .size   kiln_fiber_start, .-kiln_fiber_start
#endif
        .section .note.GNU-stack,"",@progbits
