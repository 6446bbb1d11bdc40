// Package config describes loopkv's settings as one table of rows, in the
// manner of Redis's config.c: each Setting has a name, its aliases, a
// default as redis.conf writes it, a one-line meaning, a Type that parses
// and checks a value with Redis 7.0's CONFIG SET reasons, and flags (is it
// immutable, may it repeat).
//
// The package knows no server: it parses redis.conf files (ParseFile,
// SplitArgs, Load), formats values for a file (Quote, FormatMemory) and
// rewrites a file as CONFIG REWRITE does (Rewrite). Package server registers the rows and applies the values.
package config
