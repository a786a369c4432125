# expect-stdout: hello from subword asm\n
# expect-status: 5
# write(1, msg, len); count to 5 in memory; exit(count).
        .set noat
        .text
        .globl _start
_start:
        lda     $16, 1                  # fd = stdout
        lda     $17, msg                # PC-relative address load
        ldiq    $18, len
        lda     $0, 4                   # __NR_write
        callsys
        lda     $1, counter
        ldq     $2, 0($1)
1:      addq    $2, 1, $2
        cmplt   $2, 5, $3
        bne     $3, 1b
        stq     $2, 0($1)
        ldq     $16, counter            # load through $at
        lda     $0, 1                   # __NR_exit
        callsys
        .data
msg:    .ascii  "hello from subword asm\n"
        len = . - msg
counter: .quad  0
