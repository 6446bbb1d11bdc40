package main

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
)

// TestHelpListsEverySettingWithItsMeaning runs --help and looks for each
// row of the settings table (and each alias) with its one-line meaning.
func TestHelpListsEverySettingWithItsMeaning(t *testing.T) {
	var out bytes.Buffer
	defer func(w io.Writer) { helpOutput = w }(helpOutput)
	helpOutput = &out
	if _, _, err := loadSettings([]string{"--help"}); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("--help: %v", err)
	}
	text := out.String()
	for _, st := range table() {
		if st.Help == "" {
			t.Errorf("%s has no help", st.Name)
			continue
		}
		i := strings.Index(text, "\n  -"+st.Name+" ")
		if i < 0 {
			t.Errorf("--help does not list %s", st.Name)
			continue
		}
		if entry := text[i:]; !strings.Contains(entry[:min(len(entry), len(st.Name)+len(st.Help)+40)], st.Help) {
			t.Errorf("--help lists %s without its meaning %q", st.Name, st.Help)
		}
		for _, a := range st.Aliases {
			if !strings.Contains(text, "\n  -"+a+" ") || !strings.Contains(text, "old name of "+st.Name) {
				t.Errorf("--help does not list %s as the old name of %s", a, st.Name)
			}
		}
	}
}
