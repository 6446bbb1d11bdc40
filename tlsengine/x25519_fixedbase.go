package tlsengine

// X25519 ephemeral keys by a fixed-base multiplication (issue #16).
//
// crypto/ecdh computes an X25519 private key's public key eagerly, with
// the same Montgomery ladder that then computes the shared secret: two
// ladders per handshake (about 31 µs each here), the first over the fixed
// base point. filippo.io/edwards25519 computes [k]B with its precomputed
// fixed-base tables (about 12 µs), and Point.BytesMontgomery gives the u
// coordinate, which is the X25519 public key (RFC 7748's birational map,
// in the library). crypto/ecdh has no constructor that takes a public key
// instead of computing it, so x25519Key builds the ecdh.PrivateKey that
// NewPrivateKey would build, through reflection, from the private key and
// that public key: the shared secret is still crypto/ecdh's ladder, and no
// curve arithmetic here is ours.
//
// The build depends on crypto/ecdh's unexported layout, so it is checked
// once: the field names and types must be the ones this code knows, and
// keys built both ways, for fixed and random scalars, must agree in their
// public keys and in their shared secrets with a peer. Otherwise (another
// Go release, FIPS 140-only mode) x25519Key is crypto/ecdh's NewPrivateKey.

import (
	"bytes"
	"crypto/ecdh"
	"crypto/rand"
	"reflect"
	"sync"
	"unsafe"

	"filippo.io/edwards25519"
)

// x25519Key is the X25519 private key k (32 bytes, any value: clamping is
// part of X25519) with its public key, as ecdh.X25519().NewPrivateKey(k)
// returns it.
func x25519Key(k []byte) (*ecdh.PrivateKey, error) {
	if len(k) == x25519ShareLen && fixedBaseOK() {
		if priv := fixedBaseKey(k); priv != nil {
			return priv, nil
		}
	}
	return ecdh.X25519().NewPrivateKey(k)
}

// fixedBasePublic is the X25519 public key of k: the u coordinate of
// [clamp(k)]B. SetBytesWithClamping applies RFC 7748's clamping, and the
// clamped scalar, a multiple of the cofactor, names the same point reduced
// modulo the group order.
func fixedBasePublic(k []byte) []byte {
	var s edwards25519.Scalar
	if _, err := s.SetBytesWithClamping(k); err != nil {
		return nil
	}
	var p edwards25519.Point
	return p.ScalarBaseMult(&s).BytesMontgomery()
}

// privateKeyFields are ecdh.PrivateKey's fields as this code knows them
// (Go 1.26): name and kind, and for the three it sets, the type.
var privateKeyFields = []struct {
	name string
	kind reflect.Kind
	typ  reflect.Type // nil: only the kind is checked (internal types)
}{
	{"curve", reflect.Interface, reflect.TypeFor[ecdh.Curve]()},
	{"privateKey", reflect.Slice, reflect.TypeFor[[]byte]()},
	{"publicKey", reflect.Pointer, reflect.TypeFor[*ecdh.PublicKey]()},
	{"boring", reflect.Pointer, nil},
	{"fips", reflect.Pointer, nil},
}

// fixedBaseKey builds k's ecdh.PrivateKey around its fixed-base public
// key, or returns nil when the layout is not the known one.
func fixedBaseKey(k []byte) *ecdh.PrivateKey {
	pubBytes := fixedBasePublic(k)
	if pubBytes == nil {
		return nil
	}
	pub, err := ecdh.X25519().NewPublicKey(pubBytes)
	if err != nil {
		return nil
	}
	priv := new(ecdh.PrivateKey)
	v := reflect.ValueOf(priv).Elem()
	t := v.Type()
	if t.NumField() != len(privateKeyFields) {
		return nil
	}
	for i, f := range privateKeyFields {
		sf := t.Field(i)
		if sf.Name != f.name || sf.Type.Kind() != f.kind || (f.typ != nil && sf.Type != f.typ) {
			return nil
		}
	}
	curve := ecdh.X25519()
	set := func(i int, x reflect.Value) {
		f := v.Field(i)
		reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Set(x)
	}
	set(0, reflect.ValueOf(&curve).Elem()) // the interface value
	set(1, reflect.ValueOf(bytes.Clone(k)))
	set(2, reflect.ValueOf(pub))
	return priv
}

var fixedBaseChecked = sync.OnceValue(func() (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false // a layout this code does not know after all
		}
	}()
	peer, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		return false
	}
	keys := [][]byte{make([]byte, 32), bytes.Repeat([]byte{0xff}, 32)}
	for range 6 {
		k := make([]byte, 32)
		if _, err := rand.Read(k); err != nil {
			return false
		}
		keys = append(keys, k)
	}
	for _, k := range keys {
		if !sameKey(k, peer.PublicKey()) {
			return false
		}
	}
	return true
})

// fixedBaseOK reports whether fixedBaseKey's keys are crypto/ecdh's,
// checked once.
func fixedBaseOK() bool { return fixedBaseChecked() }

// sameKey reports whether the fixed-base key for k and crypto/ecdh's agree:
// public key, private key bytes and the shared secret with peer.
func sameKey(k []byte, peer *ecdh.PublicKey) bool {
	want, err := ecdh.X25519().NewPrivateKey(k)
	if err != nil {
		return false
	}
	got := fixedBaseKey(k)
	if got == nil || !got.PublicKey().Equal(want.PublicKey()) || !got.Equal(want) || got.Curve() != ecdh.X25519() {
		return false
	}
	s1, err1 := got.ECDH(peer)
	s2, err2 := want.ECDH(peer)
	return err1 == nil && err2 == nil && bytes.Equal(s1, s2)
}
