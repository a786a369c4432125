/* status: 0 */
/* __sync and __atomic builtins on 1-, 2-, 4- and 8-byte objects packed next
   to each other: sub-word atomics are ldq_l/stq_c loops on the containing
   quadword and must leave the neighbours alone. Expected: exit 0. */
#include "check.h"

struct pack { unsigned char b[3]; unsigned short h; unsigned int w; unsigned long q; };

int main(void)
{
    static struct pack p = { { 1, 2, 3 }, 1000, 100000, 10000000000UL };
    CHECK(__sync_fetch_and_add(&p.b[1], 5) == 2);
    CHECK(__sync_add_and_fetch(&p.h, 24) == 1024);
    CHECK(__sync_fetch_and_sub(&p.w, 1) == 100000);
    CHECK(__sync_fetch_and_or(&p.q, 1) == 10000000000UL);
    CHECK(__sync_bool_compare_and_swap(&p.b[0], 1, 0xff));
    CHECK(!__sync_bool_compare_and_swap(&p.b[2], 9, 0));
    CHECK(__sync_val_compare_and_swap(&p.h, 1024, 7) == 1024);
    CHECK(__sync_lock_test_and_set(&p.b[2], 0x80) == 3);
    unsigned char old = __atomic_exchange_n(&p.b[1], 42, __ATOMIC_SEQ_CST);
    CHECK(old == 7);
    unsigned short exp16 = 7;
    CHECK(__atomic_compare_exchange_n(&p.h, &exp16, 0xffff, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
    exp16 = 1;
    CHECK(!__atomic_compare_exchange_n(&p.h, &exp16, 0, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
    CHECK(exp16 == 0xffff);
    CHECK(__atomic_fetch_and(&p.w, 0xff00u, __ATOMIC_RELAXED) == 99999);
    CHECK(__atomic_xor_fetch(&p.q, 0xf0f0UL, __ATOMIC_ACQ_REL) == (10000000001UL ^ 0xf0f0UL));
    __atomic_store_n(&p.b[0], 0x11, __ATOMIC_RELEASE);
    CHECK(__atomic_load_n(&p.b[0], __ATOMIC_ACQUIRE) == 0x11);
    unsigned long mx = 0;
    for (int i = 0; i < 1000; i++) __atomic_fetch_add(&mx, (unsigned long)i, __ATOMIC_SEQ_CST);
    CHECK(mx == 499500);
    __sync_synchronize();
    printf("b %02x %02x %02x h %04x w %u q %lu mx %lu\n", p.b[0], p.b[1], p.b[2], p.h, p.w, p.q, mx);
    CHECK(p.b[0] == 0x11 && p.b[1] == 42 && p.b[2] == 0x80 && p.h == 0xffff);
    printf("atomics: %d failures\n", failures);
    return failures;
}
