package cmd

import (
	"runtime/debug"
	"testing"
)

// spec: RL-12
// The release build's -X version wins; a `go install …@vX` build reports
// the module version the go command recorded; a checkout's build stays dev.
func TestVersionFrom(t *testing.T) {
	mod := func(v string) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Path: "github.com/compact-guard/compact-guard", Version: v}}
	}
	for _, tc := range []struct {
		set  string
		bi   *debug.BuildInfo
		want string
	}{
		{"0.3.1", mod("v0.3.1"), "0.3.1"},
		{"dev", mod("v0.3.1"), "0.3.1"},
		{"dev", mod("(devel)"), "dev"},
		{"dev", mod(""), "dev"},
		{"dev", nil, "dev"},
	} {
		if got := versionFrom(tc.set, tc.bi); got != tc.want {
			t.Errorf("versionFrom(%q, %v) = %q, want %q", tc.set, tc.bi, got, tc.want)
		}
	}
}
