// Package transcript reads the session transcripts of coding agents
// (Claude Code, Codex CLI, Qwen Code, GitHub Copilot CLI, Gemini CLI) and
// extracts the mechanically verifiable facts compact-guard records: typed
// prompts, edited files, commands, tasks, failures, the approved plan and
// the context fill; and it finds their compactions and model responses
// reading backwards. It reads nothing on disk but the transcript itself.
//
// Each client's format is one reader in its client's folder
// (clients/claude/reader, clients/codex/reader, …) behind the Reader
// interface, and one row of the readers table (readers.go), which is also
// the format detection (TR-37). To add a client: write
// clients/<name>/reader/reader.go with a Reader (Detect, Lines, Boundary,
// Response; FillReader too when its responses carry the context fill),
// its line handler feeding a facts.Builder through the shared helpers of
// transcript/facts and transcript/jsonspan; name it with its format in
// the client's agent.Client, whose registration adds its row to the table
// (before Claude Code's, which takes any typed line); name its clauses in
// specs/transcript.md and test it with its own fixtures beside it and a
// row of the conformance suite (clients/conformance_test.go).
package transcript

import "github.com/compact-guard/compact-guard/transcript/facts"

// The facts a reading yields; they are defined with the readers' builder
// in transcript/facts.
type (
	// Facts is everything extracted from the part of the transcript read.
	Facts = facts.Facts
	// Prompt is one prompt the user typed, verbatim.
	Prompt = facts.Prompt
	// FileEdit is one file changed by edits that succeeded.
	FileEdit = facts.FileEdit
	// Command is one shell call and what its result said.
	Command = facts.Command
	// Task is one entry of the latest todo list or one created task.
	Task = facts.Task
	// Failure is a tool call that failed or that the user rejected.
	Failure = facts.Failure
	// Plan is the last plan approved.
	Plan = facts.Plan
	// Usage is the context fill of a model response.
	Usage = facts.Usage
	// Stats counts what reading the transcript met.
	Stats = facts.Stats
	// Totals counts the prompts, commands and failures met (TR-33).
	Totals = facts.Totals
	// A Rewriter returns what a text is to become (see facts.Rewriter).
	Rewriter = facts.Rewriter
)

// Command outcomes, from the result that answered the call.
const (
	OutcomeOK          = facts.OutcomeOK
	OutcomeError       = facts.OutcomeError
	OutcomeRejected    = facts.OutcomeRejected
	OutcomeInterrupted = facts.OutcomeInterrupted
	OutcomeBackground  = facts.OutcomeBackground
	OutcomeUnknown     = facts.OutcomeUnknown
)

// Limits of what Facts keeps (see transcript/facts).
const (
	MaxPrompts           = facts.MaxPrompts
	MaxPromptChars       = facts.MaxPromptChars
	MaxCommands          = facts.MaxCommands
	MaxCommandChars      = facts.MaxCommandChars
	MaxFailures          = facts.MaxFailures
	MaxPlanChars         = facts.MaxPlanChars
	MaxLineBytes         = facts.MaxLineBytes
	MaxFiles             = facts.MaxFiles
	MaxTasks             = facts.MaxTasks
	MaxErrorChars        = facts.MaxErrorChars
	MaxFailureInputChars = facts.MaxFailureInputChars
	MaxDescriptionChars  = facts.MaxDescriptionChars
	MaxTaskChars         = facts.MaxTaskChars
	MaxPending           = facts.MaxPending
	MaxPendingBytes      = facts.MaxPendingBytes
	MaxPathChars         = facts.MaxPathChars
	TailChars            = facts.TailChars
	ErrorOutputChars     = facts.ErrorOutputChars
)
