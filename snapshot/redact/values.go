package redact

import (
	"strings"
	"unicode/utf8"
)

// secretValue says whether a value in a secret-looking place is a secret: at
// least MinSecretLen characters, not a placeholder, a mask, a path or an
// earlier replacement. A quoted value may hold spaces (a passphrase).
func secretValue(v string, quoted bool) bool {
	if utf8.RuneCountInString(v) < MinSecretLen {
		return false
	}
	if strings.Contains(v, RedactedPrefix) || isPlaceholder(v) || isMasked(v) || pathLike(v) {
		return false
	}
	if !quoted {
		switch strings.ToLower(v) {
		case "undefined", "required", "optional", "disabled", "enabled":
			return false
		}
	}
	return true
}

// isPlaceholder reports values that stand for a secret without being one:
// shell and PowerShell references ($TOKEN, ${API_KEY}, $(cat f),
// $env:API_KEY), <your-key>, {{ .token }}, Ruby's and ERB's #{token} and
// <%= token %>, %API_KEY%, your-api-key, a value someone already redacted
// ([REDACTED], REDACTED), and a provider's prefix with the rest elided
// (sk-ant-api03-...).
func isPlaceholder(v string) bool {
	switch {
	case v == "":
		return true
	case v[0] == '$':
		return reference(v[1:])
	case v[0] == '<' && v[len(v)-1] == '>':
		return true
	case strings.HasPrefix(v, "{{"), strings.HasPrefix(v, "#{"), strings.HasPrefix(v, "<%"):
		return true
	case len(v) > 2 && v[0] == '%' && v[len(v)-1] == '%':
		return true
	}
	l := strings.ToLower(v)
	if strings.Trim(l, "[]<>*_-") == "redacted" || strings.Contains(l, "[redacted]") {
		return true
	}
	if rest, ok := strings.CutSuffix(v, "..."); ok || strings.HasSuffix(v, "…") {
		if !ok {
			rest = strings.TrimSuffix(v, "…")
		}
		if len(rest) < MinSecretLen || strings.HasSuffix(rest, "-") || strings.HasSuffix(rest, "_") {
			return true
		}
	}
	return strings.HasPrefix(l, "your-") || strings.HasPrefix(l, "your_") || strings.HasPrefix(l, "your ")
}

// reference reports what follows '$' in a shell or PowerShell reference:
// {…}, (…), env:NAME, a digit, or a whole name that is not a password in
// disguise — one case (TOKEN, api_key) or, in mixed case, no digit
// ($ApiKey). "$ecretP4ss!" and "$Passw0rd" are values.
func reference(r string) bool {
	switch {
	case r == "":
		return false
	case r[0] == '{' || r[0] == '(' || isDigitByte(r[0]):
		return true
	case strings.HasPrefix(strings.ToLower(r), "env:"):
		r = r[4:]
	}
	upper, lower, digit := false, false, false
	for i := 0; i < len(r); i++ {
		switch c := r[i]; {
		case isUpperByte(c):
			upper = true
		case isLowerByte(c):
			lower = true
		case isDigitByte(c):
			digit = true
		case c != '_':
			return false
		}
	}
	return r != "" && !(upper && lower && digit)
}

// isMasked reports a value mostly made of mask characters (x, X, *, •):
// sk-xxxxxxxxxxxxxxxxxxxx, ********, AKIAXXXXXXXXXXXXXXXX; or a prefix
// whose whole random part is masked (github_pat_xxxx, npm_****).
func isMasked(v string) bool {
	if t := strings.TrimRight(v, "xX*•"); len(v)-len(t) >= 4 && t != "" && (t[len(t)-1] == '_' || t[len(t)-1] == '-') {
		return true
	}
	mask, other := 0, 0
	for _, r := range v {
		switch {
		case r == 'x' || r == 'X' || r == '*' || r == '•':
			mask++
		case r < utf8.RuneSelf && isAlnumByte(byte(r)):
			other++
		}
	}
	return mask >= 4 && mask >= other
}

// pathLike reports file paths (/etc/ssl/private/server.key, ~/.ssh/id_rsa,
// C:\keys\prod.pem): the value of --key or KEY_FILE-like names is often one.
// A value with '+' or '=' is base64, not a path.
func pathLike(v string) bool {
	if strings.ContainsAny(v, "+= ") {
		return false
	}
	switch {
	case strings.HasPrefix(v, "~/"), strings.HasPrefix(v, "./"), strings.HasPrefix(v, "../"),
		strings.HasPrefix(v, `\\`), strings.HasPrefix(v, `.\`):
		return true
	case len(v) > 2 && isAlphaByte(v[0]) && v[1] == ':' && (v[2] == '\\' || v[2] == '/'):
		return true
	case v[0] == '/':
		return strings.Count(v, "/") >= 2 || strings.Contains(v, ".")
	}
	return false
}

// dottedIdent reports code references such as os.environ or
// process.env.API_KEY, and file names such as server.key.
func dottedIdent(v string) bool {
	parts := strings.Split(v, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if p == "" || !(isAlphaByte(p[0]) || p[0] == '_' || p[0] == '$') {
			return false
		}
		for i := 1; i < len(p); i++ {
			if c := p[i]; !(isAlnumByte(c) || c == '_' || c == '$') {
				return false
			}
		}
	}
	return true
}

// secretName reports whether an identifier names a secret: one of its parts
// (split at _ - . and camelCase) is KEY, TOKEN, SECRET, PASSWORD, PASSWD,
// PASSPHRASE, PASS or PWD (or a compound such as apikey, authtoken,
// dbpassword), and every part after it only qualifies the value (_BASE,
// _VALUE, _PROD, _2). TOKEN_URL, KEY_FILE, API_KEY_ID, SECRET_NAME and
// password_min_length name something else; public_key, primary_key and
// sort_key are not secrets; tokens, keys are counts or collections.
func secretName(name string) bool {
	if l := strings.ToLower(name); l == "pwd" || l == "oldpwd" {
		return false // the shell's working directory
	}
	parts := nameParts(name)
	last := lastSecretWord(parts)
	if last < 0 {
		return false
	}
	for _, p := range parts[last+1:] {
		if p != "" && !qualifierAfterSecret[p] {
			return false
		}
	}
	return true
}

// lastSecretWord returns the index of the last part that is a secret word
// (KEY after public, primary … is not), or -1.
func lastSecretWord(parts []string) int {
	last := -1
	for i, p := range parts {
		if secretWord(p) {
			if (p == "key") && i > 0 && notSecretKeyQualifier[parts[i-1]] {
				continue
			}
			last = i
		}
	}
	return last
}

// leadingSecretName reports a name whose secret word comes first and is
// followed by what the secret is for (TOKEN_GITHUB, PASSWORD_DB,
// SECRET_STRIPE_LIVE), when it is written environment-style (upper case)
// or as a flag (--token-github): no part after the secret word may say
// that the name is about something else (TOKEN_URL, KEY_FILE, SECRET_NAME,
// PASSWORD_MIN_LENGTH stay out, as namesSomethingElse lists). Names in code
// (tokenAddress, keyBindings) are left to secretName.
func leadingSecretName(name string, flag bool) bool {
	if !flag && !upperName(name) || secretName(name) {
		return false
	}
	if l := strings.ToLower(name); l == "pwd" || l == "oldpwd" {
		return false
	}
	parts := nameParts(name)
	last := lastSecretWord(parts)
	if last < 0 || last == len(parts)-1 {
		return false
	}
	for _, p := range parts[last+1:] {
		if namesSomethingElse[p] {
			return false
		}
	}
	return true
}

// passwordName reports a secret name whose secret word is one people choose
// (PASSWORD, PASSWD, PASSPHRASE, PASS, PWD, SECRET and compounds ending in
// them: a word can be one), rather than a KEY or a TOKEN, which services
// issue and which are random.
func passwordName(name string) bool {
	parts := nameParts(name)
	last := lastSecretWord(parts)
	if last < 0 {
		return false
	}
	p := parts[last]
	if p == "pass" || p == "pwd" {
		return true
	}
	for _, w := range []string{"password", "passwd", "passphrase", "secret"} {
		if strings.HasSuffix(p, w) {
			return true
		}
	}
	return false
}

// bareKeyName reports the name "key", alone or numbered (key2, KEY_1).
func bareKeyName(name string) bool {
	parts := nameParts(name)
	if len(parts) == 0 || parts[0] != "key" {
		return false
	}
	for _, p := range parts[1:] {
		if p != "" {
			return false
		}
	}
	return true
}

// namesSomethingElse are the parts that, after a leading secret word, say
// the name is about something else than the secret's value: where it is,
// what it is called, how it is shaped or checked, how long it lives.
var namesSomethingElse = map[string]bool{
	"url": true, "uri": true, "urls": true, "endpoint": true, "endpoints": true, "host": true, "hostname": true,
	"port": true, "path": true, "paths": true, "file": true, "files": true, "filename": true, "dir": true,
	"directory": true, "folder": true, "location": true, "name": true, "names": true, "id": true, "ids": true,
	"type": true, "types": true, "kind": true, "format": true, "fmt": true, "length": true, "len": true,
	"min": true, "max": true, "count": true, "limit": true, "size": true, "ttl": true, "expiry": true,
	"expires": true, "expire": true, "expiration": true, "exp": true, "lifetime": true, "timeout": true,
	"age": true, "duration": true, "interval": true, "ref": true, "refs": true, "reference": true, "arn": true,
	"version": true, "ver": true, "header": true, "headers": true, "prefix": true, "suffix": true,
	"field": true, "fields": true, "param": true, "params": true, "env": true, "var": true, "vars": true,
	"variable": true, "scope": true, "scopes": true, "policy": true, "rotation": true, "store": true,
	"storage": true, "provider": true, "source": true, "src": true, "mode": true, "method": true,
	"algorithm": true, "alg": true, "strategy": true, "enabled": true, "disabled": true, "required": true,
	"regex": true, "pattern": true, "rule": true, "rules": true, "list": true, "set": true, "map": true,
	"mapping": true, "cache": true, "table": true, "column": true, "label": true, "attribute": true,
	"attr": true, "prompt": true, "message": true, "msg": true, "error": true, "hint": true, "help": true,
	"description": true, "desc": true, "title": true, "input": true, "output": true, "reset": true,
	"change": true, "update": true, "expired": true, "valid": true, "validation": true, "check": true,
	"hash": true, "hashed": true, "digest": true, "salt": true, "fingerprint": true, "checksum": true,
	"index": true, "idx": true, "manager": true, "binding": true, "bindings": true, "code": true,
	"codes": true, "usage": true, "budget": true, "flag": true, "option": true, "options": true,
	"config": true, "settings": true, "pair": true, "alias": true, "stdin": true, "issuer": true,
	"audience": true, "region": true, "kid": true, "thumbprint": true, "purpose": true, "bits": true,
	"curve": true, "engine": true, "backend": true,
}

// nameParts splits an identifier into lower-case parts at _ - . and camelCase
// boundaries, dropping trailing digits (key2 → key; a part of digits only
// becomes "").
func nameParts(name string) []string {
	var parts []string
	start := 0
	flush := func(end int) {
		if end > start {
			p := strings.ToLower(name[start:end])
			parts = append(parts, strings.TrimRight(p, "0123456789"))
		}
		start = end
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c == '_' || c == '-' || c == '.' {
			flush(i)
			start = i + 1
			continue
		}
		if isUpperByte(c) && i > start {
			prev := name[i-1]
			if isLowerByte(prev) || isDigitByte(prev) ||
				isUpperByte(prev) && i+1 < len(name) && isLowerByte(name[i+1]) {
				flush(i)
			}
		}
	}
	flush(len(name))
	return parts
}

func secretWord(p string) bool {
	switch p {
	case "key", "token", "secret", "password", "passwd", "passphrase", "pass", "pwd":
		return true
	}
	for _, suffix := range []string{"token", "secret", "password", "passwd", "passphrase"} {
		if strings.HasSuffix(p, suffix) {
			return true
		}
	}
	return compoundKeys[p]
}

var compoundKeys = map[string]bool{
	"apikey": true, "accesskey": true, "secretkey": true, "privatekey": true, "authkey": true,
	"signingkey": true, "masterkey": true, "encryptionkey": true, "licensekey": true, "serverkey": true,
	"appkey": true, "clientkey": true, "sessionkey": true, "hmackey": true, "consumerkey": true,
	"servicekey": true, "adminkey": true, "userkey": true, "webhookkey": true, "deploykey": true,
}

// notSecretKeyQualifier: KEY after these words names a public or database key.
var notSecretKeyQualifier = map[string]bool{
	"public": true, "pub": true, "primary": true, "foreign": true, "sort": true, "partition": true,
	"cache": true, "idempotency": true, "range": true, "hash": true, "lookup": true, "map": true,
	"dedup": true, "dedupe": true, "unique": true, "composite": true, "row": true, "object": true,
	"translation": true, "i18n": true, "message": true, "msg": true, "host": true, "known": true,
	"routing": true, "shard": true, "group": true, "index": true, "dict": true, "react": true,
}

// qualifierAfterSecret: parts that may follow the secret word and still name
// the secret itself (SECRET_KEY_BASE, TOKEN_VALUE, PASSWORD_PROD, API_KEY_2).
var qualifierAfterSecret = map[string]bool{
	"value": true, "val": true, "str": true, "string": true, "text": true, "b": true, "base": true,
	"hex": true, "raw": true, "plain": true, "plaintext": true, "data": true, "bytes": true,
	"enc": true, "encoded": true, "prod": true, "production": true, "dev": true, "development": true,
	"staging": true, "stage": true, "test": true, "testing": true, "live": true, "old": true,
	"new": true, "current": true, "next": true, "prev": true, "previous": true, "primary": true,
	"secondary": true, "backup": true, "override": true, "local": true, "ci": true,
	"confirm": true, "confirmation": true, "repeat": true, "again": true, "key": true,
	"secret": true, "token": true,
}
