package server

import "testing"

// TestEncodingSettingsMatchRedis sets every encoding threshold that Redis
// 7.0 has, by its name and by its old alias, to good and bad values on
// both servers and compares CONFIG SET's reply and CONFIG GET's after it.
func TestEncodingSettingsMatchRedis(t *testing.T) {
	ref := startDiffRedis(t)
	ours := newOurServer()
	in70 := map[string]bool{"set-max-listpack-entries": false, "set-max-listpack-value": false} // Redis 7.2's
	values := []string{"0", "1", "100", "1kb", "-1", "-5", "abc", "9223372036854775807", "9223372036854775808", "2147483648"}
	for _, e := range encodingSettings {
		names := append([]string{e.Name}, e.Aliases...)
		for _, name := range names {
			if ok, listed := in70[name]; listed && !ok {
				continue
			}
			for _, v := range values {
				diffSetThenGet(t, ref, ours, name, v, names)
			}
		}
	}
}
