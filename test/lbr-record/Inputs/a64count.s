// AArch64 counterpart of the exact-count checks: a static program without
// libc whose 1000-iteration loop takes `cbz` every other iteration (when
// the counter is even) and the latch `b.ne` 999 times. Instructions:
// 1 + 1000 * 4 (subs, and, cbz, b.ne) + 500 (add) + 3 (exit) = 4504.
        .text
        .globl  _start
_start:
        mov     w1, #1000
loop_head:
        subs    w1, w1, #1
        and     w2, w1, #1
even_jump:
        cbz     w2, skip
        add     w3, w3, #1
skip:
loop_jump:
        b.ne    loop_head
        mov     x8, #93
        mov     x0, #0
        svc     #0
