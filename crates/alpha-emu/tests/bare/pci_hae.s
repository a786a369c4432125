# PCI memory above the sparse window's reach, the way APECS/LCA Linux does
# writeb(): APECS_SET_HAE (msb = addr & 0xf8000000; addr -= msb;
# set_hae(msb)), then *(vuip)((addr << 5) + APECS_SPARSE_MEM + 0x00) =
# __kernel_insbl(b, addr & 3); read back with readl() through dense memory
# (*(vuip)(addr + APECS_DENSE_MEM)). Halts with the byte read back.
# Symbols: SET_HAE (1 to set HAXR1, 0 for the wrong-HAE variant).
	.text
	.globl	_start
_start:
	lda	$3, -4($31)
	sll	$3, 40, $3		# IDENT_ADDR
	ldah	$10, 0x900($31)
	lda	$10, 0x12($10)		# bus address 0x09000012
	lda	$2, 0x1a0($31)
	sll	$2, 24, $2
	lda	$2, 0x1a0($2)		# APECS_IOC_HAXR1 - IDENT_ADDR = 0x1a00001a0
	addq	$2, $3, $2
	ldah	$4, -2048($31)		# 0xfffffffff8000000
	zapnot	$4, 15, $4		# 0xf8000000
	and	$10, $4, $4		# msb = addr & 0xf8000000
	subq	$10, $4, $11		# addr -= msb
	lda	$12, SET_HAE($31)
	beq	$12, 1f
	stl	$4, 0($2)		# set_hae(msb)
	mb
1:	lda	$5, 8($31)
	sll	$5, 30, $5		# APECS_SPARSE_MEM - IDENT_ADDR = 0x200000000
	addq	$5, $3, $5
	sll	$11, 5, $6
	addq	$6, $5, $6		# (addr << 5) + APECS_SPARSE_MEM + 0x00
	lda	$7, 0x5a($31)		# b = 'Z'
	insbl	$7, $11, $7		# __kernel_insbl(b, addr & 3)
	stl	$7, 0($6)
	mb
	lda	$5, 0xc($31)
	sll	$5, 30, $5		# APECS_DENSE_MEM - IDENT_ADDR = 0x300000000
	addq	$5, $3, $5
	bic	$10, 3, $8
	addq	$8, $5, $8		# the longword holding bus 0x09000012, dense
	ldl	$9, 0($8)		# readl
	extbl	$9, $10, $16		# the byte at bus 0x09000012
	call_pal 0			# halt with it as the status
