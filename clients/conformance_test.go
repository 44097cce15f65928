package clients_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/agent"
	_ "github.com/compact-guard/compact-guard/clients"
	geminireader "github.com/compact-guard/compact-guard/clients/gemini/reader"
	"github.com/compact-guard/compact-guard/restore"
	"github.com/compact-guard/compact-guard/restore/audit"
	"github.com/compact-guard/compact-guard/settings"
	"github.com/compact-guard/compact-guard/snapshot/health"
	"github.com/compact-guard/compact-guard/transcript"
)

// recorded is, per client, a session its real client recorded with at
// least one typed prompt, one tool call and one compaction (each folder's
// README says how it was recorded). A client joins the conformance suite
// with its row here; a registered client without one fails it.
var recorded = map[settings.Agent]struct {
	path string
	// whole reads a format whose records update one another, which the
	// line readers do not (Gemini CLI, TR-88); nil: line by line.
	whole func(t *testing.T, path string) *transcript.Facts
}{
	"claude":  {path: "../transcript/testdata/cc2.1.328/manual-compaction.jsonl"},
	"codex":   {path: "../transcript/testdata/codex0.169.0/three-compactions.jsonl"},
	"qwen":    {path: "../transcript/testdata/qwen0.24.4/two-compactions.jsonl"},
	"copilot": {path: "../transcript/testdata/copilot1.0.102/manual-compaction.jsonl"},
	"gemini": {path: "gemini/reader/testdata/gemini0.61.0/two-compressions.jsonl", whole: func(t *testing.T, path string) *transcript.Facts {
		chat, err := geminireader.Read(context.Background(), path, geminireader.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return chat.Facts
	}},
}

// spec: TR-37, TR-88
// Every client's reader tells its own recorded session, and reads from it
// a typed prompt, a tool call and a compaction boundary.
func TestConformanceReaders(t *testing.T) {
	if len(agent.All()) < 5 {
		t.Fatalf("only %d clients registered", len(agent.All()))
	}
	for _, c := range agent.All() {
		t.Run(string(c.Name()), func(t *testing.T) {
			row, ok := recorded[c.Name()]
			if !ok {
				t.Fatalf("no recorded session in the conformance table for %s: add its row", c.Name())
			}
			f, err := transcript.Open(row.path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if format, known := f.Format(); format != c.Format || !known {
				t.Errorf("detected format %q (known %v), want %q", format, known, c.Format)
			}
			var x *transcript.Facts
			if row.whole != nil {
				x = row.whole(t, row.path)
			} else {
				data, err := os.ReadFile(row.path)
				if err != nil {
					t.Fatal(err)
				}
				ex := transcript.NewExtractorFor(c.Format, nil)
				for _, l := range bytes.Split(data, []byte("\n")) {
					ex.Feed(l)
				}
				x = ex.Facts()
			}
			if len(x.Prompts) == 0 || x.Prompts[0].Text == "" {
				t.Errorf("no typed prompt read: %+v", x.Prompts)
			}
			if len(x.Commands)+len(x.Files) == 0 {
				t.Errorf("no tool call read (no command, no file edit)")
			}
			if x.Compactions == 0 {
				t.Errorf("no compaction read")
			}
			if row.whole == nil {
				lb, err := f.LastBoundary(context.Background())
				if err != nil || lb < 0 {
					t.Errorf("last boundary %d %v: none found", lb, err)
				}
			}
		})
	}
}

// spec: PO-38
// A client that escapes angle brackets gets its quotes marked "| ", every
// other client's text is handed over as it is.
func TestConformanceQuoteMark(t *testing.T) {
	text := "Prompt:\n> run it > out.txt\n>\nGit: main."
	for _, c := range agent.All() {
		got := restore.ForClient(string(c.Name()), text)
		want := text
		if c.EscapesBrackets {
			want = "Prompt:\n| run it > out.txt\n|\nGit: main."
		}
		if got != want {
			t.Errorf("%s: %q, want %q", c.Name(), got, want)
		}
	}
}

// spec: IN-19, AU-14
// Every client's hooks files are where its scopes say, under the folders
// its environment names; audit knows its sessions by its title.
func TestConformanceScopes(t *testing.T) {
	for _, c := range agent.All() {
		if c.Settings.Title == "" || len(c.Settings.Scopes) == 0 {
			t.Errorf("%s: no title or no scope", c.Name())
		}
		if got := audit.Title(c.Format); got != c.Settings.Title {
			t.Errorf("%s: audit knows its sessions as %q's, want %q (its Layout)", c.Name(), got, c.Settings.Title)
		}
		for _, scope := range c.Settings.Scopes {
			home, wd := t.TempDir(), t.TempDir()
			p, err := settings.AgentPathFor(c.Name(), scope, "", fakeHost(home, wd))
			if err != nil {
				t.Errorf("%s %s: %v", c.Name(), scope, err)
				continue
			}
			if under := map[bool]string{true: home, false: wd}[scope == settings.ScopeUser]; !isUnder(p, under) {
				t.Errorf("%s %s: %s is not under %s", c.Name(), scope, p, under)
			}
		}
	}
}

// spec: IN-76, DR-1
// Every client whose hooks file install edits in place: install, then
// doctor finds every registration working, then uninstall gives the file
// back byte for byte.
func TestConformanceSettingsRoundTrip(t *testing.T) {
	for _, c := range agent.All() {
		if c.Settings.Doctor.Whole != nil {
			continue // a hooks file of its own, not edited in place (Copilot CLI: its folder's tests)
		}
		t.Run(string(c.Name()), func(t *testing.T) {
			home, wd := t.TempDir(), t.TempDir()
			h := fakeHost(home, wd)
			exe := filepath.Join(t.TempDir(), "compact-guard")
			if err := os.WriteFile(exe, []byte("#!/bin/sh\nexit 0\n"), 0o700); err != nil {
				t.Fatal(err)
			}
			path, err := settings.AgentPathFor(c.Name(), settings.ScopeUser, "", h)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			before := []byte("{\n  \"theme\": \"dark\",\n  \"model\": \"x\"\n}\n")
			if err := os.WriteFile(path, before, 0o600); err != nil {
				t.Fatal(err)
			}
			edit := func(trace settings.TraceMode, change func(d *settings.Document) ([]settings.Change, error)) *settings.Result {
				res, err := settings.Edit{Agent: c.Name(), Path: path, Now: time.Now, Backups: filepath.Join(home, "backups"), Trace: trace, Self: exe, DirPerm: 0o700, Change: change}.Apply()
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			// trust records, for a client that runs only the hooks it
			// trusts, the trust of the handlers the edit changed.
			var plan settings.TrustPlan
			trust := func(trace settings.TraceMode) {
				if c.Trust == nil || plan.Empty() {
					return
				}
				config, err := c.Trust.Config(h)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := (settings.TrustEdit{Path: config, Plan: plan, Now: time.Now, Backups: filepath.Join(home, "backups"), Trace: trace, Agent: c.Name()}).Apply(); err != nil {
					t.Fatal(err)
				}
			}
			res := edit(settings.TraceInstall, func(d *settings.Document) ([]settings.Change, error) {
				old := d.Handlers(exe)
				changes, err := d.Install(exe, "", settings.Carry{Own: true})
				plan = settings.PlanTrust(path, old, d.Handlers(exe))
				return changes, err
			})
			if len(res.Changes) == 0 {
				t.Fatalf("install changed nothing in %s", path)
			}
			trust(settings.TraceInstall)
			entries := 0
			for _, r := range settings.Check(settings.DoctorEnv{Host: h, Agent: c.Name(), Exe: exe}) {
				if r.Status == health.Fail {
					t.Errorf("doctor after install: %s", r.Text)
				}
				if r.Status == health.OK && strings.Contains(r.Text, " runs ") && strings.Contains(r.Text, exe) {
					entries++
				}
			}
			if entries != len(res.Changes) {
				t.Errorf("doctor found %d working entries running %s, install wrote %d", entries, exe, len(res.Changes))
			}
			edit(settings.TraceUninstall, func(d *settings.Document) ([]settings.Change, error) {
				old := d.Handlers(exe)
				changes := d.Uninstall(exe)
				plan = settings.PlanTrust(path, old, d.Handlers(exe))
				return changes, nil
			})
			trust(settings.TraceUninstall)
			if c.Trust != nil {
				config, _ := c.Trust.Config(h)
				if _, err := os.Stat(config); !os.IsNotExist(err) {
					t.Errorf("uninstall left %s, which install created (%v)", config, err)
				}
			}
			after, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(after, before) {
				t.Errorf("uninstall left\n%s\nwant\n%s", after, before)
			}
		})
	}
}

// fakeHost is a host whose home and current folder are home and wd, with
// an environment that names no client's folder.
func fakeHost(home, wd string) settings.Host {
	return settings.Host{
		Getenv: func(string) string { return "" },
		Home:   func() (string, error) { return home, nil },
		Getwd:  func() (string, error) { return wd, nil },
	}
}

// isUnder reports whether p lies inside dir.
func isUnder(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != "." && !filepath.IsAbs(rel) && rel[:2] != ".."
}
