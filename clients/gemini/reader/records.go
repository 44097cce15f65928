package reader

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/compact-guard/compact-guard/transcript/facts"
	"github.com/compact-guard/compact-guard/transcript/textcut"
)

// record is one line of a chat file, or one message of a "$set".
type record struct {
	ID             *string         `json:"id"`
	SessionID      string          `json:"sessionId"`
	Timestamp      string          `json:"timestamp"`
	Type           string          `json:"type"`
	Content        json.RawMessage `json:"content"`
	DisplayContent json.RawMessage `json:"displayContent"`
	ToolCalls      []toolCall      `json:"toolCalls"`
	Tokens         *tokens         `json:"tokens"`
	Model          string          `json:"model"`
	Set            *struct {
		Messages *[]record `json:"messages"`
	} `json:"$set"`
}

type toolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Args      json.RawMessage `json:"args"`
	Result    json.RawMessage `json:"result"`
	Status    string          `json:"status"`
	Timestamp string          `json:"timestamp"`
}

type tokens struct {
	Input  int64 `json:"input"`
	Cached int64 `json:"cached"`
}

type part struct {
	Text             *string         `json:"text"`
	InlineData       json.RawMessage `json:"inlineData"`
	FileData         json.RawMessage `json:"fileData"`
	FunctionResponse *struct {
		Response struct {
			Output *string `json:"output"`
			Error  *string `json:"error"`
		} `json:"response"`
	} `json:"functionResponse"`
}

// call is one tool call as its last record shows it.
type call struct {
	seq int
	toolCall
}

type reader struct {
	opt       Options
	st        facts.Stats
	sessionID string
	prompts   []facts.Prompt
	nPrompts  int
	calls     map[string]*call
	order     []*call
	usage     *facts.Usage
	comps     []Compression
	turns     []Turn
	responses []time.Time
	seen      map[string]bool // summary ids met
	last      time.Time
}

func (rd *reader) line(line []byte, off int64, last bool) {
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	var r record
	if err := json.Unmarshal(line, &r); err != nil {
		if last {
			rd.st.TornLastLine = true
		} else {
			rd.st.Corrupt++
		}
		return
	}
	rd.st.Decoded++
	switch {
	case r.Set != nil && r.Set.Messages != nil:
		rd.history(*r.Set.Messages, off)
	case r.ID != nil:
		rd.message(&r)
	case r.SessionID != "" && rd.sessionID == "":
		rd.sessionID = r.SessionID
	}
}

// history is a "$set" of the whole history (TR-82): on a resume it holds
// what was there, after a compression the summary and the ack first.
func (rd *reader) history(msgs []record, off int64) {
	for i := 0; i+1 < len(msgs); i++ {
		m, next := &msgs[i], &msgs[i+1]
		if m.Type != "user" || next.Type != "gemini" || m.ID == nil || texts(next.Content) != Ack {
			continue
		}
		if rd.seen[*m.ID] {
			continue
		}
		rd.seen[*m.ID] = true
		t := parseTime(m.Timestamp)
		rd.comps = append(rd.comps, Compression{ID: *m.ID, Time: t, Offset: off})
		rd.noteTime(t)
		// The fill the last response gave predates it; the file does not
		// say what the compressed history holds (TR-86).
		rd.usage = nil
	}
}

// message is a message record as the client appended it (TR-83 to TR-86).
func (rd *reader) message(r *record) {
	t := parseTime(r.Timestamp)
	rd.noteTime(t)
	switch r.Type {
	case "user":
		rd.prompt(r, t)
	case "gemini":
		if !t.IsZero() {
			rd.responses = append(rd.responses, t)
		}
		if r.Tokens != nil {
			rd.usage = &facts.Usage{Tokens: r.Tokens.Input, InputTokens: r.Tokens.Input - r.Tokens.Cached,
				CacheRead: r.Tokens.Cached, Model: r.Model}
		}
		for _, tc := range r.ToolCalls {
			if tc.ID == "" {
				continue
			}
			c, ok := rd.calls[tc.ID]
			if !ok {
				c = &call{seq: len(rd.order)}
				rd.calls[tc.ID] = c
				rd.order = append(rd.order, c)
			}
			c.toolCall = tc
		}
	}
}

func (rd *reader) noteTime(t time.Time) {
	if t.After(rd.last) {
		rd.last = t
	}
}

// hookContext is how the client wraps a hook's context in a prompt: with
// -p, SessionStart's is put before the prompt as typed.
// Compiled on first use: a package-level regexp would cost every start of
// the binary its allocations (PF, TestLeanBinary).
var hookContext = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?s)^\s*<hook_context>.*?</hook_context>\s*`)
})

// prompt records a typed prompt (TR-83): displayContent when the record
// has it (the prompt as typed: BeforeAgent's context is a part of content
// only), else content; a function response is no prompt.
func (rd *reader) prompt(r *record, t time.Time) {
	src := r.DisplayContent
	if len(src) == 0 || string(src) == "null" {
		src = r.Content
	}
	var s string
	if json.Unmarshal(src, &s) != nil {
		var parts []part
		if json.Unmarshal(src, &parts) != nil {
			return
		}
		var pieces []string
		for _, p := range parts {
			switch {
			case p.FunctionResponse != nil:
				return
			case p.Text != nil:
				pieces = append(pieces, *p.Text)
			case len(p.InlineData) > 0, len(p.FileData) > 0:
				pieces = append(pieces, "[image]")
			}
		}
		s = strings.Join(pieces, "\n")
	}
	if strings.Contains(s, "<hook_context>") {
		for re := hookContext(); re.MatchString(s); {
			s = re.ReplaceAllString(s, "")
		}
	}
	if strings.TrimSpace(s) == "" {
		return
	}
	rd.turns = append(rd.turns, Turn{Time: t, Contexts: addedContexts(r)})
	kept, cut := textcut.Runes(s, facts.MaxPromptChars)
	rd.nPrompts++
	rd.prompts = append(rd.prompts, facts.Prompt{Text: textcut.Marked(kept, cut), Time: t, Truncated: cut})
	if len(rd.prompts) > facts.MaxPrompts {
		rd.prompts = rd.prompts[len(rd.prompts)-facts.MaxPrompts:]
	}
}

// addedContexts are the text parts of a user record's content that start
// with <hook_context> and are not in its displayContent: what a BeforeAgent
// hook added (TR-87). A record without displayContent shows none.
func addedContexts(r *record) []string {
	if len(r.DisplayContent) == 0 || string(r.DisplayContent) == "null" {
		return nil
	}
	var content, display []part
	if json.Unmarshal(r.Content, &content) != nil {
		return nil
	}
	_ = json.Unmarshal(r.DisplayContent, &display)
	shown := map[string]bool{}
	for _, p := range display {
		if p.Text != nil {
			shown[*p.Text] = true
		}
	}
	var out []string
	for _, p := range content {
		if p.Text != nil && !shown[*p.Text] && strings.HasPrefix(strings.TrimSpace(*p.Text), "<hook_context>") {
			out = append(out, *p.Text)
		}
	}
	return out
}

// texts joins the text parts of a content (a string or parts).
func texts(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []part
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Text != nil {
			b.WriteString(*p.Text)
		}
	}
	return b.String()
}

func parseTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

// chat settles the tool calls and builds the facts.
func (rd *reader) chat(size int64) *Chat {
	rd.st.BytesRead = size
	f := &facts.Facts{Prompts: rd.prompts, Usage: rd.usage, Compactions: len(rd.comps), LastTime: rd.last, Stats: rd.st}
	f.Totals.Prompts = rd.nPrompts
	files := map[string]*facts.FileEdit{}
	var fileOrder []string
	for _, c := range rd.order {
		t := parseTime(c.Timestamp)
		var args struct {
			FilePath    string          `json:"file_path"`
			Command     string          `json:"command"`
			Description string          `json:"description"`
			Todos       json.RawMessage `json:"todos"`
		}
		_ = json.Unmarshal(c.Args, &args)
		out, errText := resultText(c.Result)
		switch c.Name {
		case "replace", "write_file", "edit":
			if c.Status == "success" && args.FilePath != "" {
				p := args.FilePath
				if !filepath.IsAbs(p) && rd.opt.Cwd != "" {
					p = filepath.Join(rd.opt.Cwd, p)
				}
				fe, ok := files[p]
				if !ok {
					fe = &facts.FileEdit{Path: p}
					files[p] = fe
				} else {
					fileOrder = removeString(fileOrder, p)
				}
				fileOrder = append(fileOrder, p)
				fe.Edits++
				fe.LastTool, fe.LastTime = c.Name, t
			}
		case "run_shell_command":
			rd.command(f, c, args.Command, args.Description, out, errText, t)
			continue
		case "write_todos":
			if c.Status == "success" {
				f.Todos = todos(args.Todos)
			}
		}
		if c.Status == "error" || c.Status == "cancelled" {
			input := args.FilePath
			if input == "" {
				input = firstLine(string(c.Args))
			}
			addFailure(f, facts.Failure{Tool: c.Name, Input: clip(input, facts.MaxCommandChars),
				Error: clip(firstLine(firstNonEmpty(errText, out)), facts.MaxErrorChars), Rejected: c.Status == "cancelled", Time: t})
		}
	}
	for i := len(fileOrder) - 1; i >= 0; i-- {
		f.Files = append(f.Files, *files[fileOrder[i]])
	}
	if f.Files == nil {
		f.Files = []facts.FileEdit{}
	}
	if f.Commands == nil {
		f.Commands = []facts.Command{}
	}
	if f.Failures == nil {
		f.Failures = []facts.Failure{}
	}
	if f.Prompts == nil {
		f.Prompts = []facts.Prompt{}
	}
	return &Chat{SessionID: rd.sessionID, Facts: f, Compressions: rd.comps, Turns: rd.turns, Responses: rd.responses, Size: size}
}

// exitLine is the shell tool's "Exit Code: N" line; a command that exits
// 0 has none (measured, TR-85).
var exitLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^Exit Code: (-?\d+)\s*$`) })

// command records a run_shell_command call (TR-85).
func (rd *reader) command(f *facts.Facts, c *call, command, desc, out, errText string, t time.Time) {
	cmd := facts.Command{Tool: c.Name, Command: clip(command, facts.MaxCommandChars),
		Description: clip(desc, facts.MaxCommandChars), Time: t, Outcome: facts.OutcomeUnknown}
	cmd.Truncated = cmd.Command != command
	output := shellOutput(out)
	switch c.Status {
	case "success":
		if m := exitLine().FindStringSubmatch(out); m != nil {
			n, _ := strconv.Atoi(m[1])
			cmd.ExitCode = &n
		} else if strings.Contains(out, "Output:") && !strings.Contains(out, "\nSignal: ") {
			zero := 0
			cmd.ExitCode = &zero
		}
		cmd.Outcome = facts.OutcomeOK
		if cmd.ExitCode != nil && *cmd.ExitCode != 0 {
			cmd.Outcome = facts.OutcomeError
		}
	case "error":
		cmd.Outcome = facts.OutcomeError
		output = firstNonEmpty(errText, output)
	case "cancelled":
		cmd.Outcome = facts.OutcomeRejected
	}
	if cmd.Outcome == facts.OutcomeError {
		cmd.ErrorLine = clip(facts.ChooseErrorLine(facts.OutputLines(output), true), facts.MaxErrorChars)
		fl := facts.Failure{Tool: c.Name, Input: cmd.Command, Error: cmd.ErrorLine, Time: t}
		if cmd.ExitCode != nil {
			fl.Error = strings.TrimSuffix("Exit code "+strconv.Itoa(*cmd.ExitCode)+": "+cmd.ErrorLine, ": ")
		}
		addFailure(f, fl)
	} else if cmd.Outcome == facts.OutcomeRejected {
		addFailure(f, facts.Failure{Tool: c.Name, Input: cmd.Command, Error: "cancelled", Rejected: true, Time: t})
	}
	f.Totals.Commands++
	f.Commands = append(f.Commands, cmd)
	if len(f.Commands) > facts.MaxCommands {
		f.Commands = f.Commands[len(f.Commands)-facts.MaxCommands:]
	}
}

// shellOutput is what the command printed: the text after "Output:" up to
// the client's own lines (Exit Code, Signal, Process Group PGID, …), the
// <untrusted_context> wrapper removed.
func shellOutput(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "<untrusted_context>", ""), "</untrusted_context>", "")
	if _, after, ok := strings.Cut(s, "Output:"); ok {
		s = after
	}
	var keep []string
	for l := range strings.Lines(s) {
		tl := strings.TrimSpace(l)
		if strings.HasPrefix(tl, "Exit Code:") || strings.HasPrefix(tl, "Process Group PGID:") ||
			strings.HasPrefix(tl, "Signal:") || strings.HasPrefix(tl, "Background PIDs:") {
			continue
		}
		keep = append(keep, l)
	}
	return strings.TrimSpace(strings.Join(keep, ""))
}

// resultText is a tool call's function response: its output and error.
func resultText(raw json.RawMessage) (out, errText string) {
	var parts []part
	if json.Unmarshal(raw, &parts) != nil {
		return "", ""
	}
	for _, p := range parts {
		if p.FunctionResponse == nil {
			continue
		}
		if o := p.FunctionResponse.Response.Output; o != nil {
			out += *o
		}
		if e := p.FunctionResponse.Response.Error; e != nil {
			errText += *e
		}
	}
	return out, errText
}

func todos(raw json.RawMessage) []facts.Task {
	var list []struct {
		Description string `json:"description"`
		Status      string `json:"status"`
	}
	if json.Unmarshal(raw, &list) != nil {
		return nil
	}
	out := make([]facts.Task, 0, len(list))
	for _, t := range list {
		out = append(out, facts.Task{Subject: clip(t.Description, facts.MaxCommandChars), Status: t.Status})
	}
	return out
}

func addFailure(f *facts.Facts, fl facts.Failure) {
	f.Totals.Failures++
	f.Failures = append(f.Failures, fl)
	if len(f.Failures) > facts.MaxFailures {
		f.Failures = f.Failures[len(f.Failures)-facts.MaxFailures:]
	}
}

func clip(s string, n int) string { return textcut.Marked(textcut.Runes(s, n)) }

func firstLine(s string) string {
	for l := range strings.Lines(s) {
		if t := strings.TrimSpace(l); t != "" {
			return t
		}
	}
	return ""
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if strings.TrimSpace(x) != "" {
			return x
		}
	}
	return ""
}

func removeString(list []string, s string) []string {
	for i, x := range list {
		if x == s {
			return append(list[:i], list[i+1:]...)
		}
	}
	return list
}
