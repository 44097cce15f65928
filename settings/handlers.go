package settings

import (
	"encoding/hex"
	"strconv"
	"strings"
	"unicode"

	"github.com/tailscale/hujson"
)

// Codex CLI runs a hook only when its user config.toml trusts it (IN-20):
// [hooks.state."<file>:<event>:<group>:<handler>"] trusted_hash = "sha256:…",
// the hash of the handler's canonical JSON. Without the entry Codex skips
// the hook and says nothing; a handler changed since it was trusted is
// "modified" and skipped as well.

// defaultHandlerTimeout is the timeout Codex gives a handler that names
// none.
const defaultHandlerTimeout = 600

// Handler is one hook handler of a hooks file, with its place: the event,
// the index of its matcher group in the event's list and its own index in
// the group.
type Handler struct {
	Event   string
	Group   int
	Index   int
	Matcher *string
	// Type is the handler's type ("command" when missing); Command,
	// Timeout (0: none), StatusMessage and Async are what Codex hashes.
	Type          string
	Command       string
	Timeout       int
	StatusMessage *string
	Async         bool
	// Ours reports a handler that names compact-guard (IN-5); Exact one
	// install writes for this binary (IN-21), the only kind it trusts.
	Ours, Exact bool
	// Foreign says why a handler of Ours is not one install writes;
	// Unmanaged why install cannot make it one (Entry's fields).
	Foreign, Unmanaged string

	obj *hujson.Object
}

// Handlers lists every handler of the document's "hooks", in file order.
// self is the running binary, which counts as compact-guard under any name.
func (d *Document) Handlers(self string) []Handler {
	hooks, _ := member(d.rootObject(), "hooks").(*hujson.Object)
	if hooks == nil {
		return nil
	}
	var out []Handler
	for _, ev := range hooks.Members {
		list, ok := ev.Value.Value.(*hujson.Array)
		if !ok {
			continue
		}
		event, _ := stringOf(ev.Name.Value)
		for gi, g := range list.Elements {
			group, _ := g.Value.(*hujson.Object)
			handlers, _ := member(group, "hooks").(*hujson.Array)
			if handlers == nil {
				continue
			}
			var matcher *string
			if m, ok := stringOf(member(group, "matcher")); ok {
				matcher = &m
			}
			for hi, hv := range handlers.Elements {
				h, _ := hv.Value.(*hujson.Object)
				if h == nil {
					continue
				}
				x := Handler{Event: event, Group: gi, Index: hi, Matcher: matcher, Type: "command", obj: h}
				if t, ok := stringOf(member(h, "type")); ok {
					x.Type = t
				}
				x.Command, _ = stringOf(member(h, "command"))
				if n, ok := numberOf(member(h, "timeout")); ok && n == float64(int(n)) {
					x.Timeout = int(n)
				}
				if s, ok := stringOf(member(h, "statusMessage")); ok {
					x.StatusMessage = &s
				}
				if a, ok := member(h, "async").(hujson.Literal); ok && a.Kind() == 't' {
					x.Async = true
				}
				var e Entry
				if e, x.Ours = entryOf(h, self); x.Ours {
					var prog string
					prog, _, x.Foreign = d.installForm(h, event, false)
					x.Exact = x.Foreign == "" && self != "" && QuotePath(prog) == QuotePath(self)
					if !x.Exact {
						e.Event = event
						x.Unmanaged = d.updateProblem(e, self)
					}
				}
				out = append(out, x)
			}
		}
	}
	return out
}

// NamesCompactGuard reports a handler whose command names compact-guard
// anywhere: doctor fails such a handler when Codex trusts it and it is not
// one install writes, and install removes that trust (IN-21).
func (h Handler) NamesCompactGuard() bool {
	return h.Ours || strings.Contains(strings.ToLower(h.Command), binaryBaseName)
}

// TrustKey is the key of h in config.toml's [hooks.state] for the hooks
// file at path (absolute, as Codex found it).
func (h Handler) TrustKey(path string) string {
	return path + ":" + snakeCase(h.Event) + ":" + strconv.Itoa(h.Group) + ":" + strconv.Itoa(h.Index)
}

// TrustHash is the hash Codex CLI 0.169.0 trusts h by: sha256 of the
// handler as compact JSON with sorted keys, serde_json's escaping
// (non-ASCII as is) — {"event_name","hooks":[{"async","command",
// "statusMessage","timeout","type"}],"matcher"}, statusMessage and matcher
// only when present, timeout 600 when missing. Checked against the hashes
// the client reports (codex app-server hooks/list, E2E-20).
func (h Handler) TrustHash() string {
	timeout := h.Timeout
	if timeout <= 0 {
		timeout = defaultHandlerTimeout
	}
	var b strings.Builder
	b.WriteString(`{"event_name":`)
	serdeString(&b, snakeCase(h.Event))
	b.WriteString(`,"hooks":[{"async":`)
	b.WriteString(strconv.FormatBool(h.Async))
	b.WriteString(`,"command":`)
	serdeString(&b, h.Command)
	if h.StatusMessage != nil {
		b.WriteString(`,"statusMessage":`)
		serdeString(&b, *h.StatusMessage)
	}
	b.WriteString(`,"timeout":`)
	b.WriteString(strconv.Itoa(timeout))
	b.WriteString(`,"type":`)
	serdeString(&b, h.Type)
	b.WriteString(`}]`)
	if h.Matcher != nil {
		b.WriteString(`,"matcher":`)
		serdeString(&b, *h.Matcher)
	}
	b.WriteString(`}`)
	sum := sum256([]byte(b.String()))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// snakeCase turns an event name into Codex's key form: PreCompact is
// pre_compact.
func snakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// serdeString writes s as serde_json writes a string: quotes, backslashes
// and control characters escaped (\b \t \n \f \r, else \u00xx), everything
// else as is.
func serdeString(b *strings.Builder, s string) {
	const hexDigits = "0123456789abcdef"
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if c < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte(hexDigits[c>>4])
				b.WriteByte(hexDigits[c&0xf])
				continue
			}
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}
