package tlsengine

import (
	"crypto/tls"
	"reflect"
	"testing"
)

// addClientHelloSeeds seeds f with real ClientHellos: the RFC 8448 traces
// and crypto/tls clients in several configurations.
func addClientHelloSeeds(f *testing.F, prefix []byte) {
	seeds := [][]byte{
		// RFC 8448 Section 3: the simple 1-RTT ClientHello.
		traceHex(f, traceSection3, stepClientHello, "ClientHello"),
		// RFC 8448 Section 4: a resuming ClientHello with early_data and a binder.
		traceHex(f, traceSection4, stepClientSend, "payload"),
		// RFC 8448 Section 5: the second ClientHello, with a cookie and P-256.
		traceHexN(f, traceSection5, 1, stepClientHello, "ClientHello"),
		// crypto/tls defaults with SNI, ALPN and a session cache (X25519MLKEM768 share).
		captureGoClientHello(f, goClientHelloTests[0].cfg),
		// crypto/tls limited to TLS 1.2.
		captureGoClientHello(f, &tls.Config{ServerName: "example.com", MaxVersion: tls.VersionTLS12}),
	}
	for _, s := range seeds {
		f.Add(append(append([]byte{}, prefix...), s...))
	}
}

func FuzzUnmarshalClientHello(f *testing.F) {
	addClientHelloSeeds(f, nil)
	f.Fuzz(func(t *testing.T, data []byte) {
		// The input as a whole message, and as a body behind a consistent
		// header so that mutations reach past the outer length.
		for _, msg := range [][]byte{data, withHeader(typeClientHello, data)} {
			// The HelloRetryRequest comparison takes anything; what parses
			// splits, and equals itself.
			_, _, split := splitClientHello(msg)
			var m clientHelloMsg
			if !m.unmarshal(msg) {
				continue
			}
			if !split || !retriedHelloMatches(msg, msg) {
				t.Fatalf("a parsed ClientHello does not split or match itself: %x", msg)
			}
			// What parses must re-encode to something that parses to the
			// same fields (unknown extensions and the order are not kept).
			enc := m.appendTo(nil)
			var again clientHelloMsg
			if !again.unmarshal(enc) {
				t.Fatalf("re-encoding of a parsed ClientHello does not parse: %x", enc)
			}
			if !reflect.DeepEqual(normalise(&m), normalise(&again)) {
				t.Fatalf("fields changed across re-encoding:\n%+v\n%+v", m, again)
			}
		}
	})
}

// withHeader prefixes body with a handshake header of type typ.
func withHeader(typ uint8, body []byte) []byte {
	n := len(body)
	return append([]byte{typ, byte(n >> 16), byte(n >> 8), byte(n)}, body...)
}

// fuzzMessageTypes maps the fuzz input's first byte to a message type.
var fuzzMessageTypes = []func() handshakeMessage{
	func() handshakeMessage { return new(serverHelloMsg) },
	func() handshakeMessage { return new(encryptedExtensionsMsg) },
	func() handshakeMessage { return new(certificateRequestMsgTLS13) },
	func() handshakeMessage { return new(certificateMsgTLS13) },
	func() handshakeMessage { return new(certificateVerifyMsg) },
	func() handshakeMessage { return new(finishedMsg) },
	func() handshakeMessage { return new(newSessionTicketMsgTLS13) },
	func() handshakeMessage { return new(endOfEarlyDataMsg) },
	func() handshakeMessage { return new(keyUpdateMsg) },
	func() handshakeMessage { return new(sessionStateCodec) },
	func() handshakeMessage { return new(certificateMsg) },
	func() handshakeMessage { return new(serverKeyExchangeMsg) },
	func() handshakeMessage { return new(serverHelloDoneMsg) },
	func() handshakeMessage { return new(certificateRequestMsg) },
	func() handshakeMessage { return new(clientKeyExchangeMsg) },
	func() handshakeMessage { return new(newSessionTicketMsg) },
}

// sessionStateCodec adapts sessionState to handshakeMessage for fuzzing.
type sessionStateCodec struct{ s sessionState }

func (c *sessionStateCodec) appendTo(b []byte) []byte   { return append(b, c.s.marshal()...) }
func (c *sessionStateCodec) unmarshal(data []byte) bool { return c.s.unmarshal(data) }

func FuzzUnmarshalMessages(f *testing.F) {
	// Every round-trip test message, behind the selector of its type.
	for _, tt := range messageRoundTripTests {
		for sel, mk := range fuzzMessageTypes {
			if reflect.TypeOf(mk()) == reflect.TypeOf(tt.m) {
				f.Add(append([]byte{byte(sel)}, tt.m.appendTo(nil)...))
			}
		}
	}
	// RFC 8448 Section 5: the HelloRetryRequest.
	f.Add(append([]byte{0}, traceHex(f, traceSection5, stepServerHello, "ServerHello")...))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		mk := fuzzMessageTypes[int(data[0])%len(fuzzMessageTypes)]
		// As a whole message, and as a body behind the header of the type
		// the message encodes to.
		typ := uint8(0)
		if enc := mk().appendTo(nil); len(enc) > 0 {
			typ = enc[0]
		}
		for _, msg := range [][]byte{data[1:], withHeader(typ, data[1:])} {
			m := mk()
			if !m.unmarshal(msg) {
				continue
			}
			enc := m.appendTo(nil)
			again := mk()
			if !again.unmarshal(enc) || !reflect.DeepEqual(m, again) {
				t.Fatalf("%T does not survive re-encoding: %x", m, enc)
			}
		}
	})
}
