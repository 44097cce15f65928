// Package facts holds what the transcript readers share: the facts a
// reading yields (re-exported by package transcript), the Builder every
// reader's line handler feeds, and the cutting and error-line helpers they
// use. It is internal to transcript/: callers name transcript.Facts.
package facts

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/compact-guard/compact-guard/transcript/textcut"
)

// Command outcomes, from the tool_result that answered the call.
const (
	OutcomeOK          = "ok"
	OutcomeError       = "error"
	OutcomeRejected    = "rejected"
	OutcomeInterrupted = "interrupted"
	OutcomeBackground  = "background"
	OutcomeUnknown     = "unknown"
)

// Prompt is one prompt the user typed, verbatim (images noted as "[image]").
type Prompt struct {
	Text string    `json:"text"`
	Time time.Time `json:"time,omitzero"`
	// Truncated is set when Text was cut at the prompt limit; Text then ends
	// with textcut.Marker, as does every text the extractor cut.
	Truncated bool `json:"truncated,omitempty"`
	// FromLastPrompt is set when the prompt came only from a `last-prompt`
	// entry, because the transcript had not written the user entry yet.
	FromLastPrompt bool `json:"from_last_prompt,omitempty"`

	tail string // see TailChars
}

// FileEdit is one file changed by Write, Edit, MultiEdit or NotebookEdit
// calls that succeeded.
type FileEdit struct {
	Path     string    `json:"path"`
	Edits    int       `json:"edits"`
	LastTool string    `json:"last_tool"`
	LastTime time.Time `json:"last_time,omitzero"`
}

// Command is one Bash or PowerShell call and what its result said.
type Command struct {
	Tool        string    `json:"tool"`
	Command     string    `json:"command"`
	Description string    `json:"description,omitempty"`
	Truncated   bool      `json:"truncated,omitempty"`
	Outcome     string    `json:"outcome"`
	ExitCode    *int      `json:"exit_code,omitempty"`
	ErrorLine   string    `json:"error_line,omitempty"`
	Time        time.Time `json:"time,omitzero"`

	commandTail, descriptionTail, errorTail string // see TailChars
}

// Task is one entry of the latest TodoWrite list or one TaskCreate task.
type Task struct {
	ID         string `json:"id,omitempty"`
	Subject    string `json:"subject"`
	Status     string `json:"status"`
	ActiveForm string `json:"active_form,omitempty"`

	subjectTail, activeFormTail string // see TailChars
}

// Failure is a tool call that failed or that the user rejected.
type Failure struct {
	Tool     string    `json:"tool"`
	Input    string    `json:"input"`
	Error    string    `json:"error"`
	Rejected bool      `json:"rejected,omitempty"`
	Time     time.Time `json:"time,omitzero"`

	inputTail, errorTail string // see TailChars
}

// Plan is the last plan approved through ExitPlanMode.
type Plan struct {
	Text      string    `json:"text"`
	Truncated bool      `json:"truncated,omitempty"`
	Time      time.Time `json:"time,omitzero"`

	tail string // see TailChars
}

// Usage is the context fill from the last main-chain assistant message:
// input + cache creation + cache read tokens.
type Usage struct {
	Tokens        int64  `json:"tokens"`
	InputTokens   int64  `json:"input_tokens"`
	CacheCreation int64  `json:"cache_creation_input_tokens"`
	CacheRead     int64  `json:"cache_read_input_tokens"`
	Model         string `json:"model,omitempty"`
	// Window is the model's context window when the transcript records it
	// (Codex token_count, Qwen Code records), 0 when it does not.
	Window int64 `json:"window,omitempty"`
	// FromBoundary is set when the last usage predates a compact_boundary and
	// Tokens comes from that boundary's postTokens instead.
	FromBoundary bool `json:"from_boundary,omitempty"`
}

// Stats counts what reading the transcript met, so that a snapshot can say
// how complete it is.
type Stats struct {
	BytesRead    int64 `json:"bytes_read"`
	Lines        int   `json:"lines"`
	Decoded      int   `json:"decoded"`
	SkippedLong  int   `json:"skipped_long"`
	Corrupt      int   `json:"corrupt"`
	TornLastLine bool  `json:"torn_last_line,omitempty"`
}

// Totals counts the prompts, commands and failures met, before the lists of
// Facts were bounded, so that a reader can say "the last 20 of 78" (TR-33).
type Totals struct {
	Prompts  int `json:"prompts"`
	Commands int `json:"commands"`
	Failures int `json:"failures"`
}

// Facts is everything extracted from the part of the transcript that was read.
// Lists are bounded: Prompts holds the last MaxPrompts (oldest first), Commands
// the last MaxCommands (oldest first), Failures the last MaxFailures (oldest
// first), and Totals says how many there were; Files is session-wide, most
// recent first.
type Facts struct {
	Prompts     []Prompt   `json:"prompts"`
	Files       []FileEdit `json:"files"`
	Commands    []Command  `json:"commands"`
	Todos       []Task     `json:"todos,omitempty"`
	Tasks       []Task     `json:"tasks,omitempty"`
	Failures    []Failure  `json:"failures"`
	Plan        *Plan      `json:"plan,omitempty"`
	Usage       *Usage     `json:"usage,omitempty"`
	Compactions int        `json:"compactions"`
	Totals      Totals     `json:"totals"`
	// Cwd and GitBranch come from the newest entry that carries them.
	Cwd       string    `json:"cwd,omitempty"`
	GitBranch string    `json:"git_branch,omitempty"`
	LastTime  time.Time `json:"last_time,omitzero"`
	Stats     Stats     `json:"stats"`
}

// Limits of what Facts keeps.
const (
	MaxPrompts      = 5
	MaxPromptChars  = 4000
	MaxCommands     = 20
	MaxCommandChars = 1000
	MaxFailures     = 5
	MaxPlanChars    = 4000
	MaxLineBytes    = 8 << 20
)

// TailChars is how many characters that followed a cut a text keeps, in
// memory only (it is never written): Rewrite hands them to its Rewriter with
// the text, so that a redactor sees whole a secret that straddles the cut and
// leaves no prefix of it before cutting again. Reading stays bounded: a text
// is never unquoted beyond its limit plus TailChars.
const TailChars = 512

// A Rewriter returns what a text is to become. When the text was cut, keep
// is how many characters (runes) were kept and full holds them followed by
// up to TailChars characters of what came next; the Rewriter returns about
// keep characters, and Rewrite adds textcut.Marker. Otherwise keep is -1
// and full is the text.
type Rewriter func(full string, keep int) string

// Rewrite passes the prompt's text through f.
func (p *Prompt) Rewrite(f Rewriter) { rewrite(&p.Text, &p.tail, f) }

// Rewrite passes the command's free text through f: tool, command,
// description and error line.
func (c *Command) Rewrite(f Rewriter) {
	rewrite(&c.Tool, nil, f)
	rewrite(&c.Command, &c.commandTail, f)
	rewrite(&c.Description, &c.descriptionTail, f)
	rewrite(&c.ErrorLine, &c.errorTail, f)
}

// Rewrite passes the task's free text through f: subject, status and
// active form (a TodoWrite status is whatever the call gave).
func (t *Task) Rewrite(f Rewriter) {
	rewrite(&t.Subject, &t.subjectTail, f)
	rewrite(&t.Status, nil, f)
	rewrite(&t.ActiveForm, &t.activeFormTail, f)
}

// Rewrite passes the failure's free text through f: tool (an MCP tool's
// name is the server's to choose), input and error.
func (fl *Failure) Rewrite(f Rewriter) {
	rewrite(&fl.Tool, nil, f)
	rewrite(&fl.Input, &fl.inputTail, f)
	rewrite(&fl.Error, &fl.errorTail, f)
}

// Rewrite passes the plan's text through f.
func (p *Plan) Rewrite(f Rewriter) { rewrite(&p.Text, &p.tail, f) }

func rewrite(text, tail *string, f Rewriter) {
	if tail != nil && *tail != "" && strings.HasSuffix(*text, textcut.Marker) {
		kept := strings.TrimSuffix(*text, textcut.Marker)
		*text = f(kept+*tail, utf8.RuneCountInString(kept)) + textcut.Marker
	} else if *text != "" {
		*text = f(*text, -1)
	}
	if tail != nil {
		*tail = ""
	}
}
