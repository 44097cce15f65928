package main

import (
	"bytes"
	"strings"
	"testing"
)

// Each subcommand takes the flags .ci/run, .ci/release-check, .goreleaser.yaml
// and README name, into its options, with the defaults they rely on.
//
// spec: RL-2, RL-4, RL-7
func TestSubcommandFlags(t *testing.T) {
	var out bytes.Buffer
	t.Run("snapshot", func(t *testing.T) {
		for _, c := range []struct {
			args []string
			want SnapshotOptions
		}{
			{nil, SnapshotOptions{Dist: "dist"}},
			{[]string{"--dist", "/tmp/x/dist", "--version", "1.2.3"}, SnapshotOptions{Dist: "/tmp/x/dist", Version: "1.2.3"}},
		} {
			var got *SnapshotOptions
			c2 := newCmdSnapshot(&out, func(o *SnapshotOptions) error { got = o; return nil })
			c2.SetArgs(c.args)
			if err := c2.Execute(); err != nil {
				t.Fatalf("%q: %v", c.args, err)
			}
			if got.Dist != c.want.Dist || got.Version != c.want.Version || got.Out != &out {
				t.Errorf("%q: %+v, want %+v", c.args, *got, c.want)
			}
		}
	})
	t.Run("assemble", func(t *testing.T) {
		var got *AssembleOptions
		c := newCmdAssemble(&out, func(o *AssembleOptions) error { got = o; return nil })
		// as .goreleaser.yaml's sboms step passes them
		c.SetArgs([]string{"--version=1.2.3", "--mtime=1777863721", "--base-url", "https://example.test/r"})
		if err := c.Execute(); err != nil {
			t.Fatal(err)
		}
		want := AssembleOptions{Out: &out, Dist: ".", Version: "1.2.3", Mtime: "1777863721", BaseURL: "https://example.test/r"}
		if *got != want {
			t.Errorf("%+v, want %+v", *got, want)
		}
	})
	t.Run("check", func(t *testing.T) {
		var got *CheckOptions
		c := newCmdCheck(&out, func(o *CheckOptions) error { got = o; return nil })
		c.SetArgs(nil)
		if err := c.Execute(); err != nil || got.Dist != "dist" {
			t.Errorf("check: %+v, %v; want --dist dist", got, err)
		}
	})
	t.Run("manifests", func(t *testing.T) {
		var got *ManifestsOptions
		c := newCmdManifests(&out, func(o *ManifestsOptions) error { got = o; return nil })
		c.SetArgs([]string{"--dist", "d", "--ruby", "/usr/bin/ruby"})
		if err := c.Execute(); err != nil || got.Dist != "d" || got.Ruby != "/usr/bin/ruby" {
			t.Errorf("manifests: %+v, %v", got, err)
		}
	})
}

// What packaging refuses is an error, which main turns into exit 1 with
// "packaging: " and the message, as before it was on cobra.
//
// spec: RL-2
func TestSubcommandErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "usage: packaging snapshot"},
		{[]string{"nosuch"}, `unknown command "nosuch"`},
		{[]string{"assemble", "--dist", t.TempDir()}, "assemble: --version is required"},
		{[]string{"assemble", "--dist", t.TempDir(), "--version", "1.2.3", "--mtime", "noon"}, "assemble: --mtime: "},
		{[]string{"check", "--nosuch"}, "unknown flag: --nosuch"},
		{[]string{"marketplace", "extra"}, "unknown command"},
	} {
		err := run(c.args, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("packaging %q: %v, want an error with %q", c.args, err, c.want)
		}
	}
}

// --help prints the subcommand's help and is no error.
func TestSubcommandHelp(t *testing.T) {
	for _, sub := range []string{"snapshot", "assemble", "check", "manifests", "marketplace"} {
		var out bytes.Buffer
		if err := run([]string{sub, "--help"}, &out); err != nil {
			t.Errorf("%s --help: %v", sub, err)
		}
		if !strings.Contains(out.String(), "packaging "+sub) {
			t.Errorf("%s --help printed %q", sub, out.String())
		}
	}
}
