/* Sockets, epoll, eventfd and timerfd probes for alpha_linux_net.rs: each
 * probe (argv[1]) prints lines that do not depend on ports, pids, paths or
 * timing, so the same binary under subword and under qemu-alpha must print
 * the same text. Errors print as "name: ERRNO_NAME". */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static const char *ename(int e) {
    switch (e) {
    case 0: return "OK";
    case EAGAIN: return "EAGAIN";
    case EBADF: return "EBADF";
    case EFAULT: return "EFAULT";
    case EINVAL: return "EINVAL";
    case EPERM: return "EPERM";
    case EEXIST: return "EEXIST";
    case ENOENT: return "ENOENT";
    case ENOTSOCK: return "ENOTSOCK";
    case EAFNOSUPPORT: return "EAFNOSUPPORT";
    case EINPROGRESS: return "EINPROGRESS";
    case ECONNREFUSED: return "ECONNREFUSED";
    case ENOPROTOOPT: return "ENOPROTOOPT";
    case EPIPE: return "EPIPE";
    case ENOTCONN: return "ENOTCONN";
    case EISCONN: return "EISCONN";
    case EDOM: return "EDOM";
    case EMSGSIZE: return "EMSGSIZE";
    case EADDRINUSE: return "EADDRINUSE";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    case ELOOP: return "ELOOP";
    case EINTR: return "EINTR";
    default: return "other";
    }
}

/* Print "what: result" where result is the value or the errno name. */
static long show(const char *what, long r) {
    if (r < 0)
        printf("%s: %s\n", what, ename(errno));
    else
        printf("%s: %ld\n", what, r);
    return r;
}

static void *bad_page(void) {
    return mmap(0, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

/* ------------------------------------------------------------ TCP echo */

struct server {
    int lfd;
};

static void *echo_server(void *arg) {
    struct server *s = arg;
    struct sockaddr_storage peer;
    socklen_t pl = sizeof peer;
    int c = accept(s->lfd, (struct sockaddr *)&peer, &pl);
    if (c < 0) {
        printf("accept: %s\n", ename(errno));
        return 0;
    }
    char buf[64];
    long total = 0;
    for (;;) {
        ssize_t n = recv(c, buf, sizeof buf, 0);
        if (n <= 0)
            break;
        for (ssize_t i = 0; i < n; i++)
            if (buf[i] >= 'a' && buf[i] <= 'z')
                buf[i] -= 32;
        send(c, buf, n, 0);
        total += n;
    }
    printf("server: echoed %ld bytes, peer family %s\n", total,
           peer.ss_family == AF_INET ? "AF_INET" : peer.ss_family == AF_INET6 ? "AF_INET6" : "?");
    close(c);
    return 0;
}

static int tcp(int fam) {
    int l = socket(fam, SOCK_STREAM, 0);
    show("socket", l >= 0 ? 0 : -1);
    int one = 1;
    show("reuseaddr", setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one));
    struct sockaddr_in a4 = {0};
    struct sockaddr_in6 a6 = {0};
    struct sockaddr *sa;
    socklen_t len;
    if (fam == AF_INET) {
        a4.sin_family = AF_INET;
        a4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        sa = (struct sockaddr *)&a4;
        len = sizeof a4;
    } else {
        a6.sin6_family = AF_INET6;
        a6.sin6_addr = in6addr_loopback;
        sa = (struct sockaddr *)&a6;
        len = sizeof a6;
    }
    show("bind", bind(l, sa, len));
    show("listen", listen(l, 4));
    socklen_t got = len;
    show("getsockname", getsockname(l, sa, &got));
    printf("getsockname len %d port nonzero %d\n", (int)got,
           fam == AF_INET ? a4.sin_port != 0 : a6.sin6_port != 0);
    struct server s = {l};
    pthread_t th;
    pthread_create(&th, 0, echo_server, &s);
    int c = socket(fam, SOCK_STREAM, 0);
    show("connect", connect(c, sa, len));
    struct sockaddr_storage peer;
    socklen_t pl = sizeof peer;
    show("getpeername", getpeername(c, (struct sockaddr *)&peer, &pl));
    printf("peer len %d same port %d\n", (int)pl,
           fam == AF_INET ? ((struct sockaddr_in *)&peer)->sin_port == a4.sin_port
                          : ((struct sockaddr_in6 *)&peer)->sin6_port == a6.sin6_port);
    int nd = 1;
    show("nodelay", setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &nd, sizeof nd));
    const char *msg = "hello, alpha sockets";
    show("send", send(c, msg, strlen(msg), 0));
    char buf[64] = {0};
    long have = 0;
    while (have < (long)strlen(msg)) {
        ssize_t n = recv(c, buf + have, sizeof buf - 1 - have, 0);
        if (n <= 0)
            break;
        have += n;
    }
    printf("reply: %s\n", buf);
    int sh = shutdown(c, SHUT_WR);
    pthread_join(th, 0);
    show("shutdown", sh);
    show("recv after close", recv(c, buf, sizeof buf, 0));
    close(c);
    close(l);
    return 0;
}

/* ------------------------------------------------------------ AF_UNIX */

static int peer_cloexec = -1;
static void *unix_peer(void *arg) {
    int l = *(int *)arg;
    int c = accept4(l, 0, 0, SOCK_CLOEXEC);
    peer_cloexec = (fcntl(c, F_GETFD) & FD_CLOEXEC) != 0;
    char buf[32];
    ssize_t n = read(c, buf, sizeof buf);
    write(c, buf, n);
    close(c);
    return 0;
}

static int unix_stream(void) {
    struct sockaddr_un a = {0};
    a.sun_family = AF_UNIX;
    snprintf(a.sun_path, sizeof a.sun_path, "/tmp/subword-net-%d.sock", (int)getpid());
    unlink(a.sun_path);
    int l = socket(AF_UNIX, SOCK_STREAM, 0);
    show("bind", bind(l, (struct sockaddr *)&a, sizeof a));
    show("bind again", bind(socket(AF_UNIX, SOCK_STREAM, 0), (struct sockaddr *)&a, sizeof a));
    show("listen", listen(l, 1));
    pthread_t th;
    pthread_create(&th, 0, unix_peer, &l);
    int c = socket(AF_UNIX, SOCK_STREAM, 0);
    show("connect", connect(c, (struct sockaddr *)&a, sizeof a));
    show("write", write(c, "unix!", 5));
    char buf[16] = {0};
    show("read", read(c, buf, sizeof buf));
    printf("got %s\n", buf);
    pthread_join(th, 0);
    printf("accept4 cloexec: %d\n", peer_cloexec);
    struct sockaddr_un b;
    socklen_t bl = sizeof b;
    show("getsockname", getsockname(l, (struct sockaddr *)&b, &bl));
    printf("same path %d\n", strcmp(a.sun_path, b.sun_path) == 0);
    close(c);
    close(l);
    unlink(a.sun_path);
    return 0;
}

static int unix_dgram(void) {
    int sv[2];
    show("socketpair dgram", socketpair(AF_UNIX, SOCK_DGRAM, 0, sv));
    show("send 1", send(sv[0], "one", 3, 0));
    show("send 2", send(sv[0], "second", 6, 0));
    char buf[16];
    show("recv 1", recv(sv[1], buf, sizeof buf, 0));
    show("recv 2 truncated", recv(sv[1], buf, 3, MSG_TRUNC));
    show("recv empty dontwait", recv(sv[1], buf, sizeof buf, MSG_DONTWAIT));
    /* Bound datagram sockets in the abstract namespace. */
    struct sockaddr_un a = {0}, b = {0}, from;
    a.sun_family = b.sun_family = AF_UNIX;
    int na = snprintf(a.sun_path + 1, sizeof a.sun_path - 1, "subword-a-%d", (int)getpid());
    int nb = snprintf(b.sun_path + 1, sizeof b.sun_path - 1, "subword-b-%d", (int)getpid());
    socklen_t la = offsetof(struct sockaddr_un, sun_path) + 1 + na;
    socklen_t lb = offsetof(struct sockaddr_un, sun_path) + 1 + nb;
    int x = socket(AF_UNIX, SOCK_DGRAM, 0), y = socket(AF_UNIX, SOCK_DGRAM, 0);
    show("bind a", bind(x, (struct sockaddr *)&a, la));
    show("bind b", bind(y, (struct sockaddr *)&b, lb));
    show("sendto", sendto(x, "ping", 4, 0, (struct sockaddr *)&b, lb));
    socklen_t fl = sizeof from;
    memset(buf, 0, sizeof buf);
    show("recvfrom", recvfrom(y, buf, sizeof buf, 0, (struct sockaddr *)&from, &fl));
    printf("from a %d: %s\n", fl == la && memcmp(&from, &a, la) == 0, buf);
    /* sendmsg/recvmsg with iovecs. */
    struct iovec out[3] = {{"ab", 2}, {"cde", 3}, {"f", 1}};
    struct msghdr m = {0};
    m.msg_iov = out;
    m.msg_iovlen = 3;
    show("sendmsg", sendmsg(sv[0], &m, 0));
    char p1[2], p2[10] = {0};
    struct iovec in[2] = {{p1, 2}, {p2, 9}};
    struct msghdr r = {0};
    r.msg_iov = in;
    r.msg_iovlen = 2;
    show("recvmsg", recvmsg(sv[1], &r, 0));
    printf("iov: %.2s|%s flags %d\n", p1, p2, r.msg_flags);
    close(sv[0]);
    close(sv[1]);
    return 0;
}

/* One byte `tag` carrying the `n` (at most 4) descriptors `fds` in an
 * SCM_RIGHTS message; sendmsg's result. */
static long send_fds(int sock, char tag, const int *fds, int n) {
    char cbuf[CMSG_SPACE(4 * sizeof(int))];
    memset(cbuf, 0, sizeof cbuf);
    struct iovec iov = {&tag, 1};
    struct msghdr m = {0};
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = cbuf;
    m.msg_controllen = CMSG_SPACE(n * sizeof(int));
    struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(n * sizeof(int));
    memcpy(CMSG_DATA(cm), fds, n * sizeof(int));
    return sendmsg(sock, &m, 0);
}

/* What recv_fds saw: recvmsg's result, whether the first control message
 * is at SOL_SOCKET, its cmsg_len and the msg_controllen the kernel left. */
struct rights {
    long ret;
    int level_ok, cmsg_len, controllen;
};

/* Receive one byte with room for `n` (at most 4) descriptors; `got` holds
 * those an SCM_RIGHTS message brought, -1 for the rest. */
static struct rights recv_fds(int sock, int *got, int n) {
    char rc[CMSG_SPACE(4 * sizeof(int))];
    char one;
    struct iovec riov = {&one, 1};
    struct msghdr r = {0};
    r.msg_iov = &riov;
    r.msg_iovlen = 1;
    r.msg_control = rc;
    r.msg_controllen = CMSG_SPACE(n * sizeof(int));
    struct rights out = {0};
    out.ret = recvmsg(sock, &r, 0);
    out.controllen = (int)r.msg_controllen;
    for (int i = 0; i < n; i++)
        got[i] = -1;
    struct cmsghdr *rm = CMSG_FIRSTHDR(&r);
    if (!rm) return out;
    out.level_ok = rm->cmsg_level == SOL_SOCKET;
    out.cmsg_len = (int)rm->cmsg_len;
    if (out.level_ok && rm->cmsg_type == SCM_RIGHTS && rm->cmsg_len >= CMSG_LEN(0)) {
        size_t k = (rm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        memcpy(got, CMSG_DATA(rm), (k < (size_t)n ? k : (size_t)n) * sizeof(int));
    }
    return out;
}

static int pair_and_rights(void) {
    int sv[2];
    show("socketpair stream", socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv));
    printf("nonblock flag: %d\n", (fcntl(sv[0], F_GETFL) & O_NONBLOCK) != 0);
    char buf[8];
    show("read empty", read(sv[1], buf, sizeof buf));
    /* Pass one end of a second pair over the first. */
    int inner[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, inner);
    show("sendmsg rights", send_fds(sv[0], 'F', &inner[1], 1));
    close(inner[1]);
    int passed;
    struct rights got = recv_fds(sv[1], &passed, 1);
    show("recvmsg rights", got.ret);
    printf("cmsg: level ok %d len %d controllen %d\n", got.level_ok, got.cmsg_len, got.controllen);
    show("write inner", write(inner[0], "via", 3));
    int avail = -1;
    show("fionread", ioctl(passed, FIONREAD, &avail));
    printf("fionread says %d\n", avail);
    int on = 1;
    show("fionbio", ioctl(inner[0], FIONBIO, &on));
    show("recv after fionbio", recv(inner[0], buf, 1, 0));
    memset(buf, 0, sizeof buf);
    show("read passed", read(passed, buf, sizeof buf));
    printf("passed says %s\n", buf);
    int type = 0;
    socklen_t tl = sizeof type;
    getsockopt(passed, SOL_SOCKET, SO_TYPE, &type, &tl);
    printf("passed type stream %d\n", type == SOCK_STREAM);
    /* A peer gone: EPIPE (SIGPIPE suppressed). */
    close(sv[1]);
    show("send to closed", send(sv[0], "x", 1, MSG_NOSIGNAL));
    return 0;
}

/* ------------------------------------------------------------ options */

static int sockopts(void) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    int v = -1;
    socklen_t l = sizeof v;
    show("get reuseaddr", getsockopt(s, SOL_SOCKET, SO_REUSEADDR, &v, &l));
    printf("reuseaddr %d len %d\n", v, (int)l);
    v = 1;
    show("set reuseaddr", setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &v, sizeof v));
    l = sizeof v;
    getsockopt(s, SOL_SOCKET, SO_REUSEADDR, &v, &l);
    printf("reuseaddr now %d\n", v != 0);
    v = 32768;
    show("set rcvbuf", setsockopt(s, SOL_SOCKET, SO_RCVBUF, &v, sizeof v));
    l = sizeof v;
    getsockopt(s, SOL_SOCKET, SO_RCVBUF, &v, &l);
    printf("rcvbuf doubled %d\n", v == 65536);
    struct linger lg = {1, 5}, lo = {0, 0};
    show("set linger", setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof lg));
    l = sizeof lo;
    show("get linger", getsockopt(s, SOL_SOCKET, SO_LINGER, &lo, &l));
    printf("linger %d %d len %d\n", lo.l_onoff, lo.l_linger, (int)l);
    struct timeval tv = {2, 500000}, to = {0, 0};
    show("set rcvtimeo", setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv));
    l = sizeof to;
    show("get rcvtimeo", getsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &to, &l));
    printf("rcvtimeo %ld.%06ld len %d\n", (long)to.tv_sec, (long)to.tv_usec, (int)l);
    struct timeval badtv = {1, 1000000};
    show("set rcvtimeo bad usec", setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &badtv, sizeof badtv));
    show("set rcvtimeo short", setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, 4));
    l = sizeof v;
    getsockopt(s, SOL_SOCKET, SO_TYPE, &v, &l);
    printf("type stream %d\n", v == SOCK_STREAM);
    getsockopt(s, SOL_SOCKET, SO_ERROR, &v, &l);
    printf("error %d\n", v);
    l = sizeof v;
    getsockopt(s, SOL_SOCKET, SO_DOMAIN, &v, &l);
    printf("domain inet %d\n", v == AF_INET);
    show("unknown option", getsockopt(s, SOL_SOCKET, 0x7777, &v, &l));
    int negl = -1;
    show("negative optlen", getsockopt(s, SOL_SOCKET, SO_TYPE, &v, (socklen_t *)&negl));
    l = sizeof v;
    show("optval fault", getsockopt(s, SOL_SOCKET, SO_TYPE, bad_page(), &l));
    show("setsockopt fault", setsockopt(s, SOL_SOCKET, SO_REUSEADDR, bad_page(), 4));
    /* SO_RCVTIMEO bounds a blocking recv: EAGAIN after it. */
    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    struct timeval shortt = {0, 100000};
    setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &shortt, sizeof shortt);
    char c;
    show("recv with rcvtimeo", recv(sv[0], &c, 1, 0));
    close(s);
    return 0;
}

static int nonblock_connect(void) {
    int l = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(l, (struct sockaddr *)&a, sizeof a);
    listen(l, 4);
    socklen_t al = sizeof a;
    getsockname(l, (struct sockaddr *)&a, &al);
    show("accept nothing yet", accept(l, 0, 0));
    int c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    int r = connect(c, (struct sockaddr *)&a, sizeof a);
    printf("connect: %s\n", r == 0 || errno == EINPROGRESS ? "0 or EINPROGRESS" : ename(errno));
    struct pollfd pf = {c, POLLOUT, 0};
    show("poll out", poll(&pf, 1, 5000));
    printf("revents out %d\n", (pf.revents & POLLOUT) != 0);
    int err = -1;
    socklen_t el = sizeof err;
    getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &el);
    printf("so_error %d\n", err);
    show("connect again", connect(c, (struct sockaddr *)&a, sizeof a));
    struct pollfd lp = {l, POLLIN, 0};
    show("poll listener", poll(&lp, 1, 5000));
    int s = accept4(l, 0, 0, SOCK_NONBLOCK);
    printf("accept4 nonblock %d\n", s >= 0 && (fcntl(s, F_GETFL) & O_NONBLOCK) != 0);
    char b;
    show("recv dontwait empty", recv(s, &b, 1, MSG_DONTWAIT));
    /* Nobody listens on a bound port: refused. */
    int q = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in qa = a;
    qa.sin_port = 0;
    bind(q, (struct sockaddr *)&qa, sizeof qa);
    al = sizeof qa;
    getsockname(q, (struct sockaddr *)&qa, &al);
    int z = socket(AF_INET, SOCK_STREAM, 0);
    show("connect refused", connect(z, (struct sockaddr *)&qa, sizeof qa));
    return 0;
}

/* ------------------------------------------------------------ epoll */

static int ep_wait(int ep, int ms, const char *what) {
    struct epoll_event ev[4];
    int n = epoll_wait(ep, ev, 4, ms);
    if (n < 0)
        printf("%s: %s\n", what, ename(errno));
    else if (n == 0)
        printf("%s: 0\n", what);
    else
        printf("%s: %d events %#x data %llu\n", what, n, ev[0].events,
               (unsigned long long)ev[0].data.u64);
    return n;
}

static int epoll_probe(int on_socket) {
    int fds[2];
    if (on_socket)
        socketpair(AF_UNIX, SOCK_STREAM, 0, fds);
    else
        pipe(fds);
    int rd = fds[0], wr = fds[1];
    int ep = epoll_create1(EPOLL_CLOEXEC);
    printf("epoll cloexec %d\n", (fcntl(ep, F_GETFD) & FD_CLOEXEC) != 0);
    printf("sizeof epoll_event %d\n", (int)sizeof(struct epoll_event));
    struct epoll_event e = {EPOLLIN, {.u64 = 0x1122334455667788ull}};
    show("ctl add", epoll_ctl(ep, EPOLL_CTL_ADD, rd, &e));
    show("ctl add again", epoll_ctl(ep, EPOLL_CTL_ADD, rd, &e));
    ep_wait(ep, 0, "level empty");
    ep_wait(ep, 100, "level timeout");
    write(wr, "ab", 2);
    ep_wait(ep, 1000, "level data");
    ep_wait(ep, 1000, "level still");
    char c;
    read(rd, &c, 1);
    read(rd, &c, 1);
    ep_wait(ep, 50, "level drained");
    e.events = EPOLLIN | EPOLLET;
    e.data.u64 = 7;
    show("ctl mod et", epoll_ctl(ep, EPOLL_CTL_MOD, rd, &e));
    write(wr, "x", 1);
    ep_wait(ep, 1000, "edge first");
    ep_wait(ep, 50, "edge again");
    write(wr, "y", 1);
    ep_wait(ep, 1000, "edge new data");
    read(rd, &c, 1);
    read(rd, &c, 1);
    e.events = EPOLLIN | EPOLLONESHOT;
    e.data.u64 = 9;
    epoll_ctl(ep, EPOLL_CTL_MOD, rd, &e);
    write(wr, "z", 1);
    ep_wait(ep, 1000, "oneshot");
    ep_wait(ep, 50, "oneshot disabled");
    e.events = EPOLLOUT;
    e.data.u64 = 11;
    show("ctl add writer", epoll_ctl(ep, EPOLL_CTL_ADD, wr, &e));
    show("ctl del reader", epoll_ctl(ep, EPOLL_CTL_DEL, rd, 0));
    show("ctl del again", epoll_ctl(ep, EPOLL_CTL_DEL, rd, 0));
    ep_wait(ep, 1000, "writable");
    epoll_ctl(ep, EPOLL_CTL_DEL, wr, 0);
    e.events = EPOLLIN;
    e.data.u64 = 13;
    epoll_ctl(ep, EPOLL_CTL_ADD, rd, &e);
    read(rd, &c, 1);
    close(wr);
    ep_wait(ep, 1000, "hangup");
    struct pollfd pf = {ep, POLLIN, 0};
    show("poll on epoll", poll(&pf, 1, 0));
    return 0;
}

/* A thread writes after a delay; the main thread blocks in epoll_wait. */
static int wake_fd;
static void *late_writer(void *arg) {
    (void)arg;
    struct timespec d = {0, 50000000};
    nanosleep(&d, 0);
    uint64_t one = 1;
    write(wake_fd, &one, 8);
    return 0;
}

static int eventfd_probe(void) {
    int e = eventfd(0, EFD_NONBLOCK);
    uint64_t v = 3;
    show("write 3", write(e, &v, 8));
    v = 4;
    show("write 4", write(e, &v, 8));
    show("read", read(e, &v, 8));
    printf("counter %llu\n", (unsigned long long)v);
    show("read empty", read(e, &v, 8));
    show("read short", read(e, &v, 4));
    v = UINT64_MAX;
    show("write max", write(e, &v, 8));
    int s = eventfd(3, EFD_SEMAPHORE | EFD_NONBLOCK);
    for (int i = 0; i < 4; i++) {
        v = 0;
        long r = read(s, &v, 8);
        printf("semaphore read %d: %s %llu\n", i, r < 0 ? ename(errno) : "OK",
               (unsigned long long)v);
    }
    show("eventfd2 bad flags", eventfd(0, 0x100));
    /* Blocking: a read waits for another thread's write. */
    wake_fd = eventfd(0, 0);
    pthread_t th;
    pthread_create(&th, 0, late_writer, 0);
    show("blocking read", read(wake_fd, &v, 8));
    printf("woken with %llu\n", (unsigned long long)v);
    pthread_join(th, 0);
    /* And epoll on an eventfd. */
    int ep = epoll_create1(0);
    struct epoll_event ev = {EPOLLIN, {.u64 = 5}};
    epoll_ctl(ep, EPOLL_CTL_ADD, wake_fd, &ev);
    ep_wait(ep, 0, "eventfd idle");
    pthread_create(&th, 0, late_writer, 0);
    ep_wait(ep, 5000, "eventfd woken");
    pthread_join(th, 0);
    return 0;
}

static int timerfd_probe(void) {
    int t = timerfd_create(CLOCK_MONOTONIC, 0);
    struct itimerspec its = {{0, 20000000}, {0, 20000000}}, cur;
    show("settime periodic", timerfd_settime(t, 0, &its, 0));
    uint64_t total = 0, n;
    int reads = 0;
    while (total < 5) {
        if (read(t, &n, 8) != 8) {
            printf("read: %s\n", ename(errno));
            break;
        }
        total += n;
        reads++;
    }
    printf("expirations at least 5: %d\n", total >= 5);
    show("gettime", timerfd_gettime(t, &cur));
    printf("interval %ld.%09ld value set %d\n", (long)cur.it_interval.tv_sec,
           cur.it_interval.tv_nsec, cur.it_value.tv_sec == 0 && cur.it_value.tv_nsec > 0);
    struct itimerspec off = {{0, 0}, {0, 0}};
    show("disarm", timerfd_settime(t, 0, &off, &cur));
    printf("old interval %ld\n", cur.it_interval.tv_nsec);
    timerfd_gettime(t, &cur);
    printf("disarmed %d\n", cur.it_value.tv_sec == 0 && cur.it_value.tv_nsec == 0);
    /* An absolute time already past expires at once. */
    int a = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK);
    show("read unarmed", read(a, &n, 8));
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct itimerspec past = {{0, 0}, {now.tv_sec - 10, 0}};
    show("settime abs past", timerfd_settime(a, TFD_TIMER_ABSTIME, &past, 0));
    n = 0;
    show("read past", read(a, &n, 8));
    printf("past count %llu\n", (unsigned long long)n);
    clock_gettime(CLOCK_REALTIME, &now);
    struct itimerspec soon = {{0, 0}, {now.tv_sec, now.tv_nsec}};
    soon.it_value.tv_nsec += 30000000;
    if (soon.it_value.tv_nsec >= 1000000000) {
        soon.it_value.tv_sec++;
        soon.it_value.tv_nsec -= 1000000000;
    }
    timerfd_settime(a, TFD_TIMER_ABSTIME, &soon, 0);
    int ep = epoll_create1(0);
    struct epoll_event ev = {EPOLLIN, {.u64 = 42}};
    epoll_ctl(ep, EPOLL_CTL_ADD, a, &ev);
    ep_wait(ep, 10000, "epoll timerfd");
    show("read after epoll", read(a, &n, 8));
    printf("abs count %llu\n", (unsigned long long)n);
    ep_wait(ep, 60, "epoll timeout");
    show("timerfd_create bad clock", timerfd_create(12345, 0));
    show("timerfd_create bad flags", timerfd_create(CLOCK_MONOTONIC, 0x100));
    struct itimerspec bad = {{0, 0}, {0, 1000000000}};
    show("settime bad nsec", timerfd_settime(t, 0, &bad, 0));
    show("settime bad flags", timerfd_settime(t, 0x100, &its, 0));
    show("settime not timerfd", timerfd_settime(ep, 0, &its, 0));
    show("settime fault", timerfd_settime(t, 0, bad_page(), 0));
    return 0;
}

/* ------------------------------------------------------------ errors */

static int errors(void) {
    void *bad = bad_page();
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    socklen_t l = sizeof a;
    show("socket bad family", socket(12345, SOCK_STREAM, 0));
    show("socket bad flags", socket(AF_INET, SOCK_STREAM | 0x100, 0));
    show("bind fault", bind(s, bad, sizeof a));
    show("bind long", bind(s, (struct sockaddr *)&a, 200));
    show("bind short", bind(s, (struct sockaddr *)&a, 4));
    show("connect fault", connect(s, bad, sizeof a));
    show("getsockname lenp fault", getsockname(s, (struct sockaddr *)&a, bad));
    show("getsockname addr fault", getsockname(s, bad, &l));
    show("socketpair fault", socketpair(AF_UNIX, SOCK_STREAM, 0, bad));
    show("socketpair inet", socketpair(AF_INET, SOCK_STREAM, 0, (int[2]){0, 0}));
    int p[2];
    pipe(p);
    show("getsockname on pipe", getsockname(p[0], (struct sockaddr *)&a, &l));
    show("listen bad fd", listen(999, 1));
    show("send not connected", send(s, "x", 1, MSG_NOSIGNAL));
    show("shutdown not connected", shutdown(s, SHUT_RDWR));
    show("shutdown bad how", shutdown(s, 7));
    show("accept not listening", accept(s, 0, 0));
    show("accept4 bad flags", accept4(s, 0, 0, 0x100));
    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    write(sv[0], "q", 1);
    show("recv fault", recv(sv[1], bad, 1, 0));
    show("send fault", send(sv[0], bad, 1, 0));
    struct msghdr m = {0};
    m.msg_iovlen = 5000;
    show("sendmsg too many iov", sendmsg(sv[0], &m, 0));
    show("sendmsg fault", sendmsg(sv[0], bad, 0));
    int ep = epoll_create1(0);
    struct epoll_event ev = {EPOLLIN, {0}}, out[2];
    show("epoll_create1 bad flags", epoll_create1(1));
    show("epoll_create 0", epoll_create(0));
    show("epoll_wait maxevents 0", epoll_wait(ep, out, 0, 0));
    show("epoll_wait fault", epoll_wait(ep, bad, 2, 0));
    show("epoll_wait not epoll", epoll_wait(p[0], out, 2, 0));
    show("epoll_ctl fault", epoll_ctl(ep, EPOLL_CTL_ADD, p[0], bad));
    show("epoll_ctl bad op", epoll_ctl(ep, 99, p[0], &ev));
    show("epoll_ctl self", epoll_ctl(ep, EPOLL_CTL_ADD, ep, &ev));
    show("epoll_ctl bad fd", epoll_ctl(ep, EPOLL_CTL_ADD, 999, &ev));
    show("epoll_ctl mod missing", epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev));
    char tmpl[] = "/tmp/subword-net-XXXXXX";
    int f = mkstemp(tmpl);
    unlink(tmpl);
    show("epoll_ctl regular file", epoll_ctl(ep, EPOLL_CTL_ADD, f, &ev));
    show("epoll_ctl not epoll", epoll_ctl(p[0], EPOLL_CTL_ADD, p[1], &ev));
    return 0;
}

/* ------------------------------------------------------------ bulk */

/* A blocking send or write on a stream socket sends everything, however
 * small the socket buffers: the receiver counts what arrives. */
static void *bulk_sink(void *arg) {
    int c = *(int *)arg;
    static char buf[4096];
    long got = 0;
    unsigned long h = 0;
    ssize_t n;
    while ((n = recv(c, buf, sizeof buf, 0)) > 0) {
        got += n;
        for (ssize_t i = 0; i < n; i++)
            h = h * 31 + (unsigned char)buf[i];
    }
    printf("received %ld, hash %lx\n", got, h);
    return 0;
}

static char huge[3 << 20];
static void *huge_source(void *arg) {
    int c = *(int *)arg;
    for (long off = 0; off < (long)sizeof huge; off += 65536) {
        if (send(c, huge + off, 65536, 0) != 65536) return 0;
        usleep(1000);
    }
    return 0;
}

static int bulk(void) {
    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    int small = 4096;
    setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
    setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    pthread_t th;
    pthread_create(&th, 0, bulk_sink, &sv[1]);
    static char big[1 << 19];
    memset(big, 'b', sizeof big);
    long s1 = send(sv[0], big, sizeof big, 0);
    long s2 = write(sv[0], big, sizeof big);
    struct iovec iov[2] = {{big, 1000}, {big, sizeof big - 1000}};
    long s3 = writev(sv[0], iov, 2);
    printf("send %ld write %ld writev %ld\n", s1, s2, s3);
    /* More than one host window (1 MiB) in one call: every byte, in order. */
    for (long i = 0; i < (long)sizeof huge; i++)
        huge[i] = (char)(i * 7 % 251);
    long s4 = send(sv[0], huge, sizeof huge, 0);
    struct iovec hv[3] = {{huge, 3 << 19}, {huge + (3 << 19), 1}, {huge + (3 << 19) + 1, (3 << 19) - 1}};
    struct msghdr m;
    memset(&m, 0, sizeof m);
    m.msg_iov = hv;
    m.msg_iovlen = 3;
    long s5 = sendmsg(sv[0], &m, 0);
    printf("send 3 MiB %ld sendmsg 3 MiB in 3 iovecs %ld\n", s4, s5);
    shutdown(sv[0], SHUT_WR);
    pthread_join(th, 0);
    /* A MSG_WAITALL receive of more than one host window. */
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    pthread_create(&th, 0, huge_source, &sv[0]);
    static char back[3 << 20];
    long r = recv(sv[1], back, sizeof back, MSG_WAITALL);
    printf("recv 3 MiB MSG_WAITALL %ld, same bytes %d\n", r, !memcmp(back, huge, sizeof huge));
    pthread_join(th, 0);
    int dg[2];
    socketpair(AF_UNIX, SOCK_DGRAM, 0, dg);
    show("a 2 MiB datagram", send(dg[0], huge, 2 << 20, 0));
    return 0;
}

/* ------------------------------------------------------------ a pipe in SCM_RIGHTS */

/* A pipe's read end passed over a socketpair: what was buffered before
 * and what is written after both come out of the received descriptor. */
static int rights_pipe(void) {
    int sv[2], pf[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) || pipe(pf)) return 9;
    show("write before", write(pf[1], "before-", 7));
    show("sendmsg a pipe's read end", send_fds(sv[0], 'P', &pf[0], 1));
    close(pf[0]);
    int passed;
    show("recvmsg", recv_fds(sv[1], &passed, 1).ret);
    printf("got a descriptor: %d\n", passed >= 0);
    show("write after", write(pf[1], "after", 5));
    close(pf[1]);
    char buf[32];
    long n = 0, k;
    while ((k = read(passed, buf + n, sizeof buf - 1 - n)) > 0)
        n += k;
    buf[n] = 0;
    printf("read from the passed end: %s (then %ld)\n", buf, k);
    struct stat st;
    fstat(passed, &st);
    printf("passed end is a fifo: %d\n", S_ISFIFO(st.st_mode));
    return 0;
}

/* ------------------------------------------------------------ MSG_WAITALL */

/* The writer sends in pieces with pauses; a MSG_WAITALL receive gets them
 * all in one call (or what came before the peer shut down, or before
 * SO_RCVTIMEO ran out). */
static void *trickle(void *arg) {
    int c = *(int *)arg;
    static char piece[1000];
    memset(piece, 'w', sizeof piece);
    for (int i = 0; i < 3; i++) {
        usleep(20000);
        if (send(c, piece, sizeof piece, 0) != sizeof piece) return 0;
    }
    for (int i = 0; i < 2; i++) {
        usleep(20000);
        if (send(c, piece, 250, 0) != 250) return 0;
    }
    usleep(20000);
    if (send(c, piece, 10, 0) != 10) return 0;
    /* Well after the reader's 100 ms SO_RCVTIMEO, even on a busy host. */
    usleep(700000);
    if (send(c, piece, 500, 0) != 500) return 0;
    usleep(20000);
    shutdown(c, SHUT_WR);
    return 0;
}

static int waitall(void) {
    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    pthread_t th;
    pthread_create(&th, 0, trickle, &sv[0]);
    static char buf[4000];
    long n = show("recv 3000 MSG_WAITALL", recv(sv[1], buf, 3000, MSG_WAITALL));
    int same = 1;
    for (long i = 0; i < n; i++)
        same &= buf[i] == 'w';
    printf("all bytes the writer's: %d\n", same);
    struct iovec iov[2] = {{buf, 200}, {buf + 200, 300}};
    struct msghdr m;
    memset(&m, 0, sizeof m);
    m.msg_iov = iov;
    m.msg_iovlen = 2;
    show("recvmsg 500 into two iovecs MSG_WAITALL", recvmsg(sv[1], &m, MSG_WAITALL));
    struct timeval tv = {0, 100000};
    setsockopt(sv[1], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    show("recv 100 MSG_WAITALL, 10 sent, SO_RCVTIMEO 100 ms", recv(sv[1], buf, 100, MSG_WAITALL));
    tv.tv_usec = 0;
    setsockopt(sv[1], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    show("recv 1000 MSG_WAITALL, 500 sent then shutdown", recv(sv[1], buf, 1000, MSG_WAITALL));
    show("recv after the shutdown", recv(sv[1], buf, 1000, MSG_WAITALL));
    pthread_join(th, 0);
    return 0;
}

/* ------------------------------------------------------------ mmsg */

static int mmsg(void) {
    int sv[2];
    socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
    char *words[3] = {"a", "bb", "ccc"};
    struct iovec iov[5];
    struct mmsghdr mm[5];
    memset(mm, 0, sizeof mm);
    for (int i = 0; i < 3; i++) {
        iov[i].iov_base = words[i];
        iov[i].iov_len = strlen(words[i]);
        mm[i].msg_hdr.msg_iov = &iov[i];
        mm[i].msg_hdr.msg_iovlen = 1;
    }
    show("sendmmsg of 3", sendmmsg(sv[0], mm, 3, 0));
    printf("msg_len %u %u %u\n", mm[0].msg_len, mm[1].msg_len, mm[2].msg_len);
    static char bufs[5][16];
    memset(mm, 0, sizeof mm);
    for (int i = 0; i < 5; i++) {
        iov[i].iov_base = bufs[i];
        iov[i].iov_len = sizeof bufs[i];
        mm[i].msg_hdr.msg_iov = &iov[i];
        mm[i].msg_hdr.msg_iovlen = 1;
    }
    long n = show("recvmmsg of up to 5 MSG_WAITFORONE", recvmmsg(sv[1], mm, 5, MSG_WAITFORONE, 0));
    for (long i = 0; i < n; i++)
        printf("message %ld: %u %.*s\n", i, mm[i].msg_len, (int)mm[i].msg_len, bufs[i]);
    show("recvmmsg on an empty socket MSG_DONTWAIT", recvmmsg(sv[1], mm, 5, MSG_DONTWAIT, 0));
    show("sendmmsg from a bad vector", sendmmsg(sv[0], bad_page(), 2, 0));
    show("sendmmsg on stdin, not a socket", sendmmsg(0, mm, 1, 0) < 0 && errno == ENOTSOCK ? -1 : 0);
    return 0;
}

/* A timerfd and an epoll instance passed in one SCM_RIGHTS message within
 * the process: the received descriptors are the same open files (a timer
 * disarmed through one is disarmed through the other; a descriptor added
 * to the received epoll is watched by the original). */
static int rights_guest_objects(void) {
    int sv[2], pf[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) || pipe(pf)) return 9;
    int tfd = timerfd_create(CLOCK_MONOTONIC, 0);
    struct itimerspec its = {{5, 0}, {5, 0}};
    show("arm the timer", timerfd_settime(tfd, 0, &its, 0));
    int ep = epoll_create1(0);
    int fds[2] = {tfd, ep};
    show("sendmsg a timerfd and an epoll", send_fds(sv[0], 'T', fds, 2));
    int got[2];
    show("recvmsg", recv_fds(sv[1], got, 2).ret);
    printf("got two new descriptors: %d\n", got[0] > ep && got[1] > ep);
    struct itimerspec cur;
    show("gettime through the received timerfd", timerfd_gettime(got[0], &cur));
    printf("  armed, interval %ld s\n", (long)cur.it_interval.tv_sec);
    struct itimerspec off = {{0, 0}, {0, 0}};
    show("disarm through the received timerfd", timerfd_settime(got[0], 0, &off, 0));
    timerfd_gettime(tfd, &cur);
    printf("  the original is disarmed: %d\n", cur.it_value.tv_sec == 0 && cur.it_value.tv_nsec == 0);
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 42};
    show("add a pipe through the received epoll", epoll_ctl(got[1], EPOLL_CTL_ADD, pf[0], &ev));
    if (write(pf[1], "x", 1) != 1) return 9;
    ep_wait(ep, 1000, "the original epoll sees it");
    show("add it again through the original (EEXIST)", epoll_ctl(ep, EPOLL_CTL_ADD, pf[0], &ev));
    return 0;
}

/* ------------------------------------------------------------ nested epoll */

/* An epoll instance inside another: readable while the inner one has an
 * event (a pipe's or a socket's), a loop is ELOOP, itself EINVAL. */
static void *late_send(void *arg) {
    usleep(50000);
    if (send(*(int *)arg, "s", 1, 0) != 1) return 0;
    return 0;
}

static int nested_epoll(void) {
    int outer = epoll_create1(0), inner = epoll_create1(0);
    int pf[2], sv[2];
    if (pipe(pf) || socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) return 9;
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 7};
    show("add pipe to inner", epoll_ctl(inner, EPOLL_CTL_ADD, pf[0], &ev));
    ev.data.u64 = 8;
    show("add socket to inner", epoll_ctl(inner, EPOLL_CTL_ADD, sv[1], &ev));
    ev.data.u64 = 1;
    show("add inner to outer", epoll_ctl(outer, EPOLL_CTL_ADD, inner, &ev));
    ev.data.u64 = 2;
    show("add outer to inner (a loop)", epoll_ctl(inner, EPOLL_CTL_ADD, outer, &ev));
    int dup_outer = dup(outer);
    show("add outer to itself through a dup", epoll_ctl(outer, EPOLL_CTL_ADD, dup_outer, &ev));
    struct epoll_event got[4];
    ep_wait(outer, 0, "outer, nothing ready");
    if (write(pf[1], "p", 1) != 1) return 9;
    ep_wait(outer, 1000, "outer, pipe written");
    int n = epoll_wait(outer, got, 4, 0);
    printf("outer again (level): %d data %lu\n", n, n > 0 ? (unsigned long)got[0].data.u64 : 0);
    n = epoll_wait(inner, got, 4, 0);
    printf("inner: %d data %lu\n", n, n > 0 ? (unsigned long)got[0].data.u64 : 0);
    char c;
    if (read(pf[0], &c, 1) != 1) return 9;
    ep_wait(outer, 0, "outer, pipe drained");
    pthread_t th;
    pthread_create(&th, 0, late_send, &sv[0]);
    n = epoll_wait(outer, got, 4, 2000);
    printf("outer woken by a socket in inner: %d data %lu\n", n,
           n > 0 ? (unsigned long)got[0].data.u64 : 0);
    pthread_join(th, 0);
    n = epoll_wait(inner, got, 4, 0);
    printf("inner: %d data %lu\n", n, n > 0 ? (unsigned long)got[0].data.u64 : 0);
    struct pollfd pfd = {.fd = outer, .events = POLLIN};
    printf("poll on outer: %d revents %d\n", poll(&pfd, 1, 0), pfd.revents);
    show("del inner from outer", epoll_ctl(outer, EPOLL_CTL_DEL, inner, 0));
    ep_wait(outer, 0, "outer after the del");
    return 0;
}

/* An epoll instance inside another with EPOLLET: the outer reports the
 * inner once per new event in it (a write to its pipe, data on its socket),
 * not again while nothing new arrives, even though the inner stays
 * readable. */
static int nested_epoll_et(void) {
    int outer = epoll_create1(0), inner = epoll_create1(0);
    int pf[2], sv[2];
    if (pipe(pf) || socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) return 9;
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 7};
    show("add pipe to inner", epoll_ctl(inner, EPOLL_CTL_ADD, pf[0], &ev));
    ev.data.u64 = 8;
    show("add socket to inner", epoll_ctl(inner, EPOLL_CTL_ADD, sv[1], &ev));
    ev.events = EPOLLIN | EPOLLET;
    ev.data.u64 = 1;
    show("add inner to outer (edge)", epoll_ctl(outer, EPOLL_CTL_ADD, inner, &ev));
    ep_wait(outer, 0, "outer, nothing ready");
    if (write(pf[1], "p", 1) != 1) return 9;
    ep_wait(outer, 1000, "outer, pipe written");
    ep_wait(outer, 0, "outer again, nothing new");
    ep_wait(inner, 0, "inner still ready (level)");
    ep_wait(outer, 0, "outer after waiting on inner");
    if (write(pf[1], "q", 1) != 1) return 9;
    ep_wait(outer, 0, "outer, pipe written again");
    ep_wait(outer, 0, "outer again, nothing new");
    char c[2];
    if (read(pf[0], c, 2) != 2) return 9;
    ep_wait(outer, 0, "outer, pipe drained");
    pthread_t th;
    pthread_create(&th, 0, late_send, &sv[0]);
    ep_wait(outer, 2000, "outer woken by a socket in inner");
    pthread_join(th, 0);
    ep_wait(outer, 0, "outer again, nothing new");
    if (send(sv[0], "t", 1, 0) != 1) return 9;
    ep_wait(outer, 1000, "outer, socket sent again");
    ep_wait(outer, 0, "outer again, nothing new");
    ev.events = EPOLLIN | EPOLLET;
    show("mod inner in outer", epoll_ctl(outer, EPOLL_CTL_MOD, inner, &ev));
    ep_wait(outer, 0, "outer after the mod (inner ready)");
    ep_wait(outer, 0, "outer again, nothing new");
    return 0;
}

/* ------------------------------------------------------------ partial */

/* A signal that interrupts a call which has already moved some of its data
 * ends the call with that count (with or without SA_RESTART): a
 * MSG_WAITALL receive and a blocking stream send part-way through. The
 * writer waits 300 ms before the signal, long enough for the reader to be
 * blocked, and sends the rest after it. */
static volatile int usr1s;
static void on_usr1(int s) {
    (void)s;
    usr1s++;
}
static pthread_t reader;
static void *send_then_signal(void *arg) {
    int c = *(int *)arg;
    static char piece[2000];
    memset(piece, 'p', sizeof piece);
    usleep(30000);
    if (send(c, piece, 1000, 0) != 1000) return 0;
    usleep(300000);
    pthread_kill(reader, SIGUSR1);
    usleep(100000);
    if (send(c, piece, 2000, 0) != 2000) return 0;
    return 0;
}

static void *drain_then_signal(void *arg) {
    int c = *(int *)arg;
    static char buf[4096];
    usleep(30000);
    if (read(c, buf, sizeof buf) <= 0) return 0;
    usleep(300000);
    pthread_kill(reader, SIGUSR1);
    return 0;
}

static void interrupted_calls(int restart) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sa.sa_flags = restart ? SA_RESTART : 0;
    sigaction(SIGUSR1, &sa, 0);
    const char *how = restart ? "SA_RESTART" : "no SA_RESTART";
    reader = pthread_self();
    usr1s = 0;
    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    pthread_t th;
    pthread_create(&th, 0, send_then_signal, &sv[0]);
    static char buf[1 << 20];
    printf("%s: ", how);
    show("recv 3000 MSG_WAITALL, 1000 sent, then a signal", recv(sv[1], buf, 3000, MSG_WAITALL));
    printf("%s: handler ran %d time(s)\n", how, usr1s);
    show("the next recv 2000 MSG_WAITALL", recv(sv[1], buf, 2000, MSG_WAITALL));
    pthread_join(th, 0);
    close(sv[0]);
    close(sv[1]);

    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    int small = 4096;
    setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
    pthread_create(&th, 0, drain_then_signal, &sv[1]);
    memset(buf, 's', sizeof buf);
    long n = send(sv[0], buf, sizeof buf, 0);
    printf("%s: blocking send of 1 MiB cut short by a signal: %s\n", how,
           n > 0 && n < (long)sizeof buf ? "part of it" : n < 0 ? ename(errno) : "all or nothing");
    pthread_join(th, 0);
    close(sv[0]);
    close(sv[1]);
}

/* recvmmsg without MSG_WAITFORONE waits for every message; its timeout is
 * looked at only after a message has come. */
static void *late_dgrams(void *arg) {
    int c = *(int *)arg;
    usleep(200000);
    if (send(c, "ccc", 3, 0) != 3) return 0;
    usleep(200000);
    if (send(c, "dddd", 4, 0) != 4) return 0;
    if (send(c, "eeeee", 5, 0) != 5) return 0;
    return 0;
}

static int partial(void) {
    setvbuf(stdout, 0, _IONBF, 0);
    interrupted_calls(0);
    interrupted_calls(1);
    int sv[2];
    socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
    static char bufs[5][16];
    struct iovec iov[5];
    struct mmsghdr mm[5];
    memset(mm, 0, sizeof mm);
    for (int i = 0; i < 5; i++) {
        iov[i].iov_base = bufs[i];
        iov[i].iov_len = sizeof bufs[i];
        mm[i].msg_hdr.msg_iov = &iov[i];
        mm[i].msg_hdr.msg_iovlen = 1;
    }
    send(sv[0], "a", 1, 0);
    send(sv[0], "bb", 2, 0);
    pthread_t th;
    pthread_create(&th, 0, late_dgrams, &sv[0]);
    long n = show("recvmmsg of 3, 2 queued, 1 later", recvmmsg(sv[1], mm, 3, 0, 0));
    for (long i = 0; i < n; i++)
        printf("message %ld: %u %.*s\n", i, mm[i].msg_len, (int)mm[i].msg_len, bufs[i]);
    pthread_join(th, 0);
    show("recvmmsg of 5 MSG_DONTWAIT, the 2 sent later", recvmmsg(sv[1], mm, 5, MSG_DONTWAIT, 0));
    send(sv[0], "a", 1, 0);
    send(sv[0], "bb", 2, 0);
    pthread_create(&th, 0, late_dgrams, &sv[0]);
    struct timespec ts = {0, 50000000};
    n = show("recvmmsg of 5, 2 queued, 50 ms timeout, 1 after 200 ms", recvmmsg(sv[1], mm, 5, 0, &ts));
    printf("timeout left: %ld %ld\n", (long)ts.tv_sec, ts.tv_nsec);
    pthread_join(th, 0);
    show("recvmmsg of 5 MSG_DONTWAIT after the timeout", recvmmsg(sv[1], mm, 5, MSG_DONTWAIT, 0));
    /* Linux checks the timeout before it looks at the socket. */
    ts.tv_nsec = 1000000000;
    show("recvmmsg MSG_DONTWAIT, tv_nsec 1e9", recvmmsg(sv[1], mm, 5, MSG_DONTWAIT, &ts));
    show("recvmmsg MSG_DONTWAIT, unreadable timeout", recvmmsg(sv[1], mm, 5, MSG_DONTWAIT, bad_page()));
    return 0;
}

int main(int argc, char **argv) {
    setvbuf(stdout, 0, _IONBF, 0);
    if (argc < 2)
        return 2;
    const char *w = argv[1];
    if (!strcmp(w, "tcp4")) return tcp(AF_INET);
    if (!strcmp(w, "tcp6")) return tcp(AF_INET6);
    if (!strcmp(w, "unix_stream")) return unix_stream();
    if (!strcmp(w, "unix_dgram")) return unix_dgram();
    if (!strcmp(w, "rights")) return pair_and_rights();
    if (!strcmp(w, "sockopts")) return sockopts();
    if (!strcmp(w, "nonblock_connect")) return nonblock_connect();
    if (!strcmp(w, "epoll_pipe")) return epoll_probe(0);
    if (!strcmp(w, "epoll_socket")) return epoll_probe(1);
    if (!strcmp(w, "eventfd")) return eventfd_probe();
    if (!strcmp(w, "timerfd")) return timerfd_probe();
    if (!strcmp(w, "errors")) return errors();
    if (!strcmp(w, "bulk")) return bulk();
    if (!strcmp(w, "waitall")) return waitall();
    if (!strcmp(w, "mmsg")) return mmsg();
    if (!strcmp(w, "rights_pipe")) return rights_pipe();
    if (!strcmp(w, "rights_guest_objects")) return rights_guest_objects();
    if (!strcmp(w, "nested_epoll")) return nested_epoll();
    if (!strcmp(w, "nested_epoll_et")) return nested_epoll_et();
    if (!strcmp(w, "partial")) return partial();
    return 2;
}
