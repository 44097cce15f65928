package settings

import (
	"strconv"
	"strings"

	"github.com/tailscale/hujson"
)

// Whose choices install carries over (IN-31). An entry of ours already in
// the file may hold more than install's own handler: flags, a timeout, a
// statusMessage. In install's exact form (IN-21) it still runs nothing but
// compact-guard, but `--keep 1`, `--dir`, `--no-redact` are attacks of
// their own when a repository chose them. install keeps them where the
// user chose them: the user's own file, or on Codex a handler config.toml
// already trusts as it stands; elsewhere on Codex, where install's trust
// is what would make them run, it writes its own bare handler instead.

// Carry says whose choices install carries over when it updates an entry
// of ours already in the file (IN-6, IN-31).
type Carry struct {
	// Own reports the user's own file (--scope user): everything is
	// carried over, and nothing said.
	Own bool
	// Trusts, when not nil, reports a handler that the user trusts exactly
	// as it stands (Codex: TrustedHandlers), judged as the file held it before
	// install's edit: in a file not the user's own, only such a handler's
	// choices are carried over. nil stands for a client that runs a
	// project's hooks as the file says, with no trust step install could
	// withhold (Claude Code, Qwen Code): everything is carried over, and
	// the flags are named (CarryNote).
	Trusts func(Handler) bool
}

// CarryNote says, for one entry of a file that is not the user's own,
// what install carried over or left out (IN-31), for its note on stderr.
type CarryNote struct {
	Event string
	// Command is the entry's command before install's edit (exec-form
	// args after it).
	Command string
	// Kept reports flags carried over (Words are those flags); otherwise
	// install wrote its own handler in the entry's place, and Words are
	// what it left out: flags, "timeout N", `statusMessage "…"`.
	Kept  bool
	Words []string
}

// CarryNotes are the notes of the last Install.
func (d *Document) CarryNotes() []CarryNote { return d.carryNotes }

// TrustedHandlers reports, for the hooks file at path (as install names it in
// its trust keys), whether config.toml cfg trusts a handler exactly as it
// stands: its [hooks.state] table holds the handler's current hash.
func TrustedHandlers(cfg *TrustConfig, path string) func(Handler) bool {
	return func(h Handler) bool {
		st, ok := cfg.Hooks.State[h.TrustKey(path)]
		return ok && st.TrustedHash != "" && st.TrustedHash == h.TrustHash()
	}
}

// trustedBefore lists the handlers of ours whose choices c carries over
// because the user trusts them as they stand, before install changes
// anything (a handler's trust key is its place, which the edit may move).
func (d *Document) trustedBefore(exe string, c Carry) map[*hujson.Object]bool {
	out := map[*hujson.Object]bool{}
	if c.Own || c.Trusts == nil {
		return out
	}
	for _, h := range d.Handlers(exe) {
		if h.Ours && c.Trusts(h) {
			out[h.obj] = true
		}
	}
	return out
}

// carries reports whether install carries over the choices of entry e.
func (c Carry) carries(e Entry, trusted map[*hujson.Object]bool) bool {
	return c.Own || c.Trusts == nil || trusted[e.handler]
}

// noteCarry records what install carries over from entry e of a file that
// is not the user's own, or leaves out of it (kept false) for
// registration s.
func (d *Document) noteCarry(e Entry, s Hook, c Carry, kept bool) {
	if c.Own {
		return
	}
	var words []string
	if _, flags := flagWords(e.Args); len(flags) > 0 {
		for _, f := range flags {
			words = append(words, f.Text)
		}
	}
	if !kept {
		if t, ok := numberOf(member(e.handler, "timeout")); ok && t != float64(s.Timeout) && d.agent.plausibleTimeout(s.Sub, member(e.handler, "timeout")) {
			words = append(words, "timeout "+e.Timeout)
		}
		if m, ok := stringOf(member(e.handler, "statusMessage")); ok {
			words = append(words, "statusMessage "+strconv.Quote(m))
		}
	}
	if len(words) == 0 {
		return
	}
	command := e.Command
	if e.ExecArgs != nil {
		command = strings.TrimSpace(command + " " + strings.Join(e.ExecArgs, " "))
	}
	d.carryNotes = append(d.carryNotes, CarryNote{Event: e.Event, Command: command, Kept: kept, Words: words})
}

// bareHandler makes handler h install's own for registration s, bar its
// command, which the caller sets: install's timeout, no statusMessage
// (IN-31). It returns what it changed, for the change's description.
func (d *Document) bareHandler(h *hujson.Object, s Hook, oldTimeout string) []string {
	var what []string
	if t, ok := numberOf(member(h, "timeout")); ok && t != float64(s.Timeout) && d.agent.plausibleTimeout(s.Sub, member(h, "timeout")) {
		// An implausible timeout is replaced, and said, by installOne.
		d.setMember(h, "timeout", hujson.Int(int64(s.Timeout)))
		what = append(what, "timeout "+oldTimeout+" -> "+strconv.Itoa(s.Timeout))
	}
	if i := memberIndex(h, "statusMessage"); i >= 0 {
		for ; i >= 0; i = memberIndex(h, "statusMessage") {
			removeMember(h, i)
		}
		what = append(what, "statusMessage removed")
	}
	return what
}

// Flag is one flag of a hook command: its name (--keep), its value ("1";
// "" for a switch given bare) and its words as the command writes them.
type Flag struct {
	Name, Value string
	// HasValue reports a value given, with = or as the next word.
	HasValue bool
	Text     string
}

// Flags returns the flags of a handler's shell-form command — the global
// flags and the sub-command's, without the program and the sub-command —
// as compact-guard reads them (IN-21's words); nil when the command does
// not parse as one simple command.
func (h Handler) Flags() []Flag {
	words, ok := commandWords(h.Command)
	if !ok || len(words) == 0 {
		return nil
	}
	texts := make([]string, 0, len(words)-1)
	for _, w := range words[1:] {
		texts = append(texts, w.Text)
	}
	_, flags := flagWords(texts)
	return flags
}

// flagWords splits the words after a hook command's program into its
// sub-command and its flags, each value-taking flag with its value
// (hookFlag, globalValueFlags; a flag it does not know takes none).
func flagWords(words []string) (sub string, flags []Flag) {
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !strings.HasPrefix(w, "-") {
			if sub == "" && ourSubcommands[w] {
				sub = w
				continue
			}
			flags = append(flags, Flag{Name: w, Text: quoteWords(w)})
			continue
		}
		name, value, hasValue := strings.Cut(w, "=")
		takesValue := globalValueFlags[name]
		if !takesValue && sub != "" {
			takesValue, _ = hookFlag(sub, name)
		}
		f := Flag{Name: name, Value: value, HasValue: hasValue, Text: quoteWords(w)}
		if takesValue && !hasValue && i+1 < len(words) {
			i++
			f.Value, f.HasValue, f.Text = words[i], true, quoteWords(w, words[i])
		}
		flags = append(flags, f)
	}
	return sub, flags
}

// quoteWords writes words as install writes them into a command.
func quoteWords(words ...string) string {
	out := make([]string, len(words))
	for i, w := range words {
		q, err := shellArg(w)
		if err != nil {
			q = strconv.Quote(w)
		}
		out[i] = q
	}
	return strings.Join(out, " ")
}
