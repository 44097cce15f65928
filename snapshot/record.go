// Package snapshot holds the snapshot record compact-guard writes before a
// compaction, its Markdown rendering, its storage on disk and the git state it
// records. It knows nothing of command lines or hook I/O.
package snapshot

import (
	"time"

	"github.com/compact-guard/compact-guard/transcript"
)

// SchemaVersion is the version of the JSON record; it changes whenever a field
// changes meaning or goes away (adding a field does not change it).
const SchemaVersion = 1

// Unknown stands for a value the payload or transcript did not give.
const Unknown = "unknown"

// Record is one snapshot: what the transcript and git showed just before a
// compaction. It is stored as JSON next to its Markdown rendering.
type Record struct {
	Schema int `json:"schema"`
	// Name is the base name shared by the .json and .md files.
	Name      string `json:"name"`
	SessionID string `json:"session_id"`
	// Agent is the client whose session this is: "claude" (Claude Code),
	// "codex" (Codex CLI) or "qwen" (Qwen Code); absent in records written
	// before it existed, which are all Claude Code's (SF-5).
	Agent     string    `json:"agent,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	// Trigger is "manual", "auto" or Unknown.
	Trigger            string  `json:"trigger"`
	CustomInstructions *string `json:"custom_instructions"`
	PromptID           string  `json:"prompt_id,omitempty"`
	HookEvent          string  `json:"hook_event,omitempty"`
	// Lang is the language the Markdown was rendered in, so that a rewrite
	// (Store.Confirm) renders it the same way; Store.Save sets it.
	Lang Lang `json:"lang,omitempty"`
	// PayloadError is set when the hook payload could not be parsed; fields
	// it would have given are then Unknown.
	PayloadError   string `json:"payload_error,omitempty"`
	TranscriptPath string `json:"transcript_path"`
	// Cwd is the working directory, from the newest transcript entry or else
	// the payload; CwdSource says which ("transcript", "payload", "process").
	Cwd       string `json:"cwd"`
	CwdSource string `json:"cwd_source"`
	// GitBranch is what the transcript recorded; Git holds what git says now.
	GitBranch string `json:"git_branch,omitempty"`

	Context            *transcript.Usage       `json:"context,omitempty"`
	EarlierCompactions int                     `json:"earlier_compactions"`
	Prompts            []transcript.Prompt     `json:"prompts"`
	Files              []transcript.FileEdit   `json:"files"`
	Commands           []transcript.Command    `json:"commands"`
	Todos              []transcript.Task       `json:"todos,omitempty"`
	Tasks              []transcript.Task       `json:"tasks,omitempty"`
	Failures           []transcript.Failure    `json:"failures"`
	Plan               *transcript.Plan        `json:"plan,omitempty"`
	Git                *Git                    `json:"git,omitempty"`
	StateFile          StateFile               `json:"state_file"`
	Coverage           Coverage                `json:"coverage"`
	Stats              transcript.Stats        `json:"stats"`
	Warnings           []string                `json:"warnings,omitempty"`
	Redactions         int                     `json:"redactions"`
	Compaction         *CompactionConfirmation `json:"compaction,omitempty"`
	// Totals says how many prompts, commands and failures the bounded lists
	// were taken from; nil in records written before it existed (SF-6).
	Totals *transcript.Totals `json:"totals,omitempty"`
	// Preparation says whether the compaction was planned or an emergency;
	// nil in records written before it existed (SF-20, WA-12).
	Preparation *Preparation `json:"preparation,omitempty"`
}

// Git is the repository state at snapshot time.
type Git struct {
	// Repo is false when cwd is not inside a git work tree.
	Repo     bool   `json:"repo"`
	Root     string `json:"root,omitempty"`
	Branch   string `json:"branch,omitempty"`
	Detached bool   `json:"detached,omitempty"`
	Head     string `json:"head,omitempty"`
	Subject  string `json:"subject,omitempty"`
	// Changes lists up to MaxGitChanges uncommitted paths with their
	// porcelain XY code; ChangeCount is the full count, -1 when the status
	// could not be read (Error says why).
	Changes     []GitChange `json:"changes,omitempty"`
	ChangeCount int         `json:"change_count"`
	// Source is "git" or "go-git" (when the git binary is missing).
	Source string `json:"source,omitempty"`
	// Error records a timeout or failure; the fields above hold what was
	// learnt before it.
	Error string `json:"error,omitempty"`
}

// GitChange is one uncommitted path.
type GitChange struct {
	// Code is the XY of `git status --porcelain=v2` ('.' for an unchanged
	// side), or "??" for an untracked path.
	Code string `json:"code"`
	Path string `json:"path"`
	// From is a renamed or copied path's original name.
	From string `json:"from,omitempty"`
}

// MaxGitChanges bounds Git.Changes.
const MaxGitChanges = 30

// StateFile is the project's state file (SESSION-STATE.md by default).
type StateFile struct {
	Name     string    `json:"name"`
	Path     string    `json:"path,omitempty"`
	ModTime  time.Time `json:"mod_time,omitzero"`
	Searched []string  `json:"searched"`
	// Unanswered is the folder whose file system had not answered when the
	// deadline passed; the folders after it were not looked in.
	Unanswered string `json:"unanswered,omitempty"`
}

// Coverage says which bytes of the transcript the record rests on.
type Coverage struct {
	// TranscriptSize is the size read up to; the next snapshot of the same
	// session can start reading there (the chain).
	TranscriptSize int64 `json:"transcript_size"`
	// SegmentStart is the offset of the last compact_boundary line, -1 when
	// the transcript has none.
	SegmentStart int64 `json:"segment_start"`
	// ReadFrom is where this run started reading.
	ReadFrom int64 `json:"read_from"`
	// ReadTo is the offset just past the last byte this run read:
	// TranscriptSize when it read to the end. Nil in records written before
	// it existed.
	ReadTo *int64 `json:"read_to,omitempty"`
	// Unread lists the parts of [ReadFrom, ReadTo) this run did not read:
	// the whole could not be read by the deadline, so newer bytes were read
	// before older ones (transcript TR-50).
	Unread []transcript.ByteRange `json:"unread,omitempty"`
	// BoundaryUnknown is set when the backward scan for the last
	// compact_boundary did not end in time: SegmentStart -1 then means
	// unknown, not none.
	BoundaryUnknown bool `json:"boundary_unknown,omitempty"`
	// Previous names the earlier snapshot whose facts cover [0, ReadFrom).
	Previous string `json:"previous,omitempty"`
	// Partial is set when some part of the transcript before ReadFrom was
	// neither read nor covered by a previous snapshot (the byte budget ran
	// out, or the previous snapshot was itself partial or had an unread
	// range).
	Partial bool `json:"partial,omitempty"`
	// Incomplete is set when the transcript was not read to its end (the
	// deadline passed, a read failed, it could not be read at all): the
	// facts do not cover the bytes up to TranscriptSize, so the record must
	// never be chained from (FindChain skips it).
	Incomplete bool `json:"incomplete,omitempty"`
	// Folded is set when a later hook of the same compaction read the
	// lines the client wrote after this snapshot was taken, up to the
	// compaction's boundary, into it (specs/postcompact.md PO-C18).
	Folded *Fold `json:"folded,omitempty"`
}

// Fold says that a snapshot was completed after it was taken: the hook
// (SessionStart or PostCompact) that read the transcript's lines from From
// up to To into it, at At (PO-C18, SF-72).
type Fold struct {
	At    time.Time `json:"at"`
	Event string    `json:"event"`
	From  int64     `json:"from"`
	To    int64     `json:"to"`
}

// CompactionConfirmation is written by the PostCompact hook once the
// compaction this snapshot was taken for has completed.
type CompactionConfirmation struct {
	At           time.Time `json:"at"`
	SummaryChars int       `json:"summary_chars"`
	// TranscriptSize is the transcript's size when PostCompact ran (0 when
	// unknown): a boundary written after it means that compaction is over
	// (specs/selectsnap.md).
	TranscriptSize int64 `json:"transcript_size,omitempty"`
}
