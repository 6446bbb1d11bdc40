//go:build linux

package server

import (
	"bytes"
	"os"
)

// rdtsc reads the time-stamp counter, unordered (clock_tsc_amd64.s).
func rdtsc() uint64

// tscTrusted reports whether the kernel itself keeps time by the TSC:
// then the counter is invariant and in step across CPUs, as the kernel's
// clocksource watchdog checks, and the vDSO's clock_gettime reads it too.
func tscTrusted() bool {
	b, err := os.ReadFile("/sys/devices/system/clocksource/clocksource0/current_clocksource")
	return err == nil && string(bytes.TrimSpace(b)) == "tsc"
}
