package resp

// Limits bounds what the parser accepts. A zero field means its default.
type Limits struct {
	MaxBulk   int64 // longest bulk string; proto-max-bulk-len, default 512 MiB
	MaxArgs   int   // most arguments in one multibulk command, default 1,048,576
	MaxInline int   // longest inline command or header line, default 64 KiB
}

// DefaultLimits are Redis's defaults.
var DefaultLimits = Limits{MaxBulk: 512 << 20, MaxArgs: 1 << 20, MaxInline: 64 << 10}

// orDefault returns l with every zero or negative field replaced by its
// default.
func (l Limits) orDefault() Limits {
	if l.MaxBulk <= 0 {
		l.MaxBulk = DefaultLimits.MaxBulk
	}
	if l.MaxArgs <= 0 {
		l.MaxArgs = DefaultLimits.MaxArgs
	}
	if l.MaxInline <= 0 {
		l.MaxInline = DefaultLimits.MaxInline
	}
	return l
}
