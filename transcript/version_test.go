package transcript

import "testing"

func TestVersionBefore(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"2.0.76", "2.1.76", true}, {"2.1.75", "2.1.76", true}, {"2.1.76", "2.1.76", false},
		{"2.1.119", "2.1.120", true}, {"2.1.119", "2.1.76", false}, {"1.0.98", "2.0.76", true},
		{"2.1.76-beta", "2.1.76", false}, {"10.0.0", "9.9.9", false}, {"2.1", "2.1.0", true}, {"2.1", "2.1.1", true},
	} {
		if got := VersionBefore(c.a, c.b); got != c.want {
			t.Errorf("VersionBefore(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
