package server

import "testing"

// engines are the transports besides the default one (gnet), on which the
// integration suite runs again. The default engine runs it as the plain
// top-level tests.
var engines = []string{"netpoll"}

// engineSuite is every test that talks to a real server through
// startServer: go-redis, redis-cli, redis-benchmark, bad input, slow
// clients, limits, idle timeout and graceful shutdown. A new test that
// starts a server belongs here (and TLS ones too, once the listener exists).
var engineSuite = []struct {
	name string
	fn   func(*testing.T)
}{
	{"PipelineOfDepth10000OnOneConnection", TestPipelineOfDepth10000OnOneConnection},
	{"CommandSentOneByteAtATime", TestCommandSentOneByteAtATime},
	{"BadInputGetsRedisProtocolErrorAndClose", TestBadInputGetsRedisProtocolErrorAndClose},
	{"BinaryGarbageAndHalfCommandsLeaveServerUnharmed", TestBinaryGarbageAndHalfCommandsLeaveServerUnharmed},
	{"MaxClientsRejectsWithRedisError", TestMaxClientsRejectsWithRedisError},
	{"QueryBufferLimitClosesClient", TestQueryBufferLimitClosesClient},
	{"OutputBufferLimitClosesSlowReader", TestOutputBufferLimitClosesSlowReader},
	{"IdleTimeoutClosesOnlyIdleClients", TestIdleTimeoutClosesOnlyIdleClients},
	{"ShutdownDeliversInFlightRepliesAndStops", TestShutdownDeliversInFlightRepliesAndStops},
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
