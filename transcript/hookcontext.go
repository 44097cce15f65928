package transcript

import (
	"context"
	"slices"

	"github.com/compact-guard/compact-guard/transcript/facts"
)

// HookContext is a hook's context a client recorded as given to the model
// (specs/audit.md AU-15); see facts.HookContext.
type HookContext = facts.HookContext

// A HookContextReader is a Reader whose client records in the transcript
// the hook contexts it gave the model, which File.HookContexts reads back
// (AU-15). Only Codex CLI does: Claude Code's are Compaction.Contexts, and
// Qwen Code records none (AU-16).
type HookContextReader interface {
	Reader
	// HookContextNeedle finds the lines that may hold hook contexts; the
	// byte before it must be '"'.
	HookContextNeedle() []byte
	// HookContexts are the hook contexts a line holds, in the line's
	// order, with Offset unset.
	HookContexts(line []byte) []HookContext
}

// HookContexts returns, oldest first, the hook contexts recorded in lines
// that start in [from, to); a format whose reader is no HookContextReader
// gives nil.
func (f *File) HookContexts(ctx context.Context, from, to int64) ([]HookContext, error) {
	r, ok := f.format.reader().(HookContextReader)
	if !ok {
		return nil, nil
	}
	var out []HookContext
	err := f.scanBack(ctx, from, to, r.HookContextNeedle(), func(start int64, line []byte) bool {
		// The newest line comes first here, so its contexts are added in
		// reverse, and the whole list is reversed at the end.
		hcs := r.HookContexts(line)
		for i := len(hcs) - 1; i >= 0; i-- {
			hcs[i].Offset = start
			out = append(out, hcs[i])
		}
		return false
	})
	slices.Reverse(out)
	return out, err
}
