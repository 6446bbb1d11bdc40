package loadgen

import "time"

// Clock is the time source of the schedulers; tests inject a fake one.
type Clock interface {
	Now() time.Time
	// Sleep returns after d, or at once when d <= 0.
	Sleep(d time.Duration)
}

// systemClock is the real time.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) Sleep(d time.Duration) {
	if d > 0 {
		time.Sleep(d)
	}
}

// SystemClock is the wall clock (monotonic readings).
var SystemClock Clock = systemClock{}

// Schedule paces a sender at a fixed rate: the k-th send is intended at
// start + k*interval whatever happened to the earlier ones, so a stall does
// not lower the offered load and latency is measured from the intended time
// (coordinated-omission correction, as in wrk2).
type Schedule struct {
	clock    Clock
	start    time.Time
	interval time.Duration
	k        int64 // sends handed out so far
}

// NewSchedule starts a schedule at start with one send per interval.
func NewSchedule(clock Clock, start time.Time, interval time.Duration) *Schedule {
	return &Schedule{clock: clock, start: start, interval: interval}
}

// Peek returns the next intended send time without waiting for it.
func (s *Schedule) Peek() time.Time { return s.start.Add(time.Duration(s.k) * s.interval) }

// Next waits until the next intended send time and returns it. When the
// sender is behind, Next returns at once with a time in the past.
func (s *Schedule) Next() time.Time {
	t := s.Peek()
	s.k++
	s.clock.Sleep(t.Sub(s.clock.Now()))
	return t
}

// Sent returns how many send times Next has handed out.
func (s *Schedule) Sent() int64 { return s.k }
