// Package loadgen is the engine of loopkv-bench: a RESP load generator that
// speaks plaintext and TLS and measures a server from the outside.
//
// Modes, each a function taking a config and returning a *Result:
//
//	| mode       | function       | measures                                                    |
//	|------------|----------------|-------------------------------------------------------------|
//	| throughput | RunThroughput  | closed loop (or rate-limited) ops/s, latency, CPU per op    |
//	| conns      | RunConns       | server RSS and threads while N idle connections are held    |
//	| churn      | RunChurn       | full or resumed handshakes/s, server CPU per handshake      |
//	| storm      | RunStorm       | latency of steady clients before and during a TLS storm     |
//
// Latency goes into a Histogram: log-linear buckets with a bounded relative
// error and fixed memory, mergeable across connections. In rate-limited mode
// each request's latency is measured from its intended send time, so a
// stalled server is charged for the requests it delayed (coordinated-omission
// correction).
//
// The server-side figures come from /proc/<pid> of the server process when
// its pid is known: utime+stime deltas (server CPU per operation, the main
// figure on a machine where the client shares the cores), VmRSS and Threads.
//
// Report reads Result records (JSON lines) from several runs and writes a
// Markdown table of medians, min-max and ratios, plus PNG plots.
package loadgen
