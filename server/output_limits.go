package server

import (
	"strconv"
	"strings"

	"github.com/loopkv/loopkv/config"
)

// client-output-buffer-limit: a hard limit, a soft limit and the seconds a
// client may stay over the soft one, per class of client, as Redis keeps
// them. loopkv applies the normal class's hard limit and the pubsub
// class's three; replica is kept and reported.

// The classes, in Redis's order.
const (
	classNormal = iota
	classReplica
	classPubSub
)

// outputLimits are the three classes' limits as set.
type outputLimits [3]outboxLimit

// outputClassNames are the classes as CONFIG GET names them (Redis 7.0
// still says slave there) and as CONFIG REWRITE writes them.
var (
	outputClassGet     = [3]string{"normal", "slave", "pubsub"}
	outputClassRewrite = [3]string{"normal", "replica", "pubsub"}
)

// defaultOutputLimits are Redis's, except normal clients: loopkv closes
// one whose unsent replies pass 256 MiB, where Redis leaves them unlimited.
var defaultOutputLimits = outputLimits{{256 << 20, 0, 0}, {256 << 20, 64 << 20, 60}, {32 << 20, 8 << 20, 60}}

// parseOutputLimits reads "class hard soft seconds ..." into lim, with
// Redis's reasons: the classes given change, the others stay.
func parseOutputLimits(v string, lim *outputLimits) string {
	f := strings.Fields(v)
	if len(f)%4 != 0 || len(f) == 0 {
		return "Wrong number of arguments in buffer limit configuration."
	}
	next := *lim
	for i := 0; i < len(f); i += 4 {
		class := -1
		switch strings.ToLower(f[i]) {
		case "normal":
			class = classNormal
		case "replica", "slave":
			class = classReplica
		case "pubsub":
			class = classPubSub
		default:
			return "Invalid client class specified in buffer limit configuration."
		}
		hard, ok1 := config.ParseMemory(f[i+1])
		soft, ok2 := config.ParseMemory(f[i+2])
		secs, err := strconv.ParseInt(f[i+3], 10, 64)
		if f[i+3] == "" {
			err = nil
		}
		if !ok1 || !ok2 || err != nil || secs < 0 {
			return "Error in hard, soft or soft_seconds setting in buffer limit configuration."
		}
		next[class] = outboxLimit{int64(hard), int64(soft), secs}
	}
	*lim = next
	return ""
}

// checkOutputLimits is client-output-buffer-limit's type.
func checkOutputLimits(v string) (config.Value, string) {
	lim := defaultOutputLimits
	if msg := parseOutputLimits(v, &lim); msg != "" {
		return config.Value{}, msg
	}
	return config.Value{S: v}, ""
}

// setOutputLimits applies a value checkOutputLimits accepted.
func (s *Server) setOutputLimits(v string) {
	lim := *s.cfg.outLimits.Load()
	_ = parseOutputLimits(v, &lim)
	s.cfg.storeOutputLimits(&lim)
}

// storeOutputLimits publishes lim to the loops.
func (c *liveConfig) storeOutputLimits(lim *outputLimits) {
	c.outLimits.Store(lim)
	hard := lim[classNormal].hard
	if hard <= 0 {
		hard = 1 << 62 // Redis: 0 means no limit
	}
	c.outBufLimit.Store(hard)
	p := lim[classPubSub]
	c.pubsubHard.Store(p.hard)
	c.pubsubSoft.Store(p.soft)
	c.pubsubSoftSecs.Store(p.softSecs)
}

// formatOutputLimits is CONFIG GET's form: every class, in bytes.
func formatOutputLimits(lim *outputLimits) string {
	var b []byte
	for i, l := range lim {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, outputClassGet[i]...)
		for _, n := range [3]int64{l.hard, l.soft, l.softSecs} {
			b = append(b, ' ')
			b = strconv.AppendInt(b, n, 10)
		}
	}
	return string(b)
}

// rewriteOutputLimits writes one line per class, each forced when it
// differs from its default, as Redis does: a class at its default still
// takes the place of a line the file had for the setting.
func rewriteOutputLimits(s *Server) []config.Line {
	lim := s.cfg.outLimits.Load()
	lines := make([]config.Line, 3)
	for i, l := range lim {
		lines[i] = config.Line{Text: "client-output-buffer-limit " + outputClassRewrite[i] + " " + config.FormatMemory(l.hard) +
			" " + config.FormatMemory(l.soft) + " " + strconv.FormatInt(l.softSecs, 10), Force: l != defaultOutputLimits[i]}
	}
	return lines
}
