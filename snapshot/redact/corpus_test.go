package redact

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// gitleaksSamples is snapshot/redact/testdata/gitleaks-samples.json, written
// by snapshot/redact/redactgen: for each gitleaks rule, true positives from
// gitleaks' own rule definitions with the secret gitleaks finds in each.
type gitleaksSamples struct {
	Source string `json:"source"`
	Rules  []struct {
		ID      string `json:"id"`
		Samples []struct {
			Text   string `json:"text"`
			Secret string `json:"secret"`
		} `json:"samples"`
	} `json:"rules"`
}

func loadGitleaksSamples(t testing.TB) gitleaksSamples {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "gitleaks-samples.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s gitleaksSamples
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// ownSamples stand in for the rules gitleaks gives no true positive for
// ("validate TODO" in its source), built from their patterns.
var ownSamples = map[string][][2]string{
	"dropbox-long-lived-api-token":  {{"dropbox_token = " + dropboxLong, dropboxLong}},
	"dropbox-short-lived-api-token": {{"DROPBOX_TOKEN: " + dropboxShort, dropboxShort}},
}

var (
	dropboxLong = strings.ToLower(fakeTokenBody(120, 11, fakeAlnum)) + "AAAAAAAAAA" +
		strings.ToLower(fakeTokenBody(121, 43, fakeAlnum))
	dropboxShort = "sl." + strings.ToLower(fakeTokenBody(122, 135, fakeAlnum))
)

// spec: SEC-5
func TestRedactGitleaksTruePositives(t *testing.T) {
	s := loadGitleaksSamples(t)
	if len(s.Rules) != len(gitleaksRules) {
		t.Fatalf("%d rules with samples, %d rules in the table: run go generate ./snapshot/redact/", len(s.Rules), len(gitleaksRules))
	}
	n := 0
	for _, r := range s.Rules {
		samples := ownSamples[r.ID]
		for _, sm := range r.Samples {
			samples = append(samples, [2]string{sm.Text, sm.Secret})
		}
		if len(samples) == 0 {
			t.Errorf("%s: no true positive to test it with", r.ID)
		}
		for _, sm := range samples {
			n++
			out, _ := Text(sm[0])
			if strings.Contains(out, sm[1]) {
				t.Errorf("%s: secret %q survived:\n in: %s\nout: %s", r.ID, sm[1], sm[0], out)
			}
		}
	}
	t.Logf("%d samples of %d rules", n, len(s.Rules))
}

// spec: SEC-5
func TestGitleaksEngineFindsWhatGitleaksFinds(t *testing.T) {
	s := loadGitleaksSamples(t)
	for _, r := range s.Rules {
		samples := ownSamples[r.ID]
		for _, sm := range r.Samples {
			samples = append(samples, [2]string{sm.Text, sm.Secret})
		}
		for _, sm := range samples {
			at := strings.Index(sm[0], sm[1])
			found := false
			for ri := range gitleaksRules {
				if gitleaksRules[ri].id != r.ID {
					continue
				}
				for _, sp := range ruleSpans([]int{ri}, sm[0]) {
					found = found || sp.start <= at && at+len(sm[1]) <= sp.end
				}
			}
			if !found {
				t.Errorf("%s: rule does not find %q in %q", r.ID, sm[1], sm[0])
			}
		}
	}
}

// markerRE matches a replacement, whose kind may spell part of a secret
// ("bedrock-api-key-…" and [REDACTED:aws-amazon-bedrock-api-key-short-lived]).
var markerRE = regexp.MustCompile(`\[REDACTED:[a-z0-9-]+\]`)

// leakedOutside reports 8 bytes of secret found in out, markers aside, that
// are not also in the text around the secret (which survives, as it should).
func leakedOutside(out, text, secret string) string {
	out = markerRE.ReplaceAllString(out, "[]")
	around := strings.ReplaceAll(text, secret, "\x00")
	const w = 8
	if len(secret) < w {
		if strings.Contains(out, secret) {
			return secret
		}
		return ""
	}
	for i := 0; i+w <= len(secret); i++ {
		if p := secret[i : i+w]; strings.Contains(out, p) && !strings.Contains(around, p) {
			return p
		}
	}
	return ""
}

// Real transcripts: the project's own, recorded by its e2e test, and the
// shared third-party ones, an extra next to the project (never inside it).
var (
	ownFixtureDir = filepath.Join("..", "..", "transcript", "testdata", "cc2.1.328")
	fixtureDir    = filepath.Join("..", "..", "..", "shared", "fixtures", "transcripts")
)

// Look-alikes counted in the fixtures, to say what the false-positive rate
// is measured on.
var (
	shaRE  = regexp.MustCompile(`\b[0-9a-f]{7,40}\b`)
	uuidRE = regexp.MustCompile(`\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
	pathRE = regexp.MustCompile(`(?:^|[\s"'=(])(?:~|\.{1,2})?/[\w.@-]+/[\w./@-]+`)
)

// spec: SEC-7, SEC-12
func TestRedactFalsePositivesOnRealTranscripts(t *testing.T) {
	// Real sessions hold code, tool output and prose but no secrets: every
	// replacement in them is a false positive.
	t.Run("own", func(t *testing.T) { falsePositives(t, ownFixtureDir, 100, true) })
	t.Run("shared", func(t *testing.T) {
		if _, err := os.Stat(fixtureDir); err != nil {
			t.Skipf("1 shared transcript case not run: %s is not there (%v). It is an extra next to the project; the project's own real transcripts in %s ran.",
				fixtureDir, err, ownFixtureDir)
		}
		falsePositives(t, fixtureDir, 100000, true)
	})
	// A larger corpus of real transcripts lives outside the project and is
	// never committed: point COMPACT_GUARD_REDACT_CORPUS at a folder of
	// .jsonl files to measure it. Its sessions may hold secrets, real or
	// written on purpose (test fixtures, documentation examples), so its
	// replacements are listed for review rather than failed.
	t.Run("corpus", func(t *testing.T) {
		dir := os.Getenv(redactCorpusEnv)
		if dir == "" {
			t.Skipf("1 corpus case not run: %s is not set (a folder of real .jsonl transcripts outside the project, e.g. the Claude Code transcripts of the public repository entireio/cli, branch entire/checkpoints/v1).", redactCorpusEnv)
		}
		if _, err := os.Stat(dir); err != nil {
			t.Fatalf("%s=%s: %v", redactCorpusEnv, dir, err)
		}
		falsePositives(t, dir, 1, false)
	})
}

// redactCorpusEnv names a folder of real transcripts to measure false
// positives on, beyond the shared fixtures.
const redactCorpusEnv = "COMPACT_GUARD_REDACT_CORPUS"

// falsePositives redacts every string of the transcripts in dir, at least
// atLeast of them, and fails t for each replacement when strict, else
// lists them.
func falsePositives(t *testing.T, dir string, atLeast int, strict bool) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	var strs, bytesRead, shas, uuids, paths, replaced, hit int
	byKind := map[string]int{}
	for _, fn := range files {
		f, err := os.Open(fn)
		if err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReaderSize(f, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			var v any
			if json.Unmarshal(line, &v) == nil {
				eachString(v, func(s string) {
					strs++
					bytesRead += len(s)
					for _, w := range shaRE.FindAllString(s, -1) {
						if strings.ContainsAny(w, "0123456789") && strings.ContainsAny(w, "abcdef") {
							shas++
						}
					}
					uuids += len(uuidRE.FindAllStringIndex(s, -1))
					paths += len(pathRE.FindAllStringIndex(s, -1))
					if out, n := Text(s); n != 0 {
						replaced += n
						hit++
						for _, m := range markerRE.FindAllString(out, -1) {
							byKind[m]++
						}
						i := strings.Index(out, RedactedPrefix)
						report := t.Logf
						if strict {
							report = t.Errorf
						}
						report("%s: false positive (%d): %q", filepath.Base(fn), n, out[max(0, i-60):min(len(out), i+60)])
					}
				})
			}
			if err != nil {
				break
			}
		}
		f.Close()
	}
	if strs < atLeast {
		t.Errorf("only %d strings read from %s, want at least %d", strs, dir, atLeast)
	}
	t.Logf("%d files, %d strings, %d bytes, holding %d git SHA-like hex words, %d UUIDs, %d paths: %d replacements in %d strings, %.4f%% of strings",
		len(files), strs, bytesRead, shas, uuids, paths, replaced, hit, 100*float64(hit)/float64(max(1, strs)))
	if len(byKind) > 0 {
		t.Logf("replacements by kind: %v", byKind)
	}
}

// spec: SEC-5
func TestRedactLeakShapes(t *testing.T) {
	// Shapes that leaked from the hand-written patterns (issue 12): each
	// secret must be gone, whatever rule takes it.
	long := fakeTokenBody(90, 700, fakeB64URL)
	vault := "hvs." + fakeTokenBody(91, 24, fakeAlnum)
	doppler := "dp.st.prd." + fakeTokenBody(92, 40, fakeAlnum)
	discord := "MTE" + fakeTokenBody(93, 21, fakeAlnum) + ".Gx" + fakeTokenBody(94, 4, fakeAlnum) + "." + fakeTokenBody(95, 38, fakeB64URL)
	akia := "AKIA" + fakeTokenBody(96, 16, fakeBase32)
	oat := "sk-ant-oat01-" + fakeTokenBody(97, 80, fakeB64URL)
	ghp := "ghp_" + fakeTokenBody(98, 36, fakeAlnum)
	for _, tc := range []struct{ name, in, secret string }{
		{"url password with a slash", "git clone https://deploy:pa/ssW0rd9x@git.example.com/acme/app.git", "pa/ssW0rd9x"},
		{"url password with a raw at", "git clone https://deploy:p@ssW0rd9x@git.example.com/acme/app.git", "p@ssW0rd9x"},
		{"url password with both, mail in the query", "curl https://u:s3cr3t/p@ssw0rd@api.example.com/v1?email=a@b.com", "s3cr3t/p@ssw0rd"},
		{"vault token, dotted", "export VAULT_TOKEN=" + vault, vault},
		{"doppler token, dotted", "DOPPLER_TOKEN=" + doppler + " ./run", doppler},
		{"discord bot token, dotted", "DISCORD_TOKEN=" + discord, discord},
		{"dotted password", "export PASSWORD=Autumn.Leaves2024", "Autumn.Leaves2024"},
		{"value with a semicolon", "PASSWORD=abc;def123xyz ./run", "abc;def123xyz"},
		{"value with an ampersand", "API_KEY=abcd&efgh12345678 ./run", "abcd&efgh12345678"},
		{"value with parentheses", "DB_PASSWORD=(hunter2)hunter22 psql", "(hunter2)hunter22"},
		{"value with brackets and pipes", "SECRET=[abc]def|ghi<jk>{lm}99 x", "def|ghi<jk>{lm}99"},
		{"quoted value starting with $", `PASSWORD="$ecretP4ss!word"`, "$ecretP4ss!word"},
		{"token after a literal \\n", `{"config": "x\n` + akia + `"}`, akia},
		{"token after a literal \\t", `echo "a\t` + oat + `"`, oat},
		{"token after %3D", "https://x.example.com/cb?access_token%3D" + ghp, ghp},
		{"password after %3D", "https://x.example.com/cb?password%3DXk9" + fakeTokenBody(99, 20, fakeAlnum), "Xk9" + fakeTokenBody(99, 20, fakeAlnum)},
		{"700-character bearer token in a header", "Authorization: Bearer " + long, long},
		{"700-character bearer token in curl", "curl -H 'Authorization: Bearer " + long + "' https://x", long},
		{"700-character bare bearer token", "bearer " + long, long},
		{"pypi token", "twine upload -p pypi-AgEIcHlwaS5vcmc" + fakeTokenBody(100, 70, fakeAlnum) + " dist/*", "pypi-AgEIcHlwaS5vcmc" + fakeTokenBody(100, 70, fakeAlnum)},
		{"digitalocean token", "doctl auth init -t dop_v1_" + strings.Repeat("9f0a1b2c3d4e5f67", 4), "dop_v1_" + strings.Repeat("9f0a1b2c3d4e5f67", 4)},
		{"slack webhook", "curl -X POST https://hooks.slack.com/services/T0" + fakeTokenBody(102, 7, fakeBase32) + "/B0" + fakeTokenBody(103, 7, fakeBase32) + "/" + fakeTokenBody(104, 24, fakeAlnum), fakeTokenBody(104, 24, fakeAlnum)},
		{"age secret key", "AGE-SECRET-KEY-1" + strings.ToUpper(fakeTokenBody(105, 58, "qpzry9x8gf2tvdw0s3jn54khce6mua7l")), "AGE-SECRET-KEY-1" + strings.ToUpper(fakeTokenBody(105, 58, "qpzry9x8gf2tvdw0s3jn54khce6mua7l"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(tc.in, tc.secret) {
				t.Fatalf("bad case: %q not in %q", tc.secret, tc.in)
			}
			out, n := Text(tc.in)
			if l := leakedPart(out, tc.secret); l != "" || n == 0 {
				t.Errorf("secret part %q survived (%d replacements):\n in: %s\nout: %s", l, n, tc.in, out)
			}
		})
	}
}

// spec: SEC-5
func TestRedactJSONEscapedInput(t *testing.T) {
	// A failed tool call without a telling field keeps the start of its raw
	// JSON: a string inside it has its quotes escaped.
	secret := "ffb7i5pwhi0ieoqxx6du3t1htlyvw8z66w4a3s5t"
	in := `{"ttl":3600,"value":"zendesk_TOKEN ::= \"` + secret + `\""}`
	out, _ := Text(in)
	if strings.Contains(out, secret) || !strings.Contains(out, `\"[REDACTED:`) {
		t.Errorf("Text(%s) = %s", in, out)
	}
}

// spec: SEC-5
func TestSpecListsEveryKind(t *testing.T) {
	spec, err := os.ReadFile(filepath.Join("..", "..", "specs", "security.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for l := range strings.Lines(string(spec)) {
		cells := strings.Split(strings.TrimSpace(l), "|")
		if len(cells) > 3 && strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			rows[strings.Trim(strings.TrimSpace(cells[1]), "`")] = strings.TrimSpace(cells[len(cells)-2])
		}
	}
	for _, r := range gitleaksRules {
		if want := "gitleaks " + GitleaksVersion + " `" + r.id + "`"; rows[r.id] != want {
			t.Errorf("kind %s: source %q in specs/security.md, want %q (run go generate ./snapshot/redact/)", r.id, rows[r.id], want)
		}
	}
	for _, k := range []string{KindPrivateKey, KindJWE, KindAnthropic, KindOpenAI, KindAWSSecret, KindGoogleOAuth,
		KindStripeWebhook, KindAuthorization, KindURLCredentials, KindAssignment, KindCutToken,
		KindGoogleClientSecret, KindNotion, KindDockerHub, KindSquare, KindMailchimp, KindTelegram, KindAzureSAS,
		KindConnString, KindNetrc, KindOpenSSL, KindMySQL, KindEnvDefault, KindCookie, KindXML} {
		if rows[k] != "compact-guard" {
			t.Errorf("kind %s: source %q in specs/security.md, want compact-guard", k, rows[k])
		}
	}
	for _, r := range redactRules {
		if rows[r.kind] != "compact-guard" {
			t.Errorf("rule of kind %s is not in the compact-guard table of specs/security.md", r.kind)
		}
	}
}
