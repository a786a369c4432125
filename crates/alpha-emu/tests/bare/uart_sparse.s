# COM1 "hello\n" through a sparse I/O window, the way Linux's
# cia_iowrite8/apecs_iowrite8/t2_outb do it: w = __kernel_insbl(b, port & 3);
# *(vuip)((port << SHIFT) + IO_BASE + 0x00) = w; mb().
# Symbols: IO_HI (sparse I/O base = IO_HI << 26, physical), SHIFT (5).
	.text
	.globl	_start
_start:
	lda	$2, IO_HI($31)
	sll	$2, 26, $2		# sparse I/O window base (physical)
	lda	$3, -4($31)
	sll	$3, 40, $3		# IDENT_ADDR 0xfffffc0000000000
	addq	$2, $3, $2		# the KSEG address Linux uses (e.g. CIA_IO)
	lda	$5, 0x3f8($31)		# COM1 THR
	sll	$5, SHIFT, $6
	addq	$6, $2, $6		# (port << 5) + IO_BASE + 0x00: a byte in lane port & 3
	br	$1, 1f
	.asciz	"hello\n"
	.align	2
1:	ldq_u	$4, 0($1)
	extbl	$4, $1, $4		# c = *s, the pre-BWX way
	beq	$4, 2f
	insbl	$4, $5, $4		# __kernel_insbl(c, port & 3)
	stl	$4, 0($6)
	mb				# mandatory between sparse writes on a 21164
	addq	$1, 1, $1
	br	$31, 1b
2:	mov	$31, $16
	call_pal 0			# halt, status 0
