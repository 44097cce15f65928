package watch

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// The auto-compact window a user sets, read as Claude Code 2.1.337 reads it
// (measured in its bundle, specs/watch.md WA-43): the variable first, then
// the settings files from the one that takes precedence down, each file's
// per-model entry (modelSettings.<model>.autoCompactWindow, where
// /autocompact saves it from 2.1.311) before its top-level
// autoCompactWindow.

// userWindow is an auto-compact window the user set, and where.
type userWindow struct {
	tokens int64
	source string
}

// settingsFacts is what the settings files say about the window.
type settingsFacts struct {
	files []fileSettings // lowest precedence first
	paths []string
	model string // the last file's model setting
}

func readAllSettings(paths []string) settingsFacts {
	var s settingsFacts
	for _, p := range paths {
		f := readSettings(p)
		s.files, s.paths = append(s.files, f), append(s.paths, p)
		if f.Model != "" {
			s.model = f.Model
		}
	}
	return s
}

// windowFor is the auto-compact window the settings set for model: the
// file of highest precedence that sets one for it decides, and within a
// file the per-model entry replaces the top-level value. "auto" for the
// model there means none is set (the client's own choice, WA-20).
func (s settingsFacts) windowFor(model string) (userWindow, bool) {
	for i := len(s.files) - 1; i >= 0; i-- {
		f := s.files[i]
		if v, ok := f.perModel(model); ok {
			if v.auto {
				return userWindow{}, false
			}
			return userWindow{v.tokens, "modelSettings.autoCompactWindow in " + s.paths[i]}, true
		}
		if n, ok := settingTokens(f.AutoCompactWindow); ok {
			return userWindow{n, "autoCompactWindow in " + s.paths[i]}, true
		}
	}
	return userWindow{}, false
}

type fileSettings struct {
	AutoCompactWindow json.RawMessage `json:"autoCompactWindow"`
	ModelSettings     json.RawMessage `json:"modelSettings"`
	Model             string          `json:"model"`
}

// modelWindow is a per-model entry's autoCompactWindow: tokens, or "auto".
type modelWindow struct {
	tokens int64
	auto   bool
}

// perModel finds model's entry in modelSettings as the client does: keys
// are canonical model names that also match the model's dated, [1m],
// Bedrock and Vertex spellings; a key spelled exactly as the canonical name
// wins, else the first key (in the file's order) that names the model. An
// entry whose autoCompactWindow is not "auto" or at least 100,000 whole
// tokens sets nothing (the client's schema drops it).
func (f fileSettings) perModel(model string) (modelWindow, bool) {
	want := canonicalModel(model)
	if want == "" || len(f.ModelSettings) == 0 {
		return modelWindow{}, false
	}
	var found modelWindow
	ok := false
	eachKey(f.ModelSettings, func(key string, value json.RawMessage) bool {
		if canonicalModel(key) != want {
			return true
		}
		var entry struct {
			AutoCompactWindow json.RawMessage `json:"autoCompactWindow"`
		}
		if json.Unmarshal(value, &entry) != nil {
			return true
		}
		var v modelWindow
		if string(bytes.TrimSpace(entry.AutoCompactWindow)) == `"auto"` {
			v.auto = true
		} else if n, valid := settingTokens(entry.AutoCompactWindow); valid {
			v.tokens = n
		} else {
			return true
		}
		if key == want {
			found, ok = v, true
			return false
		}
		if !ok {
			found, ok = v, true
		}
		return true
	})
	return found, ok
}

// eachKey calls fn with the members of a JSON object in the file's order,
// until fn returns false; anything but an object calls it for none.
func eachKey(obj json.RawMessage, fn func(string, json.RawMessage) bool) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return
		}
		key, _ := t.(string)
		var value json.RawMessage
		if dec.Decode(&value) != nil || !fn(key, value) {
			return
		}
	}
}

// settingTokens reads an autoCompactWindow from a settings file: a whole
// number of at least MinAutoCompact tokens; anything else sets nothing.
func settingTokens(raw json.RawMessage) (int64, bool) {
	var f float64
	if len(raw) == 0 || json.Unmarshal(raw, &f) != nil {
		return 0, false
	}
	if f != math.Trunc(f) || f < MinAutoCompact || f > 1<<53 {
		return 0, false
	}
	return int64(f), true
}

// modelSpellings are the parts of a model id canonicalModel drops, compiled
// on first use: a hook that never reads a settings file pays nothing for
// them at start (PF-20).
var modelSpellings = sync.OnceValue(func() [3]*regexp.Regexp {
	return [3]*regexp.Regexp{
		regexp.MustCompile(`^(?:[a-z]+\.)?anthropic\.`), // Bedrock's region and provider
		regexp.MustCompile(`-v\d+(?::\d+)?$`),           // Bedrock's version
		regexp.MustCompile(`-\d{8}$`),                   // a date
	}
})

// canonicalModel is a model id without what makes a spelling differ from
// the canonical name the client keys modelSettings by: case, a [1m]
// suffix, a Bedrock region and "anthropic." prefix and version suffix, a
// Vertex "@date" and a date. Aliases ("opus") are the client's to resolve
// and stay as they are.
func canonicalModel(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	m = strings.TrimSuffix(m, "[1m]")
	if i := strings.IndexByte(m, '@'); i > 0 {
		m = m[:i]
	}
	for _, re := range modelSpellings() {
		m = re.ReplaceAllString(m, "")
	}
	return m
}

// numberForms are the forms the client reads a size in, compiled on first
// use: exponent, grouped, a leading float, leading digits.
var numberForms = sync.OnceValue(func() [4]*regexp.Regexp {
	return [4]*regexp.Regexp{
		regexp.MustCompile(`^[+-]?(\d+(\.\d*)?|\.\d+)[eE][+-]?\d+$`),
		regexp.MustCompile(`^[+-]?\d{1,3}([_, \x{00A0}\x{202F}])\d{3}(?:[_, \x{00A0}\x{202F}]\d{3})*$`),
		regexp.MustCompile(`^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?`),
		regexp.MustCompile(`^[+-]?\d+`),
	}
})

// envTokens reads CLAUDE_CODE_AUTO_COMPACT_WINDOW as the client does: "200k"
// and "1.5m" (a number before a k or m), "2e5", "200,000" or "200_000", or
// the leading digits of the value; below 100,000 it is taken as 100,000 (the
// client warns and uses its minimum); a value that reads as no positive
// number is ignored, and so are values too large to count.
func envTokens(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	forms := numberForms()
	exponentForm, groupedForm, leadingFloat, leadingInt := forms[0], forms[1], forms[2], forms[3]
	var v float64
	switch last := strings.ToLower(s[len(s)-1:]); {
	case last == "k" || last == "m":
		f, err := strconv.ParseFloat(leadingFloat.FindString(s), 64)
		if err != nil {
			return 0, false
		}
		v = f * 1e3
		if last == "m" {
			v = f * 1e6
		}
	case exponentForm.MatchString(s):
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f != math.Trunc(f) {
			return 0, false
		}
		v = f
	case len(s) <= 32 && groupedForm.MatchString(s):
		f, err := strconv.ParseFloat(strings.NewReplacer("_", "", ",", "", " ", "", "\u00a0", "", "\u202f", "").Replace(s), 64)
		if err != nil {
			return 0, false
		}
		v = f
	default:
		f, err := strconv.ParseFloat(leadingInt.FindString(s), 64)
		if err != nil {
			return 0, false
		}
		v = f
	}
	v = math.Round(v)
	if !(v >= 1) || v > 1<<53 {
		return 0, false
	}
	return max(int64(v), MinAutoCompact), true
}

// maxSettingsBytes bounds a settings file read for the window.
const maxSettingsBytes = 1 << 20

// readSettings reads the keys of a settings file the window depends on;
// a missing, unreadable or invalid file says nothing.
func readSettings(path string) fileSettings {
	var f fileSettings
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxSettingsBytes {
		return f
	}
	file, err := os.Open(path)
	if err != nil {
		return f
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, maxSettingsBytes))
	if err != nil {
		return f
	}
	_ = json.Unmarshal(data, &f) // a value of another type leaves its key unset
	return f
}
