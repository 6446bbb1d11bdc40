package server

import (
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/panjf2000/gnet/v2"
	"github.com/panjf2000/gnet/v2/pkg/socket"
	"golang.org/x/sys/unix"
)

// gnetKeepAlive gives every accepted connection TCP keepalive (idle 300 s,
// as Redis's tcp-keepalive): set once on a listener where the kernel passes
// it on to the connections it accepts (Linux, FreeBSD and DragonFly copy the
// listening socket's options), and on each connection elsewhere. That saves
// four setsockopt calls per connection, which churn pays on every
// handshake.
//
// gnet.WithTCPKeepAlive would set it on the listeners, but gnet v2.9.7's
// initListener assigns that setsockopt's result over the bind's error
// (transport_gnet.go), so OnBoot sets it on loop 0's listeners through
// duplicated descriptors instead. The listeners of the other loops are
// opened after OnBoot, out of reach: which loops pass keepalive on is
// learned from the first connection each accepts (one getsockopt), and the
// others' connections get it set as before.
type gnetKeepAlive struct {
	mu        sync.Mutex
	listeners bool                    // OnBoot set keepalive on loop 0's listeners
	loops     map[gnet.EventLoop]bool // whether a loop's connections arrive with keepalive on
}

// inheritingOS reports whether accepted sockets inherit keepalive from
// their listener on this system.
func inheritingOS() bool {
	switch runtime.GOOS {
	case "linux", "freebsd", "dragonfly":
		return true
	}
	return false
}

// setListeners sets keepalive on eng's listeners at addrs ("tcp://host:port"),
// where the kernel passes it on. Once per start, in OnBoot.
func (k *gnetKeepAlive) setListeners(eng gnet.Engine, addrs []string) {
	ok := inheritingOS() && len(addrs) > 0
	for _, a := range addrs {
		if !ok {
			break
		}
		fd, err := eng.DupListener("tcp", strings.TrimPrefix(a, "tcp://"))
		if err != nil {
			ok = false
			break
		}
		ok = socket.SetKeepAlivePeriod(fd, int(tcpKeepAlive/time.Second)) == nil
		_ = unix.Close(fd)
	}
	k.mu.Lock()
	k.listeners, k.loops = ok, make(map[gnet.EventLoop]bool)
	k.mu.Unlock()
}

// set gives c keepalive unless its loop's listeners passed it on; a failure
// only loses the probes, as in Redis. Owning loop only.
func (k *gnetKeepAlive) set(c gnet.Conn) {
	if !k.inherited(c) {
		_ = c.SetKeepAlivePeriod(tcpKeepAlive)
	}
}

// inherited reports whether c's loop accepts connections with keepalive
// already on, finding out from c itself the first time.
func (k *gnetKeepAlive) inherited(c gnet.Conn) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.listeners {
		return false
	}
	el := c.EventLoop()
	on, known := k.loops[el]
	if !known {
		v, err := unix.GetsockoptInt(c.Fd(), unix.SOL_SOCKET, unix.SO_KEEPALIVE)
		on = err == nil && v == 1
		k.loops[el] = on
	}
	return on
}
