// Package agent is what the shared code asks of a client: one small
// struct of data (and a few functions where data will not do) that each
// client's folder under clients/ fills in, and the table the clients
// package registers them into. Claude Code, the baseline, is the table's
// first row; the shared code's defaults are its ways.
package agent

import (
	"io"

	"github.com/compact-guard/compact-guard/restore"
	"github.com/compact-guard/compact-guard/restore/audit"
	"github.com/compact-guard/compact-guard/selectsnap"
	"github.com/compact-guard/compact-guard/settings"
	"github.com/compact-guard/compact-guard/transcript"
)

// Client is one client as the shared code sees it.
type Client struct {
	// Settings is its hooks files: its name and title, where the files
	// are and how the client reads them, what install writes, doctor's
	// checks of its own.
	Settings *settings.Client
	// Format is the format of its transcripts, and Reader its reader
	// (clients/<name>/reader): their row of transcript's readers table.
	Format transcript.Format
	Reader transcript.Reader
	// Order is when it writes a compaction's boundary relative to the
	// hooks that run selection, as measured (SS-15).
	Order selectsnap.Order
	// NoContextRecorded is set when its transcript records no hook
	// context (Qwen Code): whether a pointer reached the model is judged
	// without it (SS-17, AU-16).
	NoContextRecorded bool
	// EscapesBrackets is set when it escapes "<" and ">" in a hook's
	// context, so quotes are marked "| " instead of "> " (PO-38).
	EscapesBrackets bool
	// WritesLate is set when it queues its transcript's records and writes
	// them in the background (Qwen Code): the take waits for the file to
	// settle before reading it (PC-24).
	WritesLate bool
	// Trust is set for a client that runs only the hooks a config file of
	// its own trusts (Codex CLI, IN-20): install and uninstall then record
	// and take back that trust as well.
	Trust *Trust
	// Own is set for a client whose hooks file is compact-guard's own,
	// written whole rather than edited in place (Copilot CLI, IN-41 to
	// IN-48): install and uninstall are then the client's.
	Own *OwnFile
	// Layout is how audit finds and judges the client's sessions: where
	// they lie in its folder, their ids, whether a pointer reached the
	// model (AU-14 to AU-28).
	Layout audit.Layout
	// Sessions is the folder audit reads the client's sessions from
	// (AU-14); nil: Claude Code's projects, which audit is given.
	Sessions func(h settings.Host) (string, error)
	// Pointer says, in the client's terms, what audit knows of whether
	// compaction c's pointer reached the model (AU-3, AU-15): a whole
	// verdict when the client's records settle it (snap names the
	// snapshot), else how the pointer went and a note to add; nil: Claude
	// Code's words ("pointer delivered").
	Pointer func(c audit.Compaction, snap string) (verdict, pointer, note string)
	// Hooks is what its hook runs do differently from Claude Code's.
	Hooks Hooks
}

// Trust is how install and uninstall keep the trust of a client that runs
// only the hooks its config file trusts (IN-20 to IN-22, IN-31); the edit
// itself is settings' (PlanTrust, TrustEdit).
type Trust struct {
	// Who is the client as install's lines name it ("Codex").
	Who string
	// Config is the file the trust is recorded in.
	Config func(h settings.Host) (string, error)
	// Trusts reads config and tells the handlers of the hooks file at path
	// it trusts as they stand, whose flags install carries over (IN-31).
	Trusts func(config, path string) (func(settings.Handler) bool, error)
	// ProjectNote is what install says when config does not trust the
	// project whose hooks file is path, "" when it does or cannot tell.
	ProjectNote func(config, path string) string
}

// Name is the client's name on --agent and in its sessions' records.
func (c *Client) Name() settings.Agent { return c.Settings.Agent }

// claude is Claude Code's row, the baseline the shared code is written
// for.
var claude = &Client{Settings: settings.ClientOf(settings.AgentClaude), Format: transcript.FormatClaude}

// all is the table of clients, Claude Code's first, then each registered
// in the order help names them.
var all = []*Client{claude}

// Register adds clients to the table, in order, and hands each lower
// package the part of it that package asks about. The clients package
// calls it once, while the program starts.
func Register(cs ...*Client) {
	for _, c := range cs {
		all = append(all, c)
		settings.Register(c.Settings)
		if c.Reader != nil {
			transcript.Register(c.Format, c.Reader)
		}
		name := string(c.Name())
		if c.Layout.Title != "" {
			audit.Register(c.Format, c.Layout)
		}
		selectsnap.Orders[name] = c.Order
		if c.NoContextRecorded {
			selectsnap.NoContextRecorded[c.Format] = true
		}
		if c.EscapesBrackets {
			restore.EscapesBrackets[name] = true
		}
	}
}

// All lists the clients, Claude Code's first, in the order help names
// them.
func All() []*Client { return all }

// Of is the client named a; Claude Code's for "" or a name no client has.
func Of(a settings.Agent) *Client {
	for _, c := range all {
		if c.Name() == a {
			return c
		}
	}
	return claude
}

// OwnFile installs and uninstalls a hooks file that is compact-guard's
// own.
type OwnFile struct {
	Install   func(r Request) error
	Uninstall func(r Request) error
}

// Request is what install or uninstall was asked, as the client's own
// install needs it.
type Request struct {
	// Exe is the binary to register (install), or the running binary,
	// "" when unknown (uninstall).
	Exe string
	// Scope is --scope; Settings an explicit file (--settings), which
	// wins over it.
	Scope, Settings string
	Host            settings.Host
	DryRun          bool
	// Out and ErrOut are where the command's lines and notes go.
	Out, ErrOut io.Writer
}

// OfFormat is the client whose transcripts are of format f; Claude Code's
// for a format no client has.
func OfFormat(f transcript.Format) *Client {
	for _, c := range all {
		if c.Format == f {
			return c
		}
	}
	return claude
}
