// Package conformance checks tlsengine against BoringSSL's TLS test runner,
// BoGo (ssl/test/runner, kept in ../shared/bogo beside the repository). The
// runner plays the client in thousands of scenarios and drives bogoshim
// (conformance/bogoshim), a small program that plays the server with
// tlsengine, through bssl_shim's command-line flags.
//
// bogo_config.json switches tests off, each pattern with its reason (DTLS,
// QUIC, TLS 1.0/1.1, CBC, RSA key exchange, renegotiation, ECH and other
// features tlsengine does not offer). bogo_subset.txt names the tests that
// `make test` runs (TestBoGoSubset); `make conformance` runs every
// server-side test that is not switched off (TestBoGoFull) and prints the
// counts that CONFORMANCE.md records.
package conformance
