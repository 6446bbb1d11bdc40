package server

import (
	"math"
	"strconv"

	"github.com/loopkv/loopkv/config"
	"github.com/loopkv/loopkv/store"
)

// encodingSetting is one threshold at which a compact encoding converts
// (store.Limits): its row and the Limits field it sets.
func encodingSetting(st config.Setting, field func(*store.Limits) *int) configParam {
	l := store.DefaultLimits
	st.Default = strconv.Itoa(*field(&l))
	return configParam{Setting: st,
		get: func(s *Server) string {
			l := s.store.Limits()
			return strconv.Itoa(*field(&l))
		},
		apply: func(s *Server, v config.Value) {
			l := s.store.Limits()
			*field(&l) = int(v.N)
			s.store.SetLimits(l)
		},
		opt: func(o *Options, v config.Value) string {
			if o.Limits == nil {
				l := store.DefaultLimits
				o.Limits = &l
			}
			*field(o.Limits) = int(v.N)
			return ""
		}}
}

// Redis's size_t thresholds: a count, or a size with units.
var (
	sizeCount = config.Int{Max: math.MaxInt64, Unsigned: true}
	sizeBytes = config.Memory{Max: math.MaxInt64, Unsigned: true}
)

// encodingSettings are the encoding thresholds, in Redis 7's names, with
// the Redis 6 *-ziplist-* names as aliases; defaults are Redis 7.0's.
var encodingSettings = []configParam{
	encodingSetting(config.Setting{Name: "hash-max-listpack-entries", Aliases: []string{"hash-max-ziplist-entries"}, Type: sizeCount,
		Help: "fields a hash may have as a listpack"}, func(l *store.Limits) *int { return &l.HashMaxListpackEntries }),
	encodingSetting(config.Setting{Name: "hash-max-listpack-value", Aliases: []string{"hash-max-ziplist-value"}, Type: sizeBytes,
		Help: "longest field or value of a listpack hash"}, func(l *store.Limits) *int { return &l.HashMaxListpackValue }),
	encodingSetting(config.Setting{Name: "set-max-intset-entries", Type: sizeCount,
		Help: "members an all-integer set may have as an intset"}, func(l *store.Limits) *int { return &l.SetMaxIntsetEntries }),
	encodingSetting(config.Setting{Name: "set-max-listpack-entries", Type: sizeCount,
		Help: "members a set may have as a listpack"}, func(l *store.Limits) *int { return &l.SetMaxListpackEntries }),
	encodingSetting(config.Setting{Name: "set-max-listpack-value", Type: sizeBytes,
		Help: "longest member of a listpack set"}, func(l *store.Limits) *int { return &l.SetMaxListpackValue }),
	encodingSetting(config.Setting{Name: "zset-max-listpack-entries", Aliases: []string{"zset-max-ziplist-entries"}, Type: sizeCount,
		Help: "members a sorted set may have as a listpack"}, func(l *store.Limits) *int { return &l.ZSetMaxListpackEntries }),
	encodingSetting(config.Setting{Name: "zset-max-listpack-value", Aliases: []string{"zset-max-ziplist-value"}, Type: sizeBytes,
		Help: "longest member of a listpack sorted set"}, func(l *store.Limits) *int { return &l.ZSetMaxListpackValue }),
	encodingSetting(config.Setting{Name: "list-max-listpack-size", Aliases: []string{"list-max-ziplist-size"},
		Type: config.Int{Min: math.MinInt32, Max: math.MaxInt32},
		Help: "list node size: entries when positive, -1..-5 for 4..64 KiB"}, func(l *store.Limits) *int { return &l.ListMaxListpackSize }),
	encodingSetting(config.Setting{Name: "list-compress-depth", Type: config.Int{Max: math.MaxInt32},
		Help: "list nodes kept uncompressed at each end (accepted; nodes are not compressed)"}, func(l *store.Limits) *int { return &l.ListCompressDepth }),
}

func init() { registerSettings(encodingSettings...) }
