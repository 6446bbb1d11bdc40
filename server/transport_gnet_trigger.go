package server

// Tasks queued on a gnet loop without an allocation. gnet's public ways to
// run something on a loop (EventLoop.Execute, Conn.Wake) wrap each call in
// a new closure, about 48 bytes: one per batch whose replies a loop defers
// (gnetOut), one per cross-loop wake (a served waiter, a pub/sub message, a
// reply released by an appendfsync always fsync). Under them both queue a
// task on the loop's poller (netpoll.Poller.Trigger, exported, whose tasks
// come from a pool): given a function made once and a pointer parameter,
// Trigger allocates nothing. gnet keeps each loop's poller in an unexported
// field, so loopPoller reads it once per loop by reflection, checking its
// name and type; a gnet whose layout differs gets nil, and the loop then
// uses Execute and Wake as before (TestGnetLoopsTriggerWithoutClosures
// fails then, so an upgrade cannot lose this unnoticed).

import (
	"context"
	"reflect"

	"github.com/panjf2000/gnet/v2"
	"github.com/panjf2000/gnet/v2/pkg/netpoll"
	"github.com/panjf2000/gnet/v2/pkg/queue"
)

// loopPoller is el's poller, or nil when gnet's eventloop does not keep
// one where this version does (a field "poller" of type *netpoll.Poller).
func loopPoller(el gnet.EventLoop) *netpoll.Poller {
	v := reflect.ValueOf(el)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	f := v.Elem().FieldByName("poller")
	if !f.IsValid() || f.Type() != reflect.TypeFor[*netpoll.Poller]() || f.IsNil() {
		return nil
	}
	return (*netpoll.Poller)(f.UnsafePointer())
}

// runTask runs the func() it is given: a func value is pointer-shaped,
// so passing one as the task's parameter allocates nothing.
func runTask(p any) error {
	p.(func())()
	return nil
}

// wakeTask is gnet's Conn.Wake without its closure: the connection's
// traffic handler runs with what its inbound buffer holds, unless it
// closed since (OnClose clears its context).
func wakeTask(p any) error {
	g := p.(*gnetConn)
	if g.c.Context() == nil {
		return nil
	}
	if g.out.t.OnTraffic(g.c) == gnet.Close {
		_ = g.c.Close()
	}
	return nil
}

// execute queues fn (made once, not per call) on the loop.
func (l gnetLoop) execute(fn func()) error {
	if l.p == nil {
		return l.el.Execute(context.Background(), runFunc(fn))
	}
	return l.p.Trigger(queue.LowPriority, runTask, fn)
}

// onBell runs on the loop when its doorbell rang: the connections other
// goroutines woke, in the order they were woken, then the deferred flush.
// armed is set while the wakes run so that the replies they defer do not
// ring again: the flush after them writes them.
func (o *gnetOut) onBell() {
	if o.wakes.Load() != nil {
		armed := o.armed
		o.armed = true
		o.runWakes()
		o.armed = armed || len(o.segs) > 0
	}
	if o.armed {
		o.run()
	}
}

// runWakes takes the woken connections and runs their traffic handler,
// oldest first. A connection woken again while it runs is queued again.
// owning loop only.
func (o *gnetOut) runWakes() {
	var fifo *gnetConn
	for g := o.wakes.Swap(nil); g != nil; {
		next := g.wnext
		g.wnext, fifo = fifo, g
		g = next
	}
	for g := fifo; g != nil; {
		next := g.wnext
		g.wnext = nil
		g.wqueued.Store(false)
		_ = wakeTask(g)
		g = next
	}
}

// wake queues g on its loop's wake stack and rings the loop's bell when
// the stack was empty; it reports false when the loop has no bell or has
// stopped (the caller then uses gnet's Wake). A connection already queued
// is not queued twice: its one traffic call takes everything pending.
// any goroutine.
func (o *gnetOut) wake(g *gnetConn) bool {
	if !o.hasBell {
		return false
	}
	o.bellMu.RLock()
	defer o.bellMu.RUnlock()
	if o.bellShut {
		return false
	}
	if !g.wqueued.CompareAndSwap(false, true) {
		return true
	}
	for {
		head := o.wakes.Load()
		g.wnext = head
		if o.wakes.CompareAndSwap(head, g) {
			if head == nil {
				o.bell.ring()
			}
			return true
		}
	}
}
