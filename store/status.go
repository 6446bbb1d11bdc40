package store

// Status is the outcome of a store operation. The server maps each non-OK
// status to Redis's error text in one place.
type Status uint8

const (
	OK             Status = iota // the operation was done
	NotFound                     // the key does not exist (or has expired)
	NotSet                       // a condition (NX, XX, RENAMENX, COPY without REPLACE) was not met
	WrongType                    // the key holds a value of another type
	NotInteger                   // the value is not an integer or is out of range
	Overflow                     // the increment or decrement would overflow
	NotFloat                     // the value is not a valid float
	NaNOrInf                     // the float increment would produce NaN or Infinity
	TooLarge                     // the string would exceed MaxValueLen
	SameObject                   // source and destination are the same key
	OutOfMemory                  // used memory is above the limit and nothing may be evicted
	HashNotInteger               // a hash field's value is not an integer (HINCRBY)
	HashNotFloat                 // a hash field's value is not a valid float (HINCRBYFLOAT)
	NaNOrInfValue                // the float argument is NaN or Infinity (HINCRBYFLOAT)
	OutOfRange                   // a list index is out of range (LSET)
	NaNScore                     // a sorted-set score would be NaN (ZINCRBY, ZADD INCR)
	NotHLL                       // a string that is not a HyperLogLog (PFADD, PFCOUNT, PFMERGE)
	CorruptHLL                   // a HyperLogLog whose registers are damaged
)

// The stream statuses (stream_ops.go), after the others.
const (
	StreamIDTooSmall Status = CorruptHLL + 1 + iota // XADD: the ID is not above the stream's last
	StreamExhausted                                 // XADD: the stream's last ID is the largest there is
	StreamSetIDTop                                  // XSETID: the ID is below the last entry's
	StreamSetIDAdded                                // XSETID: entries-added is below the length
)

var statusNames = [...]string{
	OK:             "OK",
	NotFound:       "NotFound",
	NotSet:         "NotSet",
	WrongType:      "WrongType",
	NotInteger:     "NotInteger",
	Overflow:       "Overflow",
	NotFloat:       "NotFloat",
	NaNOrInf:       "NaNOrInf",
	TooLarge:       "TooLarge",
	SameObject:     "SameObject",
	OutOfMemory:    "OutOfMemory",
	HashNotInteger: "HashNotInteger",
	HashNotFloat:   "HashNotFloat",
	NaNOrInfValue:  "NaNOrInfValue",
	OutOfRange:     "OutOfRange",
	NaNScore:       "NaNScore",
	NotHLL:         "NotHLL",
	CorruptHLL:     "CorruptHLL",

	StreamIDTooSmall: "StreamIDTooSmall",
	StreamExhausted:  "StreamExhausted",
	StreamSetIDTop:   "StreamSetIDTop",
	StreamSetIDAdded: "StreamSetIDAdded",
}

// String returns the status's name.
func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "Status(?)"
}

// MaxValueLen is the longest string value, Redis's default proto-max-bulk-len
// (512 MiB).
const MaxValueLen = 512 << 20
