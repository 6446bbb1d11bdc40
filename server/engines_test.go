package server

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// engines are the transports besides the default one (gnet), on which the
// integration suite runs again. The default engine runs it as the plain
// top-level tests.
var engines = []string{"netpoll"}

// engineSuite is every test that talks to a real server through
// startServer: go-redis, redis-cli, redis-benchmark, bad input, slow
// clients, limits, idle timeout, graceful shutdown and TLS. A new test that
// starts a server belongs here; TestEngineSuiteListsEveryServerTest fails
// until it is.
var engineSuite = []struct {
	name string
	fn   func(*testing.T)
}{
	{"PipelineOfDepth10000OnOneConnection", TestPipelineOfDepth10000OnOneConnection},
	{"RDBChecksumNoSkipsTheCheckOnLoad", TestRDBChecksumNoSkipsTheCheckOnLoad},
	{"CommandSentOneByteAtATime", TestCommandSentOneByteAtATime},
	{"BadInputGetsRedisProtocolErrorAndClose", TestBadInputGetsRedisProtocolErrorAndClose},
	{"BinaryGarbageAndHalfCommandsLeaveServerUnharmed", TestBinaryGarbageAndHalfCommandsLeaveServerUnharmed},
	{"MaxClientsRejectsWithRedisError", TestMaxClientsRejectsWithRedisError},
	{"QueryBufferLimitClosesClient", TestQueryBufferLimitClosesClient},
	{"OutputBufferLimitClosesSlowReader", TestOutputBufferLimitClosesSlowReader},
	{"IdleTimeoutClosesOnlyIdleClients", TestIdleTimeoutClosesOnlyIdleClients},
	{"ShutdownDeliversInFlightRepliesAndStops", TestShutdownDeliversInFlightRepliesAndStops},
	{"BatchPastOutputLimitContinuesAfterWake", TestBatchPastOutputLimitContinuesAfterWake},
	{"RedisCLI", TestRedisCLI},
	{"RedisBenchmarkSmoke", TestRedisBenchmarkSmoke},
	{"ConnectionCommandsMatchRedis", TestConnectionCommandsMatchRedis},
	{"AuthenticationMatchesRedis", TestAuthenticationMatchesRedis},
	{"ClientListLineHasRedisFields", TestClientListLineHasRedisFields},
	{"UnauthenticatedLimitsMatchRedis", TestUnauthenticatedLimitsMatchRedis},
	{"GoRedisRESP2AndRESP3", TestGoRedisRESP2AndRESP3},
	{"GoRedisPipeline", TestGoRedisPipeline},
	{"GoRedisAuthWithRequirePass", TestGoRedisAuthWithRequirePass},
	{"GoRedisSelectsDatabase", TestGoRedisSelectsDatabase},
	{"GoRedisClientListAndKill", TestGoRedisClientListAndKill},
	{"GoRedisInfoParses", TestGoRedisInfoParses},
	{"ACLUsersFileOverTheWire", TestACLUsersFileOverTheWire},
	{"TLSGoRedis", TestTLSGoRedis},
	{"TLSSessionResumption", TestTLSSessionResumption},
	{"TLSPlainAndTLSShareLoops", TestTLSPlainAndTLSShareLoops},
	{"TLSIdleConnectionsShedKeysAndKeepWorking", TestTLSIdleConnectionsShedKeysAndKeepWorking},
	{"SlowlogEntriesMatchRedis", TestSlowlogEntriesMatchRedis},
	{"LatencyHistogramMatchesRedis", TestLatencyHistogramMatchesRedis},
	{"InfoCommandErrorLatencyStatsMatchRedis", TestInfoCommandErrorLatencyStatsMatchRedis},
	{"LatencyEventsMatchRedis", TestLatencyEventsMatchRedis},
	{"MonitorShowsEveryClientsCommands", TestMonitorShowsEveryClientsCommands},
	{"ResetLeavesMonitorMode", TestResetLeavesMonitorMode},
	{"MonitorOverTLS", TestMonitorOverTLS},
	{"MetricsEndpointCountsKnownWorkload", TestMetricsEndpointCountsKnownWorkload},
	{"MetricsEndpointCountsTLSHandshakes", TestMetricsEndpointCountsTLSHandshakes},
	{"ClientReplyOverSocketsMatchesRedis", TestClientReplyOverSocketsMatchesRedis},
	{"ClientReplyOffProtocolErrorLeavesTheConnectionStalled", TestClientReplyOffProtocolErrorLeavesTheConnectionStalled},
	{"ClientPauseWriteHoldsWritersAndServesReaders", TestClientPauseWriteHoldsWritersAndServesReaders},
	{"ClientPauseAllEndsAtItsTimeout", TestClientPauseAllEndsAtItsTimeout},
	{"ClientPauseHoldsATLSClient", TestClientPauseHoldsATLSClient},
	{"ClientPauseStopsActiveExpiry", TestClientPauseStopsActiveExpiry},
	{"ClientPauseKeepsExpiredKeysUntilItEnds", TestClientPauseKeepsExpiredKeysUntilItEnds},
	{"ClientPauseStopsEviction", TestClientPauseStopsEviction},
	{"WaitBlocksUntilItsTimeout", TestWaitBlocksUntilItsTimeout},
	{"HugeTimeoutsWaitForever", TestHugeTimeoutsWaitForever},
}

// TestIntegrationSuiteOnEveryEngine reruns engineSuite with startServer
// defaulting to each engine. Subtests run one at a time: testEngine is a
// package variable.
func TestIntegrationSuiteOnEveryEngine(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng, func(t *testing.T) {
			testEngine = eng
			defer func() { testEngine = "" }()
			for _, tt := range engineSuite {
				t.Run(tt.name, tt.fn)
			}
		})
	}
}

// serverStarters are the helpers whose callers run on a real server.
var serverStarters = map[string]bool{"startServer": true, "startTLSServer": true}

func TestEngineSuiteListsEveryServerTest(t *testing.T) {
	listed := map[string]bool{}
	for _, tt := range engineSuite {
		listed["Test"+tt.name] = true
	}
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if name == "engines_test.go" || name == "transport_netpoll_test.go" || name == "transport_gnet_keepalive_test.go" || name == "helpers_test.go" { // one engine's own tests, and helpers
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || !strings.HasPrefix(fn.Name.Name, "Test") || fn.Body == nil || !callsStarter(fn.Body) {
				continue
			}
			if !listed[fn.Name.Name] {
				t.Errorf("%s: %s starts a server but is not in engineSuite "+
					"(list it in engines_test.go, or append it from an init in %s)", name, fn.Name.Name, name)
			}
		}
	}
}

// callsStarter reports whether body calls one of serverStarters.
func callsStarter(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok && serverStarters[id.Name] {
				found = true
			}
		}
		return !found
	})
	return found
}

// BenchmarkEngineRoundTrip times one pipelined round trip of GETs over
// loopback on each engine. allocs/op counts the whole process (client,
// server and the engine library), so it shows what an engine allocates
// per wake-up; the handler itself allocates nothing per command.
func BenchmarkEngineRoundTrip(b *testing.B) {
	for _, eng := range append([]string{"gnet"}, engines...) {
		for _, depth := range []int{1, 16} {
			b.Run(fmt.Sprintf("engine=%s/pipeline=%d", eng, depth), func(b *testing.B) {
				benchRoundTrip(b, eng, depth)
			})
		}
	}
}

func benchRoundTrip(b *testing.B, eng string, depth int) {
	s, _ := startServer(b, Options{Engine: eng, Loops: 1})
	rc := dialRaw(b, s.Addr())
	if got := rc.do("SET", "k", strings.Repeat("v", 64)); got != "+OK\r\n" {
		b.Fatalf("SET = %q", got)
	}
	req := []byte(strings.Repeat(multibulk("GET", "k"), depth))
	want := []byte(strings.Repeat("$64\r\n"+strings.Repeat("v", 64)+"\r\n", depth))
	got := make([]byte, len(want))
	b.SetBytes(int64(len(req) + len(want)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := rc.c.Write(req); err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(rc.c, got); err != nil {
			b.Fatal(err)
		}
	}
	if !bytes.Equal(got, want) {
		b.Fatalf("got %q", got)
	}
}
