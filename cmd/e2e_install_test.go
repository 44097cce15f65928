//go:build e2e

package cmd_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestE2EInstall proves the ways to install compact-guard without Go
// (specs/install.md PL-8, NP-4) with the real client and the artifacts of a
// release build only: the Claude Code plugin from its marketplace, and
// `npx compact-guard install` from an npm registry. Both then see a
// compaction through to the pointer in the next model request. Without
// $COMPACT_GUARD_DIST it first runs the documented release command.
//
// spec: RL-1
func TestE2EInstall(t *testing.T) {
	claude := e2eRequireClaude(t)
	dist := e2eRequireDist(t)
	for _, sc := range []struct {
		name string
		run  func(*testing.T, e2eClient, e2eDist)
	}{
		{"PL8_Plugin", e2eScenarioPlugin},
		{"NP4_Npx", e2eScenarioNpx},
		{"IN86_EveryClient", e2eScenarioEveryClient},
	} {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			sc.run(t, claude, dist)
		})
	}
}

// e2eDist is a release build's dist folder (specs/install.md RL-2).
type e2eDist struct {
	Dir     string
	Version string
}

var (
	e2eDistOnce sync.Once
	e2eDistVal  e2eDist
	e2eDistErr  error
)

// e2eRequireDist returns the release build to test: $COMPACT_GUARD_DIST
// (.ci/run builds it first), else the snapshot build that the documented
// release command makes in the repository's dist/.
func e2eRequireDist(t *testing.T) e2eDist {
	t.Helper()
	e2eDistOnce.Do(func() {
		dir := os.Getenv("COMPACT_GUARD_DIST")
		if dir == "" {
			dir, e2eDistErr = filepath.Abs(filepath.Join("..", "dist"))
			if e2eDistErr != nil {
				return
			}
			// The contributor's release build (RL-8): the go command alone,
			// the same binaries as goreleaser's.
			c := exec.Command("go", "run", "./packaging", "snapshot")
			c.Dir = ".."
			if out, err := c.CombinedOutput(); err != nil {
				e2eDistErr = fmt.Errorf("release build: %v\n%s", err, out)
				return
			}
		}
		var meta struct {
			Version string `json:"version"`
		}
		b, err := os.ReadFile(filepath.Join(dir, "metadata.json"))
		if err == nil {
			err = json.Unmarshal(b, &meta)
		}
		if err == nil && meta.Version == "" {
			err = fmt.Errorf("no version in %s", filepath.Join(dir, "metadata.json"))
		}
		e2eDistVal, e2eDistErr = e2eDist{Dir: dir, Version: meta.Version}, err
	})
	if e2eDistErr != nil {
		t.Fatalf("release build: %v", e2eDistErr)
	}
	return e2eDistVal
}

// e2eCompactOnce runs the two scripted turns, a /compact and one more prompt
// in a new project of w named project, and checks what every install path must give: a
// snapshot named by the pointer in the first model request after the
// compaction, taken by precompact runs PreCompact runs (1 unless the hooks
// are registered twice).
func e2eCompactOnce(t *testing.T, w *e2eWorld, project string, precompactRuns int) {
	t.Helper()
	proj := w.NewProject(project)
	fake := e2eNewFake(t, 2000)
	e2eFailOnExit(t, fake)
	e2eScriptTwoTurns(fake, proj)
	fake.Script(e2eReply{e2eText("After compaction.")})
	sid := e2eRunTwoTurns(w, fake, proj)
	w.Compact(fake, proj, sid, "")
	w.Claude(fake, proj, sid, "What was I doing?")

	snaps := e2eSnapshots(t, w.SnapDir, sid)
	if len(snaps) == 0 {
		t.Fatalf("no snapshot of session %s in %s", sid, w.SnapDir)
	}
	_, after := e2ePostCompaction(t, fake, 1)
	named := false
	for _, s := range snaps {
		named = named || e2eContextWith(after, s.MDPath) != ""
	}
	if !named {
		t.Errorf("request #%d after compaction has no %q naming a snapshot of %v; contexts: %q", after.Seq, e2eAdditionalContext, snaps, e2eAdditionalContexts(after))
	}
	// One registration wins (PL-26): one pointer, whatever registers it.
	pointers := 0
	for _, c := range e2eAdditionalContexts(after) {
		if strings.Contains(c, "mechanical snapshot") {
			pointers++
		}
	}
	if pointers != 1 {
		t.Errorf("request #%d carries %d pointers, want 1: %q", after.Seq, pointers, e2eAdditionalContexts(after))
	}
	log, err := os.ReadFile(w.Log)
	if err != nil {
		t.Fatal(err)
	}
	// A plugin's run that stood down for the settings file's (PL-26) is
	// logged, and is no run of the hook's work.
	ran := 0
	for _, line := range strings.Split(string(log), "\n") {
		if strings.Contains(line, " precompact session="+sid+" ") && !strings.Contains(line, "stood down: ") {
			ran++
		}
	}
	if n := ran; n != precompactRuns {
		t.Errorf("precompact ran %d times for the compaction, want %d:\n%s", n, precompactRuns, log)
	}
}

// run runs a program in the world's environment (no fake API) and returns
// its combined output, failing the test when it fails.
func (w *e2eWorld) run(dir string, extraEnv []string, name string, args ...string) string {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, name, args...)
	c.Dir = dir
	c.Env = append(w.env(nil), extraEnv...)
	c.Stdin = strings.NewReader("")
	c.WaitDelay = 5 * time.Second
	out, err := c.CombinedOutput()
	w.mu.Lock()
	w.runs = append(w.runs, fmt.Sprintf("%s %q: err=%v\n%s", name, args, err, out))
	w.mu.Unlock()
	if err != nil {
		w.t.Fatalf("%s %q: %v\n%s", filepath.Base(name), args, err, out)
	}
	return string(out)
}

// ---------------------------------------------------------------------------
// The plugin, from the release's marketplace file.

// spec: PL-8
//
// e2eScenarioPlugin installs the plugin the way the README says:
// `claude plugin marketplace add compact-guard/compact-guard` (the client
// clones the repository from GitHub and reads its
// .claude-plugin/marketplace.json), then `claude plugin install
// compact-guard@compact-guard-tools`, which downloads the archive the
// marketplace names from the newest GitHub release. The client accepts
// archive URLs only over https and never on a loopback host, so GitHub is
// served from loopback: the client and the git it runs reach github.com
// through an HTTPS proxy (HTTPS_PROXY) on 127.0.0.1 that sends every
// CONNECT to a TLS server under a test CA they trust (NODE_EXTRA_CA_CERTS,
// GIT_SSL_CAINFO). That server holds a git repository with this
// repository's marketplace file and the release build's plugin archive.
// Nothing leaves the machine.
func e2eScenarioPlugin(t *testing.T, claude e2eClient, dist e2eDist) {
	srv := e2eNewGitHub(t, dist)
	w := e2eNewWorld(t, e2eBinaries{}, claude, e2eNoHooks)
	w.ExtraEnv = append(w.ExtraEnv, srv.Env...)

	w.run(w.Home, nil, claude.Argv[0], "plugin", "marketplace", "add", "compact-guard/compact-guard")
	out := w.run(w.Home, nil, claude.Argv[0], "plugin", "install", "compact-guard@compact-guard-tools")
	if !strings.Contains(out, "compact-guard@compact-guard-tools") {
		t.Errorf("plugin install said:\n%s", out)
	}
	if got := srv.Served(); !strings.Contains(got, "/info/refs") || !strings.Contains(got, "/releases/latest/download/compact-guard-plugin.zip") {
		t.Errorf("the client did not clone the marketplace and fetch the plugin from the release; served: %s", got)
	}

	// How the client recorded it (specs/install.md PL-5).
	var installed struct {
		Plugins map[string][]struct {
			Scope, InstallPath, Version string
		} `json:"plugins"`
	}
	b, err := os.ReadFile(filepath.Join(w.Home, ".claude", "plugins", "installed_plugins.json"))
	if err == nil {
		err = json.Unmarshal(b, &installed)
	}
	if err != nil {
		t.Fatalf("installed_plugins.json: %v", err)
	}
	inst := installed.Plugins["compact-guard@compact-guard-tools"]
	if len(inst) != 1 || inst[0].Version != dist.Version || inst[0].Scope != "user" {
		t.Fatalf("installed_plugins.json records %+v, want one user-scope installation of %s:\n%s", inst, dist.Version, b)
	}
	settings, err := os.ReadFile(w.Settings)
	if err != nil || !strings.Contains(string(settings), `"compact-guard@compact-guard-tools": true`) {
		t.Errorf("settings do not enable the plugin (%v):\n%s", err, settings)
	}

	e2eCompactOnce(t, w, "проект демо", 1)

	// doctor, run from the plugin's own binary, sees the plugin's hooks.
	bin := filepath.Join(inst[0].InstallPath, "bin", "compact-guard")
	out = w.run(w.Home, nil, bin, "doctor", "--no-self-test")
	for _, want := range []string{"plugin compact-guard@compact-guard-tools " + dist.Version, "PreCompact [manual|auto] runs ${CLAUDE_PLUGIN_ROOT}/bin/compact-guard precompact", "all checks passed"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}

	// The same hooks in the settings file too (PL-26 to PL-29): doctor
	// explains that the plugin gives way, and the client runs both
	// handlers, but the plugin's stands down: one snapshot, one pointer.
	// --settings: install consults no other file, so the note of PL-28
	// is doctor's here.
	w.run(w.Home, nil, bin, "install", "--settings", w.Settings)
	out = w.run(w.Home, nil, bin, "doctor", "--no-self-test")
	if !strings.Contains(out, "both plugin compact-guard@compact-guard-tools and user settings") || !strings.Contains(out, "stand down") {
		t.Errorf("doctor does not explain the double registration:\n%s", out)
	}
	e2eCompactOnce(t, w, "второй проект", 1)
	if log, _ := os.ReadFile(w.Log); !strings.Contains(string(log), "stood down: ") {
		t.Errorf("the plugin's precompact did not stand down:\n%s", log)
	}
}

// e2eMarketplaceRepo makes a bare git repository holding this repository's
// .claude-plugin/marketplace.json at <root>/compact-guard/compact-guard.git
// and returns root, for git http-backend.
func e2eMarketplaceRepo(t *testing.T) string {
	t.Helper()
	mp, err := os.ReadFile(filepath.Join("..", ".claude-plugin", "marketplace.json"))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	work, bare := filepath.Join(root, "work"), filepath.Join(root, "compact-guard", "compact-guard.git")
	if err := os.MkdirAll(filepath.Join(work, ".claude-plugin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, ".claude-plugin", "marketplace.json"), mp, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range [][]string{
		{"-C", work, "init", "-q", "-b", "main"},
		{"-C", work, "add", "."},
		{"-C", work, "-c", "user.name=e2e", "-c", "user.email=e2e@example.invalid", "commit", "-q", "-m", "marketplace"},
		{"clone", "-q", "--bare", work, bare},
	} {
		cmd := exec.Command("git", c...)
		cmd.Env = append(e2eBaseEnv(), "HOME="+root)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(c, " "), err, out)
		}
	}
	return root
}

// e2eGitHub serves, on loopback through an HTTPS proxy, what the plugin's
// installation asks of github.com: the repository (git http-backend, the
// smart HTTP protocol, which shallow clones need) and the newest release's
// plugin archive.
type e2eGitHub struct {
	// Env points the client at the proxy and the test CA.
	Env []string

	mu     sync.Mutex
	served []string
}

// Served lists the paths served so far, and the refusals.
func (s *e2eGitHub) Served() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.served, " ")
}

func (s *e2eGitHub) note(format string, a ...any) {
	s.mu.Lock()
	s.served = append(s.served, fmt.Sprintf(format, a...))
	s.mu.Unlock()
}

func e2eNewGitHub(t *testing.T, dist e2eDist) *e2eGitHub {
	t.Helper()
	s := &e2eGitHub{}
	execPath, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Fatalf("git --exec-path: %v", err)
	}
	git := &cgi.Handler{
		Path: filepath.Join(strings.TrimSpace(string(execPath)), "git-http-backend"),
		Env:  []string{"GIT_PROJECT_ROOT=" + e2eMarketplaceRepo(t), "GIT_HTTP_EXPORT_ALL=1"},
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "compact-guard e2e CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true,
		KeyUsage:    x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:    []string{"github.com"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	files := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if p == "/compact-guard/compact-guard/releases/latest/download/compact-guard-plugin.zip" {
			s.note("%s", p)
			http.ServeFile(w, r, filepath.Join(dist.Dir, "compact-guard-plugin.zip"))
			return
		}
		if strings.HasPrefix(p, "/compact-guard/compact-guard.git/") {
			s.note("%s", p)
			git.ServeHTTP(w, r)
			return
		}
		s.note("404:%s", p)
		http.NotFound(w, r)
	})
	tlsLn, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}})
	if err != nil {
		t.Fatal(err)
	}
	tlsSrv := &http.Server{Handler: files}
	go tlsSrv.Serve(tlsLn)

	proxyLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	proxy := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect || r.Host != "github.com:443" {
			s.note("refused:%s %s", r.Method, r.Host)
			http.Error(w, "only github.com is served here", http.StatusForbidden)
			return
		}
		up, err := net.Dial("tcp", tlsLn.Addr().String())
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			up.Close()
			return
		}
		io.WriteString(conn, "HTTP/1.1 200 Connection established\r\n\r\n")
		go func() { io.Copy(up, conn); up.Close() }()
		io.Copy(conn, up)
		conn.Close()
	})}
	go proxy.Serve(proxyLn)
	t.Cleanup(func() {
		proxy.Close()
		tlsSrv.Close()
	})
	url := "http://" + proxyLn.Addr().String()
	s.Env = []string{"HTTPS_PROXY=" + url, "https_proxy=" + url, "NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
		"NODE_EXTRA_CA_CERTS=" + caFile, "GIT_SSL_CAINFO=" + caFile, "GIT_TERMINAL_PROMPT=0"}
	return s
}

// ---------------------------------------------------------------------------
// npx, from a local npm registry.

// e2eVerdaccioVersion is the local registry the npm scenario publishes to;
// 6.8.0 is the newest that runs on Node 20, and its node-fetch dependency
// needs pinning to 2.7.0 to install.
const e2eVerdaccioVersion = "6.8.0"

var (
	e2eVerdaccioOnce sync.Once
	e2eVerdaccioPath string
	e2eVerdaccioErr  error
)

// e2eRequireVerdaccio installs the registry with npm into the user cache
// beside the client, once per machine. With CI=true a failure fails.
func e2eRequireVerdaccio(t *testing.T) string {
	t.Helper()
	e2eVerdaccioOnce.Do(func() { e2eVerdaccioPath, e2eVerdaccioErr = e2eInstallVerdaccio() })
	if e2eVerdaccioErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("verdaccio %s unavailable (CI=true, so not skipping): %v", e2eVerdaccioVersion, e2eVerdaccioErr)
		}
		t.Skipf("skipping: verdaccio %s unavailable: %v", e2eVerdaccioVersion, e2eVerdaccioErr)
	}
	return e2eVerdaccioPath
}

func e2eInstallVerdaccio() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(base, "compact-guard-e2e", "verdaccio-"+e2eVerdaccioVersion)
	bin := filepath.Join(dir, "node_modules", "verdaccio", "bin", "verdaccio")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	unlock, err := e2eLock(filepath.Join(dir, ".install.lock"), 5*time.Minute)
	if err != nil {
		return "", err
	}
	defer unlock()
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	pkg := fmt.Sprintf(`{"name":"compact-guard-e2e-registry","private":true,"dependencies":{"verdaccio":%q},"overrides":{"node-fetch":"2.7.0"}}`, e2eVerdaccioVersion)
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(pkg), 0o644); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "--fetch-timeout=30000")
	c.Dir = dir
	if out, err := c.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm install verdaccio@%s: %v\n%s", e2eVerdaccioVersion, err, out)
	}
	if _, err := os.Stat(bin); err != nil {
		return "", err
	}
	return bin, nil
}

// e2eRegistry is a verdaccio on loopback with no uplink: it holds only
// what the test publishes.
type e2eRegistry struct {
	URL   string
	Token string
}

func e2eStartRegistry(t *testing.T, verdaccio string) *e2eRegistry {
	t.Helper()
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	config := fmt.Sprintf(`storage: %q
auth:
  htpasswd:
    file: %q
    max_users: 10
packages:
  '**':
    access: $all
    publish: $authenticated
log: { type: stdout, format: pretty, level: warn }
`, filepath.Join(dir, "storage"), filepath.Join(dir, "htpasswd"))
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	var logBuf bytes.Buffer
	c := exec.Command("node", verdaccio, "--config", cfg, "--listen", addr)
	c.Stdout, c.Stderr = &logBuf, &logBuf
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	t.Cleanup(func() {
		c.Process.Kill()
		<-done
		if t.Failed() {
			t.Logf("verdaccio log:\n%s", logBuf.String())
		}
	})
	r := &e2eRegistry{URL: "http://" + addr + "/"}
	// Wait for it to answer (a state, not a time), bounded by the start-up.
	deadline := time.Now().Add(90 * time.Second)
	for {
		resp, err := http.Get(r.URL + "-/ping")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case err := <-done:
			t.Fatalf("verdaccio exited: %v\n%s", err, logBuf.String())
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("verdaccio did not answer on %s:\n%s", addr, logBuf.String())
		}
	}
	// A user to publish as (verdaccio's htpasswd lets the first ones register).
	body := `{"name":"e2e","password":"e2e-password-1"}`
	req, _ := http.NewRequest(http.MethodPut, r.URL+"-/user/org.couchdb.user:e2e", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tok struct {
		Token string `json:"token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil || tok.Token == "" {
		t.Fatalf("registering a user: %s %v", resp.Status, err)
	}
	r.Token = tok.Token
	return r
}

// spec: NP-2, NP-3, NP-4
//
// e2eScenarioNpx publishes the release's npm packages with npm to a local
// registry, then runs `npx compact-guard install` with a new npm cache and a
// HOME holding nothing of compact-guard, as a user without Go would.
func e2eScenarioNpx(t *testing.T, claude e2eClient, dist e2eDist) {
	reg := e2eStartRegistry(t, e2eRequireVerdaccio(t))
	w := e2eNewWorld(t, e2eBinaries{}, claude, e2eNoHooks)
	npmrc := filepath.Join(t.TempDir(), "npmrc")
	host := strings.TrimPrefix(reg.URL, "http:")
	if err := os.WriteFile(npmrc, []byte("registry="+reg.URL+"\n"+host+":_authToken="+reg.Token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	npmEnv := []string{"NPM_CONFIG_USERCONFIG=" + npmrc, "NPM_CONFIG_REGISTRY=" + reg.URL, "NPM_CONFIG_CACHE=" + filepath.Join(t.TempDir(), "npm-cache"),
		"NPM_CONFIG_UPDATE_NOTIFIER=false", "NPM_CONFIG_AUDIT=false", "NPM_CONFIG_FUND=false"}

	// Platform packages first: the main package depends on them.
	tgz, err := filepath.Glob(filepath.Join(dist.Dir, "compact-guard-*-"+dist.Version+".tgz"))
	if err != nil || len(tgz) != 6 {
		t.Fatalf("platform packages in %s: %v %v", dist.Dir, tgz, err)
	}
	for _, p := range append(tgz, filepath.Join(dist.Dir, "compact-guard-"+dist.Version+".tgz")) {
		w.run(w.Home, npmEnv, "npm", "publish", p, "--access", "public", "--tag", "latest")
	}

	out := w.run(w.Home, npmEnv, "npx", "--yes", "compact-guard", "install")
	bin := filepath.Join(w.Home, ".local", "bin", e2eExe("compact-guard"))
	if !strings.Contains(out, "installed the binary as "+bin) {
		t.Errorf("npx compact-guard install did not install the binary as %s:\n%s", bin, out)
	}
	settings, err := os.ReadFile(w.Settings)
	if err != nil || !strings.Contains(string(settings), bin) {
		t.Fatalf("the hooks in %s do not run %s (%v):\n%s", w.Settings, bin, err, settings)
	}
	out = w.run(w.Home, npmEnv, bin, "version")
	if !strings.Contains(out, "compact-guard "+dist.Version+" ") {
		t.Errorf("%s version: %s, want %s", bin, out, dist.Version)
	}

	e2eCompactOnce(t, w, "проект демо", 1)

	out = w.run(w.Home, npmEnv, "npx", "--yes", "compact-guard", "doctor", "--no-self-test")
	if !strings.Contains(out, "compact-guard "+dist.Version) || !strings.Contains(out, "all checks passed") {
		t.Errorf("npx compact-guard doctor:\n%s", out)
	}
	watchDir := filepath.Join(filepath.Dir(w.SnapDir), "watch")
	if _, err := os.Stat(watchDir); err != nil {
		t.Errorf("watch kept no state in %s during the session: %v", watchDir, err)
	}
	out = w.run(w.Home, npmEnv, "npx", "--yes", "compact-guard", "uninstall")
	// uninstall removes the file when install had created it (IN-12).
	if settings, err := os.ReadFile(w.Settings); err != nil && !os.IsNotExist(err) || strings.Contains(string(settings), "compact-guard") {
		t.Errorf("hooks left after npx compact-guard uninstall (%v):\n%s", err, settings)
	}
	e2eCheckUninstallLeftovers(t, w, out)
}

// e2eCheckUninstallLeftovers checks what uninstall leaves (specs/install.md
// IN-85, IN-86): no settings file install created, no watch state once
// nothing registers compact-guard, no trace or backup of a file given
// back, no folder of compact-guard's own that holds nothing; the snapshots
// and the log stay.
func e2eCheckUninstallLeftovers(t *testing.T, w *e2eWorld, out string) {
	t.Helper()
	watchDir := filepath.Join(filepath.Dir(w.SnapDir), "watch")
	if _, err := os.Stat(watchDir); !os.IsNotExist(err) || !strings.Contains(out, "removed "+watchDir+" (watch's state") {
		t.Errorf("uninstall left watch's state %s (%v):\n%s", watchDir, err, out)
	}
	if _, err := os.Stat(w.Settings); !os.IsNotExist(err) {
		t.Errorf("uninstall left %s, which install created: %v\n%s", w.Settings, err, out)
	}
	state := filepath.Join(w.Home, ".local", "state", "compact-guard")
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		var left []string
		filepath.WalkDir(state, func(p string, _ os.DirEntry, _ error) error { left = append(left, p); return nil })
		t.Errorf("uninstall left compact-guard's state folder (install made it for its trace and no backup was needed): %v\n%s", left, out)
	}
	// The user's .claude folder (the harness made it) stays.
	if _, err := os.Stat(filepath.Dir(w.Settings)); err != nil {
		t.Errorf("uninstall removed %s, which was there before install: %v", filepath.Dir(w.Settings), err)
	}
	if snaps, _ := filepath.Glob(filepath.Join(w.SnapDir, "snap_*.json")); len(snaps) == 0 {
		t.Errorf("uninstall removed the snapshots in %s", w.SnapDir)
	}
	if _, err := os.Stat(w.Log); err != nil {
		t.Errorf("uninstall removed the log %s: %v", w.Log, err)
	}
}

// spec: IN-76, IN-77, IN-78, IN-80, IN-83, IN-84, IN-86
//
// e2eScenarioEveryClient installs the release's binary for every client
// and scope it has (Claude Code user, project and local; Codex CLI and
// Qwen Code user and project) into files a user already had — an empty
// "hooks", Qwen Code's comments, a config.toml without a final newline —
// then uninstalls them one by one: watch's state stays while any
// registration remains and goes with the last; every file the user had is
// byte for byte as it was, every file and folder install created is gone,
// and nothing of compact-guard's is left in its state folder.
func e2eScenarioEveryClient(t *testing.T, claude e2eClient, dist e2eDist) {
	bins, _ := filepath.Glob(filepath.Join(dist.Dir, "compact-guard_"+runtime.GOOS+"_"+runtime.GOARCH+"*", e2eExe("compact-guard")))
	if len(bins) != 1 {
		t.Fatalf("the release binary for %s/%s in %s: %v", runtime.GOOS, runtime.GOARCH, dist.Dir, bins)
	}
	bin := bins[0]
	w := e2eNewWorld(t, e2eBinaries{}, claude, e2eNoHooks)
	proj := filepath.Join(filepath.Dir(w.Home), "проект")
	originals := map[string]string{
		w.Settings: `{"hooks": {}, "model": "opus"}`,
		filepath.Join(w.Home, ".qwen", "settings.json"): "{\n  // mine\n  \"hooks\": {}\n}\n",
		filepath.Join(w.Home, ".codex", "config.toml"):  "# mine\r\nmodel = \"gpt-5.5\"",
		filepath.Join(w.Home, ".codex", "AGENTS.md"):    "mine\n",
		filepath.Join(proj, "README.md"):                "project\n",
	}
	for p, c := range originals {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"CODEX_HOME=", "QWEN_HOME="}
	runs := [][]string{
		{"--scope", "user"}, {"--scope", "project"}, {"--scope", "local"},
		{"--agent", "codex", "--scope", "user"}, {"--agent", "codex", "--scope", "project"},
		{"--agent", "qwen", "--scope", "user"}, {"--agent", "qwen", "--scope", "project"},
	}
	for _, args := range runs {
		w.run(proj, env, bin, append([]string{"install"}, args...)...)
	}
	// watch's state, as a session's watch hook leaves it.
	watchDir := filepath.Join(filepath.Dir(w.SnapDir), "watch")
	if err := os.MkdirAll(watchDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(watchDir, "abcd1234_0123456789ab.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out string
	for i, args := range runs {
		out = w.run(proj, env, bin, append([]string{"uninstall"}, args...)...)
		if _, err := os.Stat(watchDir); i < len(runs)-1 && (err != nil || !strings.Contains(out, "kept    "+watchDir+" (watch's state: compact-guard is still registered in ")) {
			t.Errorf("uninstall %v with registrations left: watch's state %v\n%s", args, err, out)
		}
	}
	if _, err := os.Stat(watchDir); !os.IsNotExist(err) || !strings.Contains(out, "removed "+watchDir) {
		t.Errorf("the last uninstall left watch's state (%v):\n%s", err, out)
	}
	for p, c := range originals {
		if got, err := os.ReadFile(p); err != nil || string(got) != c {
			t.Errorf("%s after uninstall: %q (%v), want %q", p, got, err, c)
		}
	}
	for _, p := range []string{filepath.Join(proj, ".claude"), filepath.Join(proj, ".codex"), filepath.Join(proj, ".qwen"), filepath.Join(w.Home, ".codex", "hooks.json")} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("uninstall left %s, which install created (%v)", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(w.Home, ".local", "state", "compact-guard")); !os.IsNotExist(err) {
		t.Errorf("uninstall left compact-guard's state folder: %v", err)
	}
}
