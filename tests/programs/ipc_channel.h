/* The channel between an exporting and an importing process in the IPC
 * tests: a socketpair carrying fixed-size messages and, with them, file
 * descriptors (SCM_RIGHTS) -- how torch.multiprocessing hands CUDA IPC
 * handles and memory-pool descriptors to another process. */
#ifndef IPC_CHANNEL_H
#define IPC_CHANNEL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

/* Sends n bytes, and fd unless it is -1. */
static void chan_send(int sock, const void *buf, size_t n, int fd)
{
    struct iovec iov = {(void *)buf, n};
    union {
        char b[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } ctl;
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
    if (fd >= 0) {
        memset(&ctl, 0, sizeof ctl);
        m.msg_control = ctl.b;
        m.msg_controllen = sizeof ctl.b;
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &fd, sizeof fd);
    }
    if (sendmsg(sock, &m, 0) != (ssize_t)n) {
        perror("sendmsg");
        exit(1);
    }
}

/* Receives exactly n bytes (one message); returns the descriptor that came
 * with them, or -1. */
static int chan_recv(int sock, void *buf, size_t n)
{
    struct iovec iov = {buf, n};
    union {
        char b[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } ctl;
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.b,
                       .msg_controllen = sizeof ctl.b};
    if (recvmsg(sock, &m, MSG_WAITALL) != (ssize_t)n) {
        fprintf(stderr, "recvmsg: short message\n");
        exit(1);
    }
    int fd = -1;
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    if (c != NULL && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
        memcpy(&fd, CMSG_DATA(c), sizeof fd);
    return fd;
}

/* Opens the channel and forks, before any CUDA call: two independent CUDA
 * processes, each with one end of the channel (*sock; the other end
 * closed).  Returns 0 in the child, the child's pid in the parent; exits 1
 * if either fails.  Buffered output is written first, so that the child
 * does not print it again. */
static pid_t chan_fork(int *sock)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) != 0) {
        perror("socketpair");
        exit(1);
    }
    fflush(stdout);
    pid_t child = fork();
    if (child < 0) {
        perror("fork");
        exit(1);
    }
    close(sv[child == 0 ? 0 : 1]);
    *sock = sv[child == 0 ? 1 : 0];
    return child;
}

#endif
