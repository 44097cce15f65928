package redact

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// Fake secrets are generated rather than written out, so that the source holds
// no string a secret scanner would flag, yet each value has its provider's
// exact format. Every generated body starts with EXAMPLE.

const (
	fakeAlnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	fakeBase32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	fakeB64URL = fakeAlnum + "-_"
	fakeB64Std = fakeAlnum + "+/"
)

// fakeTokenBody returns "EXAMPLE" followed by pseudo-random characters of
// alphabet, n characters in all, the same for the same seed.
func fakeTokenBody(seed uint32, n int, alphabet string) string {
	var b strings.Builder
	b.WriteString("EXAMPLE")
	x := seed*2654435761 + 1
	for b.Len() < n {
		x = x*1664525 + 1013904223
		b.WriteByte(alphabet[(x>>8)%uint32(len(alphabet))])
	}
	return b.String()[:n]
}

func fakeToken(prefix string, seed uint32, n int, alphabet string) string {
	return prefix + fakeTokenBody(seed, n, alphabet)
}

// A JWT with a real header and payload ({"alg":"HS256","typ":"JWT"},
// {"sub":"1234567890","name":"EXAMPLE"}) and a fake signature.
var fakeJWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9" + "." +
	"eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkVYQU1QTEUifQ" + "." + fakeTokenBody(40, 43, fakeB64URL)

// A JWE: five parts, the header being {"alg":"dir","enc":"A256GCM"}.
var fakeJWE = "eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0" + ".." + fakeTokenBody(44, 16, fakeB64URL) + "." +
	fakeTokenBody(45, 48, fakeB64URL) + "." + fakeTokenBody(46, 22, fakeB64URL)

var fakeRSABody = fakeTokenBody(41, 64, fakeB64Std) + "\n" + fakeTokenBody(42, 64, fakeB64Std) + "\n" + fakeTokenBody(43, 40, fakeB64Std)

type secretCase struct {
	name string
	line string
	// secret is what must be gone: no 8 consecutive bytes of it may remain.
	secret string
	kind   string
}

func secretCorpus() []secretCase {
	antKey := fakeToken("sk-ant-api03-", 1, 93, fakeB64URL) + "AA"
	antAdmin := fakeToken("sk-ant-admin01-", 2, 93, fakeB64URL) + "AA"
	oaiProj := fakeToken("sk-proj-", 3, 120, fakeB64URL)
	oaiLegacy := fakeToken("sk-", 4, 48, fakeAlnum)
	oaiSvc := fakeToken("sk-svcacct-", 5, 100, fakeB64URL)
	ghp := fakeToken("ghp_", 6, 36, fakeAlnum)
	gho := fakeToken("gho_", 7, 36, fakeAlnum)
	ghs := fakeToken("ghs_", 8, 36, fakeAlnum)
	ghu := fakeToken("ghu_", 9, 36, fakeAlnum)
	ghr := fakeToken("ghr_", 10, 36, fakeAlnum)
	ghPAT := "github_pat_" + fakeTokenBody(11, 22, fakeAlnum) + "_" + fakeTokenBody(12, 59, fakeAlnum)
	glpat := fakeToken("glpat-", 13, 20, fakeB64URL)
	glpat2 := fakeToken("glpat-", 14, 20, fakeAlnum)
	akia := fakeToken("AKIA", 15, 16, fakeBase32)
	asia := fakeToken("ASIA", 16, 16, fakeBase32)
	awsSecret := fakeTokenBody(17, 40, fakeB64Std)
	awsSecret2 := fakeTokenBody(18, 40, fakeB64Std)
	awsSecret3 := fakeTokenBody(19, 40, fakeB64Std)
	xoxb := "xoxb-" + "123456789012-1234567890123-" + fakeTokenBody(20, 24, fakeAlnum)
	xoxp := "xoxp-" + "123456789012-123456789012-1234567890123-" + fakeTokenBody(21, 32, fakeAlnum)
	aiza := fakeToken("AIza", 22, 35, fakeB64URL)
	aiza2 := fakeToken("AIza", 23, 35, fakeB64URL)
	skLive := fakeToken("sk_live_", 24, 99, fakeAlnum)
	rkLive := fakeToken("rk_live_", 25, 99, fakeAlnum)
	whsec := fakeToken("whsec_", 26, 32, fakeAlnum)
	npm1 := fakeToken("npm_", 27, 36, fakeAlnum)
	npm2 := fakeToken("npm_", 28, 36, fakeAlnum)
	opaque := fakeTokenBody(29, 40, fakeAlnum)
	yaToken := fakeToken("ya29.a0", 31, 120, fakeB64URL)
	hfToken := fakeToken("hf_", 32, 34, fakeAlnum)
	hexTok := "EXAMPLE" + "0a1b2c3d4e5f60718293a4b5c6d7e8f9012345"

	return []secretCase{
		// spec: SEC-5
		{"anthropic env export", "export ANTHROPIC_API_KEY=" + antKey, antKey, "anthropic-api-key"},
		{"anthropic curl header", `curl https://api.anthropic.com/v1/messages -H "x-api-key: ` + antKey + `" -H "anthropic-version: 2023-06-01"`, antKey, "anthropic-api-key"},
		{"anthropic admin key in json", `{"apiKey": "` + antAdmin + `", "timeout": 30}`, antAdmin, "anthropic-admin-api-key"},
		{"openai project key before a command", `OPENAI_API_KEY="` + oaiProj + `" python run_eval.py`, oaiProj, KindOpenAI},
		{"openai legacy key in python", `openai.api_key = "` + oaiLegacy + `"`, oaiLegacy, KindOpenAI},
		{"openai service account as bearer", `curl https://api.openai.com/v1/models -H "Authorization: Bearer ` + oaiSvc + `"`, oaiSvc, "curl-auth-header"},
		{"openai key in powershell", `$env:OPENAI_API_KEY = "` + oaiProj + `"`, oaiProj, KindOpenAI},
		{"github ghp in clone url", "git clone https://" + ghp + "@github.com/acme/infra.git", ghp, "github-pat"},
		{"github gho piped to gh", "echo " + gho + " | gh auth login --with-token", gho, "github-oauth"},
		{"github ghs in workflow yaml", "      GITHUB_TOKEN: " + ghs, ghs, "github-app-token"},
		{"github ghu in json", `{"token": "` + ghu + `", "expires_in": 28800}`, ghu, "github-app-token"},
		{"github ghr refresh token", "refresh_token=" + ghr + "&grant_type=refresh_token", ghr, "github-refresh-token"},
		{"github fine-grained pat in remote url", "git remote set-url origin https://x-access-token:" + ghPAT + "@github.com/acme/app.git", ghPAT, "github-fine-grained-pat"},
		{"github token in git config", "git config --global github.token " + ghp, ghp, "github-pat"},
		{"gitlab pat in header", `curl --header "PRIVATE-TOKEN: ` + glpat + `" "https://gitlab.example.com/api/v4/projects"`, glpat, "gitlab-pat"},
		{"gitlab pat in push url", "git push https://oauth2:" + glpat2 + "@gitlab.com/acme/app.git main", glpat2, "gitlab-pat"},
		{"aws access key id in credentials file", "aws_access_key_id = " + akia, akia, "aws-access-token"},
		{"aws session key id", `"AccessKeyId": "` + asia + `",`, asia, "aws-access-token"},
		{"aws secret in credentials file", "aws_secret_access_key = " + awsSecret, awsSecret, KindAWSSecret},
		{"aws secret env export", "export AWS_SECRET_ACCESS_KEY=" + awsSecret2, awsSecret2, KindAWSSecret},
		{"aws secret via aws configure", "aws configure set aws_secret_access_key " + awsSecret3 + " --profile ci", awsSecret3, KindAWSSecret},
		{"aws secret in sts json", `    "SecretAccessKey": "` + awsSecret + `",`, awsSecret, KindAWSSecret},
		{"slack bot token env", "SLACK_BOT_TOKEN=" + xoxb + " node bot.js", xoxb, "slack-bot-token"},
		{"slack user token bearer", `curl -H "Authorization: Bearer ` + xoxp + `" https://slack.com/api/chat.postMessage`, xoxp, "curl-auth-header"},
		{"google api key in query", "curl 'https://maps.googleapis.com/maps/api/geocode/json?address=Berlin&key=" + aiza + "'", aiza, "gcp-api-key"},
		{"google api key in yaml", "google_api_key: " + aiza2, aiza2, "gcp-api-key"},
		{"google oauth access token", `curl -H "Authorization: Bearer ` + yaToken + `" https://www.googleapis.com/drive/v3/files`, yaToken, "curl-auth-header"},
		{"hugging face token", "huggingface-cli login --token " + hfToken, hfToken, KindAssignment},
		{"bare key with a token value", `{"key": "a8f5f167f44f4964e6c998dee827110c", "id": 7}`, "a8f5f167f44f4964e6c998dee827110c", "generic-api-key"},
		{"stripe live secret key in python", `stripe.api_key = "` + skLive + `"`, skLive, "stripe-access-token"},
		{"stripe restricted key with curl -u", "curl https://api.stripe.com/v1/charges -u " + rkLive + ":", rkLive, KindAuthorization},
		{"stripe webhook secret in .env", "STRIPE_WEBHOOK_SECRET=" + whsec, whsec, KindStripeWebhook},
		{"npm token in .npmrc", "//registry.npmjs.org/:_authToken=" + npm1, npm1, "npm-access-token"},
		{"npm token before publish", "NPM_TOKEN=" + npm2 + " npm publish --access public", npm2, "npm-access-token"},
		{"rsa private key block in heredoc", "cat > deploy.pem <<'EOF'\n-----BEGIN RSA PRIVATE KEY-----\n" + fakeRSABody + "\n-----END RSA PRIVATE KEY-----\nEOF\nchmod 600 deploy.pem", fakeRSABody, KindPrivateKey},
		{"openssh private key cut off", "here is the key:\n-----BEGIN OPENSSH PRIVATE KEY-----\n" + fakeRSABody, fakeRSABody, KindPrivateKey},
		{"pgp private key block", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + fakeRSABody + "\n-----END PGP PRIVATE KEY BLOCK-----", fakeRSABody, KindPrivateKey},
		{"private key escaped in service account json", `"private_key": "-----BEGIN PRIVATE KEY-----\n` + strings.ReplaceAll(fakeRSABody, "\n", `\n`) + `\n-----END PRIVATE KEY-----\n",`, fakeTokenBody(42, 64, fakeB64Std), KindPrivateKey},
		{"jwt as bearer", `curl -H "Authorization: Bearer ` + fakeJWT + `" https://api.example.com/me`, fakeJWT, "curl-auth-header"},
		{"jwt in a variable", "ID_TOKEN=" + fakeJWT, fakeJWT, "jwt"},
		{"jwe with five parts", "token=" + fakeJWE + "; path=/", fakeJWE, KindJWE},
		{"authorization basic", `curl -H "Authorization: Basic ZGVwbG95OkVYQU1QTEVwYXNzd29yZA==" https://ci.example.com`, "ZGVwbG95OkVYQU1QTEVwYXNzd29yZA==", "curl-auth-header"},
		{"authorization bearer opaque", "Authorization: Bearer " + opaque, opaque, KindAuthorization},
		{"authorization token hex", `-H 'Authorization: token ` + hexTok + `'`, hexTok, KindAuthorization},
		{"authorization in python dict", `headers = {"Authorization": "Bearer ` + opaque + `"}`, opaque, KindAuthorization},
		{"curl -u user:password", "curl -u admin:S3cr3tPassw0rd-EXAMPLE https://jenkins.example.com/api/json", "S3cr3tPassw0rd-EXAMPLE", "curl-auth-user"},
		{"postgres url", "psql postgres://app:Xk9-EXAMPLE-pw@db.internal:5432/app", "Xk9-EXAMPLE-pw", KindURLCredentials},
		{"mysql url in env", "DATABASE_URL=mysql://root:hunter2EXAMPLE@localhost:3306/shop", "hunter2EXAMPLE", KindURLCredentials},
		{"redis url without user", "REDIS_URL=redis://:EXAMPLEredisPass42@cache.internal:6379/0", "EXAMPLEredisPass42", KindURLCredentials},
		{"pip index url", "pip install --index-url https://deploy:EXAMPLEp4ssw0rd@pypi.example.com/simple acme-tools", "EXAMPLEp4ssw0rd", KindURLCredentials},
		{"short url password", "git clone https://bob:pw12@git.example.com/bob/dotfiles.git", "bob:pw12@", KindURLCredentials},
		{"export quoted password", "export DB_PASSWORD='Tr0ub4dor&3EXAMPLE'", "Tr0ub4dor&3EXAMPLE", KindAssignment},
		{"env prefix before psql", "PGPASSWORD=EXAMPLEpg2024 psql -h db.internal -U app", "EXAMPLEpg2024", KindAssignment},
		{"yaml client secret", "  client_secret: 9f8e7d6c5b4a-EXAMPLE", "9f8e7d6c5b4a-EXAMPLE", KindAssignment},
		{"json api token", `{"api_token": "EXAMPLE-7f3a9c2e1b", "org": "acme"}`, "EXAMPLE-7f3a9c2e1b", KindAssignment},
		{"flag with space", "mysql --password hunter2EXAMPLE -u root shop", "hunter2EXAMPLE", KindAssignment},
		{"flag with equals", "acme-cli login --api-key=EXAMPLEkey1234567", "EXAMPLEkey1234567", KindAssignment},
		{"docker login password flag", "docker login -u ci-bot --password EXAMPLEdockerPW1 registry.example.com", "EXAMPLEdockerPW1", KindAssignment},
		{"rails secret key base", "SECRET_KEY_BASE=" + fakeTokenBody(30, 64, "0123456789abcdef") + " bin/rails s", fakeTokenBody(30, 64, "0123456789abcdef"), KindAssignment},
		{"go short variable declaration", `apiKey := "EXAMPLE0123456789abcdef"`, "EXAMPLE0123456789abcdef", KindAssignment},
		{"mysql pwd env", "MYSQL_PWD=EXAMPLEmysql99 mysqldump shop > shop.sql", "EXAMPLEmysql99", KindAssignment},
		{"escaped json in a command", `curl -d "{\"username\": \"ci\", \"password\": \"EXAMPLEpass123\"}" https://auth.example.com/login`, "EXAMPLEpass123", KindAssignment},
		{"python keyword argument", `client = Client(api_key="EXAMPLE-live-5c1d9e2f7a", timeout=30)`, "EXAMPLE-live-5c1d9e2f7a", KindAssignment},
		{"kubernetes secret data", "  password: aHVudGVyMkVYQU1QTEU=", "aHVudGVyMkVYQU1QTEU=", "generic-api-key"},
		{"passphrase with spaces", `"passphrase": "correct horse battery staple EXAMPLE"`, "correct horse battery staple", KindAssignment},
		{"spring properties", "spring.datasource.password=EXAMPLE_db_pw_77", "EXAMPLE_db_pw_77", KindAssignment},
		{"upper-case env name with a plain word", "export PASSWORD=CorrectHorseBatteryStaple", "CorrectHorseBatteryStaple", KindAssignment},
		{"flag with a plain word", "openssl pkcs12 -export --password hunterhunter -out cert.p12", "hunterhunter", KindAssignment},
		{"smtp pass", "SMTP_PASS=EXAMPLEmail2024 ./send-report", "EXAMPLEmail2024", KindAssignment},
		{"custom auth header", "X-Auth-Token: 7c4a8d09ca3762af61e59520943dc26494f8941bEXAMPLE", "7c4a8d09ca3762af61e59520943dc26494f8941b", KindAssignment},
	}
}

type lookAlike struct {
	name string
	line string
}

func lookAlikeCorpus() []lookAlike {
	return []lookAlike{
		// spec: SEC-7
		{"full git sha", "git checkout 3f786850e387550fdab836ed7e6dc881de23001b"},
		{"short git sha", "git show 3f78685 --stat"},
		{"oneline log", "a1b2c3d fix: rotate token handling in the refresh path"},
		{"uuid", "request 123e4567-e89b-12d3-a456-426614174000 failed"},
		{"session id line", "Session: 9b2f0c1e-8d7a-4c3b-9e5f-1a2b3c4d5e6f"},
		{"session id json", `"session_id": "9b2f0c1e-8d7a-4c3b-9e5f-1a2b3c4d5e6f"`},
		{"file path", "cat /home/dev/.ssh/id_ed25519.pub"},
		{"curl --key with a path", "curl --cert client.crt --key /etc/ssl/private/server.key https://mtls.example.com"},
		{"key file variable", "KEY_FILE=/etc/app/secret.key ./serve"},
		{"private key flag with windows path", `ssh -i C:\Users\Dev\keys\deploy.pem --private-key C:\Users\Dev\keys\deploy.pem host`},
		{"password file flag", "restic --password-file ~/.config/restic/pw.txt backup ."},
		{"token url", "TOKEN_URL=https://auth.example.com/oauth/token"},
		{"token type json", `{"token_type": "Bearer", "expires_in": 3600}`},
		{"token counts", `"input_tokens": 123456789, "max_tokens": 100000000`},
		{"prose token", "the token expires after 24 hours, so refresh it first"},
		{"prose password", "enter your password when prompted by the installer"},
		{"prose secret with colon", "The secret: understanding the hook order matters"},
		{"primary key prose", "Primary key: customer_identifier (not the email)"},
		{"shell reference", "export GITHUB_TOKEN=$GITHUB_TOKEN"},
		{"bearer placeholder", `curl -H "Authorization: Bearer $TOKEN" https://api.example.com`},
		{"braced reference", "API_KEY=${API_KEY} docker compose up"},
		{"angle placeholder", "API_KEY=<your-key> ./run.sh"},
		{"your-key placeholder", `api_key = "your-api-key-here"`},
		{"masked openai key", "OPENAI_API_KEY=sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"},
		{"masked github token", "GITHUB_TOKEN=ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"},
		{"stars", "password: ********"},
		{"short password", "PASSWORD=abc123 ./test.sh"},
		{"short token flag", "tool --token abc --verbose"},
		{"base64 png in code", `const logo = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="`},
		{"base64 json without dots", `data = "eyJhbGciOiJIUzI1NiJ9"`},
		{"ssh public key", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGexampleKEYmaterialNotSecret0123456789abcd dev@laptop"},
		{"public key block", "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEexamplePublicKeyMaterial0123456789\n-----END PUBLIC KEY-----"},
		{"certificate block", "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUexampleCertificateBody0123456789\n-----END CERTIFICATE-----"},
		{"sk- inside a word", "python task-ant-colony-optimizer-benchmark.py --risk-assessment-enabled"},
		{"scikit-learn", "pip install scikit-learn==1.5.2"},
		{"npm config variable", "npm_config_cache=/tmp/npm-cache npm ci"},
		{"asia in a word", "ASIAN_MARKETS_ENABLED=true"},
		{"for loop over keys", "for key, value in config.items():"},
		{"index expression", "token = tokens[i]"},
		{"environment lookup", `api_key = os.environ["OPENAI_API_KEY"]`},
		{"function call", "password = getpass.getpass()"},
		{"comparison", `if token == "" { return errMissingToken }`},
		{"public key value", "public_key: 3b6a27bcceb6a42d62a3a8d02a6f0d73653215771de243a63ac048a18b59da29"},
		{"ssh url", "git clone git@github.com:acme/infra.git"},
		{"url with user only", "https://deploy@example.com/path/to/repo.git"},
		{"url with port", "http://localhost:8080/api/v1/users?id=5&sort=name"},
		{"secret name", "SECRET_NAME=prod/db/credentials aws secretsmanager get-secret-value"},
		{"scope operator", "match Token::Identifier(name) => name,"},
		{"xoxo", "xoxo-and-goodbye, see you tomorrow"},
		{"authorization prose", "Authorization header is required for every request"},
		{"bearer prose", "bearer tokens are described in RFC 6750 section 2"},
		{"pwd", "export PWD=/home/dev/projects/compact-guard"},
		{"commit message", `git commit -m "rotate the API key: new one is in vault"`},
		{"docker env names", "docker run -e API_KEY -e DB_PASSWORD acme/app:1.4.2"},
		{"helm template", "apiToken: {{ .Values.apiToken }}"},
		{"windows env reference", "set API_KEY=%API_KEY%"},
		{"process env", "const apiKey = process.env.API_KEY;"},
		{"monkey", "monkey: banana12345"},
		{"keyboard", "keyboard_layout=us-intl-altgr"},
		{"version string", "go install golang.org/x/tools/gopls@v0.16.2"},
		{"undefined", "token=undefined"},
		{"identifier after equals", `thread_key = tool_use_id || "unmatched-result"`},
		{"identifier in an object", "params: { _csrf_token: csrfToken },"},
		{"typescript type", "const filters: { key: FilterType; label: string; count: number }[] = ["},
		{"dictionary key", "{ key: 'completed', label: 'Completed', count: todoCounts.completed },"},
		{"cookie name", `    key: "_spotter_key",`},
		{"s3 object key", `{"Key": "uploads/2024/11/photo-0042.jpg", "Size": 52311}`},
		{"cache key", `cache.set(key="user:1234:profile", value=data)`},
		{"hf_ identifier", "hf_hub_download(repo_id=repo, filename=name)"},
		{"go test output", "--- PASS: TestResume_LocalLogNewerTimestamp_UserConfirms (5.93s)"},
	}
}

// leakedPart reports a run of 8 bytes of secret that is still in out.
func leakedPart(out, secret string) string {
	const w = 8
	if len(secret) < w {
		if strings.Contains(out, secret) {
			return secret
		}
		return ""
	}
	for i := 0; i+w <= len(secret); i++ {
		if strings.Contains(out, secret[i:i+w]) {
			return secret[i : i+w]
		}
	}
	return ""
}

// spec: SEC-5
func TestRedactSecretCorpus(t *testing.T) {
	cases := secretCorpus()
	if len(cases) < 40 {
		t.Fatalf("corpus holds %d secrets, want at least 40", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(tc.line, tc.secret) {
				t.Fatalf("bad case: %q not in line", tc.secret)
			}
			out, n := Text(tc.line)
			if l := leakedPart(out, tc.secret); l != "" {
				t.Errorf("secret part %q survived:\n in: %s\nout: %s", l, tc.line, out)
			}
			if want := "[REDACTED:" + tc.kind + "]"; !strings.Contains(out, want) {
				t.Errorf("no %s in\n in: %s\nout: %s", want, tc.line, out)
			}
			if n < 1 {
				t.Errorf("count = %d, want at least 1", n)
			}
		})
	}
}

// spec: SEC-7
func TestRedactLookAlikesSurvive(t *testing.T) {
	cases := lookAlikeCorpus()
	if len(cases) < 40 {
		t.Fatalf("corpus holds %d look-alikes, want at least 40", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, n := Text(tc.line)
			if out != tc.line || n != 0 {
				t.Errorf("changed (%d):\n in: %s\nout: %s", n, tc.line, out)
			}
		})
	}
}

func eachString(v any, f func(string)) {
	switch x := v.(type) {
	case string:
		f(x)
	case []any:
		for _, e := range x {
			eachString(e, f)
		}
	case map[string]any:
		for _, e := range x {
			eachString(e, f)
		}
	}
}

// spec: SEC-6
func TestRedactKeepsURLParts(t *testing.T) {
	in := "git push https://deploy:EXAMPLEs3cret@git.example.com:8443/acme/app.git"
	want := "git push https://deploy:[REDACTED:url-credentials]@git.example.com:8443/acme/app.git"
	if out, n := Text(in); out != want || n != 1 {
		t.Errorf("Text = %q, %d; want %q, 1", out, n, want)
	}
}

// spec: SEC-6
func TestRedactAssignmentKeepsNameAndQuotes(t *testing.T) {
	cases := []struct{ in, want string }{
		{`export DB_PASSWORD="EXAMPLEpw2024"`, `export DB_PASSWORD="[REDACTED:assignment]"`},
		{`{"x_token": "EXAMPLEtok-9"}`, `{"x_token": "[REDACTED:assignment]"}`},
		{"--password EXAMPLEpw2024 --host db", "--password [REDACTED:assignment] --host db"},
		{"Authorization: Bearer EXAMPLE0tok3n1234", "Authorization: Bearer [REDACTED:authorization]"},
		// An unclosed quote never swallows the next line.
		{"password: \"EXAMPLEpw2024\nnext line\" ok", "password: \"[REDACTED:assignment]\nnext line\" ok"},
	}
	for _, tc := range cases {
		if out, _ := Text(tc.in); out != tc.want {
			t.Errorf("Text(%q) = %q, want %q", tc.in, out, tc.want)
		}
	}
}

// spec: SEC-5
func TestRedactCountsEveryReplacement(t *testing.T) {
	in := "A: " + fakeToken("ghp_", 50, 36, fakeAlnum) + "\nB: " + fakeToken("ghp_", 51, 36, fakeAlnum) +
		" and " + fakeToken("AKIA", 52, 16, fakeBase32) + "\nPASSWORD=EXAMPLEpw2024"
	out, n := Text(in)
	if n != 4 {
		t.Errorf("count = %d, want 4; out:\n%s", n, out)
	}
	if got := strings.Count(out, RedactedPrefix); got != 4 {
		t.Errorf("%d markers in output, want 4:\n%s", got, out)
	}
	if strings.Count(out, "\n") != 2 {
		t.Errorf("line structure changed:\n%s", out)
	}
}

// spec: SEC-8
func TestRedactMarkersAreNotTriggers(t *testing.T) {
	// A marker holds words such as "authorization" and "key"; they must not
	// start a match of their own, on this pass or a later one.
	for _, in := range []string{
		"[REDACTED:authorization] : longvalue123",
		"[REDACTED:aws-access-key]: hunter2hunter2",
		"[REDACTED:private-key-block]=EXAMPLEvalue99",
		"https://u:[REDACTED:url-credentials]@host/x",
		"curl -u admin:[REDACTED:authorization] https://x",
		"export API_KEY=[REDACTED:openai]",
	} {
		if out, n := Text(in); out != in || n != 0 {
			t.Errorf("Text(%q) = %q, %d", in, out, n)
		}
	}
}

// spec: SEC-5
func TestRedactPrivateKeyToEndOfText(t *testing.T) {
	in := "key follows\n-----BEGIN EC PRIVATE KEY-----\n" + fakeRSABody + "\n"
	out, n := Text(in)
	if want := "key follows\n[REDACTED:private-key-block]"; out != want || n != 1 {
		t.Errorf("Text = %q, %d; want %q, 1", out, n, want)
	}
	// Two blocks: each ends at its own END line, text between survives.
	two := "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\nmiddle\n" +
		"-----BEGIN ENCRYPTED PRIVATE KEY-----\nBBBB\n-----END ENCRYPTED PRIVATE KEY-----"
	if out, n := Text(two); out != "[REDACTED:private-key-block]\nmiddle\n[REDACTED:private-key-block]" || n != 2 {
		t.Errorf("two blocks: %q, %d", out, n)
	}
}

// spec: SEC-8
func TestRedactIdempotentOnCorpus(t *testing.T) {
	for _, tc := range secretCorpus() {
		once, _ := Text(tc.line)
		twice, n := Text(once)
		if twice != once || n != 0 {
			t.Errorf("%s: second Text changed %q into %q (%d)", tc.name, once, twice, n)
		}
	}
}

// spec: SEC-5, SEC-7
func TestSecretName(t *testing.T) {
	cases := map[string]bool{
		"API_KEY": true, "apiKey": true, "x-api-key": true, "GITHUB_TOKEN": true, "client_secret": true,
		"DB_PASSWORD": true, "passwd": true, "PGPASSWORD": true, "SECRET_KEY_BASE": true, "authToken": true,
		"AWS_SECRET_ACCESS_KEY": true, "token2": true, "MYSQL_PWD": true, "SMTP_PASS": true,
		"secretKeyRef": false, "TOKEN_URL": false, "KEY_FILE": false, "API_KEY_ID": false, "SECRET_NAME": false,
		"password_min_length": false, "public_key": false, "primary_key": false, "max_tokens": false,
		"keys": false, "monkey": false, "keyboard": false, "tokenizer": false, "PWD": false, "passthrough": false,
	}
	for name, want := range cases {
		if got := secretName(name); got != want {
			t.Errorf("secretName(%q) = %v, want %v", name, got, want)
		}
	}
}

// spec: SEC-8
func TestRedactLargeInput(t *testing.T) {
	line := "export API_KEY=" + "EXAMPLE" + strings.Repeat("a1", 10) + " and some prose about the token\n"
	in := strings.Repeat(line, (1<<20)/len(line))
	out, n := Text(in)
	if want := (1 << 20) / len(line); n != want {
		t.Errorf("count = %d, want %d", n, want)
	}
	if strings.Contains(out, "EXAMPLEa1a1") {
		t.Error("secret survived in a 1 MB text")
	}
	// One 1 MB line made of trigger words and separators must not blow up.
	hostile := strings.Repeat("key=token:secret=pass ", (1<<20)/22)
	out, n = Text(hostile)
	if again, m := Text(out); again != out || m != 0 || len(out) > len(hostile)+n*MaxRedactionGrowth {
		t.Errorf("hostile line: %d replacements, then %d more", n, m)
	}
}

// spec: SEC-8
func TestRedactKeepsUTF8Valid(t *testing.T) {
	// The value runs past the bounded window a pattern sees; the cut must not
	// fall inside a character.
	for _, in := range []string{
		"Authorization: Bearer " + strings.Repeat("я", 400),
		"Authorization: Basic x" + strings.Repeat("я", 400),
		"curl -u admin:" + strings.Repeat("€", 300) + " https://x",
	} {
		out, n := Text(in)
		if n == 0 || !utf8.ValidString(out) {
			t.Errorf("Text(%.40q…) = %.80q…, %d", in, out, n)
		}
	}
}

// spec: SEC-8
func TestRedactIdempotentOnFragments(t *testing.T) {
	// Random joins of triggers, token bodies, separators and markers reach
	// adjacencies the byte-level fuzzer rarely builds (a key right after a
	// fixed-length key, a marker before a separator).
	frags := []string{
		"AKIA", "ASIA", "AIza", "sk-", "sk-ant-", "sk-proj-", "ghp_", "github_pat_", "glpat-", "xoxb-1-",
		"npm_", "hf_", "ya29.", "sk_live_", "whsec_", "eyJ", "eyJhbGciOi", ".", "..", "-", "_", "=", ":", " ",
		"\n", "\"", "'", "\\\"", "@", "://", "u:", "curl ", " -u ", "--user ", "--password ", "Authorization: ",
		"Bearer ", "Basic ", "API_KEY=", "token: ", "secret=", "password=", "PASS: ", "key: ", "$", "${X}", "<x>",
		"[REDACTED:", "]", "[REDACTED:github]", "xxxxxxxx", "********", "/etc/x.key", "os.env",
		"-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----",
		fakeTokenBody(80, 16, fakeBase32), fakeTokenBody(81, 36, fakeAlnum), fakeTokenBody(82, 40, fakeB64Std), fakeTokenBody(83, 24, fakeB64URL),
		"0123456789", "abcdefgh", "я€",
		// The triggers and separators of the rules issue 20 added.
		"GOCSPX-", "ntn_", "secret_", "dckr_pat_", "sq0csp-", "sandbox-", "-us2", "/bot1234567:", "sig=", "%2B",
		"Pwd=", ";", "{", "}}", "machine h.io", " login ", " password ", "pass:", "-passin ", " -p", "mysql ", "${",
		":-", "Cookie: ", "a=", "; ", "</", "<password>", "</password>", "<![CDATA[", "]]>", "<\\/", "password: ",
		"TOKEN_", "# c", "\\n",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for j := 0; j < 2+rng.IntN(8); j++ {
			b.WriteString(frags[rng.IntN(len(frags))])
		}
		in := b.String()
		once, n := Text(in)
		twice, m := Text(once)
		if twice != once || m != 0 {
			t.Fatalf("not idempotent:\n   in: %q\n once: %q (%d)\ntwice: %q (%d)", in, once, n, twice, m)
		}
		if len(once) > len(in)+n*MaxRedactionGrowth || n == 0 && once != in {
			t.Fatalf("bad growth or count: %q → %q (%d)", in, once, n)
		}
	}
}

// spec: SEC-8
func TestMaxRedactionGrowthCoversEveryKind(t *testing.T) {
	kinds := []string{KindPrivateKey}
	for _, r := range redactRules {
		kinds = append(kinds, r.kind)
	}
	for _, k := range kinds {
		if l := len(redactMarker(k)); l > MaxRedactionGrowth {
			t.Errorf("marker %s is %d bytes, MaxRedactionGrowth %d", redactMarker(k), l, MaxRedactionGrowth)
		}
	}
}

// spec: SEC-8
func TestRedactShortAndInvalidUTF8(t *testing.T) {
	cases := []struct {
		in, want string
		n        int
	}{
		{"", "", 0},
		{"a", "a", 0},
		{"key=", "key=", 0},
		{"://:p@", "://:[REDACTED:url-credentials]@", 1},
		{"\xff\xfe\xfd", "\xff\xfe\xfd", 0},
		{"password=\xff\xff\xff\xff\xff\xff\xff\xff\xff", "password=[REDACTED:assignment]", 1},
		{"sk-ant-\xff" + strings.Repeat("a", 30), "sk-ant-\xff" + strings.Repeat("a", 30), 0},
	}
	for _, tc := range cases {
		if out, n := Text(tc.in); out != tc.want || n != tc.n {
			t.Errorf("Text(%q) = %q, %d; want %q, %d", tc.in, out, n, tc.want, tc.n)
		}
	}
}

// spec: SEC-8
func FuzzRedact(f *testing.F) {
	for _, tc := range secretCorpus() {
		f.Add(tc.line)
	}
	for _, tc := range lookAlikeCorpus() {
		f.Add(tc.line)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, n := Text(s)
		if n == 0 && out != s {
			t.Fatalf("text changed without a count: %q → %q", s, out)
		}
		if len(out) > len(s)+n*MaxRedactionGrowth {
			t.Fatalf("output grew by %d bytes for %d replacements", len(out)-len(s), n)
		}
		if n > 0 && strings.Count(out, RedactedPrefix) < 1 {
			t.Fatalf("count %d without a marker: %q", n, out)
		}
		again, m := Text(out)
		if again != out || m != 0 {
			t.Fatalf("not idempotent:\n   s: %q\n out: %q\nagain: %q", s, out, again)
		}
		if utf8.ValidString(s) && !utf8.ValidString(out) {
			t.Fatalf("valid UTF-8 became invalid: %q", out)
		}
	})
}

func BenchmarkRedact(b *testing.B) {
	prompt := "Please fix the login flow. The token expires after 24 hours; use the refresh path.\n" +
		"Run `GH_TOKEN=" + fakeToken("ghp_", 70, 36, fakeAlnum) + " gh pr list` and check src/auth/session.go.\n" +
		"The API returns 401 with Authorization: Bearer " + fakeTokenBody(71, 40, fakeAlnum) + "\n"
	clean := strings.Repeat("go test ./... && git diff --stat HEAD~1 -- cmd/precompact.go snapshot/store.go\n", 12)
	mixed := strings.Repeat(prompt+clean, (1<<20)/len(prompt+clean))
	oneLine := strings.ReplaceAll(mixed, "\n", " ")
	// Configuration and commands full of the syntax rules' triggers (SEC-5:
	// connection strings, .netrc, openssl, mysql, ${VAR:-…}, YAML, cookies,
	// XML), one secret in each block.
	config := "services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_USER: app\n" +
		"      POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:-" + fakeTokenBody(72, 16, fakeAlnum) + "}\n" +
		"      PGDATA: ${PGDATA:-/var/lib/postgresql/data}\n" +
		"<settings><servers><server><id>nexus</id><username>ci</username></server></servers></settings>\n" +
		"mysql -h db -u app -p shop < schema.sql && openssl req -new -key k.pem -passin env:KEY_PASS -out r.csr\n" +
		"curl -b cookies.txt -H 'Cookie: lang=en; theme=dark' https://app.example.com/?sig=abc&sv=2022\n" +
		"Driver={ODBC Driver 18};Server=db;Database=shop;Trusted_Connection=yes;\n" +
		"the password: see the docs; machine learning needs a login\n"
	markup := strings.Repeat(config, (1<<20)/len(config))
	for _, bc := range []struct {
		name string
		in   string
	}{
		{"prompt", prompt},
		{"command", "git commit -m 'snapshot: atomic writes' && go test ./snapshot/ -run TestStore -count=1"},
		{"clean-1MB", strings.Repeat(clean, (1<<20)/len(clean))},
		{"mixed-1MB", mixed},
		{"one-line-1MB", oneLine},
		{"config-1MB", markup},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.in)))
			for b.Loop() {
				Text(bc.in)
			}
		})
	}
}
