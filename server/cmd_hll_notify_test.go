package server

// The HyperLogLog commands join the notification scripts of
// notify_diff_test.go: their events ("pfadd" for PFADD and PFMERGE, none
// for PFCOUNT or PFDEBUG), the changes they count (PFADD one per register
// raised, PFCOUNT one when it stores the cardinality, PFDEBUG one per
// conversion) and their key misses must be redis-server's.
func init() {
	notifyStringScript = append(notifyStringScript,
		"PFADD hl", "PFADD hl a b c", "PFADD hl a", "PFCOUNT hl", "PFCOUNT hl", "PFADD hl d", "PFCOUNT hl hl2",
		"PFMERGE hm hl", "PFMERGE hm", "PFMERGE hl hm nokey", "PFDEBUG ENCODING hl", "PFDEBUG TODENSE hl",
		"PFDEBUG TODENSE hl", "PFDEBUG GETREG hm", "SET hs x", "PFADD hs a", "PFMERGE hs")
	notifyKeyMissScript = append(notifyKeyMissScript,
		"PFCOUNT nx", "PFCOUNT nx nx2", "PFADD nx5 a", "PFMERGE nx6 nx7 nx8", "PFDEBUG ENCODING nx9")
}

// And the propagation script of propagate_test.go: PFCOUNT goes into the
// stream when it stores the cardinality, so the replayed value has the same
// cached bytes; PFDEBUG TODENSE when it converts.
func init() {
	propScript = append(propScript,
		propStep{"a", "PFADD ph a b c", false}, propStep{"a", "PFCOUNT ph", false}, propStep{"a", "PFCOUNT ph", false},
		propStep{"a", "PFADD ph d", false}, propStep{"a", "PFMERGE pm ph", false}, propStep{"a", "PFCOUNT pm", false},
		propStep{"a", "PFDEBUG TODENSE pm", false}, propStep{"a", "PFCOUNT ph pm", false})
}

// And the tracking script of tracking_test.go, at its end (connection 2
// tracks BCAST prefix y, redirected to connection 0): PFADD invalidates,
// and so does a PFCOUNT that stores the cardinality (Redis's
// signalModifiedKey), while one that reads the cache does not.
func init() {
	trackingScript = append(trackingScript,
		pubsubStep{1, "PFADD y:h a b", 1, 1, false},
		pubsubStep{1, "PFCOUNT y:h", 1, 1, false},
		pubsubStep{1, "PFCOUNT y:h", 1, 0, false},
		pubsubStep{1, "PFADD y:h a", 1, 0, false},
		pubsubStep{0, "PING", 1, 0, false})
}
