# COM1 "hello\n" with STB through a byte/word I/O window (Pyxis CIA_BW_IO,
# Tsunami/Irongate *_IO with TS_BIAS, Polaris POLARIS_DENSE_IO_BASE): with
# trivial_io_bw = 1 Linux's outb is a plain byte store.
# Symbols: IO_HI (window base = IO_HI << 26 as a KSEG offset).
	.text
	.globl	_start
_start:
	lda	$2, IO_HI($31)
	sll	$2, 26, $2
	lda	$3, -4($31)
	sll	$3, 40, $3
	addq	$2, $3, $2		# KSEG address of the window
	br	$1, 1f
	.asciz	"hello\n"
	.align	2
1:	ldbu	$4, 0($1)
	beq	$4, 2f
	stb	$4, 0x3f8($2)		# outb(c, 0x3f8)
	mb
	addq	$1, 1, $1
	br	$31, 1b
2:	mov	$31, $16
	call_pal 0
