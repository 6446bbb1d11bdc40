package server

import "syscall"

// yieldCPU gives up the loop's CPU once to a runnable thread (sched_yield):
// postAway uses it when loops share CPUs.
func yieldCPU() { _, _, _ = syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }
