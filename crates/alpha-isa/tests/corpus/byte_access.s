# Sub-quadword access on Alpha, the sequences of the Architecture Handbook
# (section 4.6) and GCC, plus their BWX equivalents. Assembled by GNU as and
# by subword; the .text bytes must agree.
        .set noat
        .set noreorder
        .arch ev6
        .text
        .globl _start
        .ent _start
_start:
        .frame $30, 0, $26, 0
        .prologue 0
# Pre-BWX byte load: ldq_u + extbl.
load_byte:
        ldq_u   $0, 0($16)
        extbl   $0, $16, $0
# Signed byte: shift up, arithmetic shift down.
        ldq_u   $0, 0($16)
        extbl   $0, $16, $0
        sll     $0, 56, $0
        sra     $0, 56, $0
# Pre-BWX byte store: the non-atomic read-modify-write.
store_byte:
        lda     $6, 5($11)
        ldq_u   $1, 5($11)
        insbl   $5, $6, $3
        mskbl   $1, $6, $1
        bis     $1, $3, $1
        stq_u   $1, 5($11)
# GCC's form.
        insql   $17, $16, $17
        ldq_u   $1, 0($16)
        mskbl   $1, $16, $1
        bis     $17, $1, $17
        stq_u   $17, 0($16)
# Unaligned word load and store (high quadword stored first).
        ldq_u   $0, 0($16)
        ldq_u   $1, 1($16)
        extwl   $0, $16, $0
        extwh   $1, $16, $1
        bis     $0, $1, $0
        zapnot  $0, 3, $0
        lda     $6, 5($11)
        ldq_u   $2, 6($11)
        ldq_u   $1, 5($11)
        inswh   $5, $6, $4
        inswl   $5, $6, $3
        mskwh   $2, $6, $2
        mskwl   $1, $6, $1
        bis     $2, $4, $2
        bis     $1, $3, $1
        stq_u   $2, 6($11)
        stq_u   $1, 5($11)
# Atomic byte store with LDQ_L/STQ_C on the containing quadword.
        bic     $16, 7, $3
1:      ldq_l   $1, 0($3)
        insbl   $17, $16, $2
        mskbl   $1, $16, $1
        bis     $1, $2, $1
        stq_c   $1, 0($3)
        beq     $1, 2f
        mb
        br      $31, 3f
2:      br      1b
3:
# BWX: the six instructions.
        ldbu    $0, 0($16)
        ldwu    $0, 2($16)
        stb     $17, -1($16)
        stw     $17, 32766($16)
        sextb   $0, $1
        sextw   $0, $1
# AMASK / IMPLVER feature probing.
        amask   1, $0
        amask   $2, $0
        implver $0
        ret     $31, ($26), 1
        .end _start
