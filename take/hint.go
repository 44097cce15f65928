package take

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/restore"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript"
)

// EnvHint turns the summary hint off where a flag cannot reach: the "env"
// block of Claude Code's settings.json hands it to every hook (PC-31).
const EnvHint = "COMPACT_GUARD_HINT"

// HintEnv reads COMPACT_GUARD_HINT: unset, empty, "on", "true", "1" or
// "yes" leave the hint on; "off", "false", "0" or "no" turn it off. Any
// other value turns it off too, and known is false: a variable set at all
// says the user meant to configure it, and printing less is the safe
// reading.
func HintEnv(v string) (on, known bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "on", "true", "1", "yes":
		return true, true
	case "off", "false", "0", "no":
		return false, true
	}
	return false, false
}

// The log's hint= values (PC-20): printed, or why not.
const (
	hintPrinted  = "printed"
	hintOffFlag  = "off:flag"
	hintOffEnv   = "off:env"
	hintNoFlags  = "none:flags"
	hintNoEvent  = "none:payload"
	hintTooLong  = "none:too-long"
	hintNotWrote = "none:write"
)

// summaryHint is the hint this run prints for the record just saved at
// mdPath, or "" and why not (PC-27, PC-31, PC-32): only for a Claude Code
// session whose payload parsed as PreCompact's, with its flags as written
// and neither --no-hint nor COMPACT_GUARD_HINT=off.
func summaryHint(opts *Options, rec *snapshot.Record, p hookio.Payload, perr error, mdPath string) (text, why, warning string) {
	if opts.NoHint {
		return "", hintOffFlag, ""
	}
	if on, known := HintEnv(opts.Getenv(EnvHint)); !on {
		if !known {
			warning = fmt.Sprintf("%s=%q is not on or off; the summary hint is off", EnvHint, opts.Getenv(EnvHint))
		}
		return "", hintOffEnv, warning
	}
	if opts.FlagsDropped {
		// The flags as written may hold --no-hint.
		return "", hintNoFlags, ""
	}
	if perr != nil || p.HookEventName != "PreCompact" {
		return "", hintNoEvent, ""
	}
	if rec.Agent != string(transcript.FormatClaude) {
		return "", "none:" + hookio.LogValue(rec.Agent), ""
	}
	if abs, err := filepath.Abs(mdPath); err == nil {
		mdPath = abs
	}
	projectDir := opts.Getenv("CLAUDE_PROJECT_DIR")
	if projectDir == "" && rec.Git != nil {
		projectDir = rec.Git.Root
	}
	text = restore.Hint(restore.HintInput{Record: rec, MDPath: mdPath, ProjectDir: projectDir, Lang: opts.Lang})
	if text == "" {
		return "", hintTooLong, ""
	}
	return text, hintPrinted, ""
}

// printHint writes the hint on stdout as a step of ctx, the save phase
// (PC-33): once the deadline of that phase has passed nothing is written.
// It returns the log's hint= value and a warning, if any.
func printHint(ctx context.Context, opts *Options, rec *snapshot.Record, p hookio.Payload, perr error, mdPath string) (string, string) {
	text, why, warning := summaryHint(opts, rec, p, perr, mdPath)
	if text == "" {
		return why, warning
	}
	werr, berr := hookio.Bounded(ctx, opts.BeforeStep, "printing the summary hint", func() error {
		// A step given up may still get here: it writes nothing then.
		if err := ctx.Err(); err != nil {
			return err
		}
		_, err := opts.Out.Write([]byte(text + "\n"))
		return err
	})
	if berr != nil {
		werr = berr
	}
	if werr != nil {
		return hintNotWrote, "summary hint: " + werr.Error()
	}
	return why, warning
}
