/*
 * floorsrv: the syscall floor of a request/reply server on epoll, for the
 * per-op CPU studies in benchmarks/README.md ("The syscall floor").
 *
 * One thread, level-triggered epoll, non-blocking sockets, TCP_NODELAY. Per
 * readable connection: one read(2) into a fixed buffer, a count of the
 * complete RESP commands in it (arrays of bulk strings, or inline lines),
 * and one write(2) of one canned reply per command ("+OK\r\n" by default,
 * or the -r argument, e.g. ":1\r\n"). No keyspace, no parsing beyond the
 * framing: what is left is what every server that reads and writes its
 * sockets with one syscall each pays, the kernel's TCP work included.
 * That is the work Redis does per request at pipeline 1 (epoll_wait, read,
 * write), so floor / redis is the lowest CPU-per-op ratio any such server
 * can reach.
 *
 *   gcc -O2 -o /tmp/floorsrv benchmarks/floor/floorsrv.c
 *   taskset -c 0 /tmp/floorsrv -p 7797 [-r ':1\r\n']
 *
 * With -a FILE it is the floor of an appendfsync-always server instead, in
 * Redis's model: per epoll batch it reads every readable connection, appends
 * the complete commands it read to FILE with one write(2), makes them
 * durable with one fdatasync(2), and only then writes each connection's
 * replies (Redis's beforeSleep: flushAppendOnlyFile, then the clients'
 * pending writes).
 *
 *   taskset -c 0 /tmp/floorsrv -p 7797 -a /tmp/floor.aof [-g]
 *
 * -g gathers: it holds the replies until every connected client has a
 * command in the batch (or 1 ms passes with no new one), so that one
 * fdatasync covers all of them: the most any group commit can share a
 * sync between clients that each wait for their reply.
 *
 * Limits: at most MAXCONN connections; a connection whose partial command
 * exceeds BUF bytes is closed. It answers every command the same way, so
 * redis-benchmark's startup CONFIG GET gets "+OK" (it only warns).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAXCONN 4096
#define BUF 65536

struct conn {
	char *buf; /* pending partial command, or NULL */
	int n;
	long replies; /* -a: replies held until the batch's fdatasync */
};

static struct conn conns[MAXCONN];
static char rbuf[BUF * 2];
static char wbuf[BUF * 8];
static int afd = -1;                   /* -a: the append-only file */
static char *abuf;                     /* -a: the batch's commands */
static long alen, acap;
static int held[MAXCONN], nheld;       /* -a: connections with replies held */
static int gather, nconns;             /* -g, and the connections open */

/* hold keeps n replies for fd until the batch is durable and appends the
 * commands they answer, p (l bytes), to the batch; 0, or -1 on overflow. */
static int hold(int fd, const char *p, long l, long n)
{
	if (alen + l > acap) {
		long c = acap ? acap : BUF * 16;
		while (c < alen + l)
			c *= 2;
		if (!(abuf = realloc(abuf, c)))
			return -1;
		acap = c;
	}
	memcpy(abuf + alen, p, l);
	alen += l;
	if (!conns[fd].replies)
		held[nheld++] = fd;
	conns[fd].replies += n;
	return 0;
}

/* release writes the batch to the file, fdatasyncs it, then writes each
 * held connection's replies with one write(2) each. */
static void release(const char *reply, size_t rlen)
{
	long off = 0, i, k, w;
	while (off < alen) {
		w = write(afd, abuf + off, alen - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			perror("floorsrv: write");
			exit(1);
		}
		off += w;
	}
	if (alen && fdatasync(afd)) {
		perror("floorsrv: fdatasync");
		exit(1);
	}
	alen = 0;
	for (i = 0; i < nheld; i++) {
		int fd = held[i];
		struct conn *c = &conns[fd];
		for (w = 0, k = 0; k < c->replies && w + (long)rlen <= (long)sizeof wbuf; k++, w += rlen)
			memcpy(wbuf + w, reply, rlen);
		c->replies = 0;
		if (w)
			(void)!write(fd, wbuf, w);
	}
	nheld = 0;
}

/* cmdlen returns the length of the complete command at p (n bytes), 0 if
 * incomplete, -1 if malformed. */
static long cmdlen(const char *p, long n)
{
	const char *end = p + n, *q;
	long count, i, l;
	if (n == 0)
		return 0;
	if (p[0] != '*') {
		q = memchr(p, '\n', n);
		return q ? q - p + 1 : 0;
	}
	q = memchr(p, '\n', n);
	if (!q)
		return 0;
	count = strtol(p + 1, NULL, 10);
	if (count < 0 || count > 1024 * 1024)
		return -1;
	q++;
	for (i = 0; i < count; i++) {
		const char *e;
		if (q >= end)
			return 0;
		if (*q != '$')
			return -1;
		e = memchr(q, '\n', end - q);
		if (!e)
			return 0;
		l = strtol(q + 1, NULL, 10);
		if (l < 0 || l > BUF)
			return -1;
		q = e + 1;
		if (end - q < l + 2)
			return 0;
		q += l + 2;
	}
	return q - p;
}

int main(int argc, char **argv)
{
	int port = 7797, one = 1, lfd, ep, i;
	const char *reply = "+OK\r\n";
	size_t rlen;
	struct sockaddr_in a;
	struct epoll_event ev, evs[256];

	for (i = 1; i < argc; i += 2) {
		if (!strcmp(argv[i], "-g")) { /* the one flag without a value */
			gather = 1;
			i--;
			continue;
		}
		if (i + 1 >= argc)
			break;
		if (!strcmp(argv[i], "-p"))
			port = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "-r")) {
			/* "\r\n" written literally on the command line */
			static char r[256];
			const char *s = argv[i + 1];
			size_t k = 0;
			while (*s && k < sizeof r - 1) {
				if (s[0] == '\\' && s[1] == 'r') { r[k++] = '\r'; s += 2; }
				else if (s[0] == '\\' && s[1] == 'n') { r[k++] = '\n'; s += 2; }
				else r[k++] = *s++;
			}
			r[k] = 0;
			reply = r;
		} else if (!strcmp(argv[i], "-a")) {
			afd = open(argv[i + 1], O_WRONLY | O_CREAT | O_APPEND | O_TRUNC, 0644);
			if (afd < 0) {
				perror("floorsrv: -a");
				return 1;
			}
		}
	}
	rlen = strlen(reply);
	signal(SIGPIPE, SIG_IGN);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_port = htons(port);
	a.sin_addr.s_addr = htonl(0x7f000001);
	if (bind(lfd, (struct sockaddr *)&a, sizeof a) || listen(lfd, 511)) {
		perror("floorsrv: listen");
		return 1;
	}
	ep = epoll_create1(0);
	ev.events = EPOLLIN;
	ev.data.fd = lfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
	fprintf(stderr, "floorsrv: 127.0.0.1:%d\n", port);
	for (;;) {
		int n = epoll_wait(ep, evs, 256, gather && nheld ? 1 : -1);
		for (i = 0; i < n; i++) {
			int fd = evs[i].data.fd;
			struct conn *c;
			long got, off = 0, l, w = 0;
			if (fd == lfd) {
				int cfd;
				while ((cfd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
					if (cfd >= MAXCONN) { close(cfd); continue; }
					nconns++;
					setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
					ev.events = EPOLLIN;
					ev.data.fd = cfd;
					epoll_ctl(ep, EPOLL_CTL_ADD, cfd, &ev);
				}
				continue;
			}
			c = &conns[fd];
			if (c->n)
				memcpy(rbuf, c->buf, c->n);
			got = read(fd, rbuf + c->n, BUF);
			if (got <= 0) {
				if (got < 0 && errno == EAGAIN)
					continue;
				goto drop;
			}
			got += c->n;
			c->n = 0;
			while ((l = cmdlen(rbuf + off, got - off)) > 0) {
				off += l;
				if (w + rlen > sizeof wbuf)
					goto drop;
				memcpy(wbuf + w, reply, rlen);
				w += rlen;
			}
			if (l < 0)
				goto drop;
			if (got - off > BUF)
				goto drop;
			if (got > off) {
				if (!c->buf)
					c->buf = malloc(BUF);
				memcpy(c->buf, rbuf + off, got - off);
				c->n = got - off;
			}
			if (afd >= 0) {
				if (w && hold(fd, rbuf, off, w / (long)rlen))
					goto drop;
				continue;
			}
			/* one write; a short write on loopback with these sizes
			 * does not happen in the benchmark, and would be a drop */
			if (w && write(fd, wbuf, w) != w)
				goto drop;
			continue;
		drop:
			nconns--;
			epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
			close(fd);
			free(c->buf);
			c->buf = NULL;
			c->n = 0;
			c->replies = 0; /* a held fd left in held[] writes nothing */
		}
		if (afd >= 0 && nheld && (!gather || n == 0 || nheld >= nconns))
			release(reply, rlen);
	}
}
