//go:build linux && poll_opt

package server

import (
	"github.com/panjf2000/gnet/v2/pkg/netpoll"
	"golang.org/x/sys/unix"
)

// A loop's doorbell for its deferred flush: an eventfd of ours in the
// loop's own epoll set, edge-triggered, whose callback is the flush. With
// gnet's poll_opt reactor every epoll event carries its attachment's
// callback, so gnet calls ours for this descriptor as it calls its
// connections'. Ringing is one write(2), as gnet's Trigger; unlike
// Trigger it queues nothing, so a deferred batch allocates nothing. The
// counter is never read: edge-triggered, each write is a new event (gnet's
// own eventfd works the same way); it would take 2^64 rings to fill.
type gnetBell struct {
	pa *netpoll.PollAttachment // epoll's data points at it: kept here
}

var bellOne = [8]byte{1}

// openBell registers a doorbell calling fn on the loop of p, or reports
// false (the loop then queues fn with Trigger).
func openBell(p *netpoll.Poller, fn func()) (gnetBell, bool) {
	if p == nil {
		return gnetBell{}, false
	}
	fd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		return gnetBell{}, false
	}
	pa := &netpoll.PollAttachment{FD: fd, Callback: func(int, netpoll.IOEvent, netpoll.IOFlags) error {
		fn()
		return nil
	}}
	if p.AddRead(pa, true) != nil {
		_ = unix.Close(fd)
		return gnetBell{}, false
	}
	return gnetBell{pa: pa}, true
}

// ring makes the loop call the bell's function after its current batch.
func (b gnetBell) ring() bool {
	for {
		_, err := unix.Write(b.pa.FD, bellOne[:])
		if err != unix.EAGAIN {
			return err == nil
		}
		var drain [8]byte // the counter is full: empty it and ring again
		_, _ = unix.Read(b.pa.FD, drain[:])
	}
}

// close releases the descriptor; the loop must have stopped.
func (b gnetBell) close() {
	if b.pa != nil {
		_ = unix.Close(b.pa.FD)
	}
}

const gnetBellBuilt = true
