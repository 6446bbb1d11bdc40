// Package server is loopkv's Redis-protocol server: event loops,
// connections, command dispatch and the commands. It is the only package
// that imports gnet, netpoll or zap, or reads the clock.
//
// # Loops and callbacks
//
// A transport (transport_gnet.go) runs one event loop per core and drives
// an engine-agnostic handler (conn.go) through the contract in
// transport.go. With gnet v2 the callbacks are:
//
//	callback   runs on            does
//	---------  -----------------  ----------------------------------------------------------
//	OnBoot     the engine's start  records the Engine for Stop; reports Ready
//	OnOpen     the owning loop     maps c.EventLoop() to its loopState (once per connection);
//	                               maxclients check ("-ERR max number of clients reached",
//	                               then close); creates the connState, registers the client
//	OnTraffic  the owning loop     in := c.Peek(-1); handler.onData runs every complete
//	                               command with the clock read once, replies appended to the
//	                               loop's out buffer; c.Discard(consumed) leaves an
//	                               incomplete command in gnet's ring; handler.flush makes one
//	                               c.Write(out) and applies the output buffer limit;
//	                               query buffer limit, QUIT and protocol errors close
//	OnClose    the owning loop     unregisters the client, drops its state
//	OnTick     gnet's ticker       every 100 ms: active expiry on the store (thread-safe);
//	           goroutine           every second: ops/sec sample and, with a timeout set, an
//	                               idle sweep pushed to each loop with EventLoop.Execute
//
// OnTraffic fires only for new bytes or a Wake; a batch whose replies pass
// 1 MiB stops early and wakes itself to go on, so one pipeline cannot grow
// the loop's buffer without bound.
//
// # TLS
//
// The TLS port (tls-port) is a second listener on the same loops (gnet
// Rotate; a second netpoll EventLoop); onOpen tells a TLS connection by its
// local port and gives it a tlsengine.Engine built from the current
// *tlsengine.Config (tls.go). On a TLS connection the calls become:
//
//	call         does
//	-----------  ---------------------------------------------------------------
//	onOpen       tls-max-handshakes check (refused with a plaintext internal_error
//	             alert), then NewEngine; counted in tls_handshakes_in_flight. A
//	             client over maxclients is not counted; after its handshake it
//	             reads "-ERR max number of clients reached" sealed, then
//	             close_notify (as protected mode's DENIED, protected.go)
//	onData       jobs a worker finished are handed to SignDone/VerifyDone; then
//	             e.Read(in, nil) opens complete records in place in the transport's
//	             bytes (or e.Read(in, cs.pending) behind a pending command);
//	             AppendOutput puts handshake flights,
//	             tickets and alerts in ls.out; the plaintext runs as commands with
//	             replies appended behind a BeginRecord header and sealed in place
//	             (SealRecord; replies past MaxPlaintext spill into more records);
//	             an incomplete command stays in cs.pending (pooled, nil when
//	             empty); partial records stay in the transport (not consumed).
//	             StatusWantSign/WantVerify: the job goes to the worker pool
//	             (tls_worker.go), which wakes the connection when done; a full
//	             queue fails the handshake with internal_error
//	flush        one write of ls.out, as for plaintext
//	onClose      Engine.Release; pending buffer back to the loop's pool
//	sweep        once a second per loop: handshakes older than
//	             tls-handshake-timeout are closed
//
// Certificates, keys and CAs are reloaded off the loops (CONFIG SET of a
// tls-* file setting, SIGHUP through ReloadTLS, a file change seen by
// tls-auto-reload-interval's checks) into a new Config swapped
// atomically; established connections keep theirs (tls_reload.go).
//
// # Commands
//
// Every command is one row of the command spec (cmd_spec.go): name, arity,
// flags, ACL categories, key specs, subcommands, the clock-free mark and
// the docs, declared by its family file (cmd_string.go, cmd_keys.go, ...)
// and registered from that file's init. Dispatch and arity (dispatch.go),
// COMMAND and its subcommands (cmd_command.go), ACL category and key checks
// (acl.go) are all derived from the rows; a new family needs only its file.
// One function, commandKeys, finds a call's keys and their access flags
// from the key specs, for ACL checks, COMMAND GETKEYS and cluster routing.
//
// # Memory
//
// Replies of one callback are built in the loop's buffer (loopState.out)
// and written once; gnet copies only what the kernel refuses. An idle
// connection holds no buffer of ours: unconsumed input lives in gnet's
// pooled ring until it is complete, and connState.pending (for commands cut
// across TLS records) is nil when empty.
//
// # Limits
//
// maxclients, client-query-buffer-limit (unparsed input; close),
// proto-max-bulk-len (parser; protocol error), and the hard output limit
// for normal clients (client-output-buffer-limit normal <hard>, default
// 256 MiB; a client whose unsent replies pass it is closed as Redis does;
// Redis's default for normal clients is unlimited), idle timeout (timeout
// seconds, swept per loop once a second), and protected mode
// (protected-mode yes, the default, while the default user has no
// password): a client not on loopback reads Redis's DENIED text and is
// closed, counted in rejected_connections. On the plaintext port it is
// refused at accept; on the TLS port after the handshake, inside the
// session, and a client with a verified certificate (tls-auth-clients
// optional or yes) is admitted (protected.go).
//
// # In process
//
// Embedded runs one client through the same handler without a socket, for
// benchmarks and allocation gates.
package server
