# byte_pair.s with the thread's byte chosen at run time: the thread asks
# getrandom for 8 bytes and clock_gettime(CLOCK_MONOTONIC) for the time,
# and stores 0xbb into byte 1 + ((random ^ nanoseconds) & 3) of `pair`,
# which the parent's byte 0 shares a quadword with. Which byte a lost
# store names is then a function of what the guest was told; explored
# schedules must tell it the same on every run and every replay.
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
        lda     $16, rnd
        lda     $17, 8
        lda     $18, 0
        lda     $0, 511                 # __NR_getrandom
        callsys
        lda     $16, 1                  # CLOCK_MONOTONIC
        lda     $17, ts
        lda     $0, 420                 # __NR_clock_gettime
        callsys
        ldq     $1, rnd
        ldq     $2, ts+8
        xor     $1, $2, $1
        and     $1, 3, $1
        lda     $16, pair
        addq    $16, 1, $16
        addq    $16, $1, $16
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
rnd:    .quad   0
ts:     .quad   0, 0
stack:  .space  8192
stack_top:
        .quad   0
