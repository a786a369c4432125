# expect-stdout: 0123456789\n
# expect-status: 45
# jsr to a procedure through $27, byte stores (BWX) into a .comm buffer,
# a store through $at, and the sum of the digits as exit status.
        .set noat
        .text
        .globl _start
        .ent _start
_start:
        clr     $9                      # i
        clr     $10                     # sum
        lda     $11, buf
1:      mov     $9, $16
        jsr     $26, digit              # v0 = '0' + a0
        addq    $11, $9, $1
        stb     $0, 0($1)
        addq    $10, $9, $10
        addq    $9, 1, $9
        cmplt   $9, 10, $2
        bne     $2, 1b
        lda     $2, 10                  # '\n'
        stb     $2, 10($11)
        stq     $10, total              # through $at
        lda     $16, 1
        mov     $11, $17
        lda     $18, 11
        lda     $0, 4
        callsys
        ldq     $16, total
        lda     $0, 1
        callsys
        .end _start

        .ent digit
digit:
        addq    $16, 48, $0
        ret
        .end digit

        .data
total:  .quad   0
        .comm   buf, 16, 8
