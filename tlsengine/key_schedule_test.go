package tlsengine

import (
	"bytes"
	"crypto"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/sha512"
	"hash"
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
