/* A freestanding runtime for the bare corpus: no libc, only the Alpha
   Linux system calls write (4) and exit (1) through CALL_PAL callsys.
   These programs run under the minimal Linux runner already. */
typedef unsigned long u64;
typedef unsigned int u32;

__asm__(".text\n"
        ".globl _start\n"
        ".ent _start\n"
        "_start:\n"
        "  br $29, 1f\n"
        "1: ldgp $29, 0($29)\n"
        "  jsr $26, bare_main\n"
        "  ldgp $29, 0($26)\n"
        "  mov $0, $16\n"
        "  lda $0, 1($31)\n"
        "  callsys\n"
        ".end _start\n");

static long sys3(long n, long a, long b, long c)
{
    register long v0 __asm__("$0") = n;
    register long a0 __asm__("$16") = a;
    register long a1 __asm__("$17") = b;
    register long a2 __asm__("$18") = c;
    register long a3 __asm__("$19");
    __asm__ volatile("callsys"
                     : "+r"(v0), "+r"(a0), "+r"(a1), "+r"(a2), "=r"(a3)
                     :
                     : "$1", "$2", "$3", "$4", "$5", "$6", "$7", "$8", "$20", "$21", "$22", "$23", "$24",
                       "$25", "$27", "$28", "memory");
    return a3 ? -v0 : v0;
}

static void put(const char *s)
{
    long n = 0;
    while (s[n]) n++;
    sys3(4, 1, (long)s, n);
}

/* Print "name 0123456789abcdef\n". */
static void hex(const char *name, u64 v)
{
    char buf[20];
    put(name);
    buf[0] = ' ';
    for (int i = 0; i < 16; i++) buf[1 + i] = "0123456789abcdef"[(v >> (60 - 4 * i)) & 15];
    buf[17] = '\n';
    buf[18] = 0;
    put(buf);
}

static inline u64 bits(double d)
{
    u64 v;
    __asm__("stt %1,%0" : "=m"(v) : "f"(d));
    return v;
}

static inline double dbl(u64 v)
{
    double d;
    __asm__("ldt %0,%1" : "=f"(d) : "m"(v));
    return d;
}
