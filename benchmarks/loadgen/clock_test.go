package loadgen

import (
	"testing"
	"time"
)

// fakeClock is a Clock whose time moves only when Sleep or advance is
// called.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time { return c.now }

func (c *fakeClock) Sleep(d time.Duration) {
	if d > 0 {
		c.now = c.now.Add(d)
	}
}

func (c *fakeClock) advance(d time.Duration) { c.now = c.now.Add(d) }

func TestScheduleSpacesSendsEvenly(t *testing.T) {
	clk := &fakeClock{now: time.Unix(1000, 0)}
	start := clk.now
	s := NewSchedule(clk, start, 10*time.Millisecond)
	for k := range 100 {
		got := s.Next()
		want := start.Add(time.Duration(k) * 10 * time.Millisecond)
		if !got.Equal(want) || !clk.now.Equal(want) {
			t.Fatalf("send %d intended at %v, clock %v, want both %v", k, got, clk.now, want)
		}
		clk.advance(time.Millisecond) // the request itself
	}
	if s.Sent() != 100 {
		t.Errorf("Sent() = %d, want 100", s.Sent())
	}
}

// A server that stalls for 55 ms while one send per 10 ms is due: the
// sends queued behind the stall go out at once, and measured from their
// intended times they carry the stall (coordinated-omission correction),
// which a closed-loop measurement from the actual send time would hide.
func TestScheduleChargesAStallToTheQueuedSends(t *testing.T) {
	clk := &fakeClock{now: time.Unix(1000, 0)}
	const interval = 10 * time.Millisecond
	s := NewSchedule(clk, clk.now, interval)
	h, naive := NewHistogram(), NewHistogram()
	service := []time.Duration{time.Millisecond, 55 * time.Millisecond}
	for k := range 10 {
		intended := s.Next()
		sent := clk.now
		d := time.Millisecond
		if k < len(service) {
			d = service[k]
		}
		clk.advance(d)
		h.RecordDuration(clk.now.Sub(intended))
		naive.RecordDuration(clk.now.Sub(sent))
	}
	// Send 1 went out at 10 ms and returned at 65 ms; sends 2..6, due at
	// 20..60 ms, went out at 65..69 ms, one per millisecond.
	want := []time.Duration{1, 55, 46, 37, 28, 19, 10, 1, 1, 1}
	wantH := NewHistogram()
	for _, ms := range want {
		wantH.RecordDuration(ms * time.Millisecond)
	}
	if h.counts != wantH.counts {
		t.Errorf("latencies from intended send times: max %v p50 %v, want %v ms", time.Duration(h.Max()),
			time.Duration(h.Quantile(0.5)), want)
	}
	if naive.Quantile(0.9) > int64(2*time.Millisecond) {
		t.Errorf("naive p90 = %v, want 1ms (the omission the schedule corrects)", time.Duration(naive.Quantile(0.9)))
	}
}
