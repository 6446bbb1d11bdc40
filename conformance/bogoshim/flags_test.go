package main

import (
	"errors"
	"slices"
	"testing"

	"github.com/loopkv/loopkv/tlsengine"
)

// An unknown flag, with or without a connection prefix, is reported as
// unimplemented (exit 89) before anything runs; -on-handshaker- flags are
// dropped, since there is no handshaker.
func TestSplitArgsUnknownFlags(t *testing.T) {
	for _, argv := range [][]string{
		{"-server", "-no-such-flag"},
		{"-on-resume-no-such-flag", "1"},
		{"-on-initial-export-keying-material", "32"},
	} {
		_, err := splitArgs(argv)
		var u errUnimplemented
		if !errors.As(err, &u) {
			t.Errorf("%q: err %v, want unimplemented", argv, err)
		}
	}
	if _, err := splitArgs([]string{"-on-handshaker-curves", "29", "-server"}); err != nil {
		t.Errorf("-on-handshaker- flag: %v", err)
	}
	if _, err := splitArgs([]string{"-port"}); err == nil || errors.As(err, new(errUnimplemented)) {
		t.Errorf("a flag without its value: err %v, want a plain error", err)
	}
}

// Common flags apply to every connection, -on-initial- ones to the first
// and -on-resume- ones to the later ones; list flags accumulate, and
// credential flags go to the credential last started.
func TestSettingsPerConnection(t *testing.T) {
	a, err := splitArgs([]string{
		"-server", "-port", "4433", "-curves", "29", "-on-resume-curves", "23",
		"-on-initial-expect-session-miss", "-cert-file", "a.pem", "-key-file", "a.key",
		"-new-x509-credential", "-cert-file", "b.pem", "-signing-prefs", "2052", "-signing-prefs", "1027",
		"-on-shim-select-alpn", "foo", "-on-handshaker-select-alpn", "bar",
	})
	if err != nil {
		t.Fatal(err)
	}
	first, err := a.settingsFor(0)
	if err != nil {
		t.Fatal(err)
	}
	resume, err := a.settingsFor(1)
	if err != nil {
		t.Fatal(err)
	}
	if !first.server || first.port != "4433" || !first.expectSessionMiss || resume.expectSessionMiss {
		t.Errorf("first %+v, resume %+v", first, resume)
	}
	if !slices.Equal(first.curves, []uint16{29}) || !slices.Equal(resume.curves, []uint16{29, 23}) {
		t.Errorf("curves: first %v, resume %v", first.curves, resume.curves)
	}
	if first.selectALPN != "foo" {
		t.Errorf("select-alpn %q, want the shim's", first.selectALPN)
	}
	if len(first.creds) != 2 || first.creds[0].certFile != "a.pem" || first.creds[1].certFile != "b.pem" ||
		!slices.Equal(first.creds[1].prefs, []tlsengine.SignatureScheme{0x0804, 0x0403}) || first.creds[0].prefs != nil {
		t.Errorf("credentials %+v", first.creds)
	}
}

// A compliance policy limits the signature schemes to its own, and
// -signing-prefs within it keeps its order.
func TestSigningPrefsWithinPolicy(t *testing.T) {
	s := &settings{policy: policies["-wpa-202304"]}
	c := credential{prefs: []tlsengine.SignatureScheme{tlsengine.PSSWithSHA256, tlsengine.PSSWithSHA512, tlsengine.ECDSAWithP384AndSHA384}}
	if got, want := s.signingPrefs(c), []tlsengine.SignatureScheme{tlsengine.PSSWithSHA512, tlsengine.ECDSAWithP384AndSHA384}; !slices.Equal(got, want) {
		t.Errorf("within WPA: %v, want %v", got, want)
	}
	if got := s.signingPrefs(credential{}); !slices.Equal(got, policies["-wpa-202304"].schemes) {
		t.Errorf("no prefs under WPA: %v", got)
	}
	if got := (&settings{}).signingPrefs(credential{}); got != nil {
		t.Errorf("no policy, no prefs: %v, want nil", got)
	}
}
