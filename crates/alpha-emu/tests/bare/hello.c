/* Bare-metal COM1 hello in C (alpha-linux-gnu-gcc -ffreestanding
 * -nostdlib), with port I/O written the way Linux's cia_iowrite8 /
 * apecs_iowrite8 (core_cia.h, core_apecs.h) and jensen_local_outb /
 * jensen_local_inb (jensen.h) are: the byte placed in its lane with
 * __kernel_insbl (GCC's __builtin_alpha_insbl), a longword store to
 * (port << 5) + IO_BASE + 0x00, then mb(). Build with -DCHIPSET_CIA,
 * -DCHIPSET_APECS or -DCHIPSET_JENSEN. */

typedef unsigned long u64;
typedef unsigned int u32;
typedef unsigned char u8;

#define IDENT_ADDR 0xfffffc0000000000UL
#define vuip volatile u32 *
#define vip volatile int *
#define mb() __asm__ __volatile__("mb" : : : "memory")

#if defined(CHIPSET_CIA)
#define IO_BASE (IDENT_ADDR + 0x8580000000UL) /* CIA_IO */
#elif defined(CHIPSET_APECS)
#define IO_BASE (IDENT_ADDR + 0x1c0000000UL) /* APECS_IO */
#elif defined(CHIPSET_JENSEN)
#define EISA_VL82C106 (IDENT_ADDR + 0x1C0000000UL)
#else
#error "define CHIPSET_CIA, CHIPSET_APECS or CHIPSET_JENSEN"
#endif

static inline void outb(u8 b, u64 port)
{
#ifdef CHIPSET_JENSEN
	*(vuip)((port << 9) + EISA_VL82C106) = b;
#else
	u64 w = __builtin_alpha_insbl(b, port & 3);
	*(vuip)((port << 5) + IO_BASE + 0x00) = w;
#endif
	mb();
}

static inline u8 inb(u64 port)
{
#ifdef CHIPSET_JENSEN
	return 0xff & *(vuip)((port << 9) + EISA_VL82C106);
#else
	long result = *(vip)((port << 5) + IO_BASE + 0x00);
	return __builtin_alpha_extbl(result, port & 3);
#endif
}

int main(void)
{
	const char *s = "hello from C\n";
	for (; *s; s++) {
		while (!(inb(0x3fd) & 0x20)) /* LSR: transmitter holding register empty */
			;
		outb(*s, 0x3f8);
	}
	return 7;
}

/* Entry: no PALcode has set $27/$gp, so find ourselves, load the GP,
 * call main and halt with its value as the status. */
__asm__(".text\n.globl _start\n.ent _start\n_start:\n"
	"\tbr $27, 0f\n0:\tldgp $29, 0($27)\n"
	"\tlda $27, main\n\tjsr $26, ($27), main\n"
	"\tmov $0, $16\n\tcall_pal 0\n.end _start\n");
