package cmd

// Hostile input, unwritable folders and platform cases, run against the real
// binary (specs/robustness.md, clauses RB-n). Every identifier here starts
// with rb so that it cannot collide with the other test files of package cmd.

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/hookio/hooktest"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/watch"
)

// rbHangGuard bounds every run of the binary. It is no performance claim:
// the hooks' own deadlines are 10 s (precompact) and 5 s (postcompact), and
// a run past this bound is stuck (RB-4).
const rbHangGuard = 15 * time.Second

var (
	rbBinOnce sync.Once
	rbBinPath string
	rbBinErr  error
)

// rbBinary returns the real compact-guard binary, built once per test process
// with go build, as install.sh builds it.
func rbBinary(t testing.TB) string {
	t.Helper()
	rbBinOnce.Do(func() { rbBinPath, rbBinErr = rbBuild() })
	if rbBinErr != nil {
		t.Fatal(rbBinErr)
	}
	return rbBinPath
}

func rbBuild() (string, error) {
	dir, err := rbBinDir()
	if err != nil {
		return "", err
	}
	exe := filepath.Join(dir, "compact-guard")
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	// Built as install.sh and the release build it (benchGoBuild), so that
	// these tests run the binary users run, and TestLeanBinary measures
	// this one build instead of making its own.
	if err := benchGoBuild(".", "..", exe); err != nil {
		return "", err
	}
	return exe, nil
}

// rbBinDir is where the binary goes. cmd's TestMain (script_test.go) is
// testscript.Main, which puts copies of its commands in <tmp>/bin, first in
// PATH, and removes <tmp> when the tests end: built next to them, the binary
// goes with them. Otherwise (run in another way) it is a temp folder of its
// own, left behind.
func rbBinDir() (string, error) {
	first, _, _ := strings.Cut(os.Getenv("PATH"), string(os.PathListSeparator))
	if filepath.Base(first) == "bin" && strings.HasPrefix(filepath.Base(filepath.Dir(first)), "testscript-main") {
		dir := filepath.Join(filepath.Dir(first), "compact-guard-rb")
		return dir, os.MkdirAll(dir, 0o700)
	}
	return os.MkdirTemp("", "compact-guard-rb-")
}

// rbWorld is one isolated user: HOME, TMPDIR, Claude config folder and a
// snapshot folder three levels below Root, so that a path escaping the
// snapshot folder with ../ still lands inside Root, where rbTree sees it.
type rbWorld struct {
	Root, Home, Tmp, Claude, Snaps string
	env                            []string
}

func rbNewWorld(t testing.TB) *rbWorld {
	t.Helper()
	root := t.TempDir()
	w := &rbWorld{
		Root:   root,
		Home:   filepath.Join(root, "home"),
		Tmp:    filepath.Join(root, "tmp"),
		Claude: filepath.Join(root, "home", ".claude"),
		Snaps:  filepath.Join(root, "d1", "d2", "state", "snaps"),
	}
	for _, d := range []string{w.Home, w.Tmp, w.Claude} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch strings.ToUpper(k) {
		case "HOME", "USERPROFILE", "TMPDIR", "TMP", "TEMP", "LANG", "LANGUAGE":
			continue
		}
		if strings.HasPrefix(k, "CLAUDE") || strings.HasPrefix(k, "COMPACT_GUARD") ||
			strings.HasPrefix(k, "XDG_") || strings.HasPrefix(k, "GIT_") || strings.HasPrefix(k, "LC_") {
			continue
		}
		w.env = append(w.env, kv)
	}
	w.env = append(w.env,
		"HOME="+w.Home, "USERPROFILE="+w.Home,
		"TMPDIR="+w.Tmp, "TMP="+w.Tmp, "TEMP="+w.Tmp,
		"XDG_STATE_HOME="+filepath.Join(w.Home, ".local", "state"),
		"CLAUDE_CONFIG_DIR="+w.Claude,
		EnvDir+"="+w.Snaps,
		"GIT_CONFIG_NOSYSTEM=1",
		"LANG=C",
	)
	return w
}

// Log is compact-guard.log, in the folder above the snapshot folder.
func (w *rbWorld) Log() string { return filepath.Join(filepath.Dir(w.Snaps), hookio.LogFileName) }

// rbResult is one finished run of the binary.
type rbResult struct {
	Stdout, Stderr string
	Code           int
	Elapsed        time.Duration
}

// run runs the binary with stdin and fails the test when it outlives
// rbHangGuard.
func (w *rbWorld) run(t testing.TB, stdin []byte, args ...string) rbResult {
	t.Helper()
	cmd := exec.Command(rbBinary(t), args...)
	cmd.Env = w.env
	cmd.Dir = w.Root
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(rbHangGuard):
		cmd.Process.Kill()
		<-done
		t.Fatalf("compact-guard %s did not finish within %s (stdin %.200q)", strings.Join(args, " "), rbHangGuard, stdin)
	}
	return rbResult{Stdout: out.String(), Stderr: errOut.String(), Code: cmd.ProcessState.ExitCode(), Elapsed: time.Since(start)}
}

// precompact runs the PreCompact hook and checks what holds for every input
// (PC-1, PC-2): exit 0 and nothing on stdout but the summary hint.
func (w *rbWorld) precompact(t testing.TB, payload []byte, args ...string) rbResult {
	t.Helper()
	r := w.run(t, payload, append([]string{"precompact"}, args...)...)
	if r.Code != 0 || r.Stdout != "" && hooktest.HintProblem(r.Stdout) != "" {
		t.Fatalf("precompact: exit %d, stdout %q (stderr %q), want exit 0 and nothing but the summary hint", r.Code, r.Stdout, r.Stderr)
	}
	return r
}

// postcompact runs the SessionStart(compact) hook and returns the
// additionalContext it printed, "" for nothing (PO-C1, PO-C3).
func (w *rbWorld) postcompact(t testing.TB, payload []byte) (string, rbResult) {
	t.Helper()
	r := w.run(t, payload, "postcompact")
	if r.Code != 0 {
		t.Fatalf("postcompact: exit %d (stderr %q)", r.Code, r.Stderr)
	}
	return rbHookContext(t, r.Stdout), r
}

// rbHookContext checks that out is nothing or exactly one line of SessionStart
// hook output, and returns its additionalContext.
func rbHookContext(t testing.TB, out string) string {
	t.Helper()
	if out == "" {
		return ""
	}
	if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
		t.Fatalf("hook output is not one line: %q", out)
	}
	var ho struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &ho); err != nil || ho.HookSpecificOutput.HookEventName != "SessionStart" || ho.HookSpecificOutput.AdditionalContext == "" {
		t.Fatalf("hook output %q: %v", out, err)
	}
	return ho.HookSpecificOutput.AdditionalContext
}

// rbPayload is a JSON object of string fields, given as key, value pairs.
func rbPayload(kv ...string) []byte {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

// rbPrePayload and rbStartPayload are the PreCompact and SessionStart
// (compact) payloads Claude Code sends.
func rbPrePayload(sid, transcriptPath, cwd string) []byte {
	return rbPayload("session_id", sid, "transcript_path", transcriptPath, "cwd", cwd,
		"hook_event_name", "PreCompact", "trigger", "auto")
}

func rbStartPayload(sid, transcriptPath, cwd string) []byte {
	return rbPayload("session_id", sid, "transcript_path", transcriptPath, "cwd", cwd,
		"hook_event_name", "SessionStart", "source", "compact")
}

// rbTranscript is a small transcript in Claude Code's shape: one typed
// prompt, a Write and a failing Bash call. cwd, when set, is carried by the
// entries; crlf ends the lines with CRLF.
func rbTranscript(sid, prompt, file, cwd string, crlf bool) []byte {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	env := `,"sessionId":` + q(sid)
	if cwd != "" {
		env += `,"cwd":` + q(cwd)
	}
	lines := []string{
		`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-11-30T09:00:00.000Z","sessionId":` + q(sid) + `}`,
		`{"type":"user","message":{"role":"user","content":` + q(prompt) + `},"uuid":"u1","parentUuid":null,"isSidechain":false,"timestamp":"2026-11-30T09:00:00.000Z","promptSource":"typed","gitBranch":"main"` + env + `}`,
		`{"type":"assistant","message":{"model":"claude-opus-5-5","id":"m1","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Write","input":{"file_path":` + q(file) + `,"content":"x"}}],"usage":{"input_tokens":10,"cache_creation_input_tokens":100,"cache_read_input_tokens":1000,"output_tokens":5}},"uuid":"a1","parentUuid":"u1","isSidechain":false,"timestamp":"2026-11-30T09:00:01.000Z"` + env + `}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"File created successfully"}]},"uuid":"u2","parentUuid":"a1","isSidechain":false,"timestamp":"2026-11-30T09:00:02.000Z","toolUseResult":{"type":"create","filePath":` + q(file) + `}` + env + `}`,
		`{"type":"assistant","message":{"model":"claude-opus-5-5","id":"m2","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_2","name":"Bash","input":{"command":"go test ./...","description":"Run the tests"}}],"usage":{"input_tokens":12,"cache_creation_input_tokens":100,"cache_read_input_tokens":1100,"output_tokens":5}},"uuid":"a2","parentUuid":"u2","isSidechain":false,"timestamp":"2026-11-30T09:00:03.000Z"` + env + `}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","is_error":true,"content":"Exit code 1\n--- FAIL: TestParse (0.00s)"}]},"uuid":"u3","parentUuid":"a2","isSidechain":false,"timestamp":"2026-11-30T09:00:04.000Z","toolUseResult":"Error: Exit code 1\n--- FAIL: TestParse (0.00s)"` + env + `}`,
		`{"type":"last-prompt","lastPrompt":` + q(prompt) + `,"sessionId":` + q(sid) + `}`,
	}
	eol := "\n"
	if crlf {
		eol = "\r\n"
	}
	return []byte(strings.Join(lines, eol) + eol)
}

func rbWriteFile(t testing.TB, path string, data []byte) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// rbSnapFile is what a snapshot folder may hold under a snapshot name (SF-1)
// and besides (latest.json); everything else there is a hidden working file.
// rbWatchFile is a session's watch state (WA-8), beside the snapshot folder.
var rbWatchFile = regexp.MustCompile(`^[A-Za-z0-9-]{0,8}_[0-9a-f]{12}\.json$`)

var rbSnapFile = regexp.MustCompile(`^(snap_[0-9]{8}-[0-9]{6}_[A-Za-z0-9-]{1,8}(_[1-9][0-9]{0,3})?\.(md|json)|latest\.json)$`)

// rbCheckFolder checks the snapshot folder as a reader sees it (RB-6, SF-32,
// SF-38, SF-40): every .json under a snapshot name is a whole record whose
// .md is exactly its rendering; an .md alone is a whole rendering;
// latest.json is valid JSON. Hidden working files (.cg-*) are skipped. It
// returns the records by name.
func rbCheckFolder(t testing.TB, dir string) map[string]*snapshot.Record {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := &snapshot.Store{Dir: dir}
	records := map[string]*snapshot.Record{}
	for _, de := range des {
		fn := de.Name()
		if strings.HasPrefix(fn, ".cg-") {
			continue
		}
		if !rbSnapFile.MatchString(fn) {
			t.Fatalf("unexpected file %q in the snapshot folder", fn)
		}
		base, ext := strings.TrimSuffix(fn, filepath.Ext(fn)), filepath.Ext(fn)
		switch {
		case fn == snapshot.LatestFile:
			if _, err := s.Latest(); err != nil {
				t.Fatalf("latest.json: %v", err)
			}
		case ext == ".json":
			r, err := s.Load(base)
			if err != nil {
				t.Fatalf("%s: %v", fn, err)
			}
			md, err := os.ReadFile(filepath.Join(dir, base+".md"))
			if err != nil {
				t.Fatalf("%s has no .md: %v", fn, err)
			}
			if !bytes.Equal(md, snapshot.RenderMarkdown(r, r.Lang)) {
				t.Fatalf("%s.md (%d bytes) is not the rendering of its record", base, len(md))
			}
			records[base] = r
		case ext == ".md":
			md, err := os.ReadFile(filepath.Join(dir, fn))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(md, []byte("# compact-guard snapshot\n")) || !bytes.HasSuffix(md, []byte("`"+base+".json`, schema 1.\n")) {
				t.Fatalf("%s is not a whole rendering (%d bytes)", fn, len(md))
			}
		}
	}
	return records
}

// rbSessionSnapshot returns the name of the one snapshot recorded for sid.
func rbSessionSnapshot(t testing.TB, records map[string]*snapshot.Record, sid string) (string, *snapshot.Record) {
	t.Helper()
	var names []string
	for n, r := range records {
		if r.SessionID == sid {
			names = append(names, n)
		}
	}
	if len(names) != 1 {
		t.Fatalf("%d snapshots recorded for session %.80q (%v), want 1", len(names), sid, names)
	}
	return names[0], records[names[0]]
}

// rbTree lists every path below root with a digest of what it is, so that
// two listings tell what was created, removed or changed.
func rbTree(t testing.TB, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case d.IsDir():
			m[rel] = "dir"
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			m[rel] = fmt.Sprintf("%x", sha256.Sum256(b))
		default:
			m[rel] = d.Type().String()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// rbTreeDiff returns the paths created or changed between two listings
// (and removed ones, prefixed with "-").
func rbTreeDiff(before, after map[string]string) []string {
	var d []string
	for p, v := range after {
		if before[p] != v {
			d = append(d, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			d = append(d, "-"+p)
		}
	}
	sort.Strings(d)
	return d
}

// rbLogLines returns the log's lines.
func rbLogLines(t testing.TB, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// rbOneNewLogLine returns the one line the log gained since it had n lines.
func rbOneNewLogLine(t testing.TB, w *rbWorld, n int) string {
	t.Helper()
	lines := rbLogLines(t, w.Log())
	if len(lines) != n+1 {
		t.Fatalf("log has %d new lines, want 1: %q", len(lines)-n, lines[min(n, len(lines)):])
	}
	return lines[n]
}

// rbHostileSessionIDs are the session ids of RB-3, with what their sid8 is.
var rbHostileSessionIDs = []struct {
	name, sid, sid8 string
}{
	{"dot-dot-slash", "../../../../escape/here", "escapehe"},
	{"absolute", "/etc/cron.d/compact-guard", "etccrond"},
	{"backslash", `..\..\..\Windows\System32\x`, "WindowsS"},
	{"nul", "0f3c2a1b\x00-../x", "0f3c2a1b"},
	{"newline-log-injection", "a\nb 2026-01-01T00:00:00Z precompact session=evil outcome=ok\r", "ab2026-0"},
	{"10KB", strings.Repeat("Z/.", 3414)[:10240], "ZZZZZZZZ"},
	{"emoji", "🙂🚀🔥", "nosessid"},
	{"cyrillic", "сессия-№1", "-1"},
	{"dots", "..", "nosessid"},
	{"unicode-separators", "\u2028\u202e\ufeffab", "ab"},
}

// TestRBHostileSessionIDs runs precompact, then postcompact, with session ids
// built to escape the folder, break the log or the name: only [A-Za-z0-9-]
// reaches a file name, nothing is written outside the snapshot folder but
// the log and the session's watch state beside it, and postcompact finds
// the session's own snapshot.
// spec: RB-3 (SF-1, SF-51, SS-5, PC-1, PC-2, PC-20, WA-8)
func TestRBHostileSessionIDs(t *testing.T) {
	t.Parallel()
	for _, tc := range rbHostileSessionIDs {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := rbNewWorld(t)
			tr := rbWriteFile(t, filepath.Join(w.Root, "tr", "t.jsonl"), rbTranscript(tc.sid, "Prompt of "+tc.name, "/p/f.go", "", false))
			before := rbTree(t, w.Root)
			w.precompact(t, rbPrePayload(tc.sid, tr, ""))

			records := rbCheckFolder(t, w.Snaps)
			name, rec := rbSessionSnapshot(t, records, tc.sid)
			if n, ok := snapshot.ParseName(name); !ok || n.SID8 != tc.sid8 {
				t.Errorf("snapshot %s: sid8 %q, want %q", name, n.SID8, tc.sid8)
			}
			if len(rec.Prompts) != 1 || rec.Prompts[0].Text != "Prompt of "+tc.name {
				t.Errorf("record prompts %+v", rec.Prompts)
			}
			logRel, _ := filepath.Rel(w.Root, w.Log())
			snapsRel, _ := filepath.Rel(w.Root, w.Snaps)
			watchRel, _ := filepath.Rel(w.Root, watch.StoreFor(w.Snaps).Dir)
			for _, p := range rbTreeDiff(before, rbTree(t, w.Root)) {
				inSnaps := strings.HasPrefix(p, snapsRel+string(filepath.Separator)) && rbSnapFile.MatchString(filepath.Base(p))
				inWatch := p == watchRel || filepath.Dir(p) == watchRel && rbWatchFile.MatchString(filepath.Base(p))
				parent := p == snapsRel || strings.HasPrefix(snapsRel, p+string(filepath.Separator))
				if !inSnaps && !inWatch && !parent && p != logRel {
					t.Errorf("written outside the snapshot folder: %s", p)
				}
			}
			lines := rbLogLines(t, w.Log())
			if len(lines) != 1 || !strings.Contains(lines[0], " precompact session=") || !strings.Contains(lines[0], "snapshot="+name+".md") {
				t.Errorf("log is not one precompact line naming %s: %q", name, lines)
			}

			text, _ := w.postcompact(t, rbStartPayload(tc.sid, tr, ""))
			if want := filepath.Join(w.Snaps, name+".md"); !strings.Contains(text, want) {
				t.Errorf("postcompact does not point at %s:\n%s", want, text)
			}
		})
	}

	// An empty session id takes the transcript's file name (PC-9), and
	// postcompact without a session id prints nothing (PO-C2).
	t.Run("empty", func(t *testing.T) {
		t.Parallel()
		w := rbNewWorld(t)
		tr := rbWriteFile(t, filepath.Join(w.Root, "tr", "my session (copy).jsonl"), rbTranscript("", "Prompt of empty", "/p/f.go", "", false))
		w.precompact(t, rbPrePayload("", tr, ""))
		name, _ := rbSessionSnapshot(t, rbCheckFolder(t, w.Snaps), "my session (copy)")
		if n, _ := snapshot.ParseName(name); n.SID8 != "mysessio" {
			t.Errorf("snapshot %s, want sid8 mysessio", name)
		}
		if text, _ := w.postcompact(t, rbStartPayload("", tr, "")); text != "" {
			t.Errorf("postcompact without a session id printed %q", text)
		}
		if text, _ := w.postcompact(t, rbStartPayload("my session (copy)", tr, "")); !strings.Contains(text, name+".md") {
			t.Errorf("postcompact does not point at %s:\n%s", name, text)
		}
	})
}

// rbHostileCase is one transcript_path or cwd of RB-4.
type rbHostileCase struct {
	name       string
	transcript string         // the payload's transcript_path
	cwd        string         // the payload's cwd
	wantLog    *regexp.Regexp // what the log line must say
	// check looks at the record when the case has more to prove.
	check func(t *testing.T, rec *snapshot.Record)
	// slow marks a transcript so large that postcompact's deadline may end
	// its compaction check, and with it the pointer (SS-10).
	slow bool
}

// rbCheckHostile runs precompact and postcompact on one hostile case (RB-4):
// exit 0 within the hang guard, nothing on stdout, a snapshot, one log line
// naming the problem; postcompact prints nothing or points at that snapshot.
func rbCheckHostile(t *testing.T, w *rbWorld, sid string, tc rbHostileCase) {
	t.Helper()
	r := w.precompact(t, rbPrePayload(sid, tc.transcript, tc.cwd))
	t.Logf("precompact on %s: %s", tc.name, r.Elapsed.Round(time.Millisecond))
	line := rbOneNewLogLine(t, w, 0)
	if !strings.Contains(line, " precompact session="+sid+" outcome=") || !tc.wantLog.MatchString(line) {
		t.Errorf("log line %q does not match %q", line, tc.wantLog)
	}
	name, rec := rbSessionSnapshot(t, rbCheckFolder(t, w.Snaps), sid)
	if tc.check != nil {
		tc.check(t, rec)
	}
	text, pr := w.postcompact(t, rbStartPayload(sid, tc.transcript, tc.cwd))
	t.Logf("postcompact on %s: %s", tc.name, pr.Elapsed.Round(time.Millisecond))
	switch {
	case text == "" && tc.slow:
		t.Logf("postcompact gave no pointer: its deadline ended the compaction check")
	case !strings.Contains(text, filepath.Join(w.Snaps, name+".md")):
		t.Errorf("postcompact does not point at %s:\n%s", name, text)
	}
}

// TestRBHostileTranscriptPath: a directory or a missing file as the
// transcript, no transcript at all, and a cwd that does not exist.
// spec: RB-4 (PC-1, PC-2, PC-3, PC-9, PC-12, PC-20)
func TestRBHostileTranscriptPath(t *testing.T) {
	t.Parallel()
	rbRunHostile(t, []rbHostileMaker{
		{"directory", func(t *testing.T, w *rbWorld) rbHostileCase {
			return rbHostileCase{transcript: w.Root, wantLog: regexp.MustCompile(`outcome=warn .*not a regular file \(directory\)`)}
		}},
		{"missing", func(t *testing.T, w *rbWorld) rbHostileCase {
			return rbHostileCase{transcript: filepath.Join(w.Root, "nope", "gone.jsonl"), wantLog: regexp.MustCompile(`outcome=warn .*transcript: .*(no such file|cannot find)`)}
		}},
		{"none", func(t *testing.T, w *rbWorld) rbHostileCase {
			return rbHostileCase{wantLog: regexp.MustCompile(`outcome=warn .*no transcript_path and none found`)}
		}},
		{"cwd-missing", func(t *testing.T, w *rbWorld) rbHostileCase {
			return rbHostileCase{
				transcript: rbWriteFile(t, filepath.Join(w.Root, "good.jsonl"), rbTranscript("s", "Fix the parser", "/p/a.go", "", false)),
				cwd:        filepath.Join(w.Root, "no such dir"),
				wantLog:    regexp.MustCompile(`outcome=warn .*cwd .*no such dir.* does not exist`),
				check: func(t *testing.T, rec *snapshot.Record) {
					if len(rec.Prompts) != 1 || rec.Prompts[0].Text != "Fix the parser" {
						t.Errorf("prompts %+v", rec.Prompts)
					}
					if rec.Git == nil || rec.Git.Repo || !strings.Contains(rec.Git.Error, "does not exist") {
						t.Errorf("git %+v, want the missing cwd recorded", rec.Git)
					}
				},
			}
		}},
	})
}

// rbHostileMaker makes one case in the world of its subtest.
type rbHostileMaker struct {
	name string
	make func(t *testing.T, w *rbWorld) rbHostileCase
}

// rbRunHostile runs each case as a parallel subtest in a world of its own.
func rbRunHostile(t *testing.T, makers []rbHostileMaker) {
	for _, m := range makers {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			w := rbNewWorld(t)
			tc := m.make(t, w)
			tc.name = m.name
			rbCheckHostile(t, w, "0f3c2a1b-"+m.name, tc)
		})
	}
}

// rbCheckUnwritable runs precompact and postcompact for a session whose
// snapshot folder cannot be written (RB-5): exit 0, nothing on stdout,
// nothing under a snapshot name, the failure logged (or, when the log's own
// folder is unwritable, on stderr), a marker, and postcompact's failure
// notice with the reason and the log's path, saying whether the log could be
// written.
func rbCheckUnwritable(t *testing.T, w *rbWorld, reason *regexp.Regexp, logWritable bool) {
	t.Helper()
	sid := "0f3c2a1b/../../unwritable" // only the hash and sid8 reach the marker's name (SF-51)
	tr := rbWriteFile(t, filepath.Join(w.Root, "t.jsonl"), rbTranscript(sid, "Keep this prompt", "/p/a.go", "", false))
	r := w.precompact(t, rbPrePayload(sid, tr, ""))
	if fi, err := os.Stat(w.Snaps); err == nil && fi.IsDir() {
		des, _ := os.ReadDir(w.Snaps)
		for _, de := range des {
			if strings.HasPrefix(de.Name(), "snap_") || strings.HasPrefix(de.Name(), ".cg-") {
				t.Errorf("left in the snapshot folder: %s", de.Name())
			}
		}
	}
	if logWritable {
		line := rbOneNewLogLine(t, w, 0)
		if !strings.Contains(line, "precompact session="+sid+" outcome=failed") || !strings.Contains(line, "snapshot not written") || !reason.MatchString(line) {
			t.Errorf("log line %q does not report the failure (%s)", line, reason)
		}
	} else if !strings.Contains(r.Stderr, "compact-guard: writing log:") {
		t.Errorf("the log cannot be written, and stderr does not say so: %q", r.Stderr)
	}
	primary, _ := snapshot.FailureDirs(w.Snaps)
	markers, _ := filepath.Glob(filepath.Join(primary, "fail_0f3c2a1b_*.json"))
	fallback, _ := filepath.Glob(filepath.Join(w.Tmp, "compact-guard-*", "fail_0f3c2a1b_*.json"))
	if len(markers)+len(fallback) != 1 {
		t.Errorf("failure markers: %v in %s, %v in the temp folder; want one", markers, primary, fallback)
	}

	text, _ := w.postcompact(t, rbStartPayload(sid, tr, ""))
	if !strings.Contains(text, "wrote no snapshot") || !reason.MatchString(text) {
		t.Errorf("postcompact does not give the failure notice with %s:\n%s", reason, text)
	}
	// The notice names the log as written only when it could be; otherwise
	// it says that no log could be written, and where it was tried (RB-26).
	want := "The compact-guard log is at " + w.Log()
	if !logWritable {
		want = "No compact-guard log could be written (tried " + w.Log() + ": "
	}
	if !strings.Contains(text, want) {
		t.Errorf("log writable %v: the notice lacks %q:\n%s", logWritable, want, text)
	}
}

// TestRBUnwritableFolder: a regular file where the snapshot folder should
// be, and a snapshot folder below a regular file (so that the log and the
// marker's folder cannot be made either: the marker goes to the per-user
// temp folder, the log failure to stderr).
// spec: RB-5 (PC-1, PC-2, PC-17, SF-30, SF-50, SF-52, PO-C5)
func TestRBUnwritableFolder(t *testing.T) {
	t.Parallel()
	t.Run("file-in-place", func(t *testing.T) {
		t.Parallel()
		w := rbNewWorld(t)
		rbWriteFile(t, w.Snaps, []byte("a regular file where the snapshot folder should be\n"))
		rbCheckUnwritable(t, w, regexp.MustCompile(`not a folder|not a directory|exists`), true)
	})
	t.Run("folder-in-file", func(t *testing.T) {
		t.Parallel()
		w := rbNewWorld(t)
		rbWriteFile(t, filepath.Dir(w.Snaps), []byte("a regular file above the snapshot folder\n"))
		rbCheckUnwritable(t, w, regexp.MustCompile(`not a directory|cannot find the path|mkdir`), false)
	})
}

// TestRBCRLFTranscript: the same transcript with CRLF line ends gives the
// same prompts, files and commands as with LF.
// spec: RB-8
func TestRBCRLFTranscript(t *testing.T) {
	t.Parallel()
	w := rbNewWorld(t)
	var recs []*snapshot.Record
	for _, crlf := range []bool{false, true} {
		sid := fmt.Sprintf("0f3c2a1b-crlf-%v", crlf)
		prompt := "Fix the CRLF parser\nin two lines"
		tr := rbWriteFile(t, filepath.Join(w.Root, sid+".jsonl"), rbTranscript(sid, prompt, `C:\Users\Пётр\Мой проект\main.go`, "", crlf))
		w.precompact(t, rbPrePayload(sid, tr, ""))
		_, rec := rbSessionSnapshot(t, rbCheckFolder(t, w.Snaps), sid)
		if len(rec.Prompts) != 1 || rec.Prompts[0].Text != prompt {
			t.Errorf("crlf=%v: prompts %+v", crlf, rec.Prompts)
		}
		if len(rec.Files) != 1 || rec.Files[0].Path != `C:\Users\Пётр\Мой проект\main.go` {
			t.Errorf("crlf=%v: files %+v", crlf, rec.Files)
		}
		if len(rec.Commands) != 1 || rec.Commands[0].Command != "go test ./..." || rec.Commands[0].Outcome != "error" {
			t.Errorf("crlf=%v: commands %+v", crlf, rec.Commands)
		}
		if rec.Stats.Corrupt != 0 {
			t.Errorf("crlf=%v: %d corrupt lines", crlf, rec.Stats.Corrupt)
		}
		recs = append(recs, rec)
	}
	if len(recs) == 2 && recs[0].Stats.Lines != recs[1].Stats.Lines {
		t.Errorf("lines read: LF %d, CRLF %d", recs[0].Stats.Lines, recs[1].Stats.Lines)
	}
}

// TestRBCwdWithSpacesAndCyrillic: a project folder whose path holds spaces
// and Cyrillic letters, a git repository on a Cyrillic branch: the cwd,
// branch and root are recorded, and the pointer names the branch and the
// snapshot path.
// spec: RB-8 (PC-12, PC-13)
func TestRBCwdWithSpacesAndCyrillic(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
	w := rbNewWorld(t)
	proj := filepath.Join(w.Root, "Мой проект", "with spaces & ёж")
	if err := os.MkdirAll(proj, 0o700); err != nil {
		t.Fatal(err)
	}
	const branch = "фича/проверка-1"
	git := func(args ...string) {
		t.Helper()
		c := exec.Command("git", append([]string{"-c", "user.name=RB", "-c", "user.email=rb@example.com", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"}, args...)...)
		c.Dir, c.Env = proj, w.env
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("checkout", "-q", "-b", branch)
	rbWriteFile(t, filepath.Join(proj, "README.md"), []byte("проект\n"))
	git("add", ".")
	git("commit", "-q", "-m", "первый коммит")
	rbWriteFile(t, filepath.Join(proj, "новый файл.txt"), []byte("x\n"))

	sid := "0f3c2a1b-cyrillic-cwd"
	tr := rbWriteFile(t, filepath.Join(w.Root, sid+".jsonl"), rbTranscript(sid, "Почини тест", filepath.Join(proj, "main.go"), proj, false))
	w.precompact(t, rbPrePayload(sid, tr, proj))
	name, rec := rbSessionSnapshot(t, rbCheckFolder(t, w.Snaps), sid)
	if rec.Cwd != proj {
		t.Errorf("cwd %q, want %q", rec.Cwd, proj)
	}
	if rec.Git == nil || !rec.Git.Repo || rec.Git.Branch != branch || rec.Git.ChangeCount != 1 {
		t.Fatalf("git %+v, want branch %q with 1 change", rec.Git, branch)
	}
	wantRoot, _ := filepath.EvalSymlinks(proj)
	if gotRoot, _ := filepath.EvalSymlinks(rec.Git.Root); gotRoot != wantRoot {
		t.Errorf("git root %q, want %q", rec.Git.Root, proj)
	}
	text, _ := w.postcompact(t, rbStartPayload(sid, tr, proj))
	if !strings.Contains(text, filepath.Join(w.Snaps, name+".md")) || !strings.Contains(text, branch) {
		t.Errorf("pointer does not name the snapshot and branch %q:\n%s", branch, text)
	}
}

// runOpenStdin runs the binary with payload on a stdin that stays open until
// the process ends or bound passes; it reports whether the process ended.
func (w *rbWorld) runOpenStdin(t testing.TB, payload []byte, bound time.Duration, args ...string) (rbResult, bool) {
	t.Helper()
	r, wr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer wr.Close()
	cmd := exec.Command(rbBinary(t), args...)
	cmd.Env, cmd.Dir, cmd.Stdin = w.env, w.Root, r
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	if _, err := wr.Write(payload); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	ended := true
	select {
	case <-done:
	case <-time.After(bound):
		ended = false
		cmd.Process.Kill()
		<-done
	}
	return rbResult{Stdout: out.String(), Stderr: errOut.String(), Code: cmd.ProcessState.ExitCode(), Elapsed: time.Since(start)}, ended
}

// TestRBStdinLeftOpen: Claude Code closes a hook's stdin after the payload,
// but the hooks' deadlines must not depend on it. With the payload (whole or
// half) written and stdin left open, each hook ends within a bound of a few
// times its --timeout (a hang guard, not a performance claim), and
// precompact writes the snapshot the whole payload asks for.
// spec: RB-9 (PC-3, PO-C1)
func TestRBStdinLeftOpen(t *testing.T) {
	t.Parallel()
	const timeout, bound = "2s", 8 * time.Second
	sid := "0f3c2a1b-open-stdin"
	for _, tc := range []struct {
		name, hook string
		payload    func(tr string) []byte
	}{
		{"precompact-whole-payload", "precompact", func(tr string) []byte { return rbPrePayload(sid, tr, "") }},
		{"precompact-half-payload", "precompact", func(tr string) []byte { p := rbPrePayload(sid, tr, ""); return p[:len(p)/2] }},
		{"postcompact-whole-payload", "postcompact", func(tr string) []byte { return rbStartPayload(sid, tr, "") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := rbNewWorld(t)
			tr := rbWriteFile(t, filepath.Join(w.Root, sid+".jsonl"), rbTranscript(sid, "Prompt", "/p/a.go", "", false))
			r, ended := w.runOpenStdin(t, tc.payload(tr), bound, tc.hook, "--timeout", timeout)
			t.Logf("%s ended after %s", tc.hook, r.Elapsed.Round(time.Millisecond))
			if !ended {
				t.Fatalf("%s with stdin left open did not end within %s (--timeout %s)", tc.hook, bound, timeout)
			}
			if r.Code != 0 || (tc.hook == "precompact" && r.Stdout != "" && hooktest.HintProblem(r.Stdout) != "") {
				t.Errorf("exit %d, stdout %q", r.Code, r.Stdout)
			}
			if tc.name == "precompact-whole-payload" {
				rbSessionSnapshot(t, rbCheckFolder(t, w.Snaps), sid)
			}
		})
	}
}

// TestRBInvalidByteKeepsSessionID: a PreCompact payload in UTF-8 with one
// invalid byte (in its custom instructions) is still read as UTF-8, so a
// non-ASCII session id stays what it is and the SessionStart payload, clean,
// finds the snapshot. Decoded as Windows-1252 the id changed and the
// session got no pointer.
// spec: RB-23 (PC-5)
func TestRBInvalidByteKeepsSessionID(t *testing.T) {
	t.Parallel()
	w := rbNewWorld(t)
	sid := "сессия-№1"
	tr := rbWriteFile(t, filepath.Join(w.Root, "t.jsonl"), rbTranscript(sid, "Keep this prompt", "/p/a.go", "", false))
	clean := rbPrePayload(sid, tr, "")
	pre := append(bytes.TrimSuffix(clean, []byte("}")), []byte(",\"custom_instructions\":\"keep \xff this\"}")...)
	w.precompact(t, pre)
	_, rec := rbSessionSnapshot(t, rbCheckFolder(t, w.Snaps), sid)
	if rec.CustomInstructions == nil || *rec.CustomInstructions != "keep \ufffd this" {
		t.Errorf("custom instructions %v, want the invalid byte as U+FFFD", rec.CustomInstructions)
	}
	if text, _ := w.postcompact(t, rbStartPayload(sid, tr, "")); !strings.Contains(text, "Keep this prompt") {
		t.Errorf("no pointer for the session:\n%s", text)
	}
}

// TestRBHelpFlagInHook: -h or --help in a hook's command (a slip in
// settings.json) prints the help on stderr, and the hook still runs as if
// the flag were absent, saying so in its log line; run by hand at a terminal
// (or with stdin from /dev/null) it only prints the help.
// spec: RB-24 (PC-21, PC-2)
func TestRBHelpFlagInHook(t *testing.T) {
	t.Parallel()
	w := rbNewWorld(t)
	sid := "a1b2c3d4-0000-4000-8000-0000000000h1"
	tr := rbWriteFile(t, filepath.Join(w.Root, "t.jsonl"), rbTranscript(sid, "Keep this prompt", "/p/a.go", "", false))
	r := w.precompact(t, rbPrePayload(sid, tr, ""), "--keep", "5", "-h")
	if !strings.Contains(r.Stderr, "Usage:") {
		t.Errorf("precompact -h printed no help on stderr: %q", r.Stderr)
	}
	if _, rec := rbSessionSnapshot(t, rbCheckFolder(t, w.Snaps), sid); rec == nil {
		t.Fatal("precompact -h wrote no snapshot")
	}
	if line := rbOneNewLogLine(t, w, 0); !strings.Contains(line, "outcome=warn") || !strings.Contains(line, "flags not used: --help") {
		t.Errorf("the log line does not say --help was not used: %q", line)
	}
	out := w.run(t, rbStartPayload(sid, tr, ""), "postcompact", "--help")
	if out.Code != 0 || !strings.Contains(rbHookContext(t, out.Stdout), "Keep this prompt") || !strings.Contains(out.Stderr, "Usage:") {
		t.Errorf("postcompact --help: exit %d, stdout %q, stderr %.100q", out.Code, out.Stdout, out.Stderr)
	}

	// By hand, with no payload piped in, help is all there is.
	cmd := exec.Command(rbBinary(t), "precompact", "--help")
	cmd.Env = w.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stdout.Len() != 0 || !strings.Contains(stderr.String(), "Usage:") {
		t.Errorf("precompact --help by hand: %v, stdout %q, stderr %.100q", err, stdout.String(), stderr.String())
	}
	if n := len(rbLogLines(t, w.Log())); n != 2 {
		t.Errorf("precompact --help by hand ran the hook: the log has %d lines, want 2:\n%s", n, w.Log())
	}
}
