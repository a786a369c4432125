# Operand forms and directives: literals, defaults, hints, local labels,
# expressions, aliases and pseudo-instructions, .align padding in code.
        .set noat
        .text
start:
        addq    $1, $2, $3
        addq    $1, 255, $3
        addq    $1, $2          # rc defaults to ra
        subl/v  $4, 0x10, $5
        mov     $1, $2
        mov     200, $2
        clr     $7
        negq    $3, $4
        negl    $3
        not     $5, $6
        sextl   $1, $2
        nop
        unop
        fnop
        fclr    $f4
        fmov    $f1, $f2
        fneg    $f3, $f4
        fabs    $f5, $f6
        andnot  $1, $2, $3
        or      $1, $2, $3
        xornot  $1, $2, $3
        ldq     $sp, -8($sp)
        ldah    $gp, 0x1234($27)
        lda     $gp, -300($gp)
        ldt     $f2, 16($30)
        sts     $f3, -16($30)
        adds/sud $f1, $f2, $f3
        cvttq/svic $f1, $f2
        cvtqt/sui $f2, $f3
        cvtst/s $f2, $f3
        cmptlt/su $f1, $f2, $f3
        addf/suc $f1, $f2, $f3
        cvtgq/sv $f1, $f2
        cvtql/sv $f1, $f2
        mt_fpcr $f0
        mf_fpcr $f0
        trapb
        excb
        wmb
        rpcc    $0
        rc      $1
        rs      $2
        fetch   ($16)
        fetch_m ($17)
        wh64    ($18)
        ecb     ($19)
        call_pal 0x83
        callsys
        imb
        rduniq
        wruniq
        bpt
        gentrap
        halt
        jsr     $26, ($27), start
        jsr     $26, ($27)
        jmp     $31, ($1), 1f
        jmp     ($2)
        ret
        ret     $31, ($26), 2
        jsr_coroutine $26, ($26), 0
        .align  4
1:      br      1b
        br      $1, 1f
        bsr     $26, start
        .align  3
1:      fbne    $f1, 1b
        blbs    $1, 1b + 4
        bgt     $2, . - 8
        .byte   1, 2, 3
        .align  2
        .word   0x1234, 0x5678
        .long   0xdeadbeef, -1
        .quad   0x0123456789abcdef
        perr    $1, $2, $3
        minub8  $1, 7, $3
        maxsw4  $1, $2, $3
        pkwb    $1, $2
        unpkbl  $1, $2
        ctpop   $1, $2
        ctlz    $1, $2
        cttz    $1, $2
        ftoit   $f1, $2
        ftois   $f1, $2
        itoft   $2, $f1
        itofs   $2, $f1
        sqrtt/sud $f1, $f2
        sqrtg   $f1, $f2
        umulh   $1, $2, $3
        mulq/v  $1, 3, $3
        s8subq  $1, 2, $3
        cmpbge  $1, $2, $3
        zapnot  $1, 0x0f, $3
        extqh   $1, $2, $3
        insqh   $1, $2, $3
        mskqh   $1, $2, $3
        srl     $1, 63, $3
        .double 1.5, -2.25e3
        .t_floating 0.1
        .float  3.0
        .s_floating -0.5
        addq    $1, $2, $3
