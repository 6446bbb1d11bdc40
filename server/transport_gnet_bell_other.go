//go:build !(linux && poll_opt)

package server

import "github.com/panjf2000/gnet/v2/pkg/netpoll"

// gnetBell: without gnet's poll_opt reactor on Linux, an event for a
// descriptor gnet does not know is dropped, so a loop queues its deferred
// flush with Trigger (transport_gnet_bell_linux.go).
type gnetBell struct{}

func openBell(*netpoll.Poller, func()) (gnetBell, bool) { return gnetBell{}, false }
func (gnetBell) ring() bool                             { return false }
func (gnetBell) close()                                 {}

const gnetBellBuilt = false
