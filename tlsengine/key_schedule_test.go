package tlsengine

import (
	"bytes"
	"crypto"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/sha512"
	"hash"
	mathrand "math/rand/v2"
	"testing"
)

// refHMAC, refExtract and refExpandLabel are a naive transcription of RFC
// 5869 and RFC 8446, Section 7.1, built on crypto/hmac alone: an oracle for
// the SHA-384 schedule, which RFC 8448 does not cover.
func refHMAC(h func() hash.Hash, key []byte, parts ...[]byte) []byte {
	m := hmac.New(h, key)
	for _, p := range parts {
		m.Write(p)
	}
	return m.Sum(nil)
}

func refExtract(h func() hash.Hash, salt, ikm []byte) []byte {
	if salt == nil {
		salt = make([]byte, h().Size())
	}
	return refHMAC(h, salt, ikm)
}

func refExpandLabel(h func() hash.Hash, secret []byte, label string, ctx []byte, length int) []byte {
	full := "tls13 " + label
	info := []byte{byte(length >> 8), byte(length), byte(len(full))}
	info = append(info, full...)
	info = append(info, byte(len(ctx)))
	info = append(info, ctx...)
	var out, t []byte
	for i := byte(1); len(out) < length; i++ {
		t = refHMAC(h, secret, t, info, []byte{i})
		out = append(out, t...)
	}
	return out[:length]
}

func TestKeyScheduleSHA384MatchesReference(t *testing.T) {
	h := sha512.New384
	zeros := make([]byte, 48)
	empty := sha512.Sum384(nil)
	psk := bytes.Repeat([]byte{0x42}, 48)
	shared := bytes.Repeat([]byte{0x17}, 32)
	th := bytes.Repeat([]byte{0x99}, 48)

	refEarly := refExtract(h, nil, psk)
	refHS := refExtract(h, refExpandLabel(h, refEarly, "derived", empty[:], 48), shared)
	refMS := refExtract(h, refExpandLabel(h, refHS, "derived", empty[:], 48), zeros)

	es := newEarlySecret(crypto.SHA384, psk)
	hs := es.handshakeSecret(shared)
	ms := hs.masterSecret()
	tests := []struct {
		name      string
		got, want []byte
	}{
		{"early", es.secret, refEarly},
		{"binder key", es.resumptionBinderKey(), refExpandLabel(h, refEarly, "res binder", empty[:], 48)},
		{"c e traffic", es.clientEarlyTrafficSecret(th), refExpandLabel(h, refEarly, "c e traffic", th, 48)},
		{"handshake", hs.secret, refHS},
		{"c hs traffic", hs.clientHandshakeTrafficSecret(th), refExpandLabel(h, refHS, "c hs traffic", th, 48)},
		{"s hs traffic", hs.serverHandshakeTrafficSecret(th), refExpandLabel(h, refHS, "s hs traffic", th, 48)},
		{"master", ms.secret, refMS},
		{"c ap traffic", ms.clientApplicationTrafficSecret(th), refExpandLabel(h, refMS, "c ap traffic", th, 48)},
		{"s ap traffic", ms.serverApplicationTrafficSecret(th), refExpandLabel(h, refMS, "s ap traffic", th, 48)},
		{"exp master", ms.exporterMasterSecret(th), refExpandLabel(h, refMS, "exp master", th, 48)},
		{"res master", ms.resumptionMasterSecret(th), refExpandLabel(h, refMS, "res master", th, 48)},
		{"traffic upd", nextTrafficSecret(crypto.SHA384, th), refExpandLabel(h, th, "traffic upd", nil, 48)},
		{"resumption", resumptionPSK(crypto.SHA384, th, []byte{1, 2}), refExpandLabel(h, th, "resumption", []byte{1, 2}, 48)},
		{"finished", finishedVerifyData(crypto.SHA384, th, th), refHMAC(h, refExpandLabel(h, th, "finished", nil, 48), th)},
	}
	for i, tt := range tests {
		if !bytes.Equal(tt.got, tt.want) {
			t.Errorf("#%d %s = %x, want %x", i, tt.name, tt.got, tt.want)
		}
	}
	key, iv := trafficKeys(crypto.SHA384, th, 32)
	if !bytes.Equal(key, refExpandLabel(h, th, "key", nil, 32)) || !bytes.Equal(iv, refExpandLabel(h, th, "iv", nil, 12)) {
		t.Errorf("trafficKeys = %x, %x", key, iv)
	}
}

func TestEarlySecretWithoutPSKIsZeroKeyed(t *testing.T) {
	zero := newEarlySecret(crypto.SHA256, make([]byte, 32))
	none := newEarlySecret(crypto.SHA256, nil)
	if !bytes.Equal(zero.secret, none.secret) {
		t.Error("nil PSK differs from hash-length zeros")
	}
	if hs1, hs2 := none.handshakeSecret(nil), none.handshakeSecret(make([]byte, 32)); !bytes.Equal(hs1.secret, hs2.secret) {
		t.Error("nil shared secret (psk_ke) differs from hash-length zeros")
	}
}

func TestHkdfExpandLabelMatchesReferenceForLongOutputs(t *testing.T) {
	secret := bytes.Repeat([]byte{1}, 32)
	for _, n := range []int{1, 12, 16, 32, 33, 64, 255} {
		got := hkdfExpandLabel(crypto.SHA256, secret, "key", []byte("ctx"), n)
		if want := refExpandLabel(sha256.New, secret, "key", []byte("ctx"), n); !bytes.Equal(got, want) {
			t.Errorf("length %d: %x, want %x", n, got, want)
		}
	}
}

func TestNextTrafficSecretChains(t *testing.T) {
	s0 := bytes.Repeat([]byte{3}, 32)
	s1 := nextTrafficSecret(crypto.SHA256, s0)
	s2 := nextTrafficSecret(crypto.SHA256, s1)
	if bytes.Equal(s0, s1) || bytes.Equal(s1, s2) || len(s2) != 32 {
		t.Errorf("secrets do not advance: %x %x %x", s0, s1, s2)
	}
	if want := refExpandLabel(sha256.New, s1, "traffic upd", nil, 32); !bytes.Equal(s2, want) {
		t.Errorf("second update %x, want %x", s2, want)
	}
}

func BenchmarkKeySchedule(b *testing.B) {
	shared := bytes.Repeat([]byte{1}, 32)
	th := bytes.Repeat([]byte{2}, 32)
	b.ReportAllocs()
	for b.Loop() {
		hs := newEarlySecret(crypto.SHA256, nil).handshakeSecret(shared)
		hs.clientHandshakeTrafficSecret(th)
		hs.serverHandshakeTrafficSecret(th)
		ms := hs.masterSecret()
		ms.clientApplicationTrafficSecret(th)
		ms.serverApplicationTrafficSecret(th)
	}
}

// TestExpanderMatchesCryptoHKDF checks the expander, one HMAC keyed per
// secret and Reset per label, against crypto/hkdf over random secrets,
// labels, contexts and lengths, several labels per secret in a row, and its
// Finished against crypto/hmac.
func TestExpanderMatchesCryptoHKDF(t *testing.T) {
	rng := mathrand.New(mathrand.NewPCG(1, 2))
	fill := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	labels := []string{labelDerived, labelKey, labelIV, labelFinished, labelClientHandshakeTraffic, labelResumption, ""}
	for i := range 500 {
		h := []crypto.Hash{crypto.SHA256, crypto.SHA384}[i%2]
		secret := fill([]int{0, 1, h.Size(), 64, 129, 200}[rng.IntN(6)])
		var x expander
		x.init(h, secret)
		for j := range 1 + rng.IntN(5) {
			label := labels[rng.IntN(len(labels))]
			ctx := fill([]int{0, 1, 32, 48, 255}[rng.IntN(5)])
			n := 1 + rng.IntN(h.Size())
			want, err := hkdf.Expand(h.New, secret, string(appendHkdfLabel(nil, label, ctx, n)), n)
			if err != nil {
				t.Fatal(err)
			}
			if got := x.expand(make([]byte, n), label, ctx); !bytes.Equal(got, want) {
				t.Fatalf("#%d.%d %v secret %x label %q ctx %x n %d: %x, want %x", i, j, h, secret, label, ctx, n, got, want)
			}
			if !bytes.Equal(hkdfExpandLabel(h, secret, label, ctx, n), want) {
				t.Fatalf("#%d.%d: hkdfExpandLabel differs from crypto/hkdf", i, j)
			}
		}
		th := fill(h.Size())
		fk, _ := hkdf.Expand(h.New, secret, string(appendHkdfLabel(nil, labelFinished, nil, h.Size())), h.Size())
		if got, want := x.verifyData(nil, th), refHMAC(h.New, fk, th); !bytes.Equal(got, want) {
			t.Fatalf("#%d verifyData %x, want %x", i, got, want)
		}
		salt := fill(rng.IntN(2) * h.Size())
		ikm := fill(h.Size())
		prk := make([]byte, h.Size())
		var y expander
		y.initExtract(h, prk, ikm, salt, nil)
		want, _ := hkdf.Extract(h.New, ikm, salt)
		if !bytes.Equal(prk, want) {
			t.Fatalf("#%d extract %x, want %x", i, prk, want)
		}
		// The same extract from a clone of an HMAC keyed with salt (the
		// no-PSK handshake secret's), twice: the template stays unwritten.
		tmpl := hmac.New(h.New, salt)
		if cloneMAC(tmpl) == nil || cloneMAC(constantsOf(h).derivedMAC) == nil {
			t.Fatalf("#%d: crypto/hmac's HMAC does not clone: every handshake keys a new one", i)
		}
		for k := range 2 {
			var z expander
			prk2 := make([]byte, h.Size())
			z.initExtract(h, prk2, ikm, salt, tmpl)
			if !bytes.Equal(prk2, want) {
				t.Fatalf("#%d.%d extract from a cloned salt HMAC %x, want %x", i, k, prk2, want)
			}
		}
		if got, want := y.expand(make([]byte, 12), labelIV, nil), hkdfExpandLabel(h, want, labelIV, nil, 12); !bytes.Equal(got, want) {
			t.Fatalf("#%d expand after extract %x, want %x", i, got, want)
		}
	}
}

// BenchmarkKeyScheduleHandshake times the derivations of one full TLS 1.3
// handshake without PSK (SHA-256: both handshake and application traffic
// secrets with their keys and IVs, both Finished MACs) the way the engine
// makes them, by expanders, next to the same derivations label by label
// with crypto/hkdf, the way they were made before.
func BenchmarkKeyScheduleHandshake(b *testing.B) {
	shared := bytes.Repeat([]byte{1}, 32)
	th := bytes.Repeat([]byte{2}, 32)
	b.Run("expander", func(b *testing.B) {
		hs := new(serverHandshake)
		var key [16]byte
		var iv [12]byte
		b.ReportAllocs()
		for b.Loop() {
			s := newEarlySecret(crypto.SHA256, nil).handshakeSecret(shared)
			hs.clientHSx.init(crypto.SHA256, s.clientHandshakeTrafficSecret(th))
			hs.serverHSx.init(crypto.SHA256, s.serverHandshakeTrafficSecret(th))
			for _, x := range []*expander{&hs.serverHSx, &hs.clientHSx} {
				x.expand(key[:], labelKey, nil)
				x.expand(iv[:], labelIV, nil)
				x.verifyData(nil, th)
			}
			ms := s.masterSecret()
			for _, app := range [][]byte{ms.serverApplicationTrafficSecret(th), ms.clientApplicationTrafficSecret(th)} {
				hs.appX.init(crypto.SHA256, app)
				hs.appX.expand(key[:], labelKey, nil)
				hs.appX.expand(iv[:], labelIV, nil)
			}
		}
	})
	b.Run("crypto-hkdf", func(b *testing.B) {
		h := crypto.SHA256
		c := constantsOf(h)
		b.ReportAllocs()
		for b.Loop() {
			s, _ := hkdf.Extract(h.New, shared, c.noPSKDerived)
			for _, label := range []string{labelServerHandshakeTraffic, labelClientHandshakeTraffic} {
				secret := hkdfExpandLabel(h, s, label, th, 32)
				hkdfExpandLabel(h, secret, labelKey, nil, 16)
				hkdfExpandLabel(h, secret, labelIV, nil, 12)
				refHMAC(h.New, hkdfExpandLabel(h, secret, labelFinished, nil, 32), th)
			}
			ms, _ := hkdf.Extract(h.New, zeros[:32], hkdfExpandLabel(h, s, labelDerived, c.empty, 32))
			for _, label := range []string{labelServerAppTraffic, labelClientAppTraffic} {
				secret := hkdfExpandLabel(h, ms, label, th, 32)
				hkdfExpandLabel(h, secret, labelKey, nil, 16)
				hkdfExpandLabel(h, secret, labelIV, nil, 12)
			}
		}
	})
}
