package tlsengine

import (
	"bytes"
	"crypto/ecdh"
	"crypto/rand"
	"math/big"
	"testing"
)

// x25519EdgeKeys are private keys where clamping and the reduction modulo
// the group order matter: all zero, all one, each clamped bit set or
// cleared alone, and scalars at and around the group order ℓ and 2ℓ, 8ℓ.
func x25519EdgeKeys() [][]byte {
	le := func(n *big.Int) []byte {
		b := make([]byte, 32)
		n.FillBytes(b)
		for i, j := 0, 31; i < j; i, j = i+1, j-1 {
			b[i], b[j] = b[j], b[i]
		}
		return b
	}
	l, _ := new(big.Int).SetString("7237005577332262213973186563042994240857116359379907606001950938285454250989", 10)
	keys := [][]byte{make([]byte, 32), bytes.Repeat([]byte{0xff}, 32)}
	for _, bit := range []int{0, 1, 2, 254, 255} {
		k := make([]byte, 32)
		k[bit/8] |= 1 << (bit % 8)
		keys = append(keys, k)
		k = bytes.Repeat([]byte{0xff}, 32)
		k[bit/8] &^= 1 << (bit % 8)
		keys = append(keys, k)
	}
	for _, m := range []int64{1, 2, 8} {
		n := new(big.Int).Mul(l, big.NewInt(m))
		for _, d := range []int64{-8, -1, 0, 1, 8} {
			v := new(big.Int).Add(n, big.NewInt(d))
			if v.Sign() >= 0 && v.BitLen() <= 256 {
				keys = append(keys, le(v))
			}
		}
	}
	return keys
}

// TestX25519FixedBaseMatchesECDH: the fixed-base keys are crypto/ecdh's,
// for random and edge private keys, in their public keys and in the shared
// secret with random peers; and the fixed-base path is on (a Go release
// whose crypto/ecdh layout differs fails here, not silently slower).
func TestX25519FixedBaseMatchesECDH(t *testing.T) {
	if !fixedBaseOK() {
		t.Fatal("fixed-base X25519 keys are off: crypto/ecdh.PrivateKey's layout is not the one x25519_fixedbase.go knows")
	}
	keys := x25519EdgeKeys()
	for range 2000 {
		k := make([]byte, 32)
		rand.Read(k)
		keys = append(keys, k)
	}
	for i, k := range keys {
		want, err := ecdh.X25519().NewPrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		got, err := x25519Key(k)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.PublicKey().Bytes(), want.PublicKey().Bytes()) {
			t.Fatalf("key %d %x: public key %x, crypto/ecdh %x", i, k, got.PublicKey().Bytes(), want.PublicKey().Bytes())
		}
		if !bytes.Equal(got.Bytes(), k) || !got.Equal(want) {
			t.Fatalf("key %d %x: private key differs", i, k)
		}
		peer, _ := ecdh.X25519().GenerateKey(rand.Reader)
		s1, err1 := got.ECDH(peer.PublicKey())
		s2, err2 := want.ECDH(peer.PublicKey())
		if err1 != nil || err2 != nil || !bytes.Equal(s1, s2) {
			t.Fatalf("key %d %x: shared secret %x (%v), crypto/ecdh %x (%v)", i, k, s1, err1, s2, err2)
		}
		// and the peer's view of it
		s3, err := peer.ECDH(got.PublicKey())
		if err != nil || !bytes.Equal(s3, s2) {
			t.Fatalf("key %d %x: the peer's secret %x (%v), want %x", i, k, s3, err, s2)
		}
	}
	// a low-order peer is refused as crypto/ecdh refuses it
	low, _ := ecdh.X25519().NewPublicKey(make([]byte, 32))
	k, _ := x25519Key(bytes.Repeat([]byte{7}, 32))
	if _, err := k.ECDH(low); err == nil {
		t.Fatal("ECDH with the all-zero (low-order) point succeeded")
	}
}

func BenchmarkX25519Key(b *testing.B) {
	k := bytes.Repeat([]byte{0x42}, 32)
	b.Run("fixed-base", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := x25519Key(k); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("crypto-ecdh", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ecdh.X25519().NewPrivateKey(k); err != nil {
				b.Fatal(err)
			}
		}
	})
}
