# The demo's two-thread race (crates/subword/src/cmd/demo_explore.rs):
# `_start` clones a thread; the parent stores 0xaa into byte 0 of `pair`,
# the thread 0xbb into byte 1, each with the pre-BWX LDQ_U/INSBL/MSKBL/
# BIS/STQ_U sequence, and then sets `done`, which the parent spins on
# before exit_group. The race window is one decision in each thread.
        .set noat
        .text
        .globl _start
_start:
        ldiq    $16, 0x50f00
        lda     $17, stack_top
        lda     $0, 312                 # __NR_clone
        callsys
        beq     $0, child
        lda     $16, pair
        lda     $17, 0xaa
        bsr     $26, store_byte
1:      ldq     $1, done
        beq     $1, 1b
        lda     $16, 0
        lda     $0, 405                 # __NR_exit_group
        callsys
child:
        lda     $16, pair
        addq    $16, 1, $16
        lda     $17, 0xbb
        bsr     $26, store_byte
        lda     $1, done
        lda     $2, 1
        stq     $2, 0($1)
        lda     $16, 0
        lda     $0, 1                   # __NR_exit
        callsys
store_byte:
        insbl   $17, $16, $17
        ldq_u   $1, 0($16)
        mskbl   $1, $16, $1
        bis     $17, $1, $17
        stq_u   $17, 0($16)
        ret     $31, ($26), 1
        .data
        .align  3
pair:   .quad   0
done:   .quad   0
stack:  .space  8192
stack_top:
        .quad   0
