package settings

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// Codex CLI's config.toml is edited as text: github.com/pelletier/go-toml/v2
// validates it (toml.Unmarshal) and its parser (package unstable) locates
// every expression by byte range, so that install changes only the bytes
// of the [hooks.state."…"] tables it manages and leaves every other byte —
// comments, order, quoting, blank lines — as it was (IN-20).

// TrustConfig is what compact-guard reads of a config file that records
// which hooks the client trusts: Codex CLI's config.toml.
type TrustConfig struct {
	Features struct {
		Hooks *bool `toml:"hooks"`
	} `toml:"features"`
	Hooks struct {
		State map[string]HookState `toml:"state"`
	} `toml:"hooks"`
	Projects map[string]struct {
		TrustLevel string `toml:"trust_level"`
	} `toml:"projects"`
}

// HookState is one [hooks.state."key"] table.
type HookState struct {
	TrustedHash string `toml:"trusted_hash"`
	Enabled     *bool  `toml:"enabled"`
}

// ReadTrustConfig decodes config.toml (nil or empty data: an empty config).
func ReadTrustConfig(data []byte) (*TrustConfig, error) {
	var c TrustConfig
	if err := toml.Unmarshal(data, &c); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return nil, fmt.Errorf("invalid TOML at line %d, column %d: %s", row, col, de.Error())
		}
		return nil, fmt.Errorf("invalid TOML: %w", err)
	}
	return &c, nil
}

// tomlDoc is config.toml as text, with the [hooks.state."key"] tables
// located.
type tomlDoc struct {
	data []byte
	nl   string
	// state maps a key to its table; other records keys whose state is
	// written in a form install does not edit (dotted keys, an inline
	// table).
	state map[string]*stateTable
	other map[string]bool
}

// stateTable is one [hooks.state."key"] table: where its lines are.
type stateTable struct {
	start, end int // from its header line's start to its last line's end
	keyStart   int // the key part of the header
	keyEnd     int
	// hashStart and hashEnd hold trusted_hash's value, -1 when none.
	hashStart, hashEnd int
}

// parseTOML validates data and locates its hooks.state tables.
func parseTOML(data []byte) (*tomlDoc, error) {
	if _, err := ReadTrustConfig(data); err != nil {
		return nil, err
	}
	d := &tomlDoc{data: data, nl: "\n", state: map[string]*stateTable{}, other: map[string]bool{}}
	if bytes.Contains(data, []byte("\r\n")) {
		d.nl = "\r\n"
	}
	var p unstable.Parser
	p.Reset(data)
	var table []string
	var cur *stateTable
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			var parts []unstable.Range
			table, parts = keyOf(e)
			cur = nil
			if e.Kind == unstable.Table && len(table) == 3 && table[0] == "hooks" && table[1] == "state" {
				first, last := parts[0], parts[len(parts)-1]
				t := &stateTable{
					start:    lineStart(data, int(first.Offset)),
					end:      lineEnd(data, int(last.Offset+last.Length)),
					keyStart: int(last.Offset), keyEnd: int(last.Offset + last.Length),
					hashStart: -1, hashEnd: -1,
				}
				d.state[table[2]] = t
				cur = t
			} else if len(table) >= 2 && table[0] == "hooks" && table[1] == "state" {
				if len(table) > 2 {
					d.other[table[2]] = true
				}
			}
		case unstable.KeyValue:
			key, _ := keyOf(e)
			full := append(append([]string(nil), table...), key...)
			if cur != nil {
				cur.end = lineEnd(data, int(e.Raw.Offset+e.Raw.Length))
				if len(key) == 1 && key[0] == "trusted_hash" {
					v := e.Value()
					cur.hashStart, cur.hashEnd = int(v.Raw.Offset), int(v.Raw.Offset+v.Raw.Length)
				}
				continue
			}
			if len(full) >= 3 && full[0] == "hooks" && full[1] == "state" {
				d.other[full[2]] = true
			}
		}
	}
	if err := p.Error(); err != nil {
		return nil, fmt.Errorf("invalid TOML: %w", err)
	}
	return d, nil
}

// keyOf returns the key parts of a table header or key/value, and where
// each is.
func keyOf(e *unstable.Node) ([]string, []unstable.Range) {
	var parts []string
	var ranges []unstable.Range
	it := e.Key()
	for it.Next() {
		parts = append(parts, string(it.Node().Data))
		ranges = append(ranges, it.Node().Raw)
	}
	return parts, ranges
}

func lineStart(data []byte, off int) int {
	return bytes.LastIndexByte(data[:off], '\n') + 1
}

func lineEnd(data []byte, off int) int {
	if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
		return off + i + 1
	}
	return len(data)
}

// tomlKey writes s as a TOML basic string.
func tomlKey(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// textEdit replaces data[start:end] with text.
type textEdit struct {
	start, end int
	text       string
}

// TrustPlan is what config.toml must say about the handlers of one hooks
// file after an edit of it: the trust of compact-guard's handlers at their
// keys, the tables of other handlers moved along with them when their
// place changed, and the tables of handlers that are gone removed.
type TrustPlan struct {
	// Set maps a key to the hash it must trust.
	Set map[string]string
	// Move maps a key whose handler moved to its new key.
	Move map[string]string
	// Drop lists keys whose handler is gone.
	Drop []string
	// Distrust maps the key of a handler that names compact-guard but is
	// not one install writes (IN-21) to why: its table goes, so that Codex
	// asks before it runs it (an earlier install trusted such handlers).
	Distrust map[string]string
}

// PlanTrust compares the handlers of a hooks file at path before and after
// an edit (the same *hujson.Object is the same handler) and says what
// config.toml must change (IN-20, IN-21): the handlers install writes for
// this binary trusted at their keys, handlers that name compact-guard
// otherwise distrusted, the state of every other handler kept with it.
func PlanTrust(path string, before, after []Handler) TrustPlan {
	plan := TrustPlan{Set: map[string]string{}, Move: map[string]string{}, Distrust: map[string]string{}}
	newKey := map[*hujson.Object]string{}
	managed := map[*hujson.Object]bool{} // trusted or distrusted where it is now
	for _, h := range after {
		k := h.TrustKey(path)
		newKey[h.obj] = k
		switch {
		case h.Exact:
			plan.Set[k] = h.TrustHash()
			managed[h.obj] = true
		case h.NamesCompactGuard():
			managed[h.obj] = true
		}
	}
	moving := map[string]bool{}
	for _, h := range before {
		old := h.TrustKey(path)
		k, stays := newKey[h.obj]
		switch {
		case stays && k == old:
		case stays && !managed[h.obj]:
			plan.Move[old] = k
			moving[old] = true
		default:
			// Its handler is gone, or is install's (or names compact-guard)
			// and is judged anew where it is now.
			plan.Drop = append(plan.Drop, old)
		}
	}
	dropped := map[string]bool{}
	for _, k := range plan.Drop {
		dropped[k] = true
	}
	for _, h := range after {
		// A key whose table is another handler's, on its way to that
		// handler's new key, or already removed, is left to that.
		if k := h.TrustKey(path); !h.Exact && h.NamesCompactGuard() && !moving[k] && !dropped[k] {
			why := h.Foreign
			if why == "" {
				why = "it does not run compact-guard as its program"
			}
			plan.Distrust[k] = why
		}
	}
	sort.Strings(plan.Drop)
	return plan
}

// Empty reports a plan that changes nothing.
func (p TrustPlan) Empty() bool {
	return len(p.Set) == 0 && len(p.Move) == 0 && len(p.Drop) == 0 && len(p.Distrust) == 0
}

// apply returns config.toml's text with the plan carried out, and the keys
// it trusted anew or changed. Only the managed tables' bytes change: a
// hash is replaced in place, a trusted_hash line added to a table that
// lacks one, a moved table's header renamed, a dropped table removed with
// the blank line before it, and a new table appended after a blank line.
func (d *tomlDoc) apply(p TrustPlan) ([]byte, []string, error) {
	var edits []textEdit
	var changed []string
	lastGone := false         // a dropped table ended the file
	gone := map[string]bool{} // tables that leave their key
	for from := range p.Move {
		gone[from] = true
	}
	drops := append(append([]string(nil), p.Drop...), sortedKeys(p.Distrust)...)
	for _, k := range drops {
		gone[k] = true
	}
	keys := sortedKeys
	for _, k := range append(append(keys(p.Set), keys(p.Move)...), drops...) {
		if d.other[k] {
			return nil, nil, fmt.Errorf("config.toml sets hooks.state for %q in a form install does not edit (dotted keys or an inline table); write it as a [hooks.state.%s] table", k, tomlKey(k))
		}
	}
	for _, from := range keys(p.Move) {
		if t := d.state[from]; t != nil {
			edits = append(edits, textEdit{t.keyStart, t.keyEnd, tomlKey(p.Move[from])})
		}
	}
	for _, k := range drops {
		if t := d.state[k]; t != nil {
			edits = append(edits, textEdit{d.blankBefore(t.start), t.end, ""})
			lastGone = lastGone || t.end == len(d.data)
			changed = append(changed, k)
		}
	}
	var appended strings.Builder
	for _, k := range keys(p.Set) {
		hash := tomlKey(p.Set[k])
		t := d.state[k]
		switch {
		case t != nil && !gone[k] && t.hashStart >= 0:
			if string(d.data[t.hashStart:t.hashEnd]) != hash {
				edits = append(edits, textEdit{t.hashStart, t.hashEnd, hash})
				changed = append(changed, k)
			}
		case t != nil && !gone[k]:
			line := "trusted_hash = " + hash + d.nl
			if t.end == len(d.data) && !bytes.HasSuffix(d.data, []byte("\n")) {
				line = d.nl + "trusted_hash = " + hash // the file's last line keeps having no line break
			}
			edits = append(edits, textEdit{t.end, t.end, line})
			changed = append(changed, k)
		default:
			appended.WriteString(d.nl + "[hooks.state." + tomlKey(k) + "]" + d.nl + "trusted_hash = " + hash + d.nl)
			changed = append(changed, k)
		}
	}
	out := d.data
	// Last first, so that earlier offsets stay valid; at one offset a
	// removal before an insertion.
	sort.SliceStable(edits, func(i, j int) bool {
		if edits[i].start != edits[j].start {
			return edits[i].start > edits[j].start
		}
		return edits[i].end > edits[j].end
	})
	for _, e := range edits {
		out = append(append(append([]byte(nil), out[:e.start]...), e.text...), out[e.end:]...)
	}
	if lastGone && !bytes.HasSuffix(d.data, []byte("\n")) {
		// The file's last table went, in a file without a final newline:
		// the line break before the table came with it (IN-20).
		out = out[:len(out)-len(lineBreakBefore(out, len(out)))]
	}
	if appended.Len() > 0 {
		tail := appended.String()
		switch {
		case len(bytes.TrimSpace(out)) == 0:
			out, tail = nil, strings.TrimPrefix(tail, d.nl)
		case !bytes.HasSuffix(out, []byte("\n")):
			// A file without a final newline stays without one, so that
			// uninstall, taking the table and the line break before it
			// away, gives the file back byte for byte (IN-20).
			tail = d.nl + strings.TrimSuffix(tail, d.nl)
		}
		out = append(out, tail...)
	}
	sort.Strings(changed)
	return out, changed, nil
}

// lineBreakBefore is the line break that ends data[:end], "" when none.
func lineBreakBefore(data []byte, end int) string {
	switch {
	case bytes.HasSuffix(data[:end], []byte("\r\n")):
		return "\r\n"
	case bytes.HasSuffix(data[:end], []byte("\n")):
		return "\n"
	}
	return ""
}

// blankBefore extends a table's start over one blank line before it, which
// install wrote when it appended the table.
func (d *tomlDoc) blankBefore(start int) int {
	if start == 0 {
		return 0
	}
	prev := lineStart(d.data, start-1)
	if len(bytes.TrimSpace(d.data[prev:start])) == 0 {
		return prev
	}
	return start
}

func sortedKeys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// CheckConfig reads and parses config.toml as TrustEdit does (IN-22), so
// that install and uninstall refuse a config they could not edit before
// they change the hooks file: Codex skips a hook whose trust is not
// written.
func CheckConfig(path string) error {
	sf, err := openTarget(path, "")
	if err != nil {
		return fmt.Errorf("%w; nothing was changed", err)
	}
	if _, err := parseTOML(sf.Data); err != nil {
		return fmt.Errorf("%s: %w; nothing was changed", path, err)
	}
	return nil
}

// TrustsProject reports whether config.toml trusts the project dir
// or a folder above it: Codex loads a project's .codex/ only then.
func (cfg *TrustConfig) TrustsProject(dir string) bool {
	for d := dir; ; {
		if p, ok := cfg.Projects[d]; ok && p.TrustLevel == "trusted" {
			return true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return false
		}
		d = parent
	}
}
