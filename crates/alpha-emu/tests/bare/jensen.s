# Jensen: COM1 is a VL82C106 local device (jensen_local_outb:
# *(vuip)((addr << 9) + EISA_VL82C106) = b; mb()), and the POST latch at
# port 0x80 is on EISA, written with the byte replicated to all four lanes
# (jensen_bus_outb: *(vuip)((addr << 7) + EISA_IO + 0x00) = b * 0x01010101).
	.text
	.globl	_start
_start:
	lda	$3, -4($31)
	sll	$3, 40, $3		# IDENT_ADDR
	lda	$2, 0x70($31)
	sll	$2, 26, $2		# EISA_VL82C106 - IDENT_ADDR = 0x1c0000000
	addq	$2, $3, $2
	lda	$6, 0x3f8($31)
	sll	$6, 9, $6
	addq	$6, $2, $6		# (0x3f8 << 9) + EISA_VL82C106
	br	$1, 1f
	.asciz	"hello\n"
	.align	2
1:	ldq_u	$4, 0($1)
	extbl	$4, $1, $4
	beq	$4, 2f
	stl	$4, 0($6)
	mb
	addq	$1, 1, $1
	br	$31, 1b
2:	lda	$2, 0xc0($31)
	sll	$2, 26, $2		# EISA_IO - IDENT_ADDR = 0x300000000
	addq	$2, $3, $2
	lda	$6, 0x80($31)
	sll	$6, 7, $6
	addq	$6, $2, $6		# (0x80 << 7) + EISA_IO + 0x00
	lda	$4, 0x2a($31)		# POST code 0x2a
	ldah	$7, 0x101($31)
	lda	$7, 0x101($7)		# 0x01010101
	mull	$4, $7, $4		# b * 0x01010101
	stl	$4, 0($6)
	mb
	mov	$31, $16
	call_pal 0
