# expect-stdout: AxCxExGx\n
# expect-status: 0
# The pre-BWX byte store (ldq_u/insbl/mskbl/bis/stq_u, Handbook 4.6) and
# the BWX stb write the same bytes.
        .set noat
        .text
_start:
        lda     $11, data
        lda     $5, 'A'
        lda     $6, 0($11)              # byte 0 the pre-BWX way
        ldq_u   $1, 0($11)
        insbl   $5, $6, $3
        mskbl   $1, $6, $1
        bis     $1, $3, $1
        stq_u   $1, 0($11)
        lda     $5, 'C'
        stb     $5, 2($11)              # byte 2 with BWX
        lda     $5, 'E'
        lda     $6, 4($11)              # byte 4 the pre-BWX way
        ldq_u   $1, 4($11)
        insbl   $5, $6, $3
        mskbl   $1, $6, $1
        bis     $1, $3, $1
        stq_u   $1, 4($11)
        lda     $5, 'G'
        stb     $5, 6($11)
        lda     $16, 1
        mov     $11, $17
        lda     $18, 9
        lda     $0, 4
        callsys
        clr     $16
        lda     $0, 1
        callsys
        .data
data:   .ascii  "xxxxxxxx\n"
