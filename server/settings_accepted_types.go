package server

import (
	"strconv"
	"strings"

	"github.com/loopkv/loopkv/config"
)

// The types of settings_accepted.go's rows that config's types do not
// cover, each checking its value as Redis 7.0 does.

// oomScoreAdj is Redis's oom-score-adj: relative is another name of yes,
// which CONFIG GET shows.
var oomScoreAdj = config.Func(func(v string) (config.Value, string) {
	names := config.Enum{"no", "yes", "relative", "absolute"}
	val, msg := names.Parse(v)
	if val.S == "relative" {
		val = config.Value{S: "yes", N: 1}
	}
	return val, msg
})

// shutdownOnSignal is Redis's shutdown-on-sigint and shutdown-on-sigterm:
// flags from save, nosave, now and force (default is none), shown in that
// order.
var shutdownOnSignal = config.Func(func(v string) (config.Value, string) {
	flags := []string{"default", "save", "nosave", "now", "force"}
	var set [5]bool
	words := strings.Fields(v)
	for _, w := range words {
		i := 0
		for i < len(flags) && !strings.EqualFold(w, flags[i]) {
			i++
		}
		if i == len(flags) {
			words = nil
			break
		}
		set[i] = true
	}
	if len(words) == 0 {
		return config.Value{}, "argument(s) must be one of the following: " + strings.Join(flags, ", ")
	}
	var out []string
	for i := 1; i < len(flags); i++ {
		if set[i] {
			out = append(out, flags[i])
		}
	}
	if out == nil {
		return config.Value{S: "default"}, ""
	}
	return config.Value{S: strings.Join(out, " ")}, ""
})

// checkOOMScoreAdjValues is Redis's oom-score-adj-values: three scores
// in [-2000, 2000].
func checkOOMScoreAdjValues(v string) (config.Value, string) {
	parts := strings.Split(v, " ")
	if len(parts) != 3 {
		return config.Value{}, "wrong number of arguments"
	}
	for _, p := range parts {
		if n, ok := config.ParseInt(p); !ok || n < -2000 || n > 2000 {
			return config.Value{}, "Invalid oom-score-adj-values, elements must be between -2000 and 2000."
		}
	}
	return config.Value{S: v}, ""
}

// checkMemoryOrPercent is Redis's maxmemory-clients: a size, or a
// percentage of maxmemory up to 100% (0% is 0).
func checkMemoryOrPercent(v string) (config.Value, string) {
	const bad = "argument must be a memory or percent value"
	if pct, ok := strings.CutSuffix(v, "%"); ok {
		n, ok := config.ParseInt(pct)
		switch {
		case !ok || n < 0:
			return config.Value{}, bad
		case n > 100:
			return config.Value{}, "percentage argument must be less or equal to 100"
		case n == 0:
			return config.Value{S: "0"}, ""
		}
		return config.Value{S: pct + "%", N: -n}, ""
	}
	n, ok := config.ParseMemory(v)
	if !ok || n > 1<<63-1 {
		return config.Value{}, bad
	}
	return config.Value{S: strconv.FormatUint(n, 10), N: int64(n)}, ""
}

// checkOctalPerm is Redis's unixsocketperm: an octal mode up to 777.
func checkOctalPerm(v string) (config.Value, string) {
	n, err := strconv.ParseInt(v, 8, 64)
	if err != nil {
		return config.Value{}, "argument couldn't be parsed as an octal number"
	}
	if n < 0 || n > 0o777 {
		return config.Value{}, "argument must be between 0 and 777 inclusive"
	}
	return config.Value{S: strconv.FormatInt(n, 8), N: n}, ""
}

// refuseReplicaOf accepts replicaof only as unset: loopkv does not
// replicate, and serving as a primary what should be a replica would lose
// writes silently.
func refuseReplicaOf(v string) (config.Value, string) {
	if v != "" && !strings.EqualFold(v, "no one") {
		return config.Value{}, "loopkv does not replicate: remove replicaof to run it as a primary"
	}
	return config.Value{}, ""
}

// refuseClusterEnabled accepts cluster-enabled only as no.
func refuseClusterEnabled(v string) (config.Value, string) {
	val, msg := config.Bool{}.Parse(v)
	if msg == "" && val.N == 1 {
		return config.Value{}, "loopkv has no cluster mode: set cluster-enabled no"
	}
	return val, msg
}
