package redact

import "testing"

// Redaction is best effort: these shapes, which SEC-9 lists, pass through
// unchanged. A case that starts being redacted is good news, and the spec's
// list must lose it in the same change.
// spec: SEC-9
func TestRedactKnownLimits(t *testing.T) {
	for _, c := range []struct{ name, line string }{
		{"a cookie set from code", `document.cookie = "sid=Qx7Rt2Kp9Lm4Vb8N";`},
		{"an unlabelled 40-hex token", "checked out 3f786850e387550fdab836ed7e6dc881de23001b"},
		{"a positional secret", "setx API_KEY Qx7Rt2Kp9Lm4Vb8Nz3Wc"},
		{"sshpass -p", "sshpass -p hunter2hunter2 ssh host"},
		{"a short quoted value", `"password": "hunter"`},
		{"a short value after =", "PASSWORD=abc123"},
		{"a secret word first in a name", `tokenGithub = load()`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if out, n := Text(c.line); out != c.line || n != 0 {
				t.Errorf("now redacted (%d): %q -> %q; update SEC-9", n, c.line, out)
			}
		})
	}
}
