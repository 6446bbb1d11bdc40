package server

import (
	"errors"
	"github.com/loopkv/loopkv/config"
	"math"
	"strconv"

	"github.com/loopkv/loopkv/store"
)

// encodingSetting is one threshold at which a compact encoding converts
// (store.Limits): its redis.conf name, the old name Redis 7 still accepts,
// its range and unit, and the Limits field it sets. One row serves
// redis.conf, the flags (cmd/loopkv) and CONFIG GET/SET.
type encodingSetting struct {
	Name   string
	Alias  string // Redis 6's *-ziplist-* name, "" when none
	Min    int64
	Max    int64
	Memory bool // accepts memory units (1kb), as Redis's MEMORY_CONFIG
	Help   string
	field  func(*store.Limits) *int
}

// EncodingSettings are the encoding thresholds, in Redis 7's names.
var EncodingSettings = []encodingSetting{
	{Name: "hash-max-listpack-entries", Alias: "hash-max-ziplist-entries", Max: math.MaxInt64,
		Help: "fields a hash may have as a listpack", field: func(l *store.Limits) *int { return &l.HashMaxListpackEntries }},
	{Name: "hash-max-listpack-value", Alias: "hash-max-ziplist-value", Max: math.MaxInt64, Memory: true,
		Help: "longest field or value of a listpack hash", field: func(l *store.Limits) *int { return &l.HashMaxListpackValue }},
	{Name: "set-max-intset-entries", Max: math.MaxInt64,
		Help: "members an all-integer set may have as an intset", field: func(l *store.Limits) *int { return &l.SetMaxIntsetEntries }},
	{Name: "set-max-listpack-entries", Max: math.MaxInt64,
		Help: "members a set may have as a listpack", field: func(l *store.Limits) *int { return &l.SetMaxListpackEntries }},
	{Name: "set-max-listpack-value", Max: math.MaxInt64, Memory: true,
		Help: "longest member of a listpack set", field: func(l *store.Limits) *int { return &l.SetMaxListpackValue }},
	{Name: "zset-max-listpack-entries", Alias: "zset-max-ziplist-entries", Max: math.MaxInt64,
		Help: "members a sorted set may have as a listpack", field: func(l *store.Limits) *int { return &l.ZSetMaxListpackEntries }},
	{Name: "zset-max-listpack-value", Alias: "zset-max-ziplist-value", Max: math.MaxInt64, Memory: true,
		Help: "longest member of a listpack sorted set", field: func(l *store.Limits) *int { return &l.ZSetMaxListpackValue }},
	{Name: "list-max-listpack-size", Alias: "list-max-ziplist-size", Min: math.MinInt32, Max: math.MaxInt32,
		Help: "list node size: entries when positive, -1..-5 for 4..64 KiB", field: func(l *store.Limits) *int { return &l.ListMaxListpackSize }},
	{Name: "list-compress-depth", Max: math.MaxInt32,
		Help: "list nodes kept uncompressed at each end (accepted; nodes are not compressed)", field: func(l *store.Limits) *int { return &l.ListCompressDepth }},
}

// Default returns the setting's default, Redis 7.0's.
func (e *encodingSetting) Default() string {
	l := store.DefaultLimits
	return strconv.Itoa(*e.field(&l))
}

// Parse checks v and stores it in l, returning Redis's CONFIG SET reason
// when v is refused.
func (e *encodingSetting) Parse(l *store.Limits, v string) string {
	n, err := strconv.ParseInt(v, 10, 64)
	switch {
	case err == nil && e.Memory && n < 0:
		return "argument must be a memory value"
	case err == nil:
	case e.Memory && errors.Is(err, strconv.ErrRange) && v[0] != '-':
		return e.rangeError() // Redis parses it as a memory value, then range-checks
	case e.Memory:
		m, ok := ParseMemory(v)
		if !ok {
			return "argument must be a memory value"
		}
		n = m
	default:
		return "argument couldn't be parsed into an integer"
	}
	if n < e.Min || n > e.Max {
		return e.rangeError()
	}
	*e.field(l) = int(n)
	return ""
}

func (e *encodingSetting) rangeError() string {
	return "argument must be between " + strconv.FormatInt(e.Min, 10) + " and " + strconv.FormatInt(e.Max, 10) + " inclusive"
}

// encodingConfigParams are the CONFIG rows of EncodingSettings, aliases
// included (CONFIG GET * lists both names, as Redis 7 does).
func encodingConfigParams() []configParam {
	var ps []configParam
	for i := range EncodingSettings {
		e := &EncodingSettings[i]
		p := configParam{Setting: config.Setting{Name: e.Name},
			get: func(s *Server) string {
				l := s.store.Limits()
				return strconv.Itoa(*e.field(&l))
			},
			set: func(s *Server, v string) string {
				l := s.store.Limits()
				if msg := e.Parse(&l, v); msg != "" {
					return msg
				}
				s.store.SetLimits(l)
				return ""
			}}
		ps = append(ps, p)
		if e.Alias != "" {
			p.Name = e.Alias
			ps = append(ps, p)
		}
	}
	return ps
}

func init() { configParams = append(configParams, encodingConfigParams()...) }
