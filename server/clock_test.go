package server

import (
	"testing"
	"time"
)

// calibrated calibrates the command clock as the ticker would, waiting
// out tscMinSpan since start if need be; false where the TSC is not used.
func calibrated(t testing.TB) bool {
	t.Helper()
	if !tscOK {
		return false
	}
	if d := tscMinSpan - (time.Since(clockStart) - monoStart); d > 0 {
		time.Sleep(d + time.Millisecond)
	}
	for range 1000 {
		if calibrateTSC() {
			return true
		}
	}
	t.Fatal("calibrateTSC set no rate past tscMinSpan in 1000 tries")
	return false
}

// TestSinceStartFollowsTheMonotonicClock: once calibrated, the counter's
// time since start stays within 0.1 % (or 100 µs) of the monotonic
// clock's, over a 20 ms sleep and read back to back.
func TestSinceStartFollowsTheMonotonicClock(t *testing.T) {
	if !calibrated(t) {
		if got := sinceStart(); got <= 0 || got > time.Since(clockStart) {
			t.Fatalf("sinceStart without the TSC = %v", got)
		}
		t.Skip("the kernel does not keep time by the TSC here: sinceStart is time.Since")
	}
	near := func(what string, a, b time.Duration) {
		t.Helper()
		diff := a - b
		if diff < 0 {
			diff = -diff
		}
		if diff > max(b/1000, 100*time.Microsecond) {
			t.Errorf("%s: counter %v, monotonic %v", what, a, b)
		}
	}
	a0, m0 := sinceStart(), time.Since(clockStart)
	near("since start", a0, m0)
	time.Sleep(20 * time.Millisecond)
	a1, m1 := sinceStart(), time.Since(clockStart)
	near("since start after 20 ms", a1, m1)
	near("20 ms interval", a1-a0, m1-m0)
}
